package classify

import (
	"slices"
	"testing"
)

// A leading tag that is one kind of system names that component even when
// the words for the kind ("runtime", "认证", "аутентификация") are absent.
func TestComponentsFromTags(t *testing.T) {
	cases := []struct {
		name, md, want string
	}{
		{"en kubelet", "# Postmortem: kubelet kept recreating sandboxes\n\n## Root cause\n\nThe root cause was a kubelet bug: kubelet sorted sandboxes by a clock that went backwards.\n\n## Resolution\n\n- We restarted kubelet on every node.\n", "container-runtime"},
		{"ru kerberos", "# Разбор: отказ входа через Kerberos\n\n## Причина\n\nПричиной стал сбой Kerberos: билеты Kerberos выдавались с неверным временем.\n\n## Решение\n\n- Перезапустили службу.\n", "auth"},
		{"zh jwt", "# 故障复盘：JWT 校验失败\n\n## 根本原因\n\n根本原因是 JWT 的生效时间早于节点当前时间，JWT 校验因此失败。\n\n## 解决方案\n\n- 同步节点时间。\n", "auth"},
		{"en bgp", "# Postmortem: routes withdrawn at the edge\n\n## Root cause\n\nThe root cause was a BGP session reset: BGP withdrew every prefix of the region.\n\n## Resolution\n\n- We restored the sessions.\n", "network"},
		{"ru stripe", "# Разбор: не проходили платежи\n\n## Причина\n\nПричиной стали ошибки Stripe: Stripe отвечал 500 на каждый платёж.\n\n## Решение\n\n- Включили повтор запросов.\n", "third-party-api"},
		{"zh solr", "# 故障复盘：商品搜索超时\n\n## 根本原因\n\n根本原因是 Solr 的索引合并占满了 IO，Solr 查询全部超时。\n\n## 解决方案\n\n- 调整合并策略。\n", "search"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := classifyMarkdown(t, tc.md)
			if !slices.Contains(c.Components, tc.want) {
				t.Errorf("components %v (tags %v) lack %q", c.Components, c.Tags, tc.want)
			}
		})
	}
	if got := componentsFromTags([]string{"a", "b", "c", "d", "e"}, []string{"kubelet"}, 3); len(got) != 5 {
		t.Errorf("the cap of %d components is kept: %v", maxComponents, got)
	}
}

// The mapping of one tag per group of one-kind technologies.
func TestComponentTable(t *testing.T) {
	for tag, want := range map[string]string{"aurora": "database", "keydb": "cache", "nats": "message-queue",
		"glusterfs": "storage", "envoy": "load-balancer", "bind9": "dns", "cdn": "cdn", "auth0": "auth",
		"cert-manager": "certificates", "tekton": "ci-cd", "pulumi": "configuration-management", "loki": "monitoring",
		"gvisor": "container-runtime", "k3s": "kubernetes", "cgroups": "linux-kernel", "cloud-init": "node-os-image",
		"calico": "network", "twilio": "third-party-api", "ec2": "compute", "firefox": "client"} {
		if got := componentsFromTags(nil, []string{tag}, 1); !slices.Equal(got, []string{want}) {
			t.Errorf("componentsFromTags(%s) = %v, want [%s]", tag, got, want)
		}
	}
}
