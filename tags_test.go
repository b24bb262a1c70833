package casebook

import (
	"slices"
	"strings"
	"testing"
)

func TestNormalizeTag(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"k8s", "kubernetes", true},
		{"K8S", "kubernetes", true},
		{"кубер", "kubernetes", true},
		{"K8S集群", "kubernetes", true},
		{"Постгрес", "postgresql", true},
		{"PG", "postgresql", true},
		{"红帽", "redhat", true},
		{"Red Hat", "redhat", true},
		{"#Redis", "redis", true},
		{"Cloud_Init", "cloud-init", true},
		{"Go", "go", true},
		{"Cloud SQL", "cloud-sql", true},
		{"nginx ingress", "ingress-nginx", true},
		{"Apache HTTPD", "httpd", true},
		{"Fly.io", "fly-io", true},
		// other separators, or none, than the table's ("let's encrypt")
		{"lets_encrypt", "letsencrypt", true},
		{"Let’s Encrypt", "letsencrypt", true},
		{"Spring_Boot", "spring", true}, // "spring boot" is spring's alias
		{"frobnicator", "", false},
		{"", "", false},
	}
	for _, tc := range cases {
		got, ok := NormalizeTag(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("NormalizeTag(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTagAliasesUnambiguous holds every alias to one slug, so the table
// cannot silently send one spelling to two tags.
func TestTagAliasesUnambiguous(t *testing.T) {
	seen := map[string]string{}
	for slug, aliases := range TagAliases {
		for _, a := range append([]string{slug}, aliases...) {
			k := a
			if len(k) > 0 && k[0] == '=' {
				k = k[1:]
			}
			if prev, ok := seen[strings.ToLower(k)]; ok && prev != slug {
				t.Errorf("alias %q maps to %q and %q", a, prev, slug)
			}
			seen[strings.ToLower(k)] = slug
		}
	}
	if s := TagSlugs(); !slices.IsSorted(s) || len(s) != len(TagAliases) {
		t.Errorf("TagSlugs not sorted or incomplete")
	}
}

// Every slug is what vocabulary.md allows (English, lower case, digits and
// hyphens), and the general vocabulary's aliases in every script resolve.
func TestTagSlugsAndGeneralVocabulary(t *testing.T) {
	for _, slug := range TagSlugs() {
		for _, r := range slug {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				t.Errorf("slug %q has %q", slug, r)
			}
		}
	}
	for in, want := range map[string]string{"Телеграм": "telegram", "阿里云": "aliyun", "GitHub Actions": "github-actions",
		"Active Directory": "active-directory", "HTTP/2": "http2", "git lfs": "git-lfs", "ZooKeeper": "zookeeper"} {
		if got, ok := NormalizeTag(in); !ok || got != want {
			t.Errorf("NormalizeTag(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// TestTagSlug: the table's aliases map to slugs, a new name written as a
// slug is kept (tags are an open vocabulary), free text is refused.
func TestTagSlug(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"k8s", "kubernetes", true},
		{"Постгрес", "postgresql", true},
		{"SearXNG", "searxng", true},
		{"crates.io", "crates-io", true},
		{"widgets.io", "widgets.io", true},
		{"#envoy-gateway", "envoy-gateway", true},
		{"no such tag", "", false},
		{"tag/with/slash", "", false},
		{"", "", false},
		{"数据库连接池", "", false},
	} {
		got, ok := TagSlug(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("TagSlug(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTagAliasesSession5: the clouds, managed services and Russian case
// forms added from general knowledge resolve in every script.
func TestTagAliasesSession5(t *testing.T) {
	for in, want := range map[string]string{
		"Google Cloud": "gcp", "гугл клауд": "gcp", "谷歌云": "gcp", "微软云": "azure", "亚马逊云科技": "aws",
		"Кафке": "kafka", "Кубере": "kubernetes", "Постгреса": "postgresql", "Редисе": "redis", "Докере": "docker",
		"Графане": "grafana", "Tencent Kubernetes Engine": "tke", "腾讯云容器服务": "tke", "百度云": "baidu-cloud",
		"Yandex Cloud": "yandex-cloud", "Селектел": "selectel", "VK Cloud": "vk-cloud", "crates.io": "crates-io",
		"Azure DevOps": "azure-devops", "Entra ID": "azure-ad", "Cloud Bigtable": "bigtable", "CDN": "cdn",
		"内容分发网络": "cdn", "сеть доставки контента": "cdn", "cert-manager": "cert-manager", "OOM killer": "oom-killer",
		"io_uring": "io-uring", "Астра Линукс": "astra-linux", "银河麒麟": "kylin-os", "钉钉": "dingtalk",
		"Битрикс24": "bitrix24", "Open WebUI": "openwebui", "Apache SkyWalking": "skywalking",
	} {
		if got, ok := NormalizeTag(in); !ok || got != want {
			t.Errorf("NormalizeTag(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	// common words stay out of the table as slugs: they would tag every post
	for _, w := range []string{"kind", "bind", "swap", "express", "rest", "vault", "render", "status page", "lark"} {
		if slug, ok := NormalizeTag(w); ok {
			t.Errorf("NormalizeTag(%q) = %q: a common word is no tag", w, slug)
		}
	}
}

// TestTagAliasesSession6: the general technology names added in session 6
// resolve in every script they are written in.
func TestTagAliasesSession6(t *testing.T) {
	for in, want := range map[string]string{
		"Stripe": "stripe", "Amazon Cognito": "cognito", "Microsoft Teams": "microsoft-teams", "вотсап": "whatsapp",
		"quay.io": "quay", "Amazon ECR": "ecr", "Sealed Secrets": "sealed-secrets", "Percona Server": "percona",
		"Galera Cluster": "galera", "Apache Solr": "solr", "JupyterHub": "jupyter", "英伟达": "nvidia", "графит": "graphite",
		"node_exporter": "node-exporter", "Sumo Logic": "sumologic", "Nuxt.js": "nuxt", "Express.js": "expressjs",
		"Cloudflare R2": "cloudflare-r2", "Juniper Networks": "juniper", "FortiGate": "fortinet", "PAN-OS": "palo-alto",
		"Citrix ADC": "netscaler", "Talos Linux": "talos-linux", "Borg Backup": "borgbackup", "Spring Cloud": "spring-cloud",
		"企业微信": "wecom", "京东云": "jd-cloud", "七牛云": "qiniu", "火山引擎": "volcengine", "Postgres Pro": "postgrespro",
		"mail.ru": "mail-ru", "istiod": "istio", "слаке": "slack", "джира": "jira",
	} {
		if got, ok := NormalizeTag(in); !ok || got != want {
			t.Errorf("NormalizeTag(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
