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
	// session 6: the table's other one-kind technologies, from general
	// knowledge of what each is
	"aurora": "database", "cloud-sql": "database", "spanner": "database", "cosmosdb": "database", "azure-sql": "database",
	"sql-server": "database", "percona": "database", "galera": "database", "yugabytedb": "database",
	"planetscale": "database", "neo4j": "database", "couchdb": "database", "scylladb": "database",
	"foundationdb": "database", "greenplum": "database", "vertica": "database", "oceanbase": "database",
	"polardb": "database", "tarantool": "database", "ydb": "database", "postgrespro": "database", "patroni": "database",
	"pgbouncer": "database", "proxysql": "database", "vitess": "database", "pgpool": "database", "arangodb": "database",
	"dgraph": "database", "janusgraph": "database", "questdb": "database", "influxdb": "database",
	"timescaledb": "database", "hbase": "database", "bigtable": "database",
	"memorystore": "cache", "keydb": "cache", "redis-sentinel": "cache",
	"nats": "message-queue", "rocketmq": "message-queue", "redpanda": "message-queue", "kinesis": "message-queue",
	"pubsub": "message-queue", "msk": "message-queue", "zeromq": "message-queue", "sidekiq": "message-queue",
	"celery": "message-queue", "resque": "message-queue", "bullmq": "message-queue",
	"solr": "search", "meilisearch": "search", "typesense": "search", "algolia": "search",
	"efs": "storage", "azure-blob": "storage", "glusterfs": "storage", "seaweedfs": "storage", "portworx": "storage",
	"openebs": "storage", "backblaze": "storage", "cloudflare-r2": "storage", "nfs": "storage", "iscsi": "storage",
	"zfs": "storage", "lvm": "storage", "mdadm": "storage", "nvme": "storage", "drbd": "storage",
	"envoy": "load-balancer", "ingress-nginx": "load-balancer", "metallb": "load-balancer", "keepalived": "load-balancer",
	"apisix": "load-balancer", "haproxy-ingress": "load-balancer", "emissary": "load-balancer", "gloo": "load-balancer",
	"netscaler": "load-balancer",
	"cloud-dns": "dns", "powerdns": "dns", "dnsmasq": "dns", "nodelocaldns": "dns", "kube-dns": "dns", "bind9": "dns",
	"ns1": "dns", "systemd-resolved": "dns", "external-dns": "dns", "dnssec": "dns",
	"cdn": "cdn", "azure-front-door": "cdn",
	"azure-ad": "auth", "auth0": "auth", "cognito": "auth", "onelogin": "auth", "sso": "auth",
	"cert-manager": "certificates", "letsencrypt": "certificates", "certbot": "certificates",
	"tekton": "ci-cd", "spinnaker": "ci-cd", "flux": "ci-cd", "buildkite": "ci-cd", "travis-ci": "ci-cd",
	"teamcity": "ci-cd", "drone-ci": "ci-cd", "azure-devops": "ci-cd", "cloud-build": "ci-cd",
	"pulumi": "configuration-management", "cloudformation": "configuration-management", "aws-cdk": "configuration-management",
	"loki": "monitoring", "thanos": "monitoring", "jaeger": "monitoring", "opentelemetry": "monitoring",
	"victoriametrics": "monitoring", "sentry": "monitoring", "new-relic": "monitoring", "splunk": "monitoring",
	"nagios": "monitoring", "opsgenie": "monitoring", "pagerduty": "monitoring", "graylog": "monitoring",
	"signoz": "monitoring", "honeycomb-io": "monitoring", "dynatrace": "monitoring", "appdynamics": "monitoring",
	"skywalking": "monitoring", "zipkin": "monitoring", "statsd": "monitoring", "telegraf": "monitoring",
	"collectd": "monitoring", "uptime-kuma": "monitoring", "icinga": "monitoring", "graphite": "monitoring",
	"uptimerobot": "monitoring", "pingdom": "monitoring", "stackdriver": "monitoring", "promtail": "monitoring",
	"node-exporter": "monitoring", "kube-state-metrics": "monitoring", "blackbox-exporter": "monitoring",
	"pushgateway": "monitoring", "grafana-agent": "monitoring", "papertrail": "monitoring", "loggly": "monitoring",
	"sumologic": "monitoring", "instana": "monitoring", "lightstep": "monitoring", "victorialogs": "monitoring",
	"gvisor": "container-runtime", "kata-containers": "container-runtime", "crictl": "container-runtime",
	"k3s": "kubernetes", "k0s": "kubernetes", "minikube": "kubernetes", "microk8s": "kubernetes",
	"openshift": "kubernetes", "kubeadm": "kubernetes", "kops": "kubernetes", "eksctl": "kubernetes",
	"cluster-autoscaler": "kubernetes", "karpenter": "kubernetes", "hpa": "kubernetes", "keda": "kubernetes",
	"linux-kernel": "linux-kernel", "cgroups": "linux-kernel", "ebpf": "linux-kernel", "oom-killer": "linux-kernel",
	"page-cache": "linux-kernel", "io-uring": "linux-kernel", "epoll": "linux-kernel", "sysctl": "linux-kernel",
	"cloud-init": "node-os-image", "bottlerocket": "node-os-image", "coreos": "node-os-image",
	"talos-linux": "node-os-image", "amazon-linux": "node-os-image",
	"bgp": "network", "ospf": "network", "vxlan": "network", "mpls": "network", "lacp": "network", "vlan": "network",
	"calico": "network", "cilium": "network", "flannel": "network", "aws-vpc-cni": "network", "wireguard": "network",
	"openvpn": "network", "ipsec": "network", "iptables": "network", "nftables": "network", "ipvs": "network",
	"conntrack": "network", "direct-connect": "network", "transit-gateway": "network", "juniper": "network",
	"arista": "network", "cisco": "network", "mikrotik": "network", "ubiquiti": "network", "fortinet": "network",
	"palo-alto": "network", "pfsense": "network", "opnsense": "network", "tailscale": "network", "zerotier": "network",
	"anycast": "network", "multus": "network", "infiniband": "network",
	"stripe": "third-party-api", "paypal": "third-party-api", "braintree": "third-party-api", "adyen": "third-party-api",
	"twilio": "third-party-api", "sendgrid": "third-party-api", "mailgun": "third-party-api",
	"mailchimp": "third-party-api", "launchdarkly": "third-party-api", "zendesk": "third-party-api",
	"salesforce": "third-party-api", "shopify": "third-party-api", "hubspot": "third-party-api",
	"ec2": "compute", "gce": "compute", "lambda": "compute", "fargate": "compute", "cloud-run": "compute",
	"app-engine": "compute", "cloud-functions": "compute", "azure-functions": "compute", "firecracker": "compute",
	"kvm": "compute", "qemu": "compute", "xen": "compute", "vmware": "compute", "proxmox": "compute",
	"hyper-v": "compute", "graviton": "compute",
	"firefox": "client", "safari": "client", "android": "client", "ios": "client",
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
