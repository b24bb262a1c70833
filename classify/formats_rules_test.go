package classify

import (
	"strings"
	"testing"
)

// A status page's update opens with its state; the state names the
// entry's field and the prefix is no part of the sentence.
func TestStatusEntry(t *testing.T) {
	cases := []struct {
		text string
		want field
		rest string
	}{
		{"Investigating - We are looking into failed logins on the mobile app.", fProblem, "We are looking into failed logins on the mobile app."},
		{"Identified - The cause is a full disk on the session database.", fRootCause, "The cause is a full disk on the session database."},
		{"Identified: a faulty load balancer rule drops traffic.", fRootCause, "a faulty load balancer rule drops traffic."},
		{"Monitoring - A fix has been rolled out.", fRemediation, "A fix has been rolled out."},
		{"Resolved - This incident has been resolved.", fNarrative, "This incident has been resolved."},
		{"Расследуем — Часть клиентов не может войти в личный кабинет.", fProblem, "Часть клиентов не может войти в личный кабинет."},
		{"Причина найдена — Переполнен диск базы сессий.", fRootCause, "Переполнен диск базы сессий."},
		{"Мониторинг — Исправление выкачено.", fRemediation, "Исправление выкачено."},
		{"调查中 - 部分用户无法登录。", fProblem, "部分用户无法登录。"},
		{"已定位：会话数据库磁盘写满。", fRootCause, "会话数据库磁盘写满。"},
		{"观察中 - 修复已上线。", fRemediation, "修复已上线。"},
	}
	for _, c := range cases {
		k, n := statusEntry(c.text)
		if n == 0 || k != c.want || c.text[n:] != c.rest {
			t.Errorf("statusEntry(%q) = %v, %q; want %v, %q", c.text, k, c.text[n:], c.want, c.rest)
		}
	}
	// plain labels and prose are no status entries
	for _, s := range []string{"Monitoring: we had no alert on the queue length.", "Update: nothing changed.",
		"Root cause - a full disk.", "The investigating team - three engineers - met at noon.", "Мониторинг: алертов не было."} {
		if k, n := statusEntry(s); n > 0 && k != fNone && k != fNarrative {
			t.Errorf("statusEntry(%q) = %v, want no status entry", s, k)
		}
	}
}

func TestStampOnly(t *testing.T) {
	for _, s := range []string{"Mar 14, 2026 - 15:58 UTC", "Posted Mar 14, 2026 - 15:58 UTC", "15 марта 2026, 12:40 МСК",
		"2026-05-20 21:35", "2026年5月20日 21:35", "June 3, 09:12 PT"} {
		if got := isStampOnly(s); got != (s != "Posted Mar 14, 2026 - 15:58 UTC") {
			t.Errorf("isStampOnly(%q) = %v", s, got)
		}
	}
	for _, s := range []string{"At 15:58 UTC the queue drained.", strings.Repeat("2026-05-20 21:35 ", 5), "В 12:40 платежи прошли.", "21:35 服务恢复", "Update"} {
		if isStampOnly(s) {
			t.Errorf("isStampOnly(%q) = true, want false", s)
		}
	}
}

// Status-page updates in the three languages: the states route their
// entries, the date lines under them are no sentences, and no state heads
// the entries after it.
func TestStatusPageRoutes(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"en", "# Failed logins on the mobile app\n\n" +
			"**Monitoring** - A fix has been rolled out and we are watching the login success rate.\nJun 2, 2026 - 10:40 UTC\n\n" +
			"**Identified** - The login service is rejecting tokens signed with the new key.\nJun 2, 2026 - 10:05 UTC\n\n" +
			"**Investigating** - Users are seeing errors when they log in to the mobile app.\nJun 2, 2026 - 09:50 UTC\n",
			[]routeWant{
				{"A fix has been rolled out and we are watching the login success rate.", "remediation"},
				{"The login service is rejecting tokens signed with the new key.", "root_cause"},
				{"Users are seeing errors when they log in to the mobile app.", "symptoms"},
			}},
		{"ru", "# Ошибки входа в приложение\n\n" +
			"**Мониторинг** — Исправление выкачено, следим за долей успешных входов.\n2 июня 2026, 13:40 МСК\n\n" +
			"**Причина найдена** — Сервис входа отклоняет токены, подписанные новым ключом.\n2 июня 2026, 13:05 МСК\n",
			[]routeWant{
				{"Исправление выкачено, следим за долей успешных входов.", "remediation"},
				{"Сервис входа отклоняет токены, подписанные новым ключом.", "root_cause"},
			}},
		{"zh", "# 手机应用登录失败\n\n" +
			"**已定位** - 登录服务拒绝了用新密钥签名的令牌。\n2026-06-02 18:05\n\n" +
			"**调查中** - 部分用户登录手机应用时报错。\n2026-06-02 17:50\n",
			[]routeWant{
				{"登录服务拒绝了用新密钥签名的令牌。", "root_cause"},
				{"部分用户登录手机应用时报错。", "symptoms"},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkRoutes(t, c.md, c.want)
			for s := range routesOf(t, c.md) {
				if isStampOnly(s) {
					t.Errorf("date line %q became a sentence", s)
				}
			}
		})
	}
}

// An apology goes nowhere even under a field heading; a plan the writers
// commit to under a lessons heading is an action item, a "we should" stays
// a lesson.
func TestApologyAndPlanUnderHeadings(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"en", "# Search outage\n\nSearch returned errors for an hour because the index disk filled up.\n\n" +
			"## Lessons learned\n\nWe should be more careful with disk quotas.\n\nWe will add an alert on index disk usage.\n\n" +
			"## Follow-up\n\nWe will move the index to a larger volume.\n\nWe apologize for the trouble this caused.\n",
			[]routeWant{
				{"We should be more careful with disk quotas.", "lessons"},
				{"We will add an alert on index disk usage.", "action_items"},
				{"We apologize for the trouble this caused.", ""},
			}},
		{"ru", "# Сбой поиска\n\nПоиск час отдавал ошибки, потому что закончилось место на диске индекса.\n\n" +
			"## Выводы\n\nКвоты на диски нужно проверять заранее.\n\nМы добавим алерт на заполнение диска индекса.\n\n" +
			"## Что будет сделано\n\nПеренесём индекс на диск большего объёма.\n\nПриносим извинения за доставленные неудобства.\n",
			[]routeWant{
				{"Квоты на диски нужно проверять заранее.", "lessons"},
				{"Мы добавим алерт на заполнение диска индекса.", "action_items"},
				{"Приносим извинения за доставленные неудобства.", ""},
			}},
		{"zh", "# 搜索服务故障\n\n由于索引磁盘写满，搜索接口报错了一个小时。\n\n" +
			"## 经验教训\n\n磁盘配额一定要提前检查。\n\n我们将为索引磁盘使用率增加告警。\n\n" +
			"## 后续改进\n\n把索引迁移到更大的磁盘。\n\n对于本次故障带来的不便，我们深表歉意。\n",
			[]routeWant{
				{"磁盘配额一定要提前检查。", "lessons"},
				{"我们将为索引磁盘使用率增加告警。", "action_items"},
				{"对于本次故障带来的不便，我们深表歉意。", ""},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := routesOf(t, c.md)
			for _, w := range c.want {
				// the hand route: the field model may still leave a field empty
				if f, ok := got[w.sentence]; !ok {
					t.Errorf("sentence %q not found", w.sentence)
				} else if f != w.field {
					t.Errorf("%q went to %q, want %q", w.sentence, f, w.field)
				}
			}
		})
	}
	if k, _ := headingKind("Что будет сделано"); k != fActionItems {
		t.Errorf("Что будет сделано: %v, want action items", k)
	}
}

// Cue qualifiers from narrative debugging posts: a restart loop is a
// symptom, not a fix; a first guess is neither symptom nor cause unless it
// was borne out; what the story taught is a lesson; turning a feature off
// is a step taken.
func TestNarrativeQualifiers(t *testing.T) {
	score := func(s string) map[field]float64 { return fieldScores(strings.ToLower(s)) }
	for _, s := range []string{"The worker kept restarting every few minutes.", "图片服务开始频繁重启。"} {
		sc := score(s)
		if sc[fSymptoms] < 2 || sc[fRemediation] >= sc[fSymptoms] {
			t.Errorf("%q: symptoms %.2f, remediation %.2f; want a symptom", s, sc[fSymptoms], sc[fRemediation])
		}
	}
	for _, s := range []string{"At first we thought the errors came from a network outage.", "一开始以为是网络故障导致的超时。"} {
		sc := score(s)
		if sc[fSymptoms] > 0 || sc[fRootCause] > 0 {
			t.Errorf("%q: symptoms %.2f, root cause %.2f; want neither", s, sc[fSymptoms], sc[fRootCause])
		}
	}
	if sc := score("At first we suspected the cache, and it was the cache: a bug in its eviction caused the errors."); sc[fRootCause] == 0 {
		t.Errorf("a guess borne out lost its cause score")
	}
	for _, s := range []string{"This bug taught me to test the error paths too.", "这次故障让我明白，回滚方案要提前准备。"} {
		if sc := score(s); sc[fLessons] < 2 {
			t.Errorf("%q: lessons %.2f, want a lesson", s, sc[fLessons])
		}
	}
	for _, s := range []string{"We turned off the export job and the errors stopped.", "我们先把导出任务关掉了。"} {
		if sc := score(s); sc[fRemediation] == 0 {
			t.Errorf("%q: no remediation score", s)
		}
	}
	for _, s := range []string{"Builds took twice as long as usual.", "Notifications arrived minutes late.", "用户收不到验证码。", "页面一直打不开。"} {
		if sc := score(s); sc[fSymptoms] == 0 {
			t.Errorf("%q: no symptom score", s)
		}
	}
	if sc := score("We are also improving our queue alerts."); sc[fActionItems] < 2 || sc[fDetection] > 0 {
		t.Errorf("a progressive plan with 'also': action items %.2f, detection %.2f", sc[fActionItems], sc[fDetection])
	}
}
