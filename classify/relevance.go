package classify

import (
	"math"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/extract"
)

// The relevance gate: "is this post the story of one concrete failure of a
// running system?" It is a small logistic regression over generic signals
// computed straight from the text (person, tense, dated times, imperatives,
// conditionals, version and changelog structure, headings), not from the
// routed case fields, so the gate does not move when the field extraction
// does. The weights are fitted by classify/internal/fitrelevance and checked
// in as relevance_weights.go; the bands around the decision threshold are
// chosen from the leave-one-source-out score distribution (see README).

// relFeature is one input of the gate with the words a reason uses for it:
// more names the signal when the post has more of it than usual, less when
// it has less.
type relFeature struct {
	Name       string
	More, Less string
}

// RelevanceCap reports whether feature i caps the score of a confident
// non-incident (a template, a changelog) rather than weighs: the fit gives
// it no weight.
func RelevanceCap(i int) bool { return i == rfTemplate || i == rfChangelog }

// RelevanceFeatureNames lists the gate's inputs in table order.
func RelevanceFeatureNames() []string {
	out := make([]string, len(relFeatures))
	for i, f := range relFeatures {
		out[i] = f.Name
	}
	return out
}

// relFeatures is the feature order of the weights table. Sentence
// features are the share of sentences with the signal, so en, ru and zh
// compare whatever their sentence length.
var relFeatures = []relFeature{
	{"we_past", "first person in the past", "no first-person story"},
	{"second_person", "second person", "no second person"},
	{"advice", "advice and imperatives", "no imperatives"},
	{"cond_failure", "conditionals over a class of failures", "few conditionals"},
	{"failure_past", "observed failure in the past", "no observed failure"},
	{"past_tense", "past tense", "no past tense"},
	{"clock_times", "times of the event", "no dated event"},
	{"dates", "dates", "no dates"},
	{"versions", "version numbers", "no version numbers"},
	{"version_headings", "changelog structure", "no changelog structure"},
	{"guide_headings", "guide structure", "no guide structure"},
	{"incident_headings", "incident headings", "no incident headings"},
	{"title_failure", "a failure in the title", "no failure in the title"},
	{"failure_words", "failure words", "few failure words"},
	{"found_cause", "a found cause", "no found cause"},
	{"applied_fix", "an applied fix", "no applied fix"},
	{"impact", "impact on users", "no impact on users"},
	{"essay_words", "practice or postmortem-writing essay", "no essay words"},
	// lists weigh for a write-up in the fit (timelines, action items), so
	// the reason names them plainly rather than as a guide's options
	{"lists", "lists", "few lists"},
	{"tech", "systems talk", "not about systems"},
	{"length", "long post", "short post"},
	// a cap like tech's floor, not a weight (see blankFields)
	{"template", "a template with blank fields", "no blank fields"},
	// a cap too: the share of version headings weighs (above), but no
	// weight outvotes the failure words of a long list of fixes
	{"changelog", "release notes by version", "not laid out by version"},
	// a base rate, not a signal: Russian write-ups score lower on the
	// other features (their cues are fewer), so the fit lifts them;
	// relevanceReason never names it
	{"cyrillic_text", "Russian text", "not Russian text"},
}

// Feature indexes.
const (
	rfWePast = iota
	rfYou
	rfAdvice
	rfCond
	rfFailPast
	rfPast
	rfTimes
	rfDates
	rfVersions
	rfVersionHeads
	rfGuideHeads
	rfIncidentHeads
	rfTitleFail
	rfFail
	rfCause
	rfFix
	rfImpact
	rfEssay
	rfLists
	rfTech
	rfLength
	rfTemplate
	rfChangelog
	rfCyr
	nRelFeatures
)

// Whole-word pronouns: "we" must not match "went".
var (
	firstPerson = cues("we", "our", "ours", "us", "i", "my", "we've", "we're", "we'd", "i've", "i'm", "ourselves",
		"мы", "нас", "нам", "нами", "наш", "наша", "наше", "наши", "нашего", "нашей", "нашем", "нашим", "наших",
		"я", "мне", "меня", "мной", "мой", "моя", "моё", "мои", "моего", "моей",
		"我们", "我", "咱们", "笔者")
	secondPerson = cues("you", "your", "yours", "you'll", "you're", "you've", "you'd", "yourself",
		"вы", "вас", "вам", "вами", "ваш", "ваша", "ваше", "ваши", "вашего", "вашей", "вашем", "ваших",
		"ты", "тебе", "тебя", "твой", "твоя", "твои",
		"你", "您")
	// sentence-initial English imperatives of guides
	imperativeVerbs = map[string]bool{"install": true, "run": true, "check": true, "add": true, "use": true, "set": true,
		"create": true, "open": true, "make": true, "configure": true, "enable": true, "disable": true, "ensure": true,
		"try": true, "click": true, "select": true, "go": true, "type": true, "edit": true, "copy": true, "download": true,
		"remove": true, "define": true, "write": true, "see": true, "note": true, "consider": true, "avoid": true,
		"keep": true, "start": true, "let's": true, "imagine": true, "suppose": true, "follow": true, "replace": true,
		"change": true, "navigate": true, "verify": true, "monitor": true, "specify": true, "put": true, "do": true, "don't": true}
	// English irregular past forms an incident story tells with
	pastIrregular = map[string]bool{"was": true, "were": true, "had": true, "did": true, "went": true, "found": true,
		"saw": true, "got": true, "took": true, "began": true, "became": true, "came": true, "made": true, "ran": true,
		"broke": true, "knew": true, "thought": true, "told": true, "kept": true, "left": true, "lost": true, "felt": true,
		"wasn't": true, "weren't": true, "didn't": true, "couldn't": true, "hadn't": true, "sent": true, "spent": true,
		"brought": true, "caught": true, "fell": true, "led": true, "rolled": true, "woke": true}
)

// Stem cues by label, matched in one scan per sentence.
var relCues, relCueLabel = relLabelled(map[int]cueSet{
	cFail: failureCues,
	cPm:   postmortemCues,
	cTech: techCues,
	cAdvice: cues("should", "must", "need to", "needs to", "make sure", "recommend", "it is best", "it's best", "best to",
		"you can", "you may", "always ", "never ",
		"нужно", "необходимо", "следует", "стоит ", "рекоменд", "должны", "должен", "надо", "давайте", "можно", "важно",
		"可以", "需要", "应该", "建议", "请", "必须", "不要", "务必", "记得", "注意", "推荐"),
	cCond: cues("if ", "unless", "in case", "whenever", "otherwise",
		"если", "в случае", "иначе", "при условии",
		"如果", "若", "假如", "一旦", "的话", "否则"),
	cCause: cues("root cause", "caused by", "turned out", "the cause", "the culprit", "the reason", "was due to",
		"were due to", "because of", "traced", "triggered by", "we found", "we discovered", "we realized", "we realised",
		"оказал", "выяснил", "причин", "из-за", "виновник", "обнаружил", "нашли", "понял", "вызван", "было связано",
		"дело было в", "проблема была в", "корень проблемы",
		"原因", "导致", "原来", "根因", "由于", "发现", "引起", "造成"),
	cFix: cues("fixed", "we fixed", "rolled back", "reverted", "restarted", "patched", "mitigated", "resolved",
		"restored", "deployed a fix", "hotfix", "workaround", "recovered", "rebooted", "failed over",
		"исправил", "откатил", "перезапустил", "починил", "восстановил", "устранил", "вернули", "перезагрузил",
		// "решили" alone is mostly "decided" ("решили переехать"): the fix is the problem solved
		"решили проблему", "проблему решили", "проблема решена",
		"исправлен", "восстановлен", "устранен", "устранён", "откачен", "перезапущен", "обходное решение",
		"修复", "回滚", "重启", "解决了", "恢复", "止损", "临时方案"),
	cImpact: cues("users", "customers", "affected", "unavailable", "downtime", "degraded", "impact", "outage",
		"пользовател", "клиент", "затронул", "недоступ", "простой", "деградац",
		"用户", "影响", "不可用", "中断", "受损"),
	cEssay: cues("template", "culture", "blameless", "best practice", "slo", "sli", "error budget", "how to write",
		"principles", "framework", "maturity",
		"шаблон", "культур", "лучшие практики", "принцип", "бюджет ошибок",
		"模板", "文化", "最佳实践", "原则", "错误预算", "方法论"),
	cZhPast: cues("了", "当时", "后来", "之后", "那天", "昨天", "突然", "最终", "终于", "当晚", "凌晨", "上午", "下午", "晚上"),
})

// Cue labels of relCues.
const (
	cFail = iota
	cPm
	cTech
	cAdvice
	cCond
	cCause
	cFix
	cImpact
	cEssay
	cZhPast
	nCueLabels
)

// relLabelled merges labelled sets into one cueSet and the label of each
// cue, in label order so the index is the same every run.
func relLabelled(table map[int]cueSet) (cueSet, []int) {
	var cs cueSet
	var labels []int
	for l := 0; l < nCueLabels; l++ {
		for _, c := range table[l] {
			cs = append(cs, c)
			labels = append(labels, l)
		}
	}
	return cs, labels
}

// Headings of guides and of incident write-ups.
var (
	guideHeadCues = cues("how to", "how do", "guide", "tutorial", "getting started", "introduction", "install", "setup",
		"set up", "step", "prerequisite", "best practice", "tips", "overview", "what is", "why ", "example", "usage",
		"configuration", "conclusion", "summary", "faq", "references", "further reading", "what's new", "changelog",
		"как ", "руководств", "установк", "настройк", "шаг", "введение", "что такое", "зачем", "совет", "пример",
		"заключение", "итог", "вывод", "обзор",
		"如何", "怎么", "教程", "指南", "安装", "配置", "步骤", "简介", "介绍", "入门", "什么是", "最佳实践", "总结", "示例",
		"原理", "概述", "前言", "参考")
	incidentHeadCues = join(postmortemCues, cues("what happened", "root cause", "impact", "resolution", "timeline",
		"lessons", "action items", "detection", "mitigation", "summary of the", "service event", "remediation",
		"что произошло", "причина", "хронология", "последствия", "решение", "выводы",
		"влияние", "обнаружение", "устранение", "уроки", "симптомы", "план действий",
		"现象", "原因", "影响", "时间线", "解决", "经过", "背景"))
)

var (
	dateRe = regexp.MustCompile(`(?:19|20)\d\d[-/.](?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12]\d|3[01])` +
		`|(?:0?[1-9]|[12]\d|3[01])\.(?:0?[1-9]|1[0-2])\.(?:19|20)\d\d` +
		`|(?:19|20)\d\d年\d{1,2}月` + `|\d{1,2}月\d{1,2}日` +
		`|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?(?:,? (?:19|20)\d\d)?` +
		`|\d{1,2} (?:january|february|march|april|may|june|july|august|september|october|november|december|` +
		`января|февраля|марта|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря)`)
	versionTokRe = regexp.MustCompile(`^v?\d+\.\d+\.\d+|^v\d+(?:\.\d+)?$`)
	timeTokRe    = regexp.MustCompile(`^(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?$`)
	headVerRe    = regexp.MustCompile(`(?:^|[\s(\[v])v?\d+\.\d+(?:\.\d+)?\b`)
	// "2.1 问题发生", "3.4. Impact": a section's number, not a release (the
	// weighted share of version headings counts them too: fixing it moved
	// the refit's held-out figures down, so it stays as fitted)
	sectionNumberRe = regexp.MustCompile(`^\d{1,2}\.\d{1,2}\.?\s+\pL`)
)

// conditionalHeadings counts the headings that open with a condition ("If
// …", "Если …", "В случае …", "如果…", "若…").
func conditionalHeadings(doc *extract.Document) int {
	n := 0
	for _, s := range doc.Sections {
		h := strings.TrimSpace(s.Heading)
		if h == "" || s.Heading == doc.Title {
			continue
		}
		for _, c := range conditionalOpeners {
			// EqualFold on the prefix, not ToLower on the heading: no copy
			// of every heading (upper and lower case are the same length
			// in UTF-8 for these letters)
			if len(h) >= len(c) && strings.EqualFold(h[:len(c)], c) {
				n++
				break
			}
		}
	}
	return n
}

var conditionalOpeners = []string{"if ", "если ", "в случае ", "如果", "若", "假如"}

// headingTimes counts the headings that hold a clock time ("2018-01-18 4:19",
// "04:27 UTC").
func headingTimes(doc *extract.Document) int {
	n := 0
	for _, s := range doc.Sections {
		if s.Heading == "" || !strings.Contains(s.Heading, ":") {
			continue
		}
		for _, tok := range strings.Fields(s.Heading) {
			if timeTokRe.MatchString(strings.Trim(tok, "()[],")) {
				n++
				break
			}
		}
	}
	return n
}

// relevanceFeatures computes the gate's inputs for a document from its
// sentences (the units' lower-cased text, not their routing), blocks and
// headings.
func relevanceFeatures(doc *extract.Document, low string, units []unit) [nRelFeatures]float64 {
	var x [nRelFeatures]float64
	n := float64(max(len(units), 5))
	lang := mainScript(low)
	fp, sp, ix := compiledWith(firstPerson, true), compiledWith(secondPerson, true), compiled(relCues)
	var counts [nCueLabels]int
	var sents [nRelFeatures]int // sentences with each sentence signal
	times, versions := 0, 0
	for i := range units {
		ul := units[i].low
		var has [nCueLabels]bool
		ix.each(ul, func(ci int) bool {
			l := relCueLabel[ci]
			counts[l]++
			has[l] = true
			return true
		})
		we, you := false, false
		fp.each(ul, func(int) bool { we = true; return false })
		sp.each(ul, func(int) bool { you = true; return false })
		past, imper := lang == 'h' && has[cZhPast], false
		first := true
		eachToken(ul, func(tok string, afterStop bool) {
			if (first || afterStop) && imperativeVerbs[tok] {
				imper = true
			}
			first = false
			// the regular expressions only see tokens that can match
			if d := tok[0]; (d >= '0' && d <= '9' || d == 'v') && strings.ContainsAny(tok, ":.") {
				switch {
				case timeTokRe.MatchString(tok):
					times++
				case versionTokRe.MatchString(tok):
					versions++
				}
			}
			switch lang {
			case 'l':
				if pastIrregular[tok] || len(tok) >= 5 && strings.HasSuffix(tok, "ed") {
					past = true
				}
			case 'c':
				if cyrillicPast(tok) {
					past = true
				}
				if cyrillicImperative(tok) {
					imper = true
				}
			}
		})
		failing := has[cFail] || has[cPm]
		count := func(f int, ok bool) {
			if ok {
				sents[f]++
			}
		}
		count(rfWePast, we && past)
		count(rfYou, you)
		count(rfAdvice, imper || has[cAdvice])
		count(rfCond, has[cCond] && failing)
		count(rfFailPast, failing && past)
		count(rfPast, past)
		count(rfCause, has[cCause])
		count(rfFix, has[cFix])
		count(rfImpact, has[cImpact])
	}
	// a guide's decision tree is headed by its conditions ("#### 如果是工作线程的
	// CPU 占用大", "## If the pod stays Pending"), though headings are no sentences
	sents[rfCond] += conditionalHeadings(doc)
	for _, f := range []int{rfWePast, rfYou, rfAdvice, rfCond, rfFailPast, rfPast, rfCause, rfFix, rfImpact} {
		x[f] = float64(sents[f]) / n
	}
	rate := func(c int) float64 { return math.Log1p(10 * float64(c) / n) }
	// a timeline told under headed times ("### 4:27") is told in clock times
	// too, though its headings are no sentences
	times += headingTimes(doc)
	x[rfTimes] = math.Log1p(float64(times))
	// the dates of the event are near the top; the expression is slow
	// (about 2 ms per 4 KB), so it reads the first 4 KB
	x[rfDates] = math.Log1p(float64(countDates(low[:prefixLen(low, 4<<10)], 50)))
	x[rfVersions] = rate(versions)
	x[rfFail] = rate(counts[cFail] + 2*counts[cPm])
	x[rfEssay] = rate(counts[cEssay])
	if lang == 'c' {
		x[rfCyr] = 1
	}
	x[rfTech] = rate(counts[cTech])
	x[rfLength] = math.Log1p(float64(len(units)) / 10)

	// structure: headings, lists (the share of code blocks was a feature: it
	// lowered the cross-source figures, F1 ru 0.71 -> 0.67, mean held-out
	// source log-likelihood -0.345 -> -0.363)
	heads, verHeads, releases, guideHeads, incHeads := 0, 0, 0, 0, 0
	blocks, lists := 0, 0
	title := strings.ToLower(doc.Title)
	if incidentHeadCues.any(title) {
		incHeads += 2
	}
	if guideHeadCues.any(title) {
		guideHeads += 2
	}
	if failureCues.any(title) || postmortemCues.any(title) {
		x[rfTitleFail] = 1
	}
	for _, s := range doc.Sections {
		if h := strings.ToLower(s.Heading); h != "" && s.Heading != doc.Title {
			heads++
			if headVerRe.MatchString(h) {
				verHeads++
				if !sectionNumberRe.MatchString(h) {
					releases++
				}
			}
			if guideHeadCues.any(h) {
				guideHeads++
			}
			if incidentHeadCues.any(h) {
				incHeads++
			}
		}
		for _, b := range s.Blocks {
			blocks++
			if b.Kind == extract.ListItem {
				lists++
			}
		}
	}
	x[rfVersionHeads] = float64(verHeads) / float64(max(heads, 3))
	if float64(releases) >= changelogShare*float64(max(heads, 3)) {
		x[rfChangelog] = 1
	}
	x[rfGuideHeads] = math.Log1p(float64(guideHeads))
	x[rfIncidentHeads] = math.Log1p(float64(incHeads))
	x[rfLists] = float64(lists) / float64(max(blocks, 5))
	if blank, lines := blankFields(doc.Text); blank >= templateMinBlank && float64(blank) >= templateShare*float64(lines) {
		x[rfTemplate] = 1
	}
	return x
}

// A template (a postmortem form, an incident report to fill in) is full
// of fields with nothing in them: "Start time (UTC):", "What caused it?"
// followed by the next field or heading. A told incident fills them in.
// The edges sit over every labelled incident post (the most: 3 blank of
// 13 lines, 0.23) and under the templates of the real-post checks (0.31,
// 0.36, 0.47).
const (
	templateMinBlank = 4
	templateShare    = 0.3
)

// blankFields counts, in text (one block a line), the lines that are a
// field's label or a question with nothing after them: the next line is
// another label, question or a few words (a heading), or there is none.
func blankFields(text string) (blank, lines int) {
	open := false // the line before is a label or a question
	for l := range strings.SplitSeq(text, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		lines++
		if placeholderLine(l) {
			blank++
			open = false
			continue
		}
		field := fieldLabel(l) || isQuestion(l)
		if open && (field || wordsIn(l) <= 4) {
			blank++
		}
		open = field
	}
	if open {
		blank++
	}
	return blank, lines
}

// placeholderLine reports a line that only holds a form's placeholders,
// with at most their labels: "{brief description of the impact}",
// "Date/time: {YYYY-MM-DD HH:MM} Owner: <name>", "[Название сервиса]",
// "【影响范围】". Templates leave a field that way as often as empty. A
// bracket with one word ("[1]", "<br>") is no placeholder.
func placeholderLine(l string) bool {
	if !strings.ContainsAny(l, "{<[【＜［｛") {
		return false // most lines: no bracket, nothing to build
	}
	rest, spans := stripPlaceholders(l)
	if spans == 0 {
		return false
	}
	left := 0
	for w := range strings.FieldsSeq(rest) {
		if strings.HasSuffix(w, ":") || strings.HasSuffix(w, "：") || wordsIn(w) == 0 {
			continue
		}
		left += wordsIn(w)
	}
	return left <= 2
}

// placeholderBrackets pairs the brackets a form's placeholder is written in.
var placeholderBrackets = map[rune]rune{'{': '}', '<': '>', '[': ']', '【': '】', '＜': '＞', '［': '］', '｛': '｝'}

// stripPlaceholders removes the bracketed spans of two words or more (or
// two Han letters) from l and counts them.
func stripPlaceholders(l string) (string, int) {
	var b strings.Builder
	spans := 0
	for i := 0; i < len(l); {
		r, size := utf8.DecodeRuneInString(l[i:])
		if closer, ok := placeholderBrackets[r]; ok {
			if j := strings.IndexRune(l[i+size:], closer); j >= 0 {
				inner := l[i+size : i+size+j]
				if n := wordsIn(inner); n >= 2 || (n == 1 && strings.ContainsFunc(inner, isHanRune) && utf8.RuneCountInString(inner) >= 2) {
					spans++
					b.WriteByte(' ')
					i += size + j + utf8.RuneLen(closer)
					continue
				}
			}
		}
		b.WriteString(l[i : i+size])
		i += size
	}
	return b.String(), spans
}

// fieldLabel reports a short line ending in a colon: "Severity:", "影响范围：".
func fieldLabel(l string) bool {
	return (strings.HasSuffix(l, ":") || strings.HasSuffix(l, "：")) && wordsIn(l) <= 6
}

// wordsIn counts the words of l, two Han letters counting as one.
func wordsIn(l string) int {
	words, han, in := 0, 0, false
	for _, r := range l {
		switch {
		case isHanRune(r):
			han++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !in {
				words++
			}
			in = true
		default:
			in = false
		}
	}
	return words + han/2
}

// countDates counts dateRe's matches in s, at most limit, as
// FindAllStringIndex would: the expression, anchored, is tried only where
// a date can start (a digit, or a month's first three letters), on a
// window as long as the longest date from there. The engine tried the
// expression from every byte of a digit's line and cleared state the
// size of the line for each try: the dates were a twentieth of the 50 KB
// benchmark.
func countDates(s string, limit int) int {
	n := 0
	for i := 0; i < len(s) && n < limit; {
		c := s[i]
		letters := 0
		if c < '0' || c > '9' {
			if !monthStart(s[i:]) {
				i++
				continue
			}
			for letters < len(s)-i && s[i+letters] >= 'a' && s[i+letters] <= 'z' {
				letters++
			}
		}
		// past a month's letters (its [a-z]*), no date form runs longer
		// than 40 bytes: "30 сентября" is 19, "sep. 30th, 2024" 15
		end := min(len(s), i+letters+40)
		if loc := dateAtRe.FindStringIndex(s[i:end]); loc != nil {
			n++
			i += loc[1]
			continue
		}
		i++
	}
	return n
}

// dateAtRe is dateRe anchored at the start.
var dateAtRe = regexp.MustCompile(`^(?:` + dateRe.String() + `)`)

var monthAbbrevs = [...]string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// monthStart reports s opening with a month's first three letters.
func monthStart(s string) bool {
	if len(s) < 3 {
		return false
	}
	for _, m := range monthAbbrevs {
		if s[:3] == m {
			return true
		}
	}
	return false
}

// mainScript tells the prose's main script: 'l' Latin, 'c' Cyrillic, 'h' Han.
func mainScript(low string) byte {
	lat, cyr, han := 0, 0, 0
	for i, r := range low {
		if i > 20000 {
			break
		}
		switch {
		case r < 0x80:
			if r >= 'a' && r <= 'z' {
				lat++
			}
		case unicode.Is(unicode.Cyrillic, r):
			cyr++
		case unicode.Is(unicode.Han, r):
			han += 2 // a Han character carries a word
		}
	}
	switch {
	case han >= lat && han >= cyr:
		return 'h'
	case cyr >= lat:
		return 'c'
	}
	return 'l'
}

// eachToken calls fn with every Latin, Cyrillic or digit token of low
// (letters, digits, apostrophes, inner dots and colons), and whether a full
// stop, question mark, newline or bullet came before it.
func eachToken(low string, fn func(tok string, afterStop bool)) {
	start, stop := -1, true
	emit := func(end int) {
		tok := strings.TrimRight(low[start:end], ".:'")
		if tok != "" {
			fn(tok, stop)
			stop = false
		}
		start = -1
	}
	for i, r := range low {
		word := r < 0x80 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'' || (r == '.' || r == ':') && start >= 0) ||
			r >= 0x80 && unicode.Is(unicode.Cyrillic, r)
		if word {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			emit(i)
		}
		switch r {
		case '\n', '.', '!', '?', '•', '。', '！', '？', '-', '*':
			stop = true
		}
	}
	if start >= 0 {
		emit(len(low))
	}
	if len(low) > 0 {
		if r, _ := utf8.DecodeLastRuneInString(low); r == '.' {
			stop = true
		}
	}
}

// cyrillicPast reports a Russian past-tense verb form (-л, -ла, -ло, -ли,
// reflexive -лся, -лась, -лось, -лись); short words are left out.
func cyrillicPast(tok string) bool {
	n := utf8.RuneCountInString(tok)
	if n < 4 {
		return false
	}
	if n >= 7 && shortParticiple(tok) {
		return true
	}
	for _, end := range []string{"лся", "лась", "лось", "лись", "ла", "ло", "ли", "л"} {
		if strings.HasSuffix(tok, end) {
			// nouns and adverbs that end so: было is a verb, "если" is not
			switch tok {
			case "если", "чтобы", "стол", "файл", "файла", "модели", "цели", "роли", "сколько", "только", "очень":
				return false
			}
			return !strings.HasSuffix(tok, "ели") || strings.HasSuffix(tok, "дели") || strings.HasSuffix(tok, "тели") || strings.HasSuffix(tok, "мели")
		}
	}
	return false
}

// shortParticiple reports a Russian short passive participle, the past a
// fix report is written in ("исправлено", "добавлена", "обновлён",
// "перезапущен"): its ending after a long enough stem; nouns that end so
// ("замена", "домен", "токен") are shorter or end otherwise.
func shortParticiple(tok string) bool {
	for _, end := range []string{"ено", "ена", "ены", "ёно", "ёна", "ёны", "ён", "лен", "щен", "жен", "шен", "чен", "ден", "нен", "оен"} {
		if strings.HasSuffix(tok, end) {
			return true
		}
	}
	return false
}

// cyrillicImperative reports a Russian plural imperative ("проверьте",
// "выполните", "сделайте", "убедитесь").
func cyrillicImperative(tok string) bool {
	if utf8.RuneCountInString(tok) < 5 {
		return false
	}
	switch tok {
	case "сайте", "вите":
		return false
	}
	tok = strings.TrimSuffix(tok, "сь") // reflexive ones too: "убедитесь", "обратитесь"
	return strings.HasSuffix(tok, "ите") || strings.HasSuffix(tok, "йте") || strings.HasSuffix(tok, "ьте")
}

// RelevanceModel is a fitted logistic regression over the gate's features,
// each standardised: score = sigmoid(Bias + sum Weights[i]*z[i]), z[i] =
// (x[i]-Mean[i])/Scale[i] with the Mean and Scale of the post's language
// when Norms has one, else the pooled "" (the fit writes only the pooled
// one: per-language norms lowered the cross-source figures, twice).
type RelevanceModel struct {
	Norms   map[string]RelevanceNorm // per language; "" is all languages together
	Weights []float64
	Bias    float64
}

// RelevanceNorm is the mean and scale of every feature in one language.
type RelevanceNorm struct {
	Mean, Scale []float64
}

// norm is lang's standardisation, or the pooled one.
func (m *RelevanceModel) norm(lang string) RelevanceNorm {
	if n, ok := m.Norms[lang]; ok {
		return n
	}
	return m.Norms[""]
}

// contributions returns each feature's term of the linear score.
func (m *RelevanceModel) contributions(x []float64, lang string) []float64 {
	n := m.norm(lang)
	out := make([]float64, len(x))
	for i := range x {
		out[i] = m.Weights[i] * (x[i] - n.Mean[i]) / n.Scale[i]
	}
	return out
}

// Score is the model's probability that x, a post in lang, is an incident
// write-up.
func (m *RelevanceModel) Score(x []float64, lang string) float64 {
	z := m.Bias
	for _, c := range m.contributions(x, lang) {
		z += c
	}
	p := 1 / (1 + math.Exp(-z))
	if offTopic(x) || isTemplate(x) || isChangelog(x) {
		p = min(p, OffTopicScore)
	}
	return p
}

// casebook is about systems: a story with almost no talk of servers,
// services, code or deploys (an outbreak in the news, a plane crash) is not
// one of its write-ups, whatever its failure words. The linear weight alone
// lets such news through (0.12 of the DAnIEL news pages), so a post under
// the floor is capped to a confident non-incident. The floor sits under the
// lowest incident post of the labelled sets (0.54).
// OffTopicScore is exported because the band's skip edge must stay above
// it (evalrelevance.ChooseBand): a capped post is skipped, not flagged.
const (
	techFloor     = 0.45
	OffTopicScore = 0.1
)

func offTopic(x []float64) bool { return len(x) > rfTech && x[rfTech] < techFloor }

// isTemplate reports a form with blank fields: a confident non-incident.
func isTemplate(x []float64) bool { return len(x) > rfTemplate && x[rfTemplate] == 1 }

// A changelog's headings are its releases ("## 2.4.1", "v1.3 (2024-05-02)"):
// from two in five headings (of at least three) a post is release notes,
// whatever fixed bugs and failures it lists. No incident post of the
// labelled sets has more than 0.15.
const changelogShare = 0.4

// isChangelog reports release notes laid out by version: a confident non-incident.
func isChangelog(x []float64) bool { return len(x) > rfChangelog && x[rfChangelog] == 1 }

// Bands of the gate. A crawled post below Low is skipped; between Low and
// High it is drafted flagged for the reviewer; from High on it is drafted.
// The is_postmortem threshold lies in [Low, High]: the skip edge sits under
// it so that a post the gate doubts is seen, not lost. Each language has
// its own band (the threshold is one for all): the edge at which a
// language keeps its incident posts differs with how its write-ups are told.
const (
	BandIncident    = "incident"
	BandUncertain   = "uncertain"
	BandNotIncident = "not-incident"
)

// RelevanceBand is one language's uncertain band: skip under Low, flag in
// [Low, High), draft from High.
type RelevanceBand struct {
	Low, High float64
}

// relevanceOf scores x with m and names the deciding signals.
func relevanceOf(m *RelevanceModel, x []float64, lang string, threshold, low, high float64) casebook.Relevance {
	p := m.Score(x, lang)
	score := round2(p)
	r := casebook.Relevance{Score: score, IsPostmortem: score >= threshold}
	switch {
	case score >= high:
		r.Band = BandIncident
	case score < low:
		r.Band = BandNotIncident
	default:
		r.Band = BandUncertain
	}
	r.Signals, r.Reason = relevanceReason(m, x, lang, r.Band)
	if r.Band == BandUncertain && !r.IsPostmortem {
		// drafted only so that nothing is lost at the margin: the reviewer
		// should know the gate did not judge it an incident
		r.Reason = "uncertain, under the incident threshold" + strings.TrimPrefix(r.Reason, "uncertain")
	}
	return r
}

// relevanceReason names the strongest signals for the decision, e.g.
// "guide: second person, no dated event". The uncertain band names the
// strongest signal each way.
func relevanceReason(m *RelevanceModel, x []float64, lang, band string) ([]string, string) {
	cs := m.contributions(x, lang)
	mean := m.norm(lang).Mean
	name := func(i int) string {
		if x[i] >= mean[i] {
			return relFeatures[i].More
		}
		return relFeatures[i].Less
	}
	top := func(sign float64, k int) []int {
		var idx []int
		for n := 0; n < k; n++ {
			best, bv := -1, 0.25 // a signal under a quarter logit decides nothing
			for i, c := range cs {
				if c*sign > bv && !containsInt(idx, i) && i != rfCyr {
					best, bv = i, c*sign
				}
			}
			if best < 0 {
				break
			}
			idx = append(idx, best)
		}
		return idx
	}
	var pos, neg []int
	if isTemplate(x) && band == BandNotIncident {
		neg = append(neg, rfTemplate)
	}
	if isChangelog(x) && band == BandNotIncident {
		neg = append(neg, rfChangelog)
	}
	if offTopic(x) && band == BandNotIncident {
		neg = append(neg, rfTech)
	}
	switch band {
	case BandIncident:
		pos = top(1, 3)
	case BandNotIncident:
		for _, i := range top(-1, 3) {
			if !containsInt(neg, i) {
				neg = append(neg, i)
			}
		}
	default:
		pos, neg = top(1, 2), top(-1, 2)
	}
	var signals, pros, cons []string
	for _, i := range pos {
		s := name(i)
		signals = append(signals, "+"+s)
		pros = append(pros, s)
	}
	for _, i := range neg {
		s := name(i)
		signals = append(signals, "-"+s)
		cons = append(cons, s)
	}
	switch band {
	case BandIncident:
		return signals, "incident: " + orNone(pros)
	case BandNotIncident:
		return signals, kindOf(neg) + ": " + orNone(cons)
	}
	return signals, "uncertain: for " + orNone(pros) + "; against " + orNone(cons)
}

// kindOf names the kind of non-incident post by its strongest signal.
func kindOf(neg []int) string {
	if len(neg) == 0 {
		return "not an incident"
	}
	switch neg[0] {
	case rfYou, rfAdvice, rfCond, rfGuideHeads:
		return "guide"
	case rfVersions, rfVersionHeads, rfChangelog:
		return "release notes"
	case rfEssay:
		return "essay"
	case rfTemplate:
		return "template"
	}
	return "not an incident"
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "no strong signal"
	}
	return strings.Join(s, ", ")
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// RelevanceFeatures returns the gate's inputs for doc, in the order of
// RelevanceFeatureNames, for fitting and evaluation.
func RelevanceFeatures(doc *extract.Document) []float64 {
	a := analyse(doc)
	x := relevanceFeatures(doc, a.low, a.units)
	return x[:]
}

// relevance scores the analysed document, a post in lang, with the
// checked-in weights (or cfg's) and decides its band.
func (a *analysis) relevance(cfg Config, band RelevanceBand, lang string) casebook.Relevance {
	x := relevanceFeatures(a.doc, a.low, a.units)
	m := cfg.RelevanceModel
	if m == nil {
		m = &fittedRelevance
	}
	return relevanceOf(m, x[:], lang, cfg.RelevanceThreshold, band.Low, band.High)
}

// Fitted returns the checked-in weights.
func Fitted() *RelevanceModel { return &fittedRelevance }

// prefixLen is n, or len(s) if shorter, moved back to a rune boundary.
func prefixLen(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
