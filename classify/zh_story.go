package classify

import (
	"strings"
	"unicode"
)

// Chinese story rules. A 踩坑 / 排查 post tells its failure in a fixed
// order: what was seen (报错, 超时, 告警), the hunt (查看, 发现), the cause
// found ("最后发现是…", "原来是…", "问题出在…"), the fixes ("把 X 改成 Y",
// "调整为"), and how things went after ("之后再也没有出现过"). The rules
// below read those turns of phrase, which are grammar of the story rather
// than one post's topic words.

var (
	// zhCauseFound opens the cause found at the end of a hunt: the
	// sentence states the cause, so the failure words in it ("…导致超时")
	// and its 发现 are no symptom seen.
	zhCauseFound = cues("最后发现是", "最终发现是", "终于发现是", "才发现是", "结果发现是", "后来发现是",
		"发现是因为", "发现是由于", "发现原来", "原来是", "问题出在", "原因出在", "根源在于", "原因就是",
		"定位到是", "定位到原因")

	// zhFailureGone tells a failure that did not come back after a fix
	// ("之后再也没有出现过 502"): the outcome of a step, not a symptom.
	zhFailureGone = cues("再也没有出现", "再也没出现", "没有再出现", "没再出现", "再没出现", "再没有出现",
		"不再出现", "没有再发生", "再也没有发生", "再也没发生", "问题消失", "问题就消失")
)

// zhTaught is an event that taught the writer something ("这件事告诉我"):
// a lesson drawn, not advice reported from someone ("ChatGPT 告诉我").
var zhTaught = cues("件事告诉我", "次故障告诉我", "次事故告诉我", "次经历告诉我", "次教训告诉我", "这告诉我们")

// zhFixVerbs are the change verbs a fix is told with: "把 X 改成 Y", "将
// 超时调整为 60 秒". Told with 把/将 (the disposal construction: someone
// did it) they are a step taken; told with 被 ("被修改为") they are a change
// that happened to the system, which may be the cause, so they count for
// nothing there.
var zhFixVerbs = []string{"改成", "改为", "改回", "换成", "调整为", "调整成", "修改为", "修改成", "调大", "调高",
	"调小", "调低", "加大", "升级到", "替换为", "替换成", "设置为", "设置成", "设为"}

// zhNegated before a change verb: a fix not made, or advised against.
var zhNegated = cues("不要", "不能", "不会", "没有", "没把", "别把", "别将", "无法", "不用", "不必")

// zhFixBonus is what a 把/将 fix adds to remediation.
const zhFixBonus = 1.5

// zhDisposalFix reports "把/将 … <change verb>": no 被 between 把/将 and the
// verb, no negation just before it or between, and 将 not the future
// ("将会", "将要").
func zhDisposalFix(low string) bool {
	for _, v := range zhFixVerbs {
		i := strings.Index(low, v)
		if i < 0 {
			continue
		}
		before := low[:i]
		b := strings.LastIndex(before, "把")
		if j := strings.LastIndex(before, "将"); j > b {
			if rest := before[j+len("将"):]; strings.HasPrefix(rest, "会") || strings.HasPrefix(rest, "要") {
				continue
			}
			b = j
		}
		if b < 0 {
			continue
		}
		from := max(0, b-2*len("不")) // "不要把…", "别把…"
		if !strings.Contains(before[b:], "被") && !zhNegated.any(before[from:]) {
			return true
		}
	}
	return false
}

// zhFoundMarks announce that the cause was found; a sentence that ends
// with them ("终于找到了问题。") names no cause, the next one does.
var zhFoundMarks = []string{"终于找到", "最终找到", "终于定位", "最终定位", "找到了问题", "找到了原因", "定位到了问题", "定位到问题"}

// zhFoundNothing reports a sentence whose discovery mark is followed by
// nothing but 了/问题/原因/所在 and punctuation.
func zhFoundNothing(low string) bool {
	for _, m := range zhFoundMarks {
		i := strings.LastIndex(low, m)
		if i < 0 {
			continue
		}
		rest := low[i+len(m):]
		for _, w := range []string{"了", "问题", "原因", "所在", "根因", "的", "这个", "真正"} {
			rest = strings.ReplaceAll(rest, w, "")
		}
		rest = strings.TrimFunc(rest, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
		if rest == "" {
			return true
		}
	}
	return false
}

// zhStory adjusts the cue scores of one lower-cased sentence by the story
// rules above; sentenceScores calls it before its qualifiers.
func zhStory(low string, out map[field]float64, adv bool) {
	if !hasHan(low) {
		return
	}
	if hypothesis.any(low) && !confirmed.any(low) {
		// "一开始以为是进程数不够，把它加到了 30，问题依旧": the step
		// tried on a wrong guess is part of the hunt, not a fix
		delete(out, fRemediation)
	}
	if out[fRootCause] > 0 && zhFoundNothing(low) {
		delete(out, fRootCause)
	}
	if zhFailureGone.any(low) {
		delete(out, fSymptoms)
		out[fRemediation] += 3
	}
	if out[fActionItems] == 0 && !adv && !hypothetical.any(low) && !commitment.any(low) && zhDisposalFix(low) {
		// "把超时改回 60 秒": a step taken (not one planned, advised or
		// supposed)
		out[fRemediation] += zhFixBonus
	}
}

// zhShows marks a sentence that walks the reader through a figure, a
// listing or a reproduction ("如下图所示", "我们来看一下代码", "可以看到，…"):
// exposition around the field, not the field.
var zhShows = cues("如下图所示", "如图所示", "如上所示", "如上图所示", "来复现", "复现一下",
	"我们来看", "来看一下", "一起来看", "下面来看")

// zhDemonstration reports a Chinese sentence under a field heading
// (symptoms, cause, fix) that shows the reader something and holds no
// strong cue of the heading's field: it goes to no field.
func zhDemonstration(u *unit) bool {
	switch u.kind {
	case fSymptoms, fRootCause, fRemediation:
	default:
		return false
	}
	if u.scores[u.kind] >= overrideMin || !hasHan(u.low) {
		return false
	}
	return zhShows.any(u.low) || strings.HasPrefix(strings.TrimSpace(u.low), "可以看到")
}
