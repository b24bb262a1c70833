package casebook

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// TagAliases is the tag vocabulary: slug -> the ways posts write it, in
// English, Russian and Chinese scripts. The slug itself always matches.
// Matching folds case, except for aliases written with a leading "=" which
// match only as written ("=Go" is the language, "go" is a verb).
var TagAliases = map[string][]string{
	// orchestration and containers
	"kubernetes":   {"k8s", "kube", "кубер", "кубернетес", "кубернетис", "k8s集群"},
	"eks":          {"amazon eks", "aws eks", "elastic kubernetes service"},
	"gke":          {"google kubernetes engine"},
	"aks":          {"azure kubernetes service"},
	"openshift":    {"опеншифт"},
	"docker":       {"докер"},
	"containerd":   {},
	"helm":         {"хелм"},
	"argocd":       {"argo cd", "argo-cd"},
	"istio":        {},
	"envoy":        {},
	"service-mesh": {"service mesh", "сервис-меш", "服务网格"},
	"coredns":      {"core dns"},
	"kiam":         {},
	"aws-vpc-cni":  {"vpc-cni", "vpc cni", "amazon-vpc-cni", "aws-node"},
	"cgroups":      {"cgroup", "cgroups v2", "cgroupv2", "контрольные группы"},
	"traefik":      {"трафик-прокси"},
	"nginx":        {"энжинкс", "нгинкс"},
	"haproxy":      {},
	// clouds
	"aws":          {"amazon web services", "амазон", "亚马逊云"},
	"gcp":          {"google cloud", "google cloud platform"},
	"azure":        {"microsoft azure", "азур"},
	"ec2":          {"amazon ec2"},
	"ebs":          {},
	"s3":           {"amazon s3"},
	"rds":          {"amazon rds"},
	"elasticache":  {"amazon elasticache"},
	"cloudwatch":   {"cloud watch"},
	"cloudflare":   {"клаудфлер"},
	"github":       {"гитхаб"},
	"github-pages": {"github pages", "gh-pages"},
	"gitlab":       {"гитлаб"},
	// data
	"postgresql":    {"postgres", "pg", "постгрес", "постгря", "постгре", "pgsql"},
	"mysql":         {"мускул", "майскл"},
	"mariadb":       {},
	"mongodb":       {"mongo", "монго"},
	"redis":         {"редис", "редиска"},
	"valkey":        {},
	"memcached":     {"memcache"},
	"elasticsearch": {"elastic search", "эластик", "эластиксерч"},
	"opensearch":    {},
	"kafka":         {"кафка"},
	"rabbitmq":      {"rabbit"},
	"etcd":          {},
	"cassandra":     {},
	"clickhouse":    {"кликхаус"},
	"leveldb":       {},
	"rocksdb":       {},
	"protobuf":      {"protocol buffers", "protocol buffer", "pb协议"},
	// languages and runtimes
	"python":     {"python2", "python3", "питон", "пайтон"},
	"java":       {"=Java", "джава"},
	"jvm":        {},
	"go":         {"=Go", "golang"},
	"rust":       {"=Rust", "раст"},
	"nodejs":     {"node.js", "нода"},
	"typescript": {"тайпскрипт"},
	"cpp":        {"c++", "=C++"},
	"php":        {},
	"kotlin":     {"котлин"},
	"ruby":       {"=Ruby"},
	"log4j":      {"log4shell", "log4j2"},
	"jemalloc":   {},
	"gin":        {"=Gin"},
	"curl":       {},
	"libcurl":    {"libcurl库"},
	"http":       {"=HTTP", "http/1.1", "http协议"},
	"tls":        {"ssl", "=TLS", "=SSL", "https证书"},
	"grpc":       {},
	// operating systems and the node
	"linux-kernel": {"linux kernel", "kernel", "ядро linux", "ядра linux", "内核", "linux内核"},
	"linux":        {"линукс"},
	"ubuntu":       {"убунту"},
	"centos":       {"центос"},
	"redhat":       {"red hat", "rhel", "红帽", "редхат"},
	"debian":       {"дебиан"},
	"cloud-init":   {"cloudinit"},
	"systemd":      {},
	"fstab":        {"/etc/fstab"},
	"strace":       {},
	// delivery and observability
	"terraform":  {"терраформ"},
	"ansible":    {"ансибл"},
	"jenkins":    {"дженкинс"},
	"prometheus": {"прометей", "прометеус"},
	"grafana":    {"графана"},
	"datadog":    {},
	"pagerduty":  {},
	"git":        {"=Git", "гит"},
	"cli":        {"=CLI", "command line", "командная строка", "命令行"},
	// general technical vocabulary: names a post may use that are not
	// specific to any one incident (kept alphabetical within each group)
	// orchestration, virtualisation, the node
	"calico": {}, "cilium": {}, "consul": {}, "cri-o": {"crio"}, "docker-compose": {"docker compose"},
	"firecracker": {}, "flannel": {}, "kube-proxy": {}, "kubectl": {}, "kubelet": {}, "kvm": {}, "linkerd": {},
	"nomad": {}, "openstack": {}, "podman": {}, "proxmox": {}, "qemu": {}, "rancher": {"ранчер"}, "runc": {},
	"vmware": {"vsphere", "esxi"}, "xen": {},
	// networking and protocols
	"bgp": {}, "dhcp": {}, "dns": {"=DNS"}, "http2": {"http/2", "=HTTP/2"}, "http3": {"http/3", "quic"},
	"iptables": {}, "ipvs": {}, "conntrack": {}, "nftables": {}, "ospf": {}, "tcp": {"=TCP"}, "udp": {"=UDP"},
	"vpn": {"=VPN", "впн"}, "wireguard": {}, "openvpn": {}, "ipsec": {}, "websocket": {"websockets"},
	"vxlan": {}, "anycast": {}, "ntp": {"=NTP", "chrony", "chronyd"},
	// data and messaging
	"activemq": {}, "airflow": {}, "aurora": {"amazon aurora"}, "bigquery": {}, "ceph": {}, "celery": {},
	"cockroachdb": {"cockroach"}, "dynamodb": {"dynamo db"}, "flink": {}, "hadoop": {"хадуп"}, "hbase": {},
	"hdfs": {}, "hive": {"=Hive"}, "influxdb": {}, "kibana": {}, "logstash": {}, "fluentd": {}, "fluent-bit": {"fluentbit"},
	"minio": {}, "nats": {"=NATS"}, "oracle": {"=Oracle"}, "patroni": {}, "pgbouncer": {}, "presto": {}, "trino": {},
	"proxysql": {}, "pulsar": {"=Pulsar"}, "sidekiq": {}, "spark": {"=Spark", "apache spark"}, "sqlite": {"sqlite3"},
	"sql-server": {"sql server", "mssql"}, "tidb": {}, "tikv": {}, "timescaledb": {}, "vitess": {}, "zookeeper": {"zk"},
	"loki": {"=Loki"}, "thanos": {}, "jaeger": {}, "opentelemetry": {"otel"}, "victoriametrics": {},
	// languages, runtimes, frameworks, servers
	"javascript": {"=JavaScript", "джаваскрипт"}, "csharp": {"c#", "=C#"}, "dotnet": {".net", "=.NET"}, "scala": {},
	"erlang": {}, "elixir": {}, "lua": {"=Lua"}, "perl": {"=Perl"}, "bash": {"=Bash"}, "powershell": {},
	"django": {}, "flask": {"=Flask"}, "fastapi": {}, "rails": {"ruby on rails", "=Rails"}, "spring": {"=Spring", "spring boot"},
	"laravel": {}, "react": {"=React"}, "nextjs": {"next.js"}, "streamlit": {}, "gunicorn": {}, "uwsgi": {},
	"tomcat": {}, "jetty": {}, "caddy": {}, "iis": {"=IIS"}, "varnish": {}, "squid": {"=Squid"}, "openssl": {},
	"glibc": {}, "openjdk": {"jdk"}, "ebpf": {"bpf"}, "tcpdump": {}, "wireshark": {}, "gdb": {}, "perf": {"=perf"},
	"selinux": {}, "ext4": {}, "xfs": {"=XFS"}, "zfs": {}, "btrfs": {}, "lvm": {"=LVM"}, "cron": {"crontab", "cronjob"},
	// auth and directories
	"active-directory": {"active directory", "=AD"}, "jwt": {"=JWT", "json web token"}, "kerberos": {"керберос"},
	"keycloak": {}, "ldap": {}, "oauth": {"oauth2"}, "okta": {}, "saml": {}, "group-policy": {"=GPO", "group policy"},
	"letsencrypt": {"let's encrypt", "lets encrypt"},
	// operating systems and desktop software
	"windows": {"=Windows", "виндовс"}, "windows-server": {"windows server"}, "macos": {"mac os", "=OS X"},
	"freebsd": {}, "alpine": {"alpine linux"}, "fedora": {}, "amazon-linux": {"amazon linux", "al2"},
	"icloud": {"icloud drive"}, "dropbox": {}, "onedrive": {}, "google-drive": {"google drive"},
	"firefox": {"фаерфокс"}, "chrome": {"=Chrome", "chromium"}, "safari": {"=Safari"},
	"telegram": {"телеграм", "телеграмм"}, "slack": {"=Slack"}, "jira": {}, "confluence": {"=Confluence"},
	"sap": {"=SAP"}, "1c": {"1с", "=1C"}, "wordpress": {}, "hexo": {}, "hugo": {"=Hugo"}, "jekyll": {},

	// delivery
	"github-actions": {"github actions", "gh actions"}, "gitlab-ci": {"gitlab ci"}, "circleci": {}, "buildkite": {},
	"argo-workflows": {"argo workflows", "argo workflow"}, "flux": {"fluxcd"}, "spinnaker": {}, "tekton": {},
	"bazel": {}, "maven": {}, "gradle": {}, "npm": {"=npm"}, "yarn": {"=Yarn"}, "pip": {"=pip"}, "cargo": {"=Cargo"},
	"git-lfs": {"git lfs"}, "terraform-cloud": {"terraform cloud"}, "pulumi": {}, "packer": {"=Packer"},
	"chef": {"=Chef"}, "puppet": {"=Puppet"}, "saltstack": {"salt stack"}, "cloudformation": {},
	"pypi": {}, "docker-hub": {"docker hub", "dockerhub"},
	// clouds and their services
	"lambda": {"aws lambda"}, "fargate": {}, "ecs": {"amazon ecs"}, "route53": {"route 53"}, "cloudfront": {},
	"elb": {"=ELB", "=ALB", "=NLB", "application load balancer"}, "iam": {"=IAM"}, "sqs": {"=SQS"}, "sns": {"=SNS"},
	"kinesis": {}, "vpc": {"=VPC"}, "gcs": {"google cloud storage"}, "pubsub": {"pub/sub"}, "cloud-run": {"cloud run"},
	"aliyun": {"alibaba cloud", "阿里云"}, "tencent-cloud": {"腾讯云"}, "huawei-cloud": {"华为云"},
	"yandex-cloud": {"yandex cloud", "яндекс облако", "яндекс.облако"}, "hetzner": {}, "digitalocean": {},
	"ovh": {"=OVH"}, "fastly": {}, "akamai": {}, "vercel": {}, "netlify": {}, "heroku": {},
	"sentry": {"=Sentry"}, "new-relic": {"new relic", "newrelic"}, "splunk": {}, "nagios": {}, "zabbix": {"заббикс"},
	"alertmanager": {}, "opsgenie": {},
	// more of the same general vocabulary: frameworks and servers, storage
	// and hosts, mail and messaging, managed services (added from general
	// knowledge of what posts name, no gold post in view)
	"deno": {}, "php-fpm": {"php fpm"}, "vue": {"vue.js", "vuejs"}, "angular": {"angularjs"}, "webpack": {},
	"graphql": {}, "httpd": {"apache httpd", "apache2"}, "ingress-nginx": {"nginx ingress", "nginx-ingress"},
	"kustomize": {}, "metallb": {}, "debezium": {}, "kafka-connect": {"kafka connect"}, "zeromq": {"zmq"},
	"mqtt": {}, "ssh": {"=SSH", "openssh"}, "nfs": {"=NFS"}, "smtp": {"=SMTP"},
	"imap": {"=IMAP"}, "twilio": {}, "sendgrid": {}, "mailgun": {}, "keepalived": {}, "corosync": {}, "drbd": {},
	"nvme": {"=NVMe"}, "hyper-v": {"hyperv"}, "android": {}, "ios": {"=iOS"}, "bitbucket": {},
	"efs": {"amazon efs", "=EFS"}, "kms": {"aws kms", "=KMS"}, "gce": {"compute engine", "google compute engine"},
	"cloud-sql": {"cloud sql"}, "spanner": {"cloud spanner"}, "cosmosdb": {"cosmos db", "azure cosmos db"},
	"memorystore": {}, "app-engine": {"app engine", "google app engine"}, "cloud-functions": {"google cloud functions"},
	"azure-functions": {"azure functions"}, "step-functions": {"step functions", "aws step functions"},
	"eventbridge": {}, "msk": {"amazon msk"}, "redshift": {}, "sagemaker": {}, "linode": {}, "fly-io": {"fly.io"},
	"supabase": {}, "firebase": {}, "planetscale": {}, "yugabytedb": {"yugabyte"}, "pgpool": {"pgpool-ii"},
	"redis-sentinel": {"redis sentinel"},
	// domains
	"ethereum": {"эфириум"}, "bitcoin": {"биткоин", "比特币"},
	"blockchain": {"блокчейн", "区块链"},
}

var (
	tagIndexOnce sync.Once
	tagIndex     map[string]string // folded alias or slug -> slug
)

func buildTagIndex() {
	tagIndex = map[string]string{}
	for slug, aliases := range TagAliases {
		tagIndex[slug] = slug
		for _, a := range aliases {
			tagIndex[strings.ToLower(strings.TrimPrefix(a, "="))] = slug
		}
	}
}

// NormalizeTag maps a tag as written ("K8s", "Постгрес", "红帽") to its slug.
// ok is false for a tag the table does not know.
func NormalizeTag(s string) (string, bool) {
	tagIndexOnce.Do(buildTagIndex)
	k := strings.ToLower(strings.TrimSpace(s))
	k = strings.TrimPrefix(k, "#")
	if slug, ok := tagIndex[k]; ok {
		return slug, true
	}
	k = strings.NewReplacer(" ", "-", "_", "-").Replace(k)
	slug, ok := tagIndex[k]
	return slug, ok
}

// TagSlug is the slug a reviewer's tag is stored under. Tags are an open
// vocabulary (vocabulary.md): an alias of the table maps to its slug
// ("k8s" -> kubernetes), and any other name already written as a slug
// ("searxng", "crates.io") is kept as it is, lower-cased, so that a tag the
// classifier only suggested can be adopted. Free text is not a slug.
func TagSlug(s string) (string, bool) {
	if slug, ok := NormalizeTag(s); ok {
		return slug, true
	}
	k := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "#")))
	if len(k) > 64 || !tagSlugRe.MatchString(k) {
		return "", false
	}
	return k, true
}

var tagSlugRe = regexp.MustCompile(`^[a-z0-9][a-z0-9.+-]*$`)

// TagSlugs returns every tag slug, sorted.
func TagSlugs() []string {
	out := make([]string, 0, len(TagAliases))
	for slug := range TagAliases {
		out = append(out, slug)
	}
	sort.Strings(out)
	return out
}
