package classify

import (
	"strings"
	"testing"

	"github.com/casebook/casebook/extract"
)

// routesOf extracts a Markdown post and returns the field each sentence was
// routed to ("" for none), by sentence text.
func routesOf(t *testing.T, md string) map[string]string {
	t.Helper()
	return explainRoutes(t, md, func(r Route) string { return r.Field })
}

// explainRoutes extracts a Markdown post and maps each sentence's text to
// what route picks from its Explain row.
func explainRoutes(t *testing.T, md string, route func(Route) string) map[string]string {
	t.Helper()
	doc, err := extract.Extract([]byte(md), extract.Options{Format: extract.FormatMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range testClassifier().Explain(doc) {
		out[strings.TrimSpace(r.Text)] = route(r)
	}
	return out
}

type routeWant struct {
	sentence, field string
}

func checkRoutes(t *testing.T, md string, want []routeWant) {
	t.Helper()
	got := routesOf(t, md)
	for _, w := range want {
		f, ok := got[w.sentence]
		if !ok {
			t.Errorf("sentence %q not found; sentences: %v", w.sentence, got)
			continue
		}
		if f != w.field {
			t.Errorf("%q went to %q, want %q", w.sentence, f, w.field)
		}
	}
}

// A paragraph that is nothing but a field's name, a bold line standing in
// for a heading ("**Solution**"), heads the paragraphs after it and is no
// sentence of its own; a short sentence that only starts with such a word
// stays a sentence.
func TestBareLabelHeadsWhatFollows(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"en", "# Queue outage\n\n## Problem\n\nThe consumers stopped draining the queue on Monday.\n\n**Solution**\n\n" +
			"We raised the pool size from 50 to 500 connections per node.\n",
			[]routeWant{{"We raised the pool size from 50 to 500 connections per node.", "remediation"}}},
		{"ru", "# Очередь встала\n\n## Проблема\n\nВ понедельник консьюмеры перестали разбирать очередь.\n\n**Решение**\n\n" +
			"Подняли размер пула с 50 до 500 соединений на узел.\n",
			[]routeWant{{"Подняли размер пула с 50 до 500 соединений на узел.", "remediation"}}},
		{"zh", "# 队列积压\n\n## 问题\n\n周一消费者不再消费队列里的消息。\n\n**解决方法**\n\n" +
			"把每个节点的连接池从 50 调大到 500。\n",
			[]routeWant{{"把每个节点的连接池从 50 调大到 500。", "remediation"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkRoutes(t, tc.md, tc.want)
			for _, label := range []string{"Solution", "Решение", "解决方法"} {
				if _, ok := routesOf(t, tc.md)[label]; ok {
					t.Errorf("the label %q is a sentence", label)
				}
			}
		})
	}
	for _, tc := range []struct {
		text string
		want field
	}{
		{"Solution", fRemediation}, {"Root cause", fRootCause}, {"Решение", fRemediation}, {"解决方法", fRemediation}, {"根本原因", fRootCause},
		{"Fixed the pool size.", fNone}, {"We fixed the pool size on Monday night", fNone}, {"Problem", fNone}, {"解决方法是把连接池调大到五百个连接", fNone},
	} {
		if got := bareLabel(tc.text); got != tc.want {
			t.Errorf("bareLabel(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// An inline label ("Root cause: …") heads the untitled paragraphs after its
// own, up to the next label.
func TestInlineLabelCarriesOn(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"en", "# Queue outage\n\n## Summary\n\n**Root cause**: the consumer pool was sized for the traffic of two years ago.\n\n" +
			"Every tenant we onboarded since then opened two more connections per node.\n\n" +
			"**What happened?**: on Monday the queue stopped draining.\n\nThe night shift was on a call with the vendor.\n",
			[]routeWant{
				{"Every tenant we onboarded since then opened two more connections per node.", "root_cause"},
				{"The night shift was on a call with the vendor.", ""},
			}},
		{"ru", "# Очередь встала\n\n## Кратко\n\n**Причина**: пул соединений рассчитан на нагрузку позапрошлого года.\n\n" +
			"Каждый новый клиент открывал ещё два соединения на узел.\n\n" +
			"**Что произошло**: в понедельник очередь перестала разбираться.\n\nНочная смена созвонилась с поставщиком.\n",
			[]routeWant{
				{"Каждый новый клиент открывал ещё два соединения на узел.", "root_cause"},
				{"Ночная смена созвонилась с поставщиком.", ""},
			}},
		{"zh", "# 队列积压\n\n## 概述\n\n**原因**：消费者连接池是按前年的流量配置的。\n\n" +
			"之后每接入一个租户，每个节点上就多开两个连接。\n\n" +
			"**概要**：周一队列不再消费。\n\n值班同学和供应商开了电话会议。\n",
			[]routeWant{
				{"之后每接入一个租户，每个节点上就多开两个连接。", "root_cause"},
				{"值班同学和供应商开了电话会议。", ""},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkRoutes(t, tc.md, tc.want) })
	}
}

func TestIsAdvice(t *testing.T) {
	cases := []struct {
		text string
		want bool
	}{
		{"Next time, be careful to read the release notes before an upgrade.", true},
		{"From this we learned that a green pipeline is not a healthy service.", true},
		{"We learnt that a staging box must match production's hardware.", true},          // the British spelling
		{"The vendor's engineer told us to be careful with the eviction setting.", false}, // reported
		{"We restarted the cache nodes one by one.", false},
		{"Впредь читаем заметки к релизу до обновления.", true},
		{"Не стоит верить первому графику.", true},
		{"Инженер поставщика посоветовал быть осторожнее с вытеснением.", false},
		{"Вывод kubectl показал три пода в CrashLoopBackOff.", false}, // command output, not a conclusion
		{"以后一定要先看升级说明再升级。", true},
		{"处理故障时要避免改动复杂的逻辑。", true},
		{"同事提醒我们不要在晚上发布。", false},
		{"这是一个千万级用户的服务。", false}, // a number, not "千万不要"
		{"我们逐个重启了缓存节点。", false},
	}
	for _, tc := range cases {
		if got := isAdvice(strings.ToLower(tc.text)); got != tc.want {
			t.Errorf("isAdvice(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// Advice under a fix (or cause, or symptom) heading is a lesson: a closing
// reflection does not stay remediation because of the heading over it. A
// purpose fragment follows its sentence; reported advice stays where the
// heading put it; and the sentences before a concluding "So, …" stay where
// the heading put them (the paragraph rule that took them along helped one
// source only and was removed).
func TestAdviceLeavesItsHeading(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"en", "# Cache outage\n\n## Resolution\n\nWe restarted the cache nodes one by one.\n\n" +
			"The vendor's engineer told us to be careful with the eviction setting.\n\n" +
			"Next time, be careful to read the release notes before an upgrade.\n\n" +
			"In the future we will page the on-call engineer for this queue.\n\n" +
			"Dashboards are handy, but they only show what we chose to graph. So, be careful to check the raw logs too.\n\n" +
			"## Background\n\nFrom now on, nobody merges on a Friday evening.\n\n" +
			"## Conclusion\n\nKeep in mind that a restart fixed the symptom, not the cause.\n",
			[]routeWant{
				{"We restarted the cache nodes one by one.", "remediation"},
				{"The vendor's engineer told us to be careful with the eviction setting.", "remediation"},
				{"Next time, be careful to read the release notes before an upgrade.", "lessons"},
				{"In the future we will page the on-call engineer for this queue.", "action_items"},
				{"Dashboards are handy, but they only show what we chose to graph.", "remediation"},
				{"So, be careful to check the raw logs too.", "lessons"},
				{"From now on, nobody merges on a Friday evening.", "lessons"},
				{"Keep in mind that a restart fixed the symptom, not the cause.", "lessons"},
			}},
		{"ru", "# Упал кэш\n\n## Решение\n\nМы перезапустили узлы кэша по одному.\n\n" +
			"Впредь читаем заметки к релизу до обновления.\n\n" +
			"Графики удобны, но показывают только то, что мы сами решили рисовать. Поэтому не стоит забывать про сырые логи.\n",
			[]routeWant{
				{"Мы перезапустили узлы кэша по одному.", "remediation"},
				{"Впредь читаем заметки к релизу до обновления.", "lessons"},
				{"Графики удобны, но показывают только то, что мы сами решили рисовать.", "remediation"},
				{"Поэтому не стоит забывать про сырые логи.", "lessons"},
			}},
		{"zh", "# 缓存故障\n\n## 解决方案\n\n我们逐个重启了缓存节点。\n\n" +
			"以后一定要先看升级说明再升级。\n\n" +
			"监控图很方便，但只显示我们自己选择画出来的指标。所以排查时需要注意查看原始日志。\n\n" +
			"同事提醒我们不要在晚上发布。日志里其实早有报错，只是没人看。所以以后一定要每天看一眼日志。\n\n" +
			"## 总结\n\n升级内核前需要注意引导分区的容量。以免重启后服务无法恢复。\n\n在接手系统的时候最好先检查配置，出了问题才能尽快解决。\n",
			[]routeWant{
				{"我们逐个重启了缓存节点。", "remediation"},
				{"以后一定要先看升级说明再升级。", "lessons"},
				{"监控图很方便，但只显示我们自己选择画出来的指标。", "remediation"},
				{"所以排查时需要注意查看原始日志。", "lessons"},
				{"同事提醒我们不要在晚上发布。", "remediation"},
				{"日志里其实早有报错，只是没人看。", "remediation"},
				{"升级内核前需要注意引导分区的容量。", "lessons"},
				{"以免重启后服务无法恢复。", "lessons"},
				{"在接手系统的时候最好先检查配置，出了问题才能尽快解决。", "lessons"},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkRoutes(t, tc.md, tc.want) })
	}
}

// Every form of "time out" is a symptom word, not only "timeout" and
// "timed out".
func TestTimeOutFormsAreSymptoms(t *testing.T) {
	for _, s := range []string{
		"About one upload in fifty would time out after ten seconds.",
		"The health check times out whenever the disk is busy.",
		"Requests kept timing out at the proxy.",
		"We looked at the logs of the timed-out requests first.",
	} {
		if got := fieldScores(strings.ToLower(s))[fSymptoms]; got <= 0 {
			t.Errorf("symptom score of %q = %v, want > 0", s, got)
		}
	}
}

// An impact section tells what users met with and how much was hit: a
// sentence in it that tells an experienced failure is a symptom, a figure or
// a scope is not (impact.go reads those).
func TestImpactExperiencedIsSymptom(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"en", "# Checkout outage\n\n## Summary\n\nOn Tuesday the checkout service failed for an hour.\n\n## Impact\n\n" +
			"- Shoppers experienced timeouts and errors on the payment page\n- 12% of orders in the EU region\n",
			[]routeWant{
				{"Shoppers experienced timeouts and errors on the payment page", "symptoms"},
				{"12% of orders in the EU region", ""},
			}},
		{"ru", "# Сбой оплаты\n\n## Кратко\n\nВо вторник сервис оплаты не работал час.\n\n## Влияние\n\n" +
			"- Покупатели получали ошибки и таймауты на странице оплаты\n- 12% заказов в регионе EU\n",
			[]routeWant{
				{"Покупатели получали ошибки и таймауты на странице оплаты", "symptoms"},
				{"12% заказов в регионе EU", ""},
			}},
		{"zh", "# 支付故障\n\n## 概述\n\n周二支付服务中断了一个小时。\n\n## 影响\n\n" +
			"- 用户在支付页面遇到超时和报错\n- 欧洲区 12% 的订单\n",
			[]routeWant{
				{"用户在支付页面遇到超时和报错", "symptoms"},
				{"欧洲区 12% 的订单", ""},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRoutes(t, c.md, c.want) })
	}
}

// A Chinese paragraph ending in a colon is a label only when it is a set
// phrase ("解决方法："); a clause with a comma that leads in to what follows
// is a sentence, even when it holds a conclusion's word ("最后").
func TestChineseLeadInIsNoLabel(t *testing.T) {
	md := "# 接口超时\n\n## 排查\n\n我们翻了很久日志，最后找到一条提示，内容如下：\n\n" +
		"连接池里的连接一直没有释放。\n\n解决方法：\n\n我们调大了连接池并重启了服务。\n"
	got := routesOf(t, md)
	if _, ok := got["我们翻了很久日志，最后找到一条提示，内容如下："]; !ok {
		t.Errorf("the lead-in is no sentence: %v", got)
	}
	if f := got["连接池里的连接一直没有释放。"]; f == "lessons" {
		t.Errorf("the sentence after the lead-in went to lessons, as under a conclusion")
	}
	if f := got["我们调大了连接池并重启了服务。"]; f != "remediation" {
		t.Errorf("the sentence under the label 解决方法 went to %q, want remediation", f)
	}
}

// A status-page report names its trigger as "not the root cause", ends
// with an apology that says "impact" and "caused", and tells its plans in
// the progressive ("we are adding"): the trigger is no cause, the apology
// no field, the plans action items.
func TestStatusReportSentences(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"en", "# Summary of the queue service event\n\n" +
			"The trigger, though not the root cause, for the event was a routine addition of servers to the fleet.\n\n" +
			"The new servers caused every server to exceed its thread limit, so requests failed.\n\n" +
			"We are adding alarms for thread use to every fleet.\n\n" +
			"We apologize for the impact this event caused for our customers.\n",
			[]routeWant{
				{"The trigger, though not the root cause, for the event was a routine addition of servers to the fleet.", "trigger"},
				{"We are adding alarms for thread use to every fleet.", "action_items"},
				{"We apologize for the impact this event caused for our customers.", ""},
			}},
		{"ru", "# Сбой очереди\n\nСервис очереди не отвечал два часа из-за лимита потоков.\n\n" +
			"Мы приносим извинения за сбой, который вызвал ошибки у клиентов.\n",
			[]routeWant{
				{"Мы приносим извинения за сбой, который вызвал ошибки у клиентов.", ""},
			}},
		{"zh", "# 队列服务故障\n\n队列服务因为线程数超限导致请求失败。\n\n" +
			"对于此次故障导致的影响，我们深表歉意。\n",
			[]routeWant{
				{"对于此次故障导致的影响，我们深表歉意。", ""},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRoutes(t, c.md, c.want) })
	}
}

func TestNotTheRootCause(t *testing.T) {
	for _, s := range []string{
		"the deploy was the trigger, though not the root cause",
		"это триггер, но не корневая причина сбоя",
		"这次发布只是触发条件，并非根因",
	} {
		if got := fieldScores(strings.ToLower(s))[fRootCause]; got != 0 {
			t.Errorf("%q: root cause score %.2f, want 0", s, got)
		}
	}
}

// TestVagueHeadingInheritsField: a vague heading ("Problem 2", "Проблема
// #1", "问题定位") inside a section a field heading names is a part of that
// field, and inside a timeline a stage of it; alone it stays a problem
// section (en, ru, zh).
func TestVagueHeadingInheritsField(t *testing.T) {
	for _, tc := range []struct {
		name, md, heading string
		want              field
	}{
		{"en", "# Outage\n\n## Root cause\n\nTwo things went wrong.\n\n### Problem 1: the cache\n\nThe cache kept stale keys after the deploy.\n", "Problem 1: the cache", fRootCause},
		{"ru", "# Сбой\n\n## Корневая причина\n\nОшибок было две.\n\n### Проблема #1: кэш\n\nКэш хранил старые ключи после деплоя.\n", "Проблема #1: кэш", fRootCause},
		{"zh", "# 故障复盘\n\n## 时间线\n\n### 问题定位\n\n10:20 定位到缓存的 key 没有更新。\n", "问题定位", fTimeline},
		{"en-alone", "# Outage\n\n## Problem\n\nCheckout failed for every user.\n", "Problem", fProblem},
		{"zh-alone", "# 故障复盘\n\n## 问题\n\n下单接口全部超时。\n", "问题", fProblem},
	} {
		doc, err := extract.Extract([]byte(tc.md), extract.Options{Format: extract.FormatMarkdown})
		if err != nil {
			t.Fatal(err)
		}
		kinds := sectionKinds(doc)
		found := false
		for i, s := range doc.Sections {
			if s.Heading == tc.heading {
				found = true
				if kinds[i] != tc.want {
					t.Errorf("%s: %q is kind %d, want %d", tc.name, tc.heading, kinds[i], tc.want)
				}
			}
		}
		if !found {
			t.Errorf("%s: no section %q", tc.name, tc.heading)
		}
	}
}

// Questions a post goes on to answer are analysis, not its follow-ups: a
// "Followup questions" section explains, it plans nothing.
func TestQuestionHeadingsAreAnalysis(t *testing.T) {
	checkHeadingKinds(t, map[string]field{
		"Followup questions": fAnalysis, "Follow-up questions": fAnalysis, "Open questions": fAnalysis,
		"Открытые вопросы": fAnalysis, "遗留问题": fAnalysis, "疑问": fAnalysis,
		"Follow-up": fActionItems, "Followup items": fActionItems, "Дальнейшие шаги": fActionItems, "后续改进": fActionItems,
	})
}

// A program's error or exception handling named in a heading is a topic the
// post explains, not how the incident was handled.
func TestErrorHandlingHeadingIsNoFix(t *testing.T) {
	checkHeadingKinds(t, map[string]field{
		"Exception handling in the worker pool": fAnalysis, "Обработка ошибок в клиенте": fAnalysis, "深入探究线程池的异常处理": fAnalysis,
		"How we handled the outage": fNone, "Обработка инцидента": fNone, "处理过程": fRemediation, "Fix": fRemediation,
	})
}

// A description of the problem, however brief, tells what was seen: it is
// no summary ("кратко" alone names one).
func TestProblemDescriptionHeadingIsSymptoms(t *testing.T) {
	checkHeadingKinds(t, map[string]field{
		"Краткое описание проблемы": fSymptoms, "Описание проблемы": fSymptoms, "Brief problem description": fSymptoms,
		"问题描述": fSymptoms, "Кратко": fNarrative,
	})
}

// How long a fix took (or will take) is a report's metadata, not a fix step
// ("Время исправления: ~30 минут" had become a remediation item).
func TestFixTimeLabelIsMetadata(t *testing.T) {
	checkHeadingKinds(t, map[string]field{
		"Time to fix": fSkip, "Fix time": fSkip, "Время исправления": fSkip, "Время устранения": fSkip,
		"修复时间": fSkip, "修复耗时": fSkip, "Исправление": fRemediation, "The fix": fRemediation, "修复": fRemediation,
	})
}

// checkHeadingKinds checks the section kind of each heading.
func checkHeadingKinds(t *testing.T, want map[string]field) {
	t.Helper()
	for h, kind := range want {
		if got, _ := headingKind(h); got != kind {
			t.Errorf("headingKind(%q) = %v, want %v", h, got, kind)
		}
	}
}

// Bringing the service back from a copy is a fix step, told in any of the
// three languages without a fix heading.
func TestRestoreFromBackupIsRemediation(t *testing.T) {
	for _, tc := range []struct{ name, md, sentence string }{
		{"en", "# The scoreboard database\n\nAt 22:45 I dropped the production tables by running the test suite against them.\n\n" +
			"After a minute of panic I put the site into maintenance mode and started restoring last night's backup.\n",
			"After a minute of panic I put the site into maintenance mode and started restoring last night's backup."},
		{"ru", "# База табло\n\nВ 22:45 я снёс таблицы в продакшене, запустив тесты не на той базе.\n\n" +
			"Через минуту паники я закрыл сайт и восстанавливал данные из ночного бэкапа.\n",
			"Через минуту паники я закрыл сайт и восстанавливал данные из ночного бэкапа."},
		{"zh", "# 记分板数据库\n\n晚上 22:45，我在生产库上跑了测试，把表全删了。\n\n" +
			"慌了一分钟之后，我把网站切到维护模式，然后导回昨晚备份的数据。\n",
			"慌了一分钟之后，我把网站切到维护模式，然后导回昨晚备份的数据。"},
	} {
		t.Run(tc.name, func(t *testing.T) { checkRoutes(t, tc.md, []routeWant{{tc.sentence, "remediation"}}) })
	}
}
