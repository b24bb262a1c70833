package classify

import (
	"strings"
	"testing"
)

// The Chinese story rules (zh_story.go) on made-up sentences: the cause
// found at the end of a hunt, a step tried on a wrong guess, a discovery
// that names nothing yet, a failure that did not come back, and a fix told
// in the disposal construction (把/将 … 改成).
func TestChineseStoryScores(t *testing.T) {
	score := func(s string) map[field]float64 { return fieldScores(strings.ToLower(s)) }
	for _, tc := range []struct {
		sentence string
		check    func(map[field]float64) bool
		want     string
	}{
		{"折腾了半天，最后发现是升级脚本把连接超时重置成了 3 秒，请求超过 3 秒就报错。",
			func(sc map[field]float64) bool { return sc[fRootCause] > sc[fSymptoms] },
			"the cause found outweighs the failure words (no observation bonus)"},
		{"一开始以为是线程数不够，把线程数从 20 加到了 50，重启之后问题依旧。",
			func(sc map[field]float64) bool { return sc[fRemediation] == 0 && sc[fSymptoms] == 0 },
			"a step tried on a wrong guess is no fix"},
		{"一开始以为是网关的问题，重启了网关，果然好了。",
			func(sc map[field]float64) bool { return sc[fRemediation] > 0 },
			"a guess borne out keeps its fix"},
		{"翻了一遍最近的提交记录，终于找到了问题。",
			func(sc map[field]float64) bool { return sc[fRootCause] == 0 },
			"a discovery that names nothing is no cause"},
		{"终于找到了原因：配置中心推送的限流阈值少写了一个零。",
			func(sc map[field]float64) bool { return sc[fRootCause] > 0 },
			"a discovery that goes on to name the cause stays one"},
		{"换了新的驱动版本之后，再也没有出现过掉线的报错。",
			func(sc map[field]float64) bool { return sc[fSymptoms] == 0 && sc[fRemediation] >= 3 },
			"a failure that did not come back is the outcome of a fix"},
		{"我们把连接池的最大连接数调整为 200，接口就正常了。",
			func(sc map[field]float64) bool { return sc[fRemediation] >= 1.5 },
			"把 … 调整为: a step taken"},
		{"将重试次数改为 3 次。",
			func(sc map[field]float64) bool { return sc[fRemediation] >= 1.5 },
			"将 … 改为: a step taken"},
		{"后续我们将把告警阈值调整为 80%。",
			func(sc map[field]float64) bool { return sc[fRemediation] < sc[fActionItems] },
			"a planned change is an action item"},
		{"问题出在连接池的配置上，最大连接数只有 10。",
			func(sc map[field]float64) bool { return sc[fRootCause] >= 3 },
			"blame told of the problem itself (问题出在) names the cause"},
		{"线程一直阻塞在锁上，请求全部超时。",
			func(sc map[field]float64) bool { return sc[fSymptoms] >= 2 },
			"阻塞 is a failure word"},
		{"如果把超时改成 60 秒，问题应该就能缓解。",
			func(sc map[field]float64) bool { return sc[fRemediation] < 3+zhFixBonus },
			"a supposed change gets no step bonus"},
	} {
		if sc := score(tc.sentence); !tc.check(sc) {
			t.Errorf("%q: %v; want %s", tc.sentence, sc, tc.want)
		}
	}
}

// The disposal construction: 把/将 before the change verb, not 被, no
// negation, 将 not the future.
func TestChineseDisposalFix(t *testing.T) {
	for _, tc := range []struct {
		sentence string
		want     bool
	}{
		{"我们把连接池的最大连接数调整为 200。", true},
		{"将重试次数改为 3 次。", true},
		{"于是把日志级别改回 info。", true},
		{"运维平台的默认超时被修改为了 5 秒。", false},
		{"没把超时改成 60 秒。", false},
		{"千万不要把生产库的密码改成弱口令。", false},
		{"别把超时设置为 0。", false},
		{"这个参数将会改为默认开启。", false},
		{"超时时间调整为 60 秒。", false},
	} {
		if got := zhDisposalFix(strings.ToLower(tc.sentence)); got != tc.want {
			t.Errorf("zhDisposalFix(%q) = %v, want %v", tc.sentence, got, tc.want)
		}
	}
}

// An event that taught the writer ("这件事告诉我") draws a lesson; advice
// told by someone else stays narrative.
func TestChineseTaughtIsALesson(t *testing.T) {
	sc, adv := sentenceScores(strings.ToLower("这次故障告诉我，磁盘告警一定要提前配好。"))
	if !adv || sc[fLessons] < 2 {
		t.Errorf("an event that taught: advice %v, lessons %.2f; want a lesson", adv, sc[fLessons])
	}
	if _, adv := sentenceScores(strings.ToLower("同事告诉我一定要先备份再升级。")); adv {
		t.Errorf("advice someone gave read as the writer's lesson")
	}
}

// Under a field heading, a Chinese sentence that walks the reader through a
// figure, a listing or a reproduction goes to no field; one with a strong
// cue of the heading's field stays.
func TestChineseDemonstrationUnderHeading(t *testing.T) {
	md := "# 一次连接泄漏\n\n## 根本原因\n\n" +
		"连接用完之后没有归还到连接池，池子很快就被耗尽了。\n\n" +
		"我们可以写一个小程序来复现这个问题，如下图所示。\n\n" +
		"可以看到，每个请求都会多占用一个连接。\n\n" +
		"## 解决方案\n\n" +
		"下面来看一下修改后的代码。\n\n" +
		"在 defer 里归还连接，修复了泄漏。\n"
	checkRoutes(t, md, []routeWant{
		{"连接用完之后没有归还到连接池，池子很快就被耗尽了。", "root_cause"},
		{"我们可以写一个小程序来复现这个问题，如下图所示。", ""},
		{"可以看到，每个请求都会多占用一个连接。", ""},
		{"下面来看一下修改后的代码。", ""},
		{"在 defer 里归还连接，修复了泄漏。", "remediation"},
	})
}

// In a made-up 踩坑 post without field headings, the story rules route the
// cause found, the failed guess and the fix as an annotator would.
func TestChineseStoryRoutes(t *testing.T) {
	md := "# 记一次接口 504 的排查\n\n" +
		"周一早上，下单接口开始大量超时报错，页面一直转圈。\n\n" +
		"一开始以为是数据库慢，把数据库的连接数从 100 加到了 300，问题依旧。\n\n" +
		"翻了一遍最近的配置变更，终于找到了问题。\n\n" +
		"最后发现是网关的配置被同事误改，上游超时从 30 秒变成了 3 秒，稍慢一点的请求就直接返回 504。\n\n" +
		"我们把网关的上游超时改回 30 秒，之后再也没有出现过 504。\n"
	checkRoutes(t, md, []routeWant{
		{"周一早上，下单接口开始大量超时报错，页面一直转圈。", "symptoms"},
		{"一开始以为是数据库慢，把数据库的连接数从 100 加到了 300，问题依旧。", ""},
		{"翻了一遍最近的配置变更，终于找到了问题。", ""},
		{"最后发现是网关的配置被同事误改，上游超时从 30 秒变成了 3 秒，稍慢一点的请求就直接返回 504。", "root_cause"},
		{"我们把网关的上游超时改回 30 秒，之后再也没有出现过 504。", "remediation"},
	})
}

// The Chinese story order (zhStoryOrder) on made-up posts, by the hand
// routes: before the sentence that states the cause, a finding of the 排查
// or a failure word is a symptom (not a guess, a finding that all is well,
// a reproduction's result, a vague "发现了一些问题", a sentence telling why
// or a clock-time record); after it, a weak failure word explains the
// cause.
func TestChineseStoryOrder(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"hunt", "# 记一次接口超时排查\n\n" +
			"周一早上，订单接口开始大量超时。\n\n" +
			"## 排查过程\n\n" +
			"登录那台机器查看到磁盘只剩下几十兆的空间。\n\n" +
			"翻了一下网关日志，发现所有请求都落在同一个机房。\n\n" +
			"一开始怀疑是网络抖动，抓包之后发现网络一切正常。\n\n" +
			"数据库那边也检查了一遍，发现连接数和平时一样。\n\n" +
			"于是在测试环境复现了一下。压测十分钟后，发现队列堆积到了十万条。\n\n" +
			"看日志的时候发现了一些问题。\n\n" +
			"最后发现是日志轮转的配置被删掉了，日志把磁盘写满了。\n\n" +
			"磁盘写满以后，接口就开始报错超时。\n",
			[]routeWant{
				{"登录那台机器查看到磁盘只剩下几十兆的空间。", "symptoms"},
				{"翻了一下网关日志，发现所有请求都落在同一个机房。", "symptoms"},
				{"一开始怀疑是网络抖动，抓包之后发现网络一切正常。", ""},
				{"数据库那边也检查了一遍，发现连接数和平时一样。", ""},
				{"压测十分钟后，发现队列堆积到了十万条。", ""},
				{"看日志的时候发现了一些问题。", ""},
				{"最后发现是日志轮转的配置被删掉了，日志把磁盘写满了。", "root_cause"},
				{"磁盘写满以后，接口就开始报错超时。", ""},
			}},
		{"a bare finding in untitled narrative is a step", "# 周末的告警\n\n" +
			"周六网站打不开了，监控一直在告警。\n\n" +
			"用 du 一层层往下找，发现 /data 下面有一个 200 G 的备份文件。\n\n" +
			"原来是备份脚本的清理步骤被注释掉了。\n",
			[]routeWant{
				{"用 du 一层层往下找，发现 /data 下面有一个 200 G 的备份文件。", ""},
				{"原来是备份脚本的清理步骤被注释掉了。", "root_cause"},
			}},
		{"a clock-time record of the response", "# 支付故障报告\n\n" +
			"## 故障排查\n\n" +
			"14:25 值班同学开始排查，确认失败的请求都来自新扩容的节点。\n\n" +
			"## 根因\n\n" +
			"根本原因是新节点的镜像里打包的是旧证书。\n",
			[]routeWant{
				{"14:25 值班同学开始排查，确认失败的请求都来自新扩容的节点。", ""},
			}},
	}
	for _, c := range cases {
		checkHandRoutes(t, c.name, c.md, c.want)
	}
	for s, want := range map[string]bool{
		"查看到缓存命中为0%":   true,
		"发现了一些问题。":     false,
		"发现用户信息都正常。":   false,
		"登录上去一看，发现有问题": false,
	} {
		if got := zhObservedRest(strings.ToLower(s)); got != want {
			t.Errorf("zhObservedRest(%q) = %v, want %v", s, got, want)
		}
	}
	for s, want := range map[string]bool{
		"请确保您位于正确的区域。":    true,
		"有关更多信息，请参阅官方文档。": true,
		"发现所有请求都落在同一个机房。": false,
		"申请了一台新的机器。":      false,
	} {
		if got := zhToReader(s); got != want {
			t.Errorf("zhToReader(%q) = %v, want %v", s, got, want)
		}
	}
	// only Chinese posts are read so
	if zhMostly("the service timed out, 发现 nothing") || !zhMostly("接口超时了，查看 nginx 的 error log") {
		t.Error("zhMostly misreads the script")
	}
}

// TestChineseMeta checks zhMeta (metaSentence in Chinese) on a made-up
// post: a sentence about the post itself goes to no field.
func TestChineseMeta(t *testing.T) {
	md := "# 一次缓存雪崩的排查\n\n" +
		"本文记录了上周缓存集群重启后接口超时的排查和修复过程。\n\n" +
		"上周四缓存集群重启后，订单接口大量超时。\n\n" +
		"原来是所有缓存键的过期时间都设成了同一个值，重启后同时失效。\n\n" +
		"我们把过期时间改为在基准值上加一个随机数，之后再也没有出现超时。\n\n" +
		"整个过程踩了不少坑，记录下来给大家参考。\n"
	checkHandRoutes(t, "zh meta", md, []routeWant{
		{"本文记录了上周缓存集群重启后接口超时的排查和修复过程。", ""},
		{"原来是所有缓存键的过期时间都设成了同一个值，重启后同时失效。", "root_cause"},
		{"我们把过期时间改为在基准值上加一个随机数，之后再也没有出现超时。", "remediation"},
		{"整个过程踩了不少坑，记录下来给大家参考。", ""},
	})
}

// TestChineseTrialSteps checks zhTrialSteps on made-up posts: before the
// cause is stated, a step reached by weak fix cues is a trial of the hunt,
// not the fix; a 把/将 change keeps its route, the fix after the cause is
// the fix, and a post that states no cause is not read so.
func TestChineseTrialSteps(t *testing.T) {
	md := "# 记一次任务调度失败\n\n" +
		"周三下午，调度平台上的任务全部提交失败。\n\n" +
		"先尝试重启了调度服务，无效。接着又重启了注册中心。\n\n" +
		"我们把调度服务的超时改为 30 秒，问题依旧。\n\n" +
		"最后发现是证书过期了，调度服务连不上注册中心。\n\n" +
		"更新证书后重启调度服务，任务恢复提交。\n"
	checkHandRoutes(t, "zh trial", md, []routeWant{
		{"先尝试重启了调度服务，无效。", ""},
		{"接着又重启了注册中心。", ""}, // the order, not 无效, makes it a trial
		{"我们把调度服务的超时改为 30 秒，问题依旧。", "remediation"},
		{"最后发现是证书过期了，调度服务连不上注册中心。", "root_cause"},
		{"更新证书后重启调度服务，任务恢复提交。", "remediation"},
	})
	noCause := "# 周末的一次重启\n\n" +
		"周六晚上网站打不开了。\n\n" +
		"重启了网关服务，网站恢复访问。\n"
	checkHandRoutes(t, "zh trial, no cause", noCause, []routeWant{
		{"重启了网关服务，网站恢复访问。", "remediation"},
	})
}
