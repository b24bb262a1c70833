package classify

import (
	"slices"

	"github.com/casebook/casebook"
)

// tagComponent names the kind of system a technology is, for the tags that
// are one kind only: a post that names kubelet among its tags ran through the
// container runtime even when it never says "runtime".
var tagComponent = map[string]string{
	"kubelet": "container-runtime", "containerd": "container-runtime", "docker": "container-runtime",
	"runc": "container-runtime", "cri-o": "container-runtime", "podman": "container-runtime",
	"jwt": "auth", "kerberos": "auth", "oauth": "auth", "ldap": "auth", "saml": "auth", "keycloak": "auth",
	"okta": "auth", "active-directory": "auth",
	"hdfs": "storage", "ceph": "storage", "minio": "storage", "s3": "storage", "ebs": "storage", "gcs": "storage",
	"elasticsearch": "search", "opensearch": "search",
	"redis": "cache", "memcached": "cache", "valkey": "cache", "elasticache": "cache",
	"mysql": "database", "postgresql": "database", "mongodb": "database", "mariadb": "database", "rds": "database",
	"cassandra": "database", "clickhouse": "database", "dynamodb": "database", "tidb": "database", "cockroachdb": "database",
	"kafka": "message-queue", "rabbitmq": "message-queue", "pulsar": "message-queue", "activemq": "message-queue", "sqs": "message-queue",
	"haproxy": "load-balancer", "traefik": "load-balancer", "elb": "load-balancer",
	"coredns": "dns", "route53": "dns",
	"cloudfront": "cdn", "fastly": "cdn", "akamai": "cdn",
	"github-actions": "ci-cd", "jenkins": "ci-cd", "gitlab-ci": "ci-cd", "argocd": "ci-cd", "circleci": "ci-cd",
	"terraform": "configuration-management", "ansible": "configuration-management", "puppet": "configuration-management",
	"chef": "configuration-management", "saltstack": "configuration-management",
	"prometheus": "monitoring", "grafana": "monitoring", "datadog": "monitoring", "cloudwatch": "monitoring",
	"zabbix": "monitoring", "alertmanager": "monitoring",
}

// componentsFromTags adds the components the leading tags name, up to the cap.
func componentsFromTags(comps, tags []string, n int) []string {
	for _, t := range tags[:min(len(tags), n)] {
		c, ok := tagComponent[t]
		if ok && casebook.ValidComponent(c) && !slices.Contains(comps, c) && len(comps) < maxComponents {
			comps = append(comps, c)
		}
	}
	return comps
}
