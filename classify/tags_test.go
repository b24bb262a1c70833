package classify

import (
	"github.com/casebook/casebook/extract"
	"slices"
	"strings"
	"testing"
)

// TestTagParentPlatform: a managed service named in the title or the cause,
// or recurring, brings in the platform it runs on (EKS is AWS, GKE is GCP),
// and Russian case forms of a name count ("в Кафке", "Кафку").
func TestTagParentPlatform(t *testing.T) {
	for _, tc := range []struct{ name, md, want string }{
		{"en", "# Pods evicted on our EKS cluster\n\nOn Monday the EKS control plane stopped answering for an hour. " +
			"The root cause was a node group whose EKS launch template pointed at a deleted image.\n", "aws"},
		{"ru", "# Падение кластера GKE\n\nВ понедельник кластер GKE перестал отвечать на запросы. " +
			"Причиной стал пул узлов GKE, который ссылался на удалённый образ.\n", "gcp"},
		{"zh", "# TKE 集群节点异常\n\n周一 TKE 集群的节点全部变为不可用。根本原因是 TKE 节点池引用了一个已经删除的镜像。\n", "tencent-cloud"},
		{"ru-inflected", "# Очередь сообщений встала\n\nВ Кафке закончилось место на диске, и продюсеры начали получать ошибки. " +
			"Причина: в Кафке не было ограничения на размер логов. Кафку перезапустили после очистки.\n", "kafka"},
	} {
		tags := classifyMarkdown(t, tc.md).Tags
		if !slices.Contains(tags, tc.want) {
			t.Errorf("%s: tags = %v, want %s", tc.name, tags, tc.want)
		}
	}
}

// TestTagParentNotFromOneMention: a service named once in passing brings in
// neither itself nor its platform.
func TestTagParentNotFromOneMention(t *testing.T) {
	md := "# Checkout latency\n\nCheckout got slow for an hour. We had once tried Lambda for resizing images. " +
		"The cause was a missing index in PostgreSQL; the PostgreSQL planner chose a full scan.\n"
	tags := classifyMarkdown(t, md).Tags
	if slices.Contains(tags, "aws") || slices.Contains(tags, "lambda") {
		t.Errorf("tags = %v, want no aws or lambda", tags)
	}
}

// TestTagFillOnceNamed: a post that names few technologies gets, up to
// tagFillTo, the ones its symptoms or fixes name once; one named once in
// background does not count. A domain ending in .net is no .NET.
func TestTagFillOnceNamed(t *testing.T) {
	for _, tc := range []struct{ name, md, want, not string }{
		{"en", "# Checkout outage\n\n## Background\n\nWe once evaluated Cassandra for the catalogue.\n\n## Symptoms\n\n" +
			"HAProxy returned 503 for every checkout request for forty minutes.\n\n## Root cause\n\n" +
			"A stale pool of backend addresses was kept after the move to new hosts.\n", "haproxy", "cassandra"},
		{"ru", "# Сбой оформления заказов\n\n## Предыстория\n\nКогда-то мы пробовали Cassandra для каталога.\n\n## Симптомы\n\n" +
			"HAProxy сорок минут отвечал 503 на каждый запрос оформления заказа.\n\n## Причина\n\n" +
			"После переезда на новые хосты остался устаревший список адресов бэкендов.\n", "haproxy", "cassandra"},
		{"zh", "# 下单故障\n\n## 背景\n\n我们曾经评估过 Cassandra 作为商品库。\n\n## 现象\n\n" +
			"HAProxy 在四十分钟内对每个下单请求都返回 503。\n\n## 根本原因\n\n迁移到新主机后，后端地址列表没有更新。\n", "haproxy", "cassandra"},
		{"domain", "# Site down\n\n## Symptoms\n\nThe page at shop.example.net returned 502 from nginx for an hour.\n\n" +
			"## Root cause\n\nThe upstream pool pointed at a removed host.\n", "nginx", "dotnet"},
	} {
		tags := classifyMarkdown(t, tc.md).Tags
		if !slices.Contains(tags, tc.want) || slices.Contains(tags, tc.not) {
			t.Errorf("%s: tags = %v, want %s and no %s", tc.name, tags, tc.want, tc.not)
		}
	}
}

// TestTagParentOrderFree: a platform named through two of its services
// (EKS in the title, S3 in the cause) scores the same on every run: the
// services are read in no order the map happens to give.
func TestTagParentOrderFree(t *testing.T) {
	md := "# EKS nodes lost their volumes\n\nOn Monday three EKS nodes lost their volumes and Redis clients timed out. " +
		"Redis failed over twice and Redis replicas lagged; Kafka consumers stalled and Kafka lag grew.\n\n## Root cause\n\n" +
		"A lifecycle rule on the S3 bucket deleted the snapshots the nodes booted from.\n"
	first := classifyMarkdown(t, md).Tags
	for range 40 {
		if got := classifyMarkdown(t, md).Tags; !slices.Equal(got, first) {
			t.Fatalf("tags = %v, then %v: the platform's score depends on the map's order", first, got)
		}
	}
	if !slices.Contains(first, "aws") {
		t.Errorf("tags = %v, want aws", first)
	}
}

// TestTagFillWhenNone: a post whose fields name no technology takes the ones
// its story names once (a summary, a timeline), never those of its plans.
func TestTagFillWhenNone(t *testing.T) {
	for _, tc := range []struct{ name, md, want, not string }{
		{"en", "# Slow pages on Friday\n\nOn Friday afternoon pages rendered slowly because the Memcached nodes were restarted one after another.\n\n" +
			"## Action items\n\n- Evaluate Varnish in front of the web tier.\n", "memcached", "varnish"},
		{"ru", "# Медленные страницы в пятницу\n\nВ пятницу днём страницы открывались медленно: узлы Memcached перезапускались один за другим.\n\n" +
			"## Планы\n\n- Попробовать Varnish перед веб-серверами.\n", "memcached", "varnish"},
		{"zh", "# 周五页面变慢\n\n周五下午页面打开很慢，原来是 Memcached 节点被逐个重启。\n\n## 后续改进\n\n- 评估在 Web 层前加 Varnish。\n",
			"memcached", "varnish"},
	} {
		tags := classifyMarkdown(t, tc.md).Tags
		if !slices.Contains(tags, tc.want) || slices.Contains(tags, tc.not) {
			t.Errorf("%s: tags = %v, want %s and no %s", tc.name, tags, tc.want, tc.not)
		}
	}
}

// TestTagsInPassingSession6: a diagnostic tool (arthas) or a protocol most
// posts name in passing (icmp, ipv6) is no tag from mentions in the story
// outside the title and the cause.
func TestTagsInPassingSession6(t *testing.T) {
	for _, tc := range []struct{ name, md, not string }{
		{"en", "# Order API errors\n\n## Symptoms\n\nThe order API returned 500 and ICMP pings to the host still answered. Arthas showed every Tomcat thread waiting.\n\n" +
			"## Root cause\n\nThe Tomcat thread pool was exhausted by slow Oracle queries.\n", "arthas"},
		{"ru", "# Ошибки API заказов\n\n## Симптомы\n\nAPI заказов отвечал 500, при этом ICMP-пинги до хоста проходили. Arthas показал, что все потоки Tomcat ждут.\n\n" +
			"## Причина\n\nПул потоков Tomcat исчерпали медленные запросы к Oracle.\n", "arthas"},
		{"zh", "# 订单接口报错\n\n## 现象\n\n订单接口返回 500，但 ICMP ping 主机仍然正常。用 Arthas 看到 Tomcat 线程都在等待。\n\n## 根本原因\n\nTomcat 线程池被慢 Oracle 查询耗尽。\n", "arthas"},
	} {
		tags := classifyMarkdown(t, tc.md).Tags
		if slices.Contains(tags, tc.not) || slices.Contains(tags, "icmp") {
			t.Errorf("%s: tags = %v, want no %s and no icmp", tc.name, tags, tc.not)
		}
	}
}

// TestTagAmbiguousServiceNeedsPlatform: a service name with another common
// sense counts only where the post names the service's platform: "MSK"
// after a clock time is Moscow time, "Aurora" beside a robot is no AWS
// database, a Redis pub/sub channel is no Google service. Where the post
// names the platform the same names are tags.
func TestTagAmbiguousServiceNeedsPlatform(t *testing.T) {
	for _, tc := range []struct {
		name, md string
		want     []string
		not      []string
	}{
		{"ru-timezone", "# Сбой отправки отчётов\n\n**Дата:** 2025-03-14 09:20 MSK\n\n## Симптомы\n\n" +
			"В 09:20 MSK бот перестал отправлять отчёты, PostgreSQL отвечал ошибкой на каждую запись.\n\n## Причина\n\n" +
			"Поле с датой в PostgreSQL хранилось без часового пояса, и в 09:20 MSK сравнение дат сломалось.\n",
			[]string{"postgresql"}, []string{"msk", "aws"}},
		{"en-robot", "# Robot arm stopped\n\n## Symptoms\n\nAt 14:02 the arm controller froze and Aurora, the motion planner, " +
			"stopped publishing paths.\n\n## Root cause\n\nThe Aurora planner read a corrupted map from the NVMe disk; " +
			"Aurora restarted cleanly once the disk was replaced.\n",
			nil, []string{"aurora", "aws"}},
		{"zh-pubsub", "# 消息推送中断\n\n## 现象\n\n下午 3 点起 Redis 的 pub/sub 频道没有消息，推送全部中断。\n\n## 根本原因\n\n" +
			"Redis 升级后 pub/sub 客户端没有重新订阅，pub/sub 消息全部丢失。\n",
			[]string{"redis"}, []string{"pubsub", "gcp"}},
		{"en-aws", "# Orders stuck\n\n## Symptoms\n\nOrders stopped moving through our AWS pipeline at 09:20: " +
			"the MSK consumers lagged and Aurora writes timed out.\n\n## Root cause\n\n" +
			"An MSK broker upgrade ran during peak hours and Aurora ran out of connections.\n",
			[]string{"msk", "aurora", "aws"}, nil},
	} {
		tags := classifyMarkdown(t, tc.md).Tags
		checkTags(t, tc.name, tags, tc.want, tc.not)
	}
}

// What counts as a mention of a tag: a slug that is an everyday English
// word counts in English prose only as its alias writes it ("Go"), while in
// Russian and Chinese text a Latin "go" is the language; acronyms and
// commands count in lower case; a link names where the story is kept, not
// what the incident ran through, and the same name in the prose counts.
func TestTagMentions(t *testing.T) {
	tests := []struct {
		text, slug string
		want       int
	}{
		{"Why did the whole site go down at 9:00?", "go", 0},
		{"The spring release left rust on nothing.", "rust", 0},
		{"We rewrote the worker in Go last year.", "go", 1},
		{"The API is a Spring service.", "spring", 1},
		{"Сервис на go падал под нагрузкой.", "go", 1},
		{"这个服务是用 go 写的，升级后开始报错。", "go", 1},
		{"Then git push failed with a dns error.", "git", 1},
		{"Then git push failed with a dns error.", "dns", 1},
		{"The fix is in https://github.com/acme/api/pull/14369 now.", "github", 0},
		{"Исправление: https://gitlab.com/acme/api/-/merge_requests/7", "gitlab", 0},
		{"修复见 https://github.com/acme/api/issues/9 。", "github", 0},
		{"GitHub was down, see https://www.githubstatus.com/incidents/x", "github", 1},
		{"Redis timed out (logs at https://logs.example.com/q?redis=1).", "redis", 1},
		// session 19's names: a host and a web server that are everyday words too
		{"The bot runs on Railway and restarted in a loop.", "railway", 1},
		{"The railway timetable page kept timing out.", "railway", 0},
		{"Бот на railway перестал отвечать после деплоя.", "railway", 1},
		{"Each Puma worker grew to 2 GB.", "puma", 1},
		{"pm2 restarted the Node.js process every minute.", "pm2", 1},
	}
	for _, tt := range tests {
		if got := tagCounts(tt.text, strings.ToLower(tt.text))[tt.slug]; got != tt.want {
			t.Errorf("tagCounts(%q)[%s] = %d, want %d", tt.text, tt.slug, got, tt.want)
		}
	}
}

func TestBlankURLs(t *testing.T) {
	u1, u2 := "https://github.com/a/b/pull/1", "http://x.io/y"
	in := "see " + u1 + ") and (" + u2 + "] end"
	want := "see " + strings.Repeat(" ", len(u1)) + ") and (" + strings.Repeat(" ", len(u2)) + "] end"
	if got := blankURLs(in); got != want {
		t.Errorf("blankURLs(%q) = %q, want %q", in, got, want)
	}
}

// The post's own code names its language: two Java blocks make java a tag
// though the prose never writes the name; shell and config blocks name
// nothing.
func TestTagFromCodeBlocks(t *testing.T) {
	code := "\n\n```java\nOrderEvent e = bus.take();\n```\n\n```java\nnotifier.send(e);\n```\n\n```bash\ndocker compose logs app\n```\n\n```yaml\nretries: 3\n```\n"
	posts := map[string]string{
		"en": "# Payment notices stopped\n\nOn May 3 payment notices stopped reaching the chat. The listener had died on a null event." + code + "\nWe restarted the listener and added a null check.\n",
		"ru": "# Перестали приходить уведомления об оплате\n\n3 мая уведомления об оплате перестали приходить в чат. Обработчик упал на пустом событии." + code + "\nМы перезапустили обработчик и добавили проверку.\n",
		"zh": "# 支付通知不再发送\n\n5月3日支付通知不再发到群里。监听器在空事件上崩溃了。" + code + "\n我们重启了监听器并加了空值检查。\n",
	}
	for lang, md := range posts {
		doc, err := extract.Extract([]byte(md), extract.Options{Format: extract.FormatMarkdown})
		if err != nil {
			t.Fatal(err)
		}
		cs := testClassifier().Classify(doc)
		if !slices.Contains(cs.Tags, "java") {
			t.Errorf("%s: tags %v lack java", lang, cs.Tags)
		}
		if slices.Contains(cs.Tags, "bash") {
			t.Errorf("%s: tags %v hold bash from a shell block", lang, cs.Tags)
		}
	}
}
