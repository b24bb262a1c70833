package classify

import (
	"slices"
	"strings"
	"testing"

	"github.com/casebook/casebook/extract"
)

// Made-up posts: an incident told as a story and a guide, in each language.
var relevanceCases = []struct {
	name     string
	text     string
	incident bool
}{
	{"en incident", `# Checkout outage on 12 March

At 14:02 UTC our checkout service started returning errors. We were paged at 14:05 and saw the database connection pool was exhausted.
We found the root cause: a deploy at 13:55 had lowered the pool size in the config. We rolled back the release at 14:20 and the service recovered.
Users could not pay for 18 minutes. We added an alert on pool saturation and a test for the config value.`, true},
	{"en status-page RCA", `# Summary of the Example Cloud Queue Service Event in the North-2 Region

We want to provide some additional information about the service disruption that occurred in the North-2 Region on June 3.
Between 09:12 and 11:40 PDT, customers experienced elevated error rates and latencies for the queue service API.
The issue was triggered by a routine capacity addition to the metadata fleet at 09:05 PDT, which caused the front-end servers to exceed an operating system thread limit.
Engineers identified the root cause at 10:31 PDT, removed the new capacity, and restarted the front-end fleet. By 11:40 PDT the service had fully recovered.
We are moving the front-end servers to larger hosts and adding an alarm on thread usage. We apologize for the impact this event caused for our customers.`, true},
	{"en guide", `# How to tune a connection pool

If your service returns timeouts, you should check the pool size first. You can set it in the config file.
Make sure you monitor the pool saturation. Use a dashboard and add an alert. If the database is slow, you need to raise the timeout.
Always test the new value on staging before you deploy it.`, false},
	{"ru incident", `# Сбой оплаты 12 марта

В 14:02 сервис оплаты начал отдавать ошибки. Дежурный получил алерт в 14:05, мы увидели, что пул соединений к базе исчерпан.
Выяснилось, что причина в деплое в 13:55: в конфиге уменьшили размер пула. Мы откатили релиз в 14:20, и сервис восстановился.
Пользователи не могли оплатить заказ 18 минут. Мы добавили алерт на заполнение пула.`, true},
	{"ru guide", `# Как настроить пул соединений

Если сервис отдаёт таймауты, нужно проверить размер пула. Его можно задать в конфиге.
Обязательно настройте мониторинг заполнения пула. Добавьте алерт. Если база медленная, следует увеличить таймаут.
Проверьте новое значение на стенде, прежде чем выкатывать его.`, false},
	{"zh incident", `# 3月12日支付故障复盘

14:02 支付服务开始报错，14:05 我们收到告警，发现数据库连接池耗尽了。
排查后发现根因是 13:55 的一次发布把配置里的连接池大小改小了。我们在 14:20 回滚了版本，服务恢复了。
用户有 18 分钟无法支付。之后我们增加了连接池的告警。`, true},
	{"zh guide", `# 如何配置连接池

如果你的服务出现超时，你可以先检查连接池大小。你需要在配置文件里设置它。
建议你为连接池增加监控和告警。如果数据库很慢，应该调大超时时间。
请先在测试环境验证新的配置，再发布到生产。`, false},
}

func TestRelevanceSignals(t *testing.T) {
	c := testClassifier()
	for _, tc := range relevanceCases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := extract.Extract([]byte(tc.text), extract.Options{Format: extract.FormatMarkdown})
			if err != nil {
				t.Fatal(err)
			}
			r := c.Classify(doc).Relevance
			if r.IsPostmortem != tc.incident {
				t.Errorf("is_postmortem %v, want %v (score %.2f, %s)", r.IsPostmortem, tc.incident, r.Score, r.Reason)
			}
			if r.Band == "" || r.Reason == "" || len(r.Signals) == 0 {
				t.Errorf("no band, reason or signals: %+v", r)
			}
			want := "+"
			if !tc.incident {
				want = "-"
			}
			if !strings.HasPrefix(r.Signals[0], want) {
				t.Errorf("first signal %q does not argue %s: %+v", r.Signals[0], want, r)
			}
		})
	}
}

// The incident posts have more of the story signals than the guides, and
// the guides more of second person and advice, feature by feature.
func TestRelevanceFeatureDirections(t *testing.T) {
	feats := map[string][]float64{}
	for _, tc := range relevanceCases {
		doc, err := extract.Extract([]byte(tc.text), extract.Options{Format: extract.FormatMarkdown})
		if err != nil {
			t.Fatal(err)
		}
		feats[tc.name] = RelevanceFeatures(doc)
	}
	for _, lang := range []string{"en", "ru", "zh"} {
		inc, guide := feats[lang+" incident"], feats[lang+" guide"]
		for _, f := range []int{rfTimes, rfCause, rfFix, rfIncidentHeads} {
			if inc[f] <= guide[f] {
				t.Errorf("%s %s: incident %.2f not above guide %.2f", lang, relFeatures[f].Name, inc[f], guide[f])
			}
		}
		for _, f := range []int{rfAdvice, rfCond, rfGuideHeads} {
			if guide[f] <= inc[f] {
				t.Errorf("%s %s: guide %.2f not above incident %.2f", lang, relFeatures[f].Name, guide[f], inc[f])
			}
		}
	}
}

// BenchmarkRelevance compares the fitted gate with the hand-tuned one it
// replaced on the 50 KB post (the analysis is shared and not timed).
func BenchmarkRelevance(b *testing.B) {
	doc, err := extract.Extract(bigPost(b), extract.Options{Format: extract.FormatMarkdown})
	if err != nil {
		b.Fatal(err)
	}
	a := analyse(doc)
	b.Run("fitted", func(b *testing.B) {
		for b.Loop() {
			a.relevance(Config{RelevanceThreshold: DefaultThreshold}, fittedBands["en"], "en")
		}
	})
	b.Run("v1", func(b *testing.B) {
		for b.Loop() {
			a.relevanceV1(DefaultThreshold)
		}
	})
}

// Each language is judged against its own band: the same made-up post is
// skipped, flagged or drafted as its language's band says, whatever the
// other languages' bands are; the default classifier uses the fitted band
// of the post's language.
func TestRelevanceBandPerLanguage(t *testing.T) {
	base := testClassifier()
	for _, tc := range relevanceCases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := extract.Extract([]byte(tc.text), extract.Options{Format: extract.FormatMarkdown})
			if err != nil {
				t.Fatal(err)
			}
			cs := base.Classify(doc)
			lang, s := cs.Language, cs.Relevance.Score
			if lang != tc.name[:2] {
				t.Fatalf("language %s", lang)
			}
			low, high := base.BandFor(lang)
			if fb := fittedBands[lang]; low != min(fb.Low, DefaultThreshold) || high != max(fb.High, DefaultThreshold) {
				t.Errorf("BandFor(%s) [%.2f, %.2f), fitted %+v", lang, low, high, fb)
			}
			if got, want := cs.Relevance.Band, bandName(s, low, high); got != want {
				t.Errorf("default classifier: score %.2f in [%.2f, %.2f) is %s, want %s", s, low, high, got, want)
			}
			// the post's language gets one band, every other language the
			// opposite: only its own may decide
			for _, c := range []struct {
				own, other RelevanceBand
				want       string
			}{
				{RelevanceBand{s + 0.01, s + 0.02}, RelevanceBand{s - 0.02, s - 0.01}, BandNotIncident},
				{RelevanceBand{s - 0.01, s + 0.01}, RelevanceBand{s + 0.01, s + 0.02}, BandUncertain},
				{RelevanceBand{s - 0.02, s - 0.01}, RelevanceBand{s + 0.01, s + 0.02}, BandIncident},
			} {
				bands := map[string]RelevanceBand{"": c.other}
				for _, l := range []string{"en", "ru", "zh"} {
					bands[l] = c.other
				}
				bands[lang] = c.own
				cfg := Config{RelevanceThreshold: DefaultThreshold, RelevanceBands: bands}
				cl := &Classifier{cfg: cfg, lang: base.lang, fields: base.fields, bands: resolveBands(cfg)}
				if lo, hi := cl.BandFor(lang); lo != c.own.Low || hi != c.own.High {
					t.Errorf("BandFor(%s) [%.2f, %.2f), want %+v", lang, lo, hi, c.own)
				}
				if got := cl.Classify(doc).Relevance.Band; got != c.want {
					t.Errorf("score %.2f, own band %+v, others %+v: %s, want %s", s, c.own, c.other, got, c.want)
				}
			}
		})
	}
	// a language with no band of its own gets the fallback; RelevanceLow and
	// RelevanceHigh set every language's
	if lo, hi := base.BandFor("xx"); lo != fittedBands[""].Low || hi != max(fittedBands[""].High, DefaultThreshold) {
		t.Errorf("BandFor(xx) [%.2f, %.2f), want the fallback %+v", lo, hi, fittedBands[""])
	}
	over := New(Config{RelevanceLow: 0.22, RelevanceHigh: 0.44})
	for _, l := range []string{"en", "ru", "zh", "xx"} {
		if lo, hi := over.BandFor(l); lo != 0.22 || hi != 0.44 {
			t.Errorf("override: BandFor(%s) [%.2f, %.2f), want [0.22, 0.44)", l, lo, hi)
		}
	}
}

func bandName(s, low, high float64) string {
	switch {
	case s >= high:
		return BandIncident
	case s < low:
		return BandNotIncident
	}
	return BandUncertain
}

// countDates counts what the date expression finds in the whole text.
func TestCountDates(t *testing.T) {
	for _, s := range []string{
		"", "no dates here", "on 2024-03-05 at 14:00\nand again on 5 march\nmar 3rd, 2021",
		"2024年3月5日发生故障\n3月6日恢复", "12.03.2023 и 13 марта\n\nпотом 14 марта",
		strings.Repeat("jan 1 2020-01-01\n", 40),
		"we saw it on sep. 30th, 2024 and again on september 3 and octoberfest 12, 2020",
		"decompression 5 and janitor 7, jan 1st 1999, dec31 2020, 30 сентября",
		"v1.2.3 released 20240501 and 2024-13-45 is no date; 31.12.1999 is",
		"2020-01-01-2020-02-02 and 1 2 3 4 5, may 12, 2021",
	} {
		for _, limit := range []int{1, 2, 50} {
			want := len(dateRe.FindAllStringIndex(s, limit))
			if got := countDates(s, limit); got != want {
				t.Errorf("countDates(%q, %d) = %d, the expression finds %d", s, limit, got, want)
			}
		}
	}
}

func FuzzCountDates(f *testing.F) {
	for _, s := range []string{"on 2024-03-05\nmar 3rd, 2021", "3月6日\n12.03.2023", "dec\n5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := countDates(s, 50), len(dateRe.FindAllStringIndex(s, 50)); got != want {
			t.Errorf("countDates(%q) = %d, the expression finds %d", s, got, want)
		}
	})
}

// TestTemplateIsSkipped: a postmortem form with blank fields is a
// confident non-incident whatever its incident headings ("template" names
// it in the reason), in each language; the same form filled in with one
// failure stays an incident.
func TestTemplateIsSkipped(t *testing.T) {
	c := testClassifier()
	for _, tc := range []struct {
		name, md string
		incident bool
	}{
		{"en", "# Outage postmortem: service failure report\n\n## Incident summary\n\n- Start time (UTC):\n- Detected by:\n- Severity:\n- Incident lead:\n\n" +
			"## Impact\n\n- Users affected:\n- Downtime:\n- Affected services (API, database, cache, server):\n- Deploy or config change before the failure:\n- Kubernetes cluster and node:\n\n## Timeline\n\n- Alert fired:\n- Rollback:\n\n" +
			"## Root cause\n\nWhat caused the outage?\n\n## Resolution\n\nWhat fixed the failure?\n\n## Action items\n\n- Owner:\n- Due date:\n", false},
		{"ru", "# Постмортем: отчёт о сбое сервиса\n\n## Инцидент кратко\n\n- Время начала:\n- Кто обнаружил:\n- Критичность:\n- Ответственный:\n\n" +
			"## Последствия\n\n- Затронутые пользователи:\n- Простой:\n- Затронутые сервисы (API, база данных, кэш, сервер):\n- Деплой или изменение конфигурации перед сбоем:\n- Кластер Kubernetes и нода:\n\n## Хронология\n\n- Сработал алерт:\n- Откат:\n\n" +
			"## Причина\n\nЧто вызвало сбой?\n\n## Решение\n\nЧто устранило ошибку?\n\n## Дальнейшие шаги\n\n- Владелец:\n- Срок:\n", false},
		{"zh", "# 故障复盘报告：服务宕机事故\n\n线上服务器、数据库或集群的服务故障，部署发布后的接口请求异常，日志与配置。\n\n## 事故概述\n\n- 开始时间：\n- 发现方式：\n- 故障等级：\n- 负责人：\n\n" +
			"## 影响\n\n- 受影响用户：\n- 不可用时长：\n- 受影响服务（API、数据库、缓存、服务器）：\n- 故障前的发布或配置变更：\n- Kubernetes 集群和节点：\n- 相关日志、接口和请求：\n- 服务部署版本与代码提交：\n- 内存、配置与数据库连接：\n\n## 时间线\n\n- 告警触发：\n- 回滚：\n\n" +
			"## 根因\n\n故障的原因是什么？\n\n## 解决\n\n如何修复的异常？\n\n## 后续改进\n\n- 负责人：\n- 截止时间：\n", false},
		// the same forms with their fields left as placeholders
		{"en-placeholders", "# Postmortem: {Incident title}\n\nStatus: {draft or final} Owner: {who led the response}\n\n## Summary\n\n" +
			"Description: {what failed and why} Date/time: {YYYY-MM-DD HH:MM}\n\n## Timeline\n\n14:02 - the first alert fired\n\n" +
			"## Impact\n\n{who was affected by the outage and for how long}\n\n## Root cause\n\n<describe the root cause of the failure>\n\n" +
			"## Resolution\n\n[how the service was restored after the error]\n\n## Action items\n\n{each item has an owner and a ticket}\n", false},
		{"ru-placeholders", "# Постмортем: {название инцидента}\n\nСтатус: {черновик или финал} Ответственный: {кто вёл инцидент}\n\n## Кратко\n\n" +
			"Описание: {что сломалось и почему} Дата: {ГГГГ-ММ-ДД ЧЧ:ММ}\n\n## Хронология\n\n14:02 — сработал первый алерт\n\n" +
			"## Последствия\n\n{кого затронул сбой и как долго}\n\n## Причина\n\n<опишите корневую причину сбоя>\n\n" +
			"## Решение\n\n[как восстановили сервис после ошибки]\n\n## Дальнейшие шаги\n\n{у каждого пункта есть владелец и задача}\n", false},
		{"zh-placeholders", "# 故障复盘：【故障标题】\n\n状态：【草稿或定稿】 负责人：【谁主导了处理】\n\n## 概述\n\n" +
			"描述：【什么出了故障以及原因】 时间：【YYYY-MM-DD HH:MM】\n\n## 时间线\n\n14:02 - 第一条告警触发\n\n" +
			"## 影响\n\n【哪些用户受到服务宕机的影响，持续多久】\n\n## 根因\n\n【描述故障的根本原因】\n\n" +
			"## 解决\n\n【服务是如何在报错后恢复的】\n\n## 后续改进\n\n【每一项都有负责人和工单】\n", false},
		{"en-filled", "# Incident report: checkout outage\n\n## Summary\n\n- Start time (UTC): 09:14, when checkout began to fail\n" +
			"- Detected by: the payment error-rate alert, which paged the on-call engineer\n- Severity: SEV-2, every checkout failed\n\n" +
			"## Root cause\n\nA deploy at 09:10 shipped a config change that pointed the payment client at a retired endpoint, " +
			"so every payment request failed with a timeout.\n\n## Resolution\n\nWe rolled the deploy back at 09:52 and checkout recovered within a minute.\n", true},
	} {
		checkCapped(t, c, tc.name, tc.md, tc.incident, "template")
	}
}

func TestBlankFields(t *testing.T) {
	for _, tc := range []struct {
		text         string
		blank, lines int
	}{
		{"Severity:\nOwner:\nWhat broke?\nSummary", 3, 4},
		{"Severity: SEV-2, all checkouts failed\nOwner: the payments team on call that week", 0, 2},
		{"The timeline is as follows:\nAt 09:14 the first alert fired and the on-call engineer was paged.", 0, 2},
		{"影响范围：\n负责人：", 2, 2},
		// placeholders with their labels; one-word brackets are no placeholder
		{"{brief description of the impact}\nDate/time: {YYYY-MM-DD HH:MM} Owner: <who led it>\n【影响范围】\n[Название сервиса]", 4, 4},
		{"See [1] and <br> for the details of the failover.\nThe cache {was} cold.", 0, 2},
		{"We saw a < b while the c > d check held for every node in the cluster.", 0, 1},
		{"", 0, 0},
	} {
		if b, l := blankFields(tc.text); b != tc.blank || l != tc.lines {
			t.Errorf("blankFields(%q) = %d, %d; want %d, %d", tc.text, b, l, tc.blank, tc.lines)
		}
	}
}

// TestChangelogIsSkipped: release notes laid out by version are a confident
// non-incident, however many failures their fixes name (en, ru, zh; each
// scores an incident without the cap), and a write-up whose sections are
// numbered ("2.1 问题发生") is no changelog.
func TestChangelogIsSkipped(t *testing.T) {
	c := testClassifier()
	for _, tc := range []struct {
		name, md string
		incident bool
	}{
		{"en", "# Changelog\n\n## 3.2.1 (2024-05-02)\n\n- Fixed a crash of the server when the database connection failed during a deploy.\n" +
			"- Fixed an outage of the API: requests timed out after the cache failed.\n- Fixed an error in the Kubernetes operator that broke the cluster on upgrade.\n\n" +
			"## 3.2.0 (2024-04-18)\n\n- Fixed a bug where the worker failed and the queue was down.\n- Fixed a timeout of the load balancer health check.\n\n" +
			"## 3.1.4 (2024-03-30)\n\n- Fixed a memory leak that crashed the service in production.\n- Fixed failing alerts for the disk.\n", false},
		{"ru", "# История изменений\n\n## 2.4.1 (2024-05-02)\n\n- Исправлено падение сервера при ошибке подключения к базе данных во время деплоя.\n" +
			"- Исправлен сбой API: запросы падали по таймауту после ошибки кэша.\n- Исправлена ошибка оператора Kubernetes, из-за которой ломался кластер при обновлении.\n\n" +
			"## 2.4.0 (2024-04-18)\n\n- Исправлен баг: воркер падал, очередь была недоступна.\n- Исправлен таймаут проверки балансировщика.\n\n" +
			"## 2.3.9 (2024-03-30)\n\n- Исправлена утечка памяти, из-за которой сервис падал в продакшене.\n", false},
		{"zh", "# 更新日志\n\n## v1.8.2 (2024-05-02)\n\n- 修复数据库连接失败时服务器崩溃的问题。\n- 修复缓存异常后接口请求超时的故障。\n- 修复 Kubernetes 集群升级时节点异常的问题。\n\n" +
			"## v1.8.1 (2024-04-18)\n\n- 修复队列服务宕机、消费失败的问题。\n- 修复负载均衡健康检查超时。\n\n" +
			"## v1.8.0 (2024-03-30)\n\n- 修复内存泄漏导致线上服务崩溃的故障。\n- 修复磁盘告警失败的问题。\n", false},
		{"zh-numbered", "# 下单接口超时故障复盘\n\n## 1.1 背景\n\n9 月 22 日上午我们的下单服务出现大量超时，用户无法创建订单。\n\n" +
			"## 2.1 问题发生\n\n10:05 告警触发，订单接口错误率升到 30%，数据库连接池被占满。\n\n" +
			"## 2.2 问题定位\n\n我们排查后发现，当天上线的版本里一个慢查询没有加索引，导致数据库连接被长时间占用。\n\n" +
			"## 2.3 问题止损\n\n10:40 我们回滚了发布，接口恢复正常。\n", true},
	} {
		checkCapped(t, c, tc.name, tc.md, tc.incident, "release notes")
	}
}

// checkCapped classifies the Markdown post md: an incident (incident) must
// be judged one; any other must be skipped with a reason of kind.
func checkCapped(t *testing.T, c *Classifier, name, md string, incident bool, kind string) {
	t.Helper()
	doc, err := extract.Extract([]byte(md), extract.Options{Format: extract.FormatMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Classify(doc).Relevance
	if r.IsPostmortem != incident {
		t.Errorf("%s: is_postmortem %v, want %v (score %.2f, %s)", name, r.IsPostmortem, incident, r.Score, r.Reason)
	}
	if !incident && (r.Band != BandNotIncident || !strings.HasPrefix(r.Reason, kind+":")) {
		t.Errorf("%s: band %s, reason %q; want not-incident, %s", name, r.Band, r.Reason, kind)
	}
}

// TestCyrillicBaseRate: the Russian base rate is on for Russian text only,
// weighs for an incident (the fit lifts Russian write-ups, whose cues are
// fewer), and is never given as a reason.
func TestCyrillicBaseRate(t *testing.T) {
	c := testClassifier()
	for _, tc := range []struct {
		name, md string
		on       bool
	}{
		{"en", "# Checkout outage\n\nOn 3 May at 14:10 we deployed a new cache layer and checkout requests began to time out. We rolled back at 14:40 and checkout recovered.\n", false},
		{"ru", "# Падение оплаты\n\n3 мая в 14:10 мы выкатили новый слой кэша, и запросы оплаты начали падать по таймауту. В 14:40 мы откатили релиз, оплата восстановилась.\n", true},
		{"zh", "# 支付故障\n\n5月3日14:10我们上线了新的缓存层，支付请求开始超时。14:40我们回滚了发布，支付恢复正常。\n", false},
	} {
		doc, err := extract.Extract([]byte(tc.md), extract.Options{Format: extract.FormatMarkdown})
		if err != nil {
			t.Fatal(err)
		}
		if got := RelevanceFeatures(doc)[rfCyr] == 1; got != tc.on {
			t.Errorf("%s: cyrillic_text %v, want %v", tc.name, got, tc.on)
		}
		r := c.Classify(doc).Relevance
		for _, s := range r.Signals {
			if strings.Contains(s, "Russian text") {
				t.Errorf("%s: the base rate is named as a signal: %v (%s)", tc.name, r.Signals, r.Reason)
			}
		}
	}
	// a post at every feature's mean but Russian: the base rate is all
	// that moves its score, and still no reason names it
	x := slices.Clone(fittedRelevance.norm("ru").Mean)
	x[rfCyr] = 1
	for _, band := range []string{BandIncident, BandUncertain, BandNotIncident} {
		if sig, reason := relevanceReason(&fittedRelevance, x, "ru", band); slices.ContainsFunc(sig, func(s string) bool { return strings.Contains(s, "Russian text") }) {
			t.Errorf("%s: the base rate is named: %v (%s)", band, sig, reason)
		}
	}
	if w := fittedRelevance.Weights[rfCyr]; w <= 0 {
		t.Errorf("cyrillic_text weighs %.4f: the fit no longer lifts Russian posts; drop the feature", w)
	}
}

// A Russian write-up often tells the cause and the fix in the passive or
// with a noun ("сбой был вызван", "сервис восстановлен", "проблема была
// в"), where English says "caused by" and "restored": the gate's cause and
// fix signals read those forms too. The control sentences carry neither.
func TestRussianPassiveCauseAndFix(t *testing.T) {
	tests := []struct {
		text       string
		cause, fix bool
	}{
		{"Сбой был вызван переполнением диска на основном узле.", true, false},
		{"Проблема была в старом сертификате балансировщика.", true, false},
		{"Оказалось, что дело было в лимите соединений.", true, false},
		{"Это было связано с ночным обновлением драйвера.", true, false},
		{"К утру сервис был восстановлен, очередь разобрана.", false, true},
		{"Релиз откачен, воркеры перезапущены.", false, true},
		{"Ошибка устранена в тот же вечер.", false, true},
		{"Мы применили обходное решение и подняли лимит.", false, true},
		{"Проблему решили заменой сертификата.", false, true},
		{"Мы решили переехать на новую базу данных.", false, false},
		{"Сервис принимает запросы и пишет их в очередь.", false, false},
		{"Функция вызывает обработчик для каждого сообщения.", false, false},
	}
	for _, tt := range tests {
		doc, err := extract.Extract([]byte(tt.text), extract.Options{Format: extract.FormatText})
		if err != nil {
			t.Fatal(err)
		}
		x := RelevanceFeatures(doc)
		if got := x[rfCause] > 0; got != tt.cause {
			t.Errorf("%q: found cause %v, want %v", tt.text, got, tt.cause)
		}
		if got := x[rfFix] > 0; got != tt.fix {
			t.Errorf("%q: applied fix %v, want %v", tt.text, got, tt.fix)
		}
	}
}

// A Russian guide's plural imperatives are reflexive as often as not
// ("убедитесь", "обратитесь"); a past verb or a noun is none.
func TestCyrillicImperative(t *testing.T) {
	for tok, want := range map[string]bool{
		"проверьте": true, "выполните": true, "сделайте": true,
		"убедитесь": true, "обратитесь": true, "настройтесь": true, "отвлекитесь": true,
		"проверили": false, "убедились": false, "сайте": false, "настройки": false, "вместе": false,
	} {
		if got := cyrillicImperative(tok); got != want {
			t.Errorf("cyrillicImperative(%q) = %v, want %v", tok, got, want)
		}
	}
}

// The Russian incident headings name the same sections as the English
// ones: impact, detection, remediation, lessons, symptoms, action plan.
func TestRussianIncidentHeadings(t *testing.T) {
	for _, h := range []string{"Влияние", "Обнаружение", "Устранение", "Уроки", "Симптомы", "План действий"} {
		text := "# Заметки\n\n## " + h + "\n\nТекст раздела без особых слов.\n"
		doc, err := extract.Extract([]byte(text), extract.Options{Format: extract.FormatMarkdown})
		if err != nil {
			t.Fatal(err)
		}
		if x := RelevanceFeatures(doc); x[rfIncidentHeads] == 0 {
			t.Errorf("heading %q is no incident heading", h)
		}
	}
	doc, err := extract.Extract([]byte("# Заметки\n\n## Установка\n\nТекст раздела без особых слов.\n"), extract.Options{Format: extract.FormatMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	if x := RelevanceFeatures(doc); x[rfIncidentHeads] != 0 {
		t.Errorf("heading \"Установка\" counted as an incident heading")
	}
}

// TestCyrillicPast: Russian past forms, the short passive participles a
// fix report is written in among them ("исправлено", "перезапущен"), and
// the nouns and words that only end like them.
func TestCyrillicPast(t *testing.T) {
	for tok, want := range map[string]bool{
		"упал": true, "перезапустили": true, "сломалось": true,
		"исправлено": true, "добавлена": true, "обновлены": true, "обновлён": true, "перезапущен": true,
		"установлен": true, "обнаружен": true, "отключено": true, "настроен": true,
		"если": false, "файл": false, "замена": false, "смена": false, "домен": false, "токен": false,
		"время": false, "сервис": false, "проверьте": false,
	} {
		if got := cyrillicPast(tok); got != want {
			t.Errorf("cyrillicPast(%q) = %v, want %v", tok, got, want)
		}
	}
}

// headingCountCase is a made-up post and how many of its headings a
// heading counter should count.
type headingCountCase struct {
	name, md string
	want     int
}

func checkHeadingCounts(t *testing.T, name string, count func(*extract.Document) int, cases []headingCountCase) {
	t.Helper()
	for _, tc := range cases {
		doc, err := extract.Extract([]byte(tc.md), extract.Options{Format: extract.FormatMarkdown})
		if err != nil {
			t.Fatal(err)
		}
		if got := count(doc); got != tc.want {
			t.Errorf("%s: %s = %d, want %d", tc.name, name, got, tc.want)
		}
	}
}

// A timeline told under headed clock times counts its times as the same
// timeline told in sentences does; a heading with a version or a ratio is no
// time.
func TestHeadingTimes(t *testing.T) {
	checkHeadingCounts(t, "headingTimes", headingTimes, []headingCountCase{
		{"en", "# Queue backlog\n\n## Timeline\n\n### 2024-03-12 04:19\n\nFirst noticed the backlog.\n\n### 04:27 UTC\n\nFound the stuck consumer.\n\n### 5:59\n\nRestarted it.\n", 3},
		{"ru", "# Очередь встала\n\n## Хронология\n\n### 12.03.2024 04:19\n\nЗаметили очередь.\n\n### 04:27 (МСК)\n\nНашли зависший консьюмер.\n", 2},
		{"zh", "# 队列积压\n\n## 时间线\n\n### 2024-03-12 04:19\n\n发现积压。\n\n### 04:27\n\n找到卡住的消费者。\n", 2},
		{"no times", "# Upgrading to 2.4\n\n## Version 2.4: what changed\n\nText.\n\n## Ratio 3:1 of reads\n\nText.\n\n## Notes\n\nText.\n", 0},
	})
}

// A guide's decision tree is headed by its conditions; an incident's
// headings name its parts.
func TestConditionalHeadings(t *testing.T) {
	checkHeadingCounts(t, "conditionalHeadings", conditionalHeadings, []headingCountCase{
		{"en", "# Pod stuck in Pending\n\n## If the node has no free CPU\n\nScale the pool.\n\n## If the volume cannot attach\n\nCheck the zone.\n", 2},
		{"ru", "# Под висит в Pending\n\n## Если на узле нет свободного CPU\n\nДобавьте узлы.\n\n## В случае ошибки монтирования тома\n\nПроверьте зону.\n", 2},
		{"zh", "# Pod 一直 Pending\n\n## 如果节点没有空闲 CPU\n\n扩容节点池。\n\n## 若存储卷无法挂载\n\n检查可用区。\n", 2},
		{"incident", "# Pods stuck in Pending on 12 March\n\n## Timeline\n\nAt 04:19 the pool filled.\n\n## Root cause\n\nA quota.\n\n## Lessons\n\nAlert earlier.\n", 0},
	})
}
