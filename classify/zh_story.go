package classify

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
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

// Chinese story order. A 排查 story reports what was seen ("查看到缓存命中为
// 0%", "发现所有任务都调度到 node2", "依然无法启动") while the cause is still
// unknown; once a sentence states the cause found, the story has turned.
// zhStoryOrder reads that order: before the first sentence that states the
// cause (a cause heading's sentence routed there, a strong cause cue, or
// the cause-found turn "最后发现是…"), a sentence of an untitled,
// investigation or problem section that the cues left out is a symptom
// when it reports a finding (an observation with something after it) or
// names a failure, unless it guesses ("怀疑…", "是不是…"), supposes ("如果"),
// shows the reader something ("可以看到") or tells a failure gone. After
// it, a story sentence that only a weak failure word sent to symptoms
// explains the cause or the fix ("…导致 client 一直在等，直到超时"): no
// symptom seen.

// zhGuess marks a guess or a question put to oneself during the hunt.
var zhGuess = cues("怀疑", "以为", "猜测", "猜想", "推测", "是不是", "会不会", "难道", "可能是", "应该是", "估计")

// zhObservedRest reports an observation mark (发现, 看到, 查看到 …) with a
// finding after it: more than punctuation and filler.
func zhObservedRest(low string) bool {
	for _, m := range []string{"发现", "看到", "查看到", "观察到", "注意到"} {
		i := strings.Index(low, m)
		if i < 0 {
			continue
		}
		rest := low[i+len(m):]
		for _, w := range []string{"了", "一些", "一个", "这个", "问题", "异常", "原因", "所在", "的", "有"} {
			rest = strings.ReplaceAll(rest, w, "") // "发现了一些问题": nothing found yet
		}
		rest = strings.TrimFunc(rest, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) })
		if utf8.RuneCountInString(rest) >= 4 && !zhAsExpected.any(rest) {
			return true
		}
	}
	return false
}

// zhAsExpected marks a finding that something is as it should be ("发现用户
// 信息都正常", "检查无误"): a cause ruled out, not a failure seen.
var zhAsExpected = cues("正常", "无误", "没问题", "没有问题", "一样", "一致", "符合预期")

// zhReproduce marks a reproduction or an experiment ("这个问题很容易重现",
// "为了模拟…"): what the rest of its section sees is the failure made again
// on purpose.
var zhReproduce = cues("复现", "重现", "模拟", "实验", "测试一下", "做个测试", "做了个测试")

// zhToReader reports a sentence addressed to the reader (您, or 请 as a
// request: "请参阅", not 请求 or 申请): a quoted manual or advice, not the
// story's finding.
func zhToReader(low string) bool {
	if strings.Contains(low, "您") {
		return true
	}
	for i := 0; ; {
		j := strings.Index(low[i:], "请")
		if j < 0 {
			return false
		}
		at := i + j
		next := low[at+len("请"):]
		prev, _ := utf8.DecodeLastRuneInString(low[:at])
		if !strings.HasPrefix(next, "求") && !strings.HasPrefix(next, "教") && !strings.ContainsRune("申邀聘宴", prev) {
			return true
		}
		i = at + len("请")
	}
}

// zhClockLead matches a sentence opening with a clock time ("14:25 …").
var zhClockLead = regexp.MustCompile(`^\s*\d{1,2}[:：]\d{2}`)

// zhMostly reports prose written in Chinese: Han letters are at least a
// third of the letters.
func zhMostly(low string) bool {
	han, other := 0, 0
	for i := 0; i < len(low); {
		if b := low[i]; b < utf8.RuneSelf {
			// an ASCII letter is a letter and never Han: no table lookup
			if 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' {
				other++
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(low[i:])
		i += n
		switch {
		case isHanRune(r):
			han++
		case unicode.IsLetter(r):
			other++
		}
	}
	return han > 0 && 3*han >= other
}

// chinese reports, once per document, whether the article's prose is
// mostly Chinese (zhMostly of a.low); three Chinese passes ask.
func (a *analysis) chinese() bool {
	if a.zhProse == 0 {
		a.zhProse = -1
		if zhMostly(a.low) {
			a.zhProse = 1
		}
	}
	return a.zhProse > 0
}

// zhReveals reports the sentence that states the cause found.
func zhReveals(u *unit) bool {
	if u.assigned != fRootCause || !hasHan(u.low) {
		return false
	}
	return u.kind == fRootCause || u.scores[fRootCause] >= 3 || zhCauseFound.any(u.low)
}

// zhRevealIndex is the index of the first unit that states the cause
// found, or -1.
func (a *analysis) zhRevealIndex() int {
	for i := range a.units {
		if zhReveals(&a.units[i]) {
			return i
		}
	}
	return -1
}

// zhStoryOrder routes, in a Chinese post, what was seen before the cause
// was found.
func (a *analysis) zhStoryOrder() {
	if !a.chinese() {
		return
	}
	reveal := a.zhRevealIndex()
	if reveal < 0 {
		return // no cause told: no turn to read
	}
	status := false // a status page's updates
	for _, sec := range a.doc.Sections {
		for _, b := range sec.Blocks {
			if _, n := statusEntry(b.Text); n > 0 {
				status = true
			}
		}
	}
	for i := reveal + 1; i < len(a.units); i++ {
		u := &a.units[i]
		if u.assigned == fSymptoms && storyKind(u.kind) && !status && hasHan(u.low) && u.scores[fSymptoms] < overrideMin {
			// once the cause is known, a failure word explains it: no
			// symptom seen (a status page tells its updates newest
			// first: its "调查中 -" entry comes after the cause)
			u.story, u.preStory = true, u.assigned
			u.assigned = fNone
		}
	}
	secOf := a.sectionOf()
	trial := false // the section so far reproduces the failure
	for i := 0; i < reveal; i++ {
		u := &a.units[i]
		if i == 0 || secOf[i] != secOf[i-1] {
			trial = false
		}
		if zhReproduce.any(u.low) {
			trial = true
		}
		if trial {
			continue // a reproduction's results show the failure again, they are not what was seen
		}
		if u.assigned != fNone || !storyKind(u.kind) || !hasHan(u.low) || u.advice || isQuestion(u.text) ||
			apology.any(u.low) {
			continue
		}
		if zhGuess.any(u.low) || hypothesis.any(u.low) || hypothetical.any(u.low) || exposition.any(u.low) ||
			zhShows.any(u.low) || noLonger.any(u.low) || zhFailureGone.any(u.low) || notCause.any(u.low) {
			continue
		}
		sym := u.scores[fSymptoms]
		if u.kind == fProblem {
			sym -= problemBonus // the heading's lean is no failure word
		}
		if u.kind == fNarrative && u.pos < earlyPos && sym > 0 {
			sym -= earlyBonus
		}
		if zhToReader(u.low) || u.scores[fRootCause] > 0 || zhClockLead.MatchString(u.text) {
			// told to the reader, telling why ("升级内核导致…") or logged
			// at a clock time ("14:25 值班人员开始排查，…": a report's record
			// of the response): not a failure seen
			continue
		}
		// a bare finding counts under an investigation heading (排查过程),
		// where the hunt's results are told; in untitled narrative it is a
		// step toward the cause
		if zhObservedRest(u.low) && u.kind != fNarrative || sym > 0 {
			u.story, u.preStory = true, u.assigned
			u.assigned = fSymptoms
		}
	}
}

// zhMetaMarks tell a sentence about the post itself ("本文记录了…",
// "整个过程记录下来，给大家参考"), as metaSentence does in English.
var zhMetaMarks = cues("本文", "这篇文章", "这篇博客", "这篇博文", "本篇", "这篇笔记", "这里记录", "在此记录", "记录一下",
	"记录下来", "给大家参考", "供大家参考", "分享给大家", "跟大家分享", "和大家分享", "与大家分享")

// zhMeta takes out of every field, in a Chinese post's story sections, a
// sentence about the post itself (zhMetaMarks).
func (a *analysis) zhMeta() {
	if !a.chinese() {
		return
	}
	for i := range a.units {
		u := &a.units[i]
		if u.assigned != fNone && storyKind(u.kind) && hasHan(u.low) && zhMetaMarks.any(u.low) {
			u.story, u.preStory = true, u.assigned
			u.assigned = fNone
		}
	}
}

// zhTrialSteps takes out of remediation, in a Chinese post, the steps told
// in its story sections before the first sentence that states the cause:
// while the cause is unknown, a step reached by weak fix cues is a trial of
// the hunt ("尝试重启了控制器，无效。"), not the fix (a 把/将 change and a
// strong fix cue keep theirs). A post that states no cause is not read so.
func (a *analysis) zhTrialSteps() {
	if !a.chinese() {
		return
	}
	reveal := a.zhRevealIndex()
	// no cause told: no turn to read (as in zhStoryOrder)
	for i := 0; i < reveal; i++ {
		u := &a.units[i]
		if u.assigned == fRemediation && storyKind(u.kind) && hasHan(u.low) && u.scores[fRemediation] < overrideMin &&
			!zhDisposalFix(u.low) {
			u.story, u.preStory = true, u.assigned
			u.assigned = fNone
		}
	}
}
