package classify

import "testing"

// An observation reported while investigating ("we observed", "发现",
// "увидел") with a failure word in it is a symptom, though an investigation
// step needs more than one weak cue. Showing the reader something ("as you
// can see", "可以看到"), a failure gone ("no longer", "不再") and an
// observation with no failure word stay out.
func TestObservationsAreSymptoms(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"en", "# Upload outage\n\n## Investigation\n\n" +
			"We observed that most uploads stalled at the proxy.\n\n" +
			"We observed that the config file had two entries for the bucket.\n\n" +
			"As you can see, the proxy log shows a timeout there.\n\n" +
			"After the patch we observed that uploads no longer time out.\n",
			[]routeWant{
				{"We observed that most uploads stalled at the proxy.", "symptoms"},
				{"We observed that the config file had two entries for the bucket.", ""},
				{"As you can see, the proxy log shows a timeout there.", ""},
				{"After the patch we observed that uploads no longer time out.", ""},
			}},
		{"zh", "# 上传故障\n\n## 排查过程\n\n" +
			"登录机器后发现接口请求全部卡住。\n\n" +
			"查看日志，观察到磁盘写入明显变慢。\n\n" +
			"查看配置文件，发现桶有两条配置。\n\n" +
			"从下面的输出可以看到请求超时前连接已经建立。\n\n" +
			"换掉客户端后发现不再超时了。\n",
			[]routeWant{
				{"登录机器后发现接口请求全部卡住。", "symptoms"},
				{"查看日志，观察到磁盘写入明显变慢。", "symptoms"},
				{"查看配置文件，发现桶有两条配置。", ""},
				{"从下面的输出可以看到请求超时前连接已经建立。", ""},
				{"换掉客户端后发现不再超时了。", ""},
			}},
		{"ru", "# Падение загрузок\n\n## Расследование\n\n" +
			"В логах увидел, что воркеры зависают на каждом запросе.\n\n" +
			"Как видно из вывода, таймаут срабатывает до ответа.\n\n" +
			"После патча увидел, что запросы больше не зависают.\n",
			[]routeWant{
				{"В логах увидел, что воркеры зависают на каждом запросе.", "symptoms"},
				{"Как видно из вывода, таймаут срабатывает до ответа.", ""},
				{"После патча увидел, что запросы больше не зависают.", ""},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkRoutes(t, tc.md, tc.want) })
	}
}

// A measure going up ("increasing", "climbed", "rising") is a symptom word
// as "increased" is.
func TestTrendWordsAreSymptoms(t *testing.T) {
	for _, s := range []string{
		"Memory use on the nodes was steadily increasing.",
		"Heap usage climbed every hour until the restart.",
		"Queue depth kept rising all morning.",
	} {
		if got := fieldScores(toLower(s))[fSymptoms]; got <= 0 {
			t.Errorf("symptom score of %q = %v, want > 0", s, got)
		}
	}
}

// Progressive forms of the strong fix verbs ("rolling back", "restarting")
// name a step as the past forms do.
func TestProgressiveFixVerbs(t *testing.T) {
	checkRoutes(t, "# Checkout outage\n\n## Summary\n\n"+
		"We began rolling back the release to the previous build.\n\n"+
		"Restarting the workers cleared the backlog.\n\n"+
		"Rebooting the database host brought the replicas back.\n",
		[]routeWant{
			{"We began rolling back the release to the previous build.", "remediation"},
			{"Restarting the workers cleared the backlog.", "remediation"},
			{"Rebooting the database host brought the replicas back.", "remediation"},
		})
}
