package classify

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// cue is a phrase with a weight. Latin and Cyrillic cues match at the start
// of a word and may run on (a stem: "оказал" finds "оказалось"); a cue that
// starts with a space-free Han character matches anywhere.
type cue struct {
	text   string
	weight float64
}

// cueSet is a list of cues matched together.
type cueSet []cue

// score sums the weights of the cues found in low (already lower-cased);
// a cue counts once however often it occurs.
func (cs cueSet) score(low string) float64 {
	if len(cs) == 0 {
		return 0
	}
	s := 0.0
	var seen []int
	compiled(cs).each(low, func(ci int) bool {
		if !slices.Contains(seen, ci) {
			seen = append(seen, ci)
			s += cs[ci].weight
		}
		return true
	})
	return s
}

// any reports whether one of the cues occurs in low.
func (cs cueSet) any(low string) bool {
	if len(cs) == 0 {
		return false
	}
	hit := false
	compiled(cs).each(low, func(int) bool { hit = true; return false })
	return hit
}

// count counts the occurrences of every cue in low.
func (cs cueSet) count(low string) int {
	if len(cs) == 0 {
		return 0
	}
	n := 0
	compiled(cs).each(low, func(int) bool { n++; return true })
	return n
}

// cueIndex finds a set's cues by the first one or two runes at each word
// start (and at every Han character), so a sentence is scanned once rather
// than once per cue: the 50 KB budget is 20 ms.
type cueIndex struct {
	whole bool // a cue must also end a word (tags), not just start one (stems)
	cs    cueSet
	byKey map[string][]int
	other []int // cues starting with punctuation: plain substring search
	// keys1 and keys2 hold a bit for each one- and two-rune key (hashed),
	// so most word starts are passed over without hashing a map key: the
	// map lookups were a tenth of the 50 KB benchmark's profile.
	keys1, keys2 keyBits
}

// keyBits is a set of hashed keys: a clear bit means no key has the hash.
type keyBits [keyBitsLen / 64]uint64

const keyBitsLen = 8192

func keyHash(r0, r1 rune) uint32 { return (uint32(r0)*40503 ^ uint32(r1)*2654435761) % keyBitsLen }

func (b *keyBits) set(h uint32)      { b[h/64] |= 1 << (h % 64) }
func (b *keyBits) has(h uint32) bool { return b[h/64]&(1<<(h%64)) != 0 }

var cueIndexes, wholeIndexes sync.Map // *cue (first element) -> *cueIndex

func compiled(cs cueSet) *cueIndex { return compiledWith(cs, false) }

func compiledWith(cs cueSet, whole bool) *cueIndex {
	cache := &cueIndexes
	if whole {
		cache = &wholeIndexes
	}
	if v, ok := cache.Load(&cs[0]); ok {
		return v.(*cueIndex)
	}
	ix := &cueIndex{cs: cs, whole: whole, byKey: map[string][]int{}}
	for i, c := range cs {
		r0, _ := utf8.DecodeRuneInString(c.text)
		if !unicode.IsLetter(r0) && !unicode.IsDigit(r0) {
			ix.other = append(ix.other, i)
			continue
		}
		k := key(c.text, r0)
		ix.byKey[k] = append(ix.byKey[k], i)
		if _, n0 := utf8.DecodeRuneInString(k); n0 == len(k) {
			ix.keys1.set(keyHash(r0, -1))
		} else {
			r1, _ := utf8.DecodeRuneInString(k[n0:])
			ix.keys2.set(keyHash(r0, r1))
		}
	}
	v, _ := cache.LoadOrStore(&cs[0], ix)
	return v.(*cueIndex)
}

// key is the first rune of a Han cue, the first two runes of any other.
func key(s string, r0 rune) string {
	_, n0 := utf8.DecodeRuneInString(s)
	if unicode.Is(unicode.Han, r0) || n0 == len(s) {
		return s[:n0]
	}
	_, n1 := utf8.DecodeRuneInString(s[n0:])
	return s[:n0+n1]
}

// each calls fn with the index of every cue occurrence in low, until fn
// returns false. It allocates nothing: it runs for every sentence.
func (ix *cueIndex) each(low string, fn func(ci int) bool) {
	ix.eachAt(low, func(ci, _ int) bool { return fn(ci) })
}

// eachAt is each with the byte offset of every occurrence, for rules that
// look at a cue's neighbours.
func (ix *cueIndex) eachAt(low string, fn func(ci, at int) bool) {
	prevWord := false
	for i := 0; i < len(low); {
		if prevWord {
			// inside a word no cue starts: pass its ASCII letters and
			// digits and its common Cyrillic letters (U+0400-047F) in a
			// tight loop, a third of the scan's time
			j := skipWord(low, i)
			if j > i {
				i = j
				continue
			}
		}
		var r rune
		var n int
		var han, word bool
		if c := low[i]; c < utf8.RuneSelf {
			r, n = rune(c), 1
			word = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z'
		} else {
			r, n = utf8.DecodeRuneInString(low[i:])
			han, word = runeClass(r)
		}
		if han || (word && !prevWord) {
			if ix.keys1.has(keyHash(r, -1)) && !ix.try(low, i, ix.byKey[low[i:i+n]], fn) {
				return
			}
			if !han && i+n < len(low) {
				r1, n1 := rune(low[i+n]), 1
				if r1 >= utf8.RuneSelf {
					r1, n1 = utf8.DecodeRuneInString(low[i+n:])
				}
				if ix.keys2.has(keyHash(r, r1)) && !ix.try(low, i, ix.byKey[low[i:i+n+n1]], fn) {
					return
				}
			}
		}
		prevWord = word
		i += n
	}
	for _, ci := range ix.other {
		t := ix.cs[ci].text
		for from := 0; ; {
			k := strings.Index(low[from:], t)
			if k < 0 {
				break
			}
			if !fn(ci, from+k) {
				return
			}
			from += k + len(t)
		}
	}
}

// skipWord returns the end of the run of ASCII letters and digits and
// Cyrillic letters U+0400-047F (lead bytes 0xD0, 0xD1) from i: runes
// that are word runes and no Han.
func skipWord(low string, i int) int {
	for i < len(low) {
		b := low[i]
		switch {
		case asciiWord[b]:
			i++
		case (b == 0xD0 || b == 0xD1) && i+1 < len(low) && low[i+1]&0xC0 == 0x80:
			i += 2
		default:
			return i
		}
	}
	return i
}

// asciiWord marks the ASCII letters and digits.
var asciiWord = func() (t [256]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z'
	}
	return t
}()

// runeClass tells Han characters and word letters apart, with the common
// Cyrillic and CJK blocks decided before the Unicode tables are consulted.
func runeClass(r rune) (han, word bool) {
	switch {
	case r >= 0x400 && r <= 0x52F:
		return false, r < 0x482 || r > 0x489
	case r >= 0x4E00 && r <= 0x9FFF, r >= 0x3400 && r <= 0x4DBF:
		return true, false
	case r >= 0x3000 && r <= 0x303F, r >= 0xFF00 && r <= 0xFF0F, r >= 0x2000 && r <= 0x206F:
		return false, false // CJK and general punctuation
	}
	han = unicode.Is(unicode.Han, r)
	return han, (unicode.IsLetter(r) || unicode.IsDigit(r)) && !han
}

// try reports the candidates that match at position i; false stops the scan.
func (ix *cueIndex) try(low string, i int, cands []int, fn func(ci, at int) bool) bool {
	for _, ci := range cands {
		t := ix.cs[ci].text
		if strings.HasPrefix(low[i:], t) && (!ix.whole || endsWord(low, i+len(t), t)) {
			if !fn(ci, i) {
				return false
			}
		}
	}
	return true
}

// indexWord finds w in s where it starts a word (for Latin or Cyrillic w).
func indexWord(s, w string) int {
	r0, _ := utf8.DecodeRuneInString(w)
	wordy := unicode.IsLetter(r0) && !unicode.Is(unicode.Han, r0)
	from := 0
	for {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return -1
		}
		i += from
		if !wordy || i == 0 {
			return i
		}
		p, _ := utf8.DecodeLastRuneInString(s[:i])
		if !unicode.IsLetter(p) && !unicode.IsDigit(p) {
			return i
		}
		from = i + len(w)
	}
}

// cues builds a cueSet of weight-1 phrases.
func cues(ws ...string) cueSet {
	out := make(cueSet, len(ws))
	for i, w := range ws {
		out[i] = cue{text: w, weight: 1}
	}
	return out
}

// weighted returns cs with every weight set to w.
func weighted(w float64, cs cueSet) cueSet {
	out := make(cueSet, len(cs))
	for i, c := range cs {
		out[i] = cue{text: c.text, weight: w}
	}
	return out
}

func join(sets ...cueSet) cueSet {
	var out cueSet
	for _, s := range sets {
		out = append(out, s...)
	}
	return out
}

// Sentence cues per field, in English, Russian and Chinese. Strong cues name
// the field outright ("root cause", "причина", "根因"); plain cues lean.
var fieldCues = map[field]cueSet{
	fSymptoms: join(
		weighted(2, cues("symptom", "we experienced", "users saw", "users experienced",
			"customers experienced", "customers saw", "experienced failures", "experienced errors", "experienced elevated",
			"experienced degraded", "experienced delays", "experienced issues",
			"симптом", "наблюдал", "现象", "表现为", "出现了问题", "出现问题", "出了问题", "出问题")),
		cues("error", "errors", "failing", "timeout", "timed out", "timed-out", "time out", "times out", "timing out", "latency", "slow", "unavailable",
			"returning 5", "503", "502", "500 error", "went down", "is down", "was down", "hard down", "outage",
			"could not", "couldn't", "unable to", "stopped working", "spike", "degrad", "crash", "stuck",
			"stall", "not respond", "hang", "high cpu", "experienced", "began failing", "started failing",
			"slow queries", "declin", "impair", "freez", "froze", "intermittent", "sporadic", "periodic",
			"affected", "varied from", "increased", "drop in", "dropped",
			"increasing", "climb", "rising", "delay", "minutes late", "arrive late", "arrived late", "twice as long",
			"longer than usual", "slower than usual", "than usual",
			"failed", "fails", "sluggish", "stale", "waiting up to", "waited up to", "took up to", "seconds to load", "minutes to load", "stopped accepting", "stopped responding", "stopped processing",
			"stopped serving", "thrown out", "kicked out", "lost their progress", "did not run", "didn't run", "a day late", "one day late", "unreachable", "inaccessible", "nobody could", "no one could", "did not appear", "didn't appear", "missing from", "disappeared", "returning 4", "returned 4", "returned 5", "429",
			"logs said", "logs showed", "log said", "log showed", "logs were full", "was full", "were full", "is full", "% full",
			"disk full", "filled up",
			"ошибк", "ошибок", "упал", "падал", "падени", "не работал", "не работает", "недоступ", "тормоз", "медленн",
			"таймаут", "растёт", "растет", "вырос", "скакн", "график", "деградац", "завис", "не отвеча",
			"в потолке", "не создал", "не созда", "пуст", "подскочил", "проседа", "замедлен", "фриз", "пропада",
			"无法", "失败", "报错", "超时", "异常", "卡住", "阻塞", "不可用", "宕机", "延迟", "变慢", "飙升", "升高",
			"不能", "100%", "没有响应", "无响应", "间歇", "偶尔", "频繁", "出现了", "必现",
			// potential complements: "can't receive", "won't open", "can't connect"
			"收不到", "打不开", "连不上", "登不上", "用不了", "加载不出", "显示不出", "被杀", "超限")),
	fRootCause: join(
		weighted(3, cues("root cause", "the cause", "caused by", "was caused", "the reason", "turned out",
			"culprit", "the problem was", "the issue was", "the bug was",
			"корневая причина", "причина", "причиной", "оказал", "дело в том", "виновник", "виноват",
			"根因", "根本原因", "原因是", "原因在于", "问题在于", "是因为", "所致", "罪魁祸首",
			// the end of a search: what was finally found is the cause
			"finally found", "eventually found", "in the end it was", "it turned out",
			"в итоге оказалось", "в итоге выяснилось", "выяснилось",
			// "дело было в том, что…", "корень проблемы в …": the cause told as found
			"корень проблемы", "корень проблем", "дело было в", "проблема была в", "причина была в", "всё дело в", "все дело в",
			"была в том, что", "было в том, что", "был в том, что", "最后发现", "最终发现", "最终定位", "原来是", "终于发现", "终于找到",
			// blame told of the problem itself: "问题出在 X 上"
			"问题出在", "原因出在", "根源在于", "原因就是")),
		weighted(1.5, cues("due to", "led to", "leads to", "lead to", "resulted in", "resulting in",
			"as a result", "bug in", "a bug", "misconfigur", "race condition", "deadlock", "leak",
			"exhaust", "ran out of", "this meant", "which meant", "caused", "causing",
			"because of", "linked the", "traced to", "traced it", "traced the", "attributed to", "stems from",
			"stemmed from", "the underlying", "was due", "were due",
			"problem started when", "issue started when", "outage started when", "trouble started when", "it all started when",
			"we found a ", "we found an ", "we found the ", "we found that", "i found a ", "i found an ", "i found the ", "i found that",
			"связан с", "связано с", "вызвано", "вызван", "виной", "корень",
			"根源", "源于", "归因", "罪魁",
			"из-за", "из за", "привело к", "приводит к", "привёл", "привел",
			"вызва", "баг", "утечк", "исчерпа", "на самом деле",
			"导致", "引起", "造成", "写错", "缺陷", "耗尽", "泄漏", "泄露", "溢出")),
		// explanation connectives lean toward a cause but explain much else
		weighted(1.25, cues("because", "потому что", "поскольку", "由于", "因为")),
		cues("expired", "过期", "истек", "истёк", "存在问题"),
		cues("incorrect", "wrong", "by default", "inadvertently", "unintended", "unintentionally", "accidentally",
			"mistakenly", "by mistake", "случайно", "по ошибке", "不小心", "误操作", "did not", "didn't", "failed to", "not configured",
			"неправильн", "некорректн", "не учитыва", "не провер", "не было", "по умолчанию",
			"默认", "错误地", "没有考虑", "未考虑")),
	fTrigger: join(
		weighted(3, cues("triggered by", "event was triggered", "incident was triggered", "outage was triggered",
			"disruption was triggered", "issue was triggered", "problem was triggered", "the trigger", "trigger was", "coincided with", "триггер", "спровоцир", "触发")),
		weighted(1.5, cues("after deploying", "after the deploy", "after a deploy", "after the upgrade",
			"after upgrading", "after the update", "after the migration", "after the change",
			"после деплоя", "после релиза", "после обновлен", "после миграц", "после изменен",
			"上线后", "升级后", "发布后", "变更后", "迁移后")),
		cues("upgraded", "upgrade to", "an update to", "rolled out", "was renamed", "was migrated",
			"migrated from", "scheduled", "maintenance", "traffic spike", "surge", "release of", "was deployed",
			"обновили", "выкатил", "выкатка", "переименова", "по расписанию",
			"升级", "上线", "发布", "变更", "迁移", "定时", "复制一份", "激增")),
	fDetection: join(
		weighted(2, cues("alert", "alarm", "paged", "pagerduty", "on-call", "we were notified", "reported",
			"noticed", "first noticed", "detected", "synthetic monitor", "became aware", "automated warning",
			"got a warning", "warning from", "notices", "noticing", "opened an issue", "opened issues",
			"filed an issue", "filed a bug", "bug report", "monitoring showed", "monitoring picked up", "monitoring caught",
			"tweeted", "pager", "told us on", "told us in", "you told us", "contacted support", "contacted us", "let us know", "emailed us", "wrote to us", "asked in the",
			"with a page", "got a page", "a page from", "wrote to support", "wrote in to", "emailed support", "reached out to support",
			"алерт", "алёрт", "оповещен", "заметил", "пожаловал", "сообщил", "прилетает", "прилетел",
			"告警", "报警", "收到通知", "收到反馈", "用户反馈", "用户反映", "投诉")),
		weighted(2, cues("informed", "complain", "escalated", "сообщили", "пожаловались", "反映", "报障")),
		cues("monitoring", "support ticket", "мониторинг", "监控", "反馈", "收到")),
	fRemediation: join(
		weighted(2, cues("fixed", "resolved", "mitigated", "mitigate", "restored", "rolled back", "roll back",
			"rolling back", "rolls back", "restarting", "rebooting",
			"reverted", "revert", "we restarted", "restarted", "rebooted", "worked around", "workaround",
			"the fix", "a fix", "hotfix", "patched", "reattached", "recover", "has fixed", "we changed", "we have now changed",
			// bringing the service back (a backup named alone is no step: "I
			// tried to restore a photo from the backup" is how one finds it broken)
			"restoring", "back online", "maintenance mode", "восстанавлива", "维护模式",
			"исправил", "исправлен", "исправление", "починил", "починили", "откатил", "перезапустил", "рестарт",
			"убил", "убили", "поправил", "срезал", "восстановил", "восстановлен", "обходн", "фикс",
			"修复", "解决", "恢复", "回滚", "重启", "改为", "临时方案", "解决方法", "解决方案",
		)),
		// the outcome of a step: the problem eased (outweighs "after the
		// migration", which leads such sentences)
		weighted(3, cues("alleviated", "went away", "back to normal", "stabilized", "stabilised", "稳定了",
			"operational again", "снова работает", "снова доступ", "заработал", "重新上线", "恢复运行",
			"пришло в норму", "пришёл в норму", "пришла в норму", "пришли в норму", "нормализовал",
			"缓解", "恢复正常")),
		cues("increased", "we added", "we removed", "removed the", "replaced", "applied", "scaled",
			"cleared", "manually", "re-enabled", "upgraded to", "redeploy", "rebuilt", "scanned", "scanning",
			"checked", "searched", "terminated", "deleted", "downgraded", "disabled", "drained", "cordon",
			"rerun", "re-ran", "redeployed", "rebuilding", "redeploying", "reverting", "replacing", "started replacing", "asking teams", "killing", "killed",
			"scale down", "scaling down", "scaled down", "free up", "moved", "moving", "manual intervention",
			"opened a ticket", "ticket was opened", "contacted", "attempted to", "cancelled", "canceled", "temporarily",
			"added more", "we have added", "we've added", "is draining", "are draining",
			"отключил", "включил", "перенесли", "почистил", "очистил", "масштабир", "пересоздал", "откатили",
			"turned off", "switched off", "we stopped", "i stopped",
			"关掉", "关闭了", "切换到", "切到", "下线了",
			"停止", "关闭", "卸载", "扩展", "临时", "重新创建", "清理",
			"добавил", "удалил", "увеличил", "уменьшил", "заменил", "вернул", "переписал", "сделал",
			"修改", "调整", "删除", "替换", "扩容", "手动")),
	fActionItems: join(
		weighted(1.5, cues("we have since", "we've since")),
		cues("will now", "will automatically", "in future"),
		weighted(2, cues("we will", "we'll", "we are going to", "going forward", "we plan", "plan to", "planning to",
			"action item", "follow-up", "follow up", "to prevent", "will be added", "todo",
			// status-page reports tell their plans in the progressive
			"we are adding", "we are also adding", "we're adding", "we are improving", "we are implementing",
			"we are introducing", "we are updating", "we are changing", "we are working on", "we are reviewing",
			"we are investing", "we are making changes", "making several changes", "making a number of changes",
			"making the following changes", "taking the following steps", "we are also improving", "we are also implementing",
			"we are also introducing", "we are also updating", "we are also changing", "we are also working on",
			"we are also reviewing", "we are now adding", "мы добавляем", "мы внедряем", "мы работаем над",
			"будем", "планируем", "собираемся", "в будущем", "надо будет", "нужно будет", "в планах", "чтобы избежать", "чтобы не повтор", "добавим", "сделаем",
			"后续", "计划", "今后", "以后会", "防止再次", "避免再次")),
		cues("enhance", "improve", "should be", "we should", "will be", "is going to", "working to", "aiming",
			"нужно", "надо", "следует", "стоит добавить",
			"需要", "应该", "改进", "加强", "完善")),
	fLessons: join(
		weighted(2, cues("lesson", "we learned", "takeaway", "in hindsight", "in retrospect", "the moral",
			"урок", "вывод", "ловушка", "мораль", "经验", "教训", "启示", "切记", "反思",
			"i learned", "i've learned", "i have learned", "took away", "moral of the story",
			// the British spelling of the same
			"we learnt", "we've learnt", "we have learnt", "i learnt", "i've learnt", "i have learnt",
			"made me realize", "made me realise", "taught me", "taught us", "让我明白", "让我意识到", "让我认识到", "我明白了",
			// "这件事告诉我…": the event taught it (not advice someone gave)
			"件事告诉我", "次故障告诉我", "次事故告诉我", "次经历告诉我", "次教训告诉我", "这告诉我们")),
		cues("always", "never", "important to", "it is worth", "remember", "we realized", "we realised",
			"can display", "should have", "the key",
			"никогда", "всегда", "важно", "обидн", "понял", "осадоч", "по факту",
			"建议", "注意", "一定要", "最好", "可以看出", "总结")),
}

// labelledCues merges the cue sets of a label table so one scan counts
// them all; labels[i] names the label of cue i.
type labelledCues struct {
	cs     cueSet
	labels []string
}

func mergeLabels(table map[string]cueSet) labelledCues {
	var lc labelledCues
	for label, cs := range table {
		for _, c := range cs {
			lc.cs = append(lc.cs, c)
			lc.labels = append(lc.labels, label)
		}
	}
	return lc
}

// counts returns the number of cue occurrences per label in low.
func (lc labelledCues) counts(low string) map[string]int {
	out := map[string]int{}
	if len(lc.cs) == 0 {
		return out
	}
	compiled(lc.cs).each(low, func(ci int) bool {
		out[lc.labels[ci]]++
		return true
	})
	return out
}

// allFieldCues merges fieldCues, the advice cues as fAdvice, the
// observation cues as fObserve and the sentence marks (allMarkOf[ci] is the
// cue's mark bit, 0 for the others), so a sentence is scanned once for every
// field and mark.
var allFieldCues, allFieldOf, allMarkOf = func() (cueSet, []field, []marks) {
	var cs cueSet
	var of []field
	for _, f := range contentFields {
		for _, c := range fieldCues[f] {
			cs = append(cs, c)
			of = append(of, f)
		}
	}
	for _, c := range advice {
		cs = append(cs, c)
		of = append(of, fAdvice)
	}
	for _, c := range observed {
		cs = append(cs, c)
		of = append(of, fObserve)
	}
	markOf := make([]marks, len(cs))
	for k, m := range sentenceMarks {
		for _, c := range m {
			cs = append(cs, c)
			of = append(of, fNone)
			markOf = append(markOf, 1<<k)
		}
	}
	return cs, of, markOf
}()

// sentenceMarks are the cue sets sentenceScores asks of every sentence
// after its fields are scored; their cues ride in allFieldCues' one scan
// instead of each scanning the sentence again.
var sentenceMarks = [...]cueSet{mExposition: exposition, mNoLonger: noLonger, mNotCause: notCause,
	mZhCauseFound: zhCauseFound, mNoDetection: noDetection, mRestartLoop: restartLoop, mHypothesis: hypothesis,
	mConfirmed: confirmed, mApology: apology, mReportedAdvice: reportedAdvice, mZhTaught: zhTaught}

// Marks, by their index in sentenceMarks.
const (
	mExposition = iota
	mNoLonger
	mNotCause
	mZhCauseFound
	mNoDetection
	mRestartLoop
	mHypothesis
	mConfirmed
	mApology
	mReportedAdvice
	mZhTaught
)

// marks is a set of sentenceMarks, a bit each.
type marks uint16

func (m marks) has(k int) bool { return m&(1<<k) != 0 }

// noDetection names the absence of an alert: "there is no alert for it" is
// a gap to fix, not how the incident was found.
var noDetection = cues("no alert", "no test/alert", "no monitoring", "without alert", "without monitoring",
	"lack of monitoring", "missing monitoring", "not alerted", "no on-call", "not been detected", "no alarm",
	"нет алерта", "не было алерта", "без алерта", "нет мониторинга", "не было мониторинга",
	"没有告警", "没有监控", "缺少监控", "无告警")

// notCause rules a cause out rather than naming it.
var notCause = cues("unlikely to be", "ruled out", "rule out", "not caused by", "not the cause", "wasn't the cause",
	"was not the cause", "is not the cause", "not related to", "unrelated to",
	// "the trigger, though not the root cause, was …" names the trigger
	"not the root cause", "not a root cause", "not the underlying cause",
	"не из-за", "не связан", "не причина", "не в этом", "исключил", "исключили", "не корневая причина", "не первопричина",
	"排除", "不是因为", "并不是", "不会导致", "不是由于", "无关", "并非根因", "不是根因", "不是根本原因")

// restartLoop names a process that restarts again and again: a symptom.
var restartLoop = cues("kept restarting", "keeps restarting", "restarting repeatedly", "restart loop", "crash loop", "crashloop",
	"restarted every",
	"频繁重启", "不断重启", "反复重启", "一直重启", "循环重启")

// hypothesis marks a guess told as such ("at first we suspected", "я
// подумал", "一开始以为"); confirmed one that was borne out.
var hypothesis = cues("at first we suspected", "we initially suspected", "we first suspected", "at first we thought",
	"we initially thought", "we first thought", "i first thought", "at first i thought", "i initially thought",
	"our first guess", "my first guess", "my first thought", "our first thought", "i suspected", "we suspected", "my first suspicion", "our first suspicion",
	"my first idea", "our first idea", "i assumed", "we assumed", "我以为", "一开始以为", "起初以为", "本以为", "原以为", "最初以为", "一开始怀疑")
var confirmed = cues("and it was", "which was right", "turned out", "confirmed", "indeed", "果然", "确实", "证实", "原来是")

// apology marks the sentence every status-page report ends with ("We
// apologize for the impact this caused"): it names "impact" and "caused"
// but states no field.
var apology = cues("we apologize", "we apologise", "we sincerely apologize", "we sincerely apologise", "we are sorry",
	"we're sorry", "sorry for the", "sorry about the", "we deeply regret", "our apologies", "apologize for", "apologise for",
	"приносим извинения", "приносим свои извинения", "извиняемся", "извините за", "просим прощения", "приносим извинени",
	"深表歉意", "表示歉意", "致以歉意", "非常抱歉", "十分抱歉", "深感抱歉", "向大家道歉", "致歉")

// advice marks a prescriptive or reflective sentence: a lesson drawn ("we
// learned", "教训", "впредь"), a warning to readers or to oneself ("be careful",
// "一定要", "не стоит"). Such a sentence is a lesson (or, when it plans, an
// action item) whatever the heading over it; reported advice ("ChatGPT told
// me to be careful") is narrative.
var (
	advice = cues("we learned", "we have learned", "we've learned", "lesson learned", "lessons learned",
		"we learnt", "we have learnt", "we've learnt", "lesson learnt", "lessons learnt",
		"the lesson", "the takeaway", "in hindsight", "in retrospect", "in the future", "from now on",
		"be careful", "be cautious", "be very careful", "be very cautious", "be more careful", "be extra careful",
		"keep in mind", "it is important to", "it's important to", "never again",
		"教训", "吸取", "切记", "务必", "千万不要", "千万别", "千万要", "一定要", "需要注意", "值得注意", "谨慎", "要避免", "应该避免", "应当避免",
		"不要", "最好", "以后需要", "今后需要", "以后要", "今后要", "以后一定",
		"впредь", "на будущее", "урок", "выводы", "вывод такой", "главный вывод", "стоит помнить", "нужно помнить",
		"надо помнить", "важно помнить", "будьте осторожн", "быть осторожн", "осторожнее", "никогда не", "не стоит")
	reportedAdvice = cues("told me", "told us", "reminded me", "reminded us", "advised me", "advised us",
		"告诉我", "提醒我", "告诉我们", "提醒我们", "сказал мне", "посоветовал", "напомнил")
)

// isAdvice reports a sentence that gives advice or draws a lesson (low is
// lower-cased). Routing reads the same answer off sentenceScores' one scan.
func isAdvice(low string) bool {
	_, adv := sentenceScores(low)
	return adv
}

// observed marks a sentence that reports what someone saw ("we observed",
// "发现", "查看到", "увидел"); exposition shows the reader something
// ("可以看到", "as you can see"). A failure word in a reported observation
// is a symptom seen while investigating, so the observation adds
// observeBonus to a symptom cue already there; alone it is only a step.
var (
	observed = cues("observed", "we observe", "observing", "we saw", "saw that", "we were seeing", "we are seeing",
		"发现", "看到", "查看到", "观察到", "注意到",
		"увидел", "увидели", "видим", "вижу", "видно", "наблюда")
	exposition = cues("可以看到", "可以发现", "能看到", "we can see", "you can see", "as you can see", "can be seen",
		"можно увидеть", "можно заметить", "как видно")
	// "发现不再超时了", "no longer timing out": the failure gone, a test passed
	noLonger = cues("no longer", "不再", "больше не")
)

const observeBonus = 1.0

// hypothetical marks a purpose or a condition ("if we…", "为了", "чтобы"):
// in a conclusion it is advice, and it is a field-model feature. (It used to
// halve a fix cue, and "was changed to"/"被修改为" to turn a fix into a
// cause; leave-one-source-out showed each helped one source and cost
// others, and both were removed.)
var hypothetical = cues("如果", "假如", "为了", "如何", "if we", "if you", "in order to", "how to", "would have",
	"если", "чтобы", "как бы")

// fieldScores sums, per field, the weights of its cues found in low; a cue
// counts once per sentence.
func fieldScores(low string) map[field]float64 {
	out, _ := sentenceScores(low)
	return out
}

// sentenceScores is fieldScores and isAdvice from one scan of low.
func sentenceScores(low string) (out map[field]float64, adv bool) {
	out = make(map[field]float64, 4)
	var seen []int
	obs := false
	var found marks // sentenceMarks in low
	// one word counts once per field, at its best cue: "解决方案" is not
	// also "解决", "rolled back" not also "roll"
	type hit struct {
		f  field
		at int
		w  float64
	}
	var buf [16]hit // most sentences hit fewer cues: no allocation
	hits := buf[:0]
	compiled(allFieldCues).eachAt(low, func(ci, at int) bool {
		if slices.Contains(seen, ci) {
			return true
		}
		seen = append(seen, ci)
		f, w := allFieldOf[ci], allFieldCues[ci].weight
		if f == fRemediation && reflexiveAfter(low, at+len(allFieldCues[ci].text)) {
			return true // "сервис перезапустился": it restarted by itself, nobody fixed it
		}
		if f == fNone {
			found |= allMarkOf[ci]
			return true
		}
		switch f {
		case fAdvice:
			adv = true
			return true
		case fObserve:
			obs = true
			return true
		}
		for i, h := range hits {
			if h.f == f && h.at == at {
				if w > h.w {
					out[f] += w - h.w
					hits[i].w = w
				}
				return true
			}
		}
		hits = append(hits, hit{f, at, w})
		out[f] += w
		return true
	})
	zhStory(low, out, adv)
	if obs && out[fSymptoms] > 0 && !found.has(mExposition) && !found.has(mNoLonger) && !found.has(mNotCause) && !found.has(mZhCauseFound) {
		out[fSymptoms] += observeBonus
	}
	if out[fDetection] > 0 && (found.has(mNoDetection) || out[fActionItems] >= 2) {
		// "no alert for it" is a gap, "we will add an alert" a plan: neither
		// is how the incident was found
		delete(out, fDetection)
	}
	if found.has(mRestartLoop) {
		// "频繁重启", "kept restarting": a crash loop seen, not a restart done
		out[fSymptoms] += 2
		if out[fRemediation] > 0 {
			out[fRemediation] = max(0, out[fRemediation]-2)
			if out[fRemediation] == 0 {
				delete(out, fRemediation)
			}
		}
	}
	if found.has(mHypothesis) && !found.has(mConfirmed) {
		// "at first we suspected an attack": a guess, neither a symptom
		// nor the cause (unless it was borne out)
		delete(out, fSymptoms)
		delete(out, fRootCause)
		delete(out, fTrigger) // a guess sets nothing off
	}
	if len(out) > 0 && found.has(mApology) {
		clear(out)
		return out, false
	}
	if out[fRootCause] > 0 && found.has(mNotCause) {
		// "it is unlikely to be caused by...", "排除了...": a cause ruled out
		delete(out, fRootCause)
	}
	return out, adv && (!found.has(mReportedAdvice) || found.has(mZhTaught))
}

// endsWord reports whether a match of w ending at end is a whole word: the
// next rune does not continue a Latin or Cyrillic word (or a hyphenated one).
func endsWord(s string, end int, w string) bool {
	if end >= len(s) {
		return true
	}
	l, _ := utf8.DecodeLastRuneInString(w)
	if !isWordRune(l) {
		return true
	}
	nx, _ := utf8.DecodeRuneInString(s[end:])
	return !isWordRune(nx) && nx != '-'
}

// A list item that opens with an infinitive (ru "Добавить алерт",
// "Настроить мониторинг") or a bare imperative (en "Add an alert") is
// written as a plan: that is how follow-up lists read. It is a field-model
// feature (plan_item), not a hand cue: as a cue it raised the source that
// suggested it and lowered two others.

// planVerbsEN are the imperatives English follow-up lists open with.
var planVerbsEN = map[string]bool{
	"add": true, "create": true, "implement": true, "document": true, "investigate": true, "update": true,
	"automate": true, "review": true, "monitor": true, "ensure": true, "improve": true, "introduce": true,
	"enable": true, "write": true, "teach": true, "configure": true, "define": true, "audit": true,
	"track": true, "set": true, "establish": true, "evaluate": true, "consider": true, "explore": true,
}

// ruNotInfinitives are common Russian words that end like an infinitive
// (nouns, numerals, adverbs); -ость/-сть nouns are told by their ending.
var ruNotInfinitives = map[string]bool{
	"часть": true, "сеть": true, "память": true, "путь": true, "суть": true, "треть": true, "нить": true,
	"опять": true, "пять": true, "десять": true, "девять": true, "печать": true, "власть": true, "смерть": true,
	"честь": true, "есть": true, "знать": true, "теперь": true, "мать": true, "тетрадь": true, "кровать": true,
	"почти": true, "пути": true, "сети": true, "части": true, "памяти": true, "сквозь": true,
}

// ruInfinitive reports a word shaped like a Russian infinitive
// ("вернуть", "переклонировать", "отключиться", "провести"), not a word of
// that shape ("часть", "сеть", "скорость").
func ruInfinitive(w string) bool {
	if utf8.RuneCountInString(w) < 5 || ruNotInfinitives[w] {
		return false
	}
	w = strings.TrimSuffix(strings.TrimSuffix(w, "ся"), "сь")
	if strings.HasSuffix(w, "сть") {
		return false
	}
	return strings.HasSuffix(w, "ть") || strings.HasSuffix(w, "чь") || strings.HasSuffix(w, "ти")
}

// leadsWithPlanVerb reports whether low (a lower-cased list item) opens
// with a Russian infinitive or an English imperative of planVerbsEN.
func leadsWithPlanVerb(low string) bool {
	low = strings.TrimLeft(low, " \t-*•[]✅❌🔲☐0123456789.)")
	end := 0
	for end < len(low) {
		r, n := utf8.DecodeRuneInString(low[end:])
		if !unicode.IsLetter(r) {
			break
		}
		end += n
	}
	w := low[:end]
	if w == "" || isQuestion(low) {
		return false
	}
	r0, _ := utf8.DecodeRuneInString(w)
	if unicode.Is(unicode.Cyrillic, r0) {
		return ruInfinitive(w)
	}
	return planVerbsEN[w] && end < len(low) && low[end] == ' '
}
