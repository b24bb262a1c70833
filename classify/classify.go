// Package classify reads an extracted Document and drafts the case fields:
// language, relevance, symptoms, root cause, trigger, detection, remediation,
// action items, lessons, impact, labels and tags, each with evidence spans.
//
// It works sentence by sentence. Every sentence of the article (list items
// and table rows are sentences too, code is left out) gets a section kind
// from its heading, in English, Russian or Chinese (subsections inherit), and
// cue scores per field from phrase lists in the three languages. A heading
// that names a field decides for its sentences unless another field's cues
// are far stronger; in summaries, untitled narratives and investigation
// sections the cues alone decide, and a sentence no cue claims stays out: an
// empty field is a better answer than an invented one.
package classify

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/extract"
)

// Version is recorded in every draft's extraction.version.
const Version = "2"

// Config tunes the classifier.
type Config struct {
	// RelevanceThreshold is the score under which a document is not an
	// incident write-up; 0 means DefaultThreshold.
	RelevanceThreshold float64
	// HandRules routes the text fields by the hand rules alone, without
	// the fitted field model (for fitting it, and for comparison).
	HandRules bool
	// Fields is the field model to use; nil means the checked-in table.
	Fields *FieldModel
	// RelevanceLow and RelevanceHigh, when not 0, bound the uncertain band
	// (flagged drafts) of every language; 0 means each language's band from
	// RelevanceBands or the fitted table (BandFor).
	RelevanceLow, RelevanceHigh float64
	// RelevanceBands replaces the fitted band of the languages it names
	// ("" for a language with no band of its own).
	RelevanceBands map[string]RelevanceBand
	// RelevanceModel replaces the checked-in weights (leave-one-source-out
	// evaluation); nil means the fitted table.
	RelevanceModel *RelevanceModel
}

// Classifier drafts cases. It is safe for concurrent use; build one per worker
// since the language models are loaded once.
type Classifier struct {
	cfg    Config
	lang   *LanguageDetector
	fields *FieldModel              // nil: hand rules only
	bands  map[string]RelevanceBand // resolved per language, "" for the rest
}

// New builds a classifier and loads its language models.
func New(cfg Config) *Classifier {
	if cfg.RelevanceThreshold == 0 {
		cfg.RelevanceThreshold = DefaultThreshold
	}
	c := &Classifier{cfg: cfg, lang: NewLanguageDetector(), bands: resolveBands(cfg)}
	switch {
	case cfg.HandRules:
	case cfg.Fields != nil:
		c.fields = cfg.Fields
	default:
		m, err := DefaultFieldModel()
		if err != nil {
			panic(err) // the table is checked in and tested: a bad one is a build fault
		}
		c.fields = m
	}
	return c
}

// WithFields returns a classifier sharing c's language models that routes
// the text fields by m (nil: the hand rules alone). Leave-one-source-out
// evaluation builds one per held-out source this way.
func (c *Classifier) WithFields(m *FieldModel) *Classifier {
	d := *c
	d.fields = m
	return &d
}

// Threshold returns the relevance threshold in use.
func (c *Classifier) Threshold() float64 { return c.cfg.RelevanceThreshold }

// BandFor returns the bounds of the uncertain band of lang (en, ru, zh): a
// crawled post scoring under low is skipped, one in [low, high) is drafted
// flagged. Each language has its own band; a language without one gets the
// fallback band.
func (c *Classifier) BandFor(lang string) (low, high float64) {
	b := c.bandOf(lang)
	return b.Low, b.High
}

func (c *Classifier) bandOf(lang string) RelevanceBand {
	bands := c.bands
	if bands == nil { // a Classifier not made by New
		bands = resolveBands(c.cfg)
	}
	if b, ok := bands[lang]; ok {
		return b
	}
	return bands[""]
}

// resolveBands is the band of every language cfg and the fitted table
// know. A fitted edge stays on its side of the threshold, as the table
// chose it for the default threshold; cfg's RelevanceBands are taken as
// given, and RelevanceLow and RelevanceHigh, when set, are every
// language's.
func resolveBands(cfg Config) map[string]RelevanceBand {
	out := map[string]RelevanceBand{}
	for l, b := range fittedBands {
		out[l] = RelevanceBand{Low: min(b.Low, cfg.RelevanceThreshold), High: max(b.High, cfg.RelevanceThreshold)}
	}
	for l, b := range cfg.RelevanceBands {
		out[l] = b
	}
	for l, b := range out {
		if cfg.RelevanceLow != 0 {
			b.Low = cfg.RelevanceLow
		}
		if cfg.RelevanceHigh != 0 {
			b.High = cfg.RelevanceHigh
		}
		out[l] = b
	}
	return out
}

// DetectLanguage returns the case language of doc (en, ru, zh or und) and the
// language seen as an ISO 639-1 code ("uk", "ja", "de"; "" if none could be
// told), for a skip reason such as "unsupported language: uk".
func (c *Classifier) DetectLanguage(doc *extract.Document) (code, seen string) {
	return c.lang.DetectSeen(doc)
}

// Classify drafts a case from doc. It fills the content fields only; the
// pipeline sets id, status, sources and timestamps. A document in another
// language comes back with language "und" and no fields.
func (c *Classifier) Classify(doc *extract.Document) *casebook.Case {
	cs := &casebook.Case{
		Status:       casebook.StatusDraft,
		Title:        doc.Title,
		Organization: doc.Organization,
		Published:    doc.Published,
		Extraction: casebook.Extraction{
			Method: "heuristic", Version: Version,
			Confidence: map[string]float64{}, Evidence: map[string][]casebook.Span{},
		},
	}
	cs.Language, _ = c.lang.DetectSeen(doc)
	if cs.Language == "und" {
		cs.Normalize()
		return cs
	}
	a := analyse(doc)
	// relevance reads the text and the units, before the field model re-routes
	cs.Relevance = a.relevance(c.cfg, c.bandOf(cs.Language), cs.Language)
	a.fill(cs, c.fields, cs.Language)
	cs.Extraction.Confidence["relevance"] = round2(cs.Relevance.Score)
	cs.Extraction.Confidence["language"] = 0.9
	cs.Normalize()
	return cs
}

// unit is one sentence, list item sentence or table row of the article.
type unit struct {
	text       string
	low        string
	start, end int     // byte offsets into doc.Text
	block      int     // index of the block, so sentences of one item stay one item
	kind       field   // section kind
	pos        float64 // 0..1 position in the article
	scores     map[field]float64
	advice     bool // gives advice or draws a lesson (isAdvice)
	assigned   field
	hand       field             // what the hand rules gave it (assigned before the field model)
	fitHand    field             // hand without the Russian story order's routes, for fitting the field model
	preStory   field             // the route before ruStory moved it
	story      bool              // ruStory moved it
	bkind      extract.BlockKind // paragraph, list item, table row, quote
	prob       float64           // the field model's probability for assigned
}

// analysis holds a document's units and the routing made of them.
type analysis struct {
	doc        *extract.Document
	units      []unit
	secKinds   []field
	headingHit map[field]bool // fields named by a heading
	low        string         // lower-cased prose of the whole article
	compCounts map[string]int // component cue counts in low, once computed
	model      bool           // the field model routed the units
	zhProse    int8           // a.chinese(): 0 not yet asked, 1 Chinese, -1 not
	ruw        [][]string     // a.ruWordsOf: each unit's Russian words, once split
}

// analyse splits doc into units and routes each to a field.
func analyse(doc *extract.Document) *analysis {
	a := &analysis{doc: doc, headingHit: map[field]bool{}}
	a.secKinds = sectionKinds(doc)
	for _, s := range doc.Sections {
		if k, weak := headingKind(s.Heading); k != fNone && !weak && s.Heading != doc.Title {
			a.headingHit[k] = true
		}
	}
	var prose strings.Builder
	blockIdx := 0
	// only HTML loses line breaks that ended a sentence (see splitSentencesIn)
	hanBreaks := doc.Format != extract.FormatMarkdown && doc.Format != extract.FormatText
	for si, sec := range doc.Sections {
		blocks := sec.Blocks
		if sentenceHeading(sec) {
			// plain text posts open with a sentence the extractor takes for
			// the title: it is still part of the story
			hb := extract.Block{Kind: extract.Paragraph, Text: sec.Heading, Start: sec.Start, End: sec.Start + len(sec.Heading)}
			blocks = append([]extract.Block{hb}, blocks...)
		}
		// a short paragraph ending in a colon ("Root cause:", "解决方法：")
		// heads the paragraphs after it, up to the next such label
		label := fNone
		for _, b := range blocks {
			blockIdx++
			if b.Kind == extract.Code {
				continue
			}
			text := b.Text
			if b.Kind == extract.Table && isTableRule(text) {
				continue
			}
			if b.Kind == extract.Quote && strings.Count(text, "://") >= 2 {
				continue // author and licence boxes
			}
			if isMarkup(text) {
				continue
			}
			// lower-case the block once; sentences slice it when the case
			// mapping kept every byte length (it does for en, ru and zh)
			blockLow := strings.ToLower(text)
			sameLen := len(blockLow) == len(text)
			prose.WriteString(blockLow)
			prose.WriteByte('\n')
			kind := a.secKinds[si]
			if k, ok := labelParagraph(text); ok {
				if k != fNone {
					label = k
				}
				continue
			}
			if label != fNone {
				kind = label
			}
			if signature(text, doc.Author) {
				continue // the author's name on a line of its own signs the post off
			}
			if isDefinition(text) || isFileLabel(text) {
				continue // "query_cache_size：…", "File: src/app.ts": reference material, not the story
			}
			off := 0
			if k, n := statusEntry(text); n > 0 {
				// a status page's update ("Identified - …", "Решено — …",
				// "调查中 - …"): the status names the entry's field, and
				// heads nothing after it
				off, label = n, fNone
				if k != fNone {
					kind = k
				}
			} else if k, n := inlineLabel(text); n > 0 {
				off = n
				if k != fNone && k != fNarrative {
					kind = k
				}
				if b.Kind == extract.Paragraph {
					// "The underlying issue: …" heads the untitled
					// paragraphs after it too, up to the next label
					label = carriedLabel(k)
				}
			}
			if kind == fTimeline || b.Kind == extract.Table {
				off += timestampPrefix(text[off:])
			}
			for _, sp := range splitSentencesIn(text[off:], hanBreaks) {
				s, e := sp.start+off, sp.end+off
				t := text[s:e]
				if len(strings.TrimSpace(t)) < 3 || isStampOnly(t) {
					continue // "Mar 14, 2026 - 15:58 UTC" under an update: no sentence
				}
				a.units = append(a.units, unit{
					text: t, low: lowSlice(blockLow, sameLen, t, s, e), start: b.Start + s, end: b.Start + e,
					block: blockIdx, kind: kind, bkind: b.Kind,
				})
			}
		}
	}
	a.low = prose.String()
	n := float64(len(a.units))
	for i := range a.units {
		u := &a.units[i]
		u.pos = float64(i) / max(n, 1)
		u.scores, u.advice = sentenceScores(u.low)
		if u.kind == fProblem {
			u.scores[fSymptoms] += problemBonus
		}
		if u.kind == fNarrative && u.pos < earlyPos {
			// what broke is told first
			u.scores[fSymptoms] += earlyBonus * boolf(u.scores[fSymptoms] > 0)
		}
		u.assigned = route(u)
		if isQuestion(u.text) || apology.any(u.low) || zhDemonstration(u) || !strings.ContainsFunc(u.text, unicode.IsLetter) {
			// a question states no symptom, cause or fix; an apology
			// none under any heading ("后续改进: … 我们深表歉意"); nor
			// does a sentence without a word ("📈", "---", "1.")
			u.assigned = fNone
		}
	}
	a.ruStory()
	a.zhStoryOrder()
	a.zhMeta()
	a.zhTrialSteps()
	a.purposeFragments()
	a.storyEN()
	a.detectionOnce()
	for i := range a.units {
		u := &a.units[i]
		u.hand, u.fitHand = u.assigned, u.assigned
		if u.story {
			u.fitHand = u.preStory
		}
	}
	return a
}

// detectionOnce keeps a story's detection where it is first told: how the
// team found out is told once, at the start ("我们收到用户反馈…"); a later
// analysis, recap, lesson or fix sentence that names the report again
// ("但是用户反馈的是邮件晚到") refers back to it and is no field's. Sections
// headed Detection keep every sentence.
func (a *analysis) detectionOnce() {
	first := -1
	for i := range a.units {
		u := &a.units[i]
		if u.assigned != fDetection || u.kind == fDetection {
			continue
		}
		if first < 0 {
			first = u.block
			continue
		}
		if u.block != first && (u.kind == fAnalysis || u.kind == fRecap || u.kind == fLessons || u.kind == fRemediation) {
			u.assigned = fNone
		}
	}
}

// purposeOnly opens a fragment that only gives the purpose of the sentence
// before ("以免…", "so that…").
var purposeOnly = cues("以避免", "以免", "以便", "从而", "so that")

// purposeFragments sends a fragment that only gives a purpose ("以免重启后
// 无法引导") where the advice before it in its paragraph went. (A paragraph
// that concluded with advice, "So, …", used to take its heading-kept
// sentences along too; leave-one-source-out showed it helped only the one
// article that suggested it, and it was removed.)
func (a *analysis) purposeFragments() {
	for i := 1; i < len(a.units); i++ {
		u, prev := &a.units[i], &a.units[i-1]
		if u.block == prev.block && prev.assigned != fNone && prev.advice && startsWith(purposeOnly, u.low) {
			u.assigned = prev.assigned
			u.advice = true
		}
	}
}

// isFieldKind reports a section kind that names a field routed by headings.
func isFieldKind(k field) bool {
	switch k {
	case fSymptoms, fRootCause, fTrigger, fDetection, fRemediation:
		return true
	}
	return false
}

// startsWith reports whether low opens with one of the cues of cs.
func startsWith(cs cueSet, low string) bool {
	low = strings.TrimLeft(low, " \t\"'“‘(（")
	for _, c := range cs {
		if strings.HasPrefix(low, c.text) && (len(low) == len(c.text) || endsWord(low, len(c.text), c.text) || hasHan(c.text)) {
			return true
		}
	}
	return false
}

// sectionKinds gives each section the kind its heading names or, failing
// that, the kind of the nearest enclosing section; untitled text and the
// article's title section are narrative.
func sectionKinds(doc *extract.Document) []field {
	kinds := make([]field, len(doc.Sections))
	type open struct {
		level int
		kind  field
	}
	var stack []open
	for i, s := range doc.Sections {
		k, weak := fNone, false
		// the article's own title names no section; any other heading may,
		// whatever its level ("# Stats" after "## Action items")
		if s.Heading != "" && !(i == 0 && s.Level <= 1) && s.Heading != doc.Title {
			k, weak = headingKind(s.Heading)
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= s.Level {
			stack = stack[:len(stack)-1]
		}
		if weak && len(stack) > 0 && (isFieldKind(stack[len(stack)-1].kind) || stack[len(stack)-1].kind == fTimeline) {
			// "Problem #2" under "Root cause", "问题定位" under "时间轴": a
			// vague heading is a part of the field its section names
			k = stack[len(stack)-1].kind
		}
		if k == fNone {
			k = fNarrative
			if len(stack) > 0 {
				k = stack[len(stack)-1].kind
			}
		}
		if s.Heading != "" {
			stack = append(stack, open{s.Level, k})
		}
		kinds[i] = k
	}
	return kinds
}

// Routing thresholds: a field heading keeps its sentences unless another
// field outscores it by overrideMargin with at least overrideMin; narrative
// sentences need narrativeMin, investigation steps analysisMin.
const (
	overrideMin    = 3
	overrideMargin = 2
	narrativeMin   = 1.5
	analysisMin    = 2
	timelineMin    = 1
	recapMin       = 1.5
)

// experienced marks a sentence telling what someone met with: users,
// customers, requests or a system experienced, saw, encountered or got it.
var experienced = cues("experienc", "saw ", "were seeing", "was seeing", "encounter", "received", "were getting", "got ",
	"столкнул", "получал", "получили", "видел", "наблюдал", "испытыва",
	"遇到", "遭遇", "收到", "出现", "感受到")

// problemBonus leans a vaguely headed problem section toward symptoms.
const problemBonus = 1.0

// Position prior: in a narrative, a failure word in the first part of the
// article most likely describes the symptoms.
const (
	earlyPos   = 0.35
	earlyBonus = 0.5
)

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// topField is the field with the highest cue score, fNone if none.
func topField(scores map[field]float64) field {
	best, bs := fNone, 0.0
	for _, f := range contentFields {
		if s := scores[f]; s > bs {
			best, bs = f, s
		}
	}
	return best
}

func route(u *unit) field {
	best, bestScore := fNone, 0.0
	for _, f := range contentFields {
		if s := u.scores[f]; s > bestScore {
			best, bestScore = f, s
		}
	}
	switch u.kind {
	case fSkip:
		return fNone
	case fImpact:
		// an impact section tells what users saw: a sentence whose failure
		// words reach the narrative minimum and say someone met them is a
		// symptom; in English any failure word does ("two thirds of card
		// payments failed": en-rotko, posthog, held out and rc11 agree,
		// while the Russian sets fell); figures and scope are impact, and
		// go nowhere
		if best == fSymptoms && !u.advice && (bestScore >= narrativeMin && experienced.any(u.low) || bestScore >= 1 && mostlyLatin(u.low)) {
			return fSymptoms
		}
		return fNone
	case fSymptoms, fRootCause, fTrigger, fDetection, fRemediation:
		if u.advice && u.scores[u.kind] < overrideMin {
			// a closing reflection under a fix heading is a lesson
			return adviceField(u)
		}
		fallthrough
	case fActionItems, fLessons:
		if u.kind == fLessons && commitment.any(u.low) && u.scores[fActionItems] >= u.scores[fLessons] {
			// "Выводы: … мы добавим тест": a plan told among the lessons
			return fActionItems
		}
		if best != u.kind && bestScore >= overrideMin && bestScore >= u.scores[u.kind]+overrideMargin {
			return best
		}
		return u.kind
	case fRecap:
		if u.advice || hypothetical.any(u.low) {
			return fLessons // "if you change the default…": advice
		}
		if best != fNone && best != fLessons && bestScore >= recapMin && bestScore > u.scores[fLessons] {
			return best
		}
		return fLessons
	case fTimeline:
		switch best {
		case fDetection, fRemediation, fSymptoms:
			if bestScore >= timelineMin {
				return best
			}
		}
		return fNone
	case fAnalysis:
		// an investigation finds causes and sees symptoms; its asides are
		// not the post's lessons or plans
		switch best {
		case fRootCause, fSymptoms, fDetection, fRemediation:
			if bestScore >= analysisMin {
				return best
			}
		}
		return fNone
	}
	if u.advice && bestScore < overrideMin {
		return adviceField(u)
	}
	if bestScore >= narrativeMin {
		return best
	}
	return fNone
}

// adviceField is where advice goes: lessons, or action items when the
// sentence plans more than it reflects ("in the future we will…").
func adviceField(u *unit) field {
	if a := u.scores[fActionItems]; a >= 2 && a > u.scores[fLessons] {
		return fActionItems
	}
	return fLessons
}

func lowSlice(blockLow string, sameLen bool, t string, s, e int) string {
	if sameLen {
		return blockLow[s:e]
	}
	return strings.ToLower(t)
}

// isTableRule reports a Markdown table's header rule (":---- ----").
func isTableRule(s string) bool {
	return strings.Trim(s, ":-| ") == ""
}

func round2(v float64) float64 { return float64(int(v*100+0.5)) / 100 }

// labelParagraph reports a paragraph that is only a label ending in a colon
// and the section kind it names (fNone if it names none).
func labelParagraph(text string) (field, bool) {
	t := strings.TrimSpace(strings.Trim(text, "*_ "))
	if !strings.HasSuffix(t, ":") && !strings.HasSuffix(t, "：") {
		if k := bareLabel(t); k != fNone {
			return k, true
		}
		return fNone, false
	}
	if utf8.RuneCountInString(t) > 30 {
		return fNone, false
	}
	if strings.ContainsAny(strings.TrimRight(t, ":："), "，。；") {
		// "最重要的是最后这个链接，留言里写着：": a Chinese clause leading
		// in to a quote, not a label; Chinese labels (解决方法：, 原因：)
		// are set phrases without a comma, English and Russian ones may
		// have one ("So, the root cause:", "Итак, причина:")
		return fNone, false
	}
	k, _ := headingKind(strings.TrimRight(t, ":："))
	return k, true
}

// bareLabel is the field a paragraph names when it is nothing but the
// field's name, as a bold line standing in for a heading ("**解决方法**",
// "Root cause", "Решение"): at most three words (eight Han characters), no
// sentence punctuation, and a heading cue of a text field.
func bareLabel(t string) field {
	// a byte bound first: most paragraphs are sentences, far longer
	if t == "" || len(t) > 120 || strings.Count(t, " ") > 2 || strings.ContainsAny(t, ".,!?;。，！？；") {
		return fNone
	}
	if n := utf8.RuneCountInString(t); n > 30 || n > 8 && hasHan(t) {
		return fNone
	}
	k, weak := headingKind(t)
	if weak {
		return fNone
	}
	return carriedLabel(k)
}

// labelColon is the offset of text's first colon (':' or '：') when it
// stands at most limit bytes in, else -1: strings.IndexAny with a
// non-ASCII set decodes the whole sentence rune by rune, where a label's
// colon can only be near the start. ':' never occurs inside a UTF-8
// sequence and '：' opens with a lead byte, so a byte scan finds what
// IndexAny finds.
func labelColon(text string, limit int) int {
	for i := 0; i < len(text) && i <= limit; i++ {
		switch text[i] {
		case ':':
			return i
		case 0xEF:
			if strings.HasPrefix(text[i:], "：") {
				return i
			}
		}
	}
	return -1
}

// inlineLabel reads a leading "Label: " of at most a few words ("Root
// cause: ...", "What happened?: ...", "原因：...") and returns the kind it
// names and its length in bytes, 0 if there is none.
func inlineLabel(text string) (field, int) {
	i := labelColon(text, 60)
	if i <= 0 {
		return fNone, 0
	}
	head := strings.Trim(text[:i], "*_ ?")
	if strings.Count(head, " ") > 4 || utf8.RuneCountInString(head) > 40 || hasHan(head) && utf8.RuneCountInString(head) > 12 || strings.ContainsAny(head, ".,。，") || strings.Contains(text[:i], "://") {
		return fNone, 0
	}
	k, weak := headingKind(head)
	if k == fNone || weak {
		return fNone, 0
	}
	_, sz := utf8.DecodeRuneInString(text[i:])
	n := i + sz
	for n < len(text) && (text[n] == ' ' || text[n] == '*') {
		n++
	}
	return k, n
}

// carriedLabel is the kind an inline label passes on to the paragraphs
// after its own: a field the sentences are routed to keeps heading them; a
// label that names no such field (an overview, a metadata line) ends it.
func carriedLabel(k field) field {
	switch k {
	case fSymptoms, fRootCause, fTrigger, fDetection, fRemediation, fActionItems, fLessons:
		return k
	}
	return fNone
}

// isMarkup reports raw HTML left in Markdown (an <img> line).
func isMarkup(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") && (strings.Contains(t, "src=") || strings.Contains(t, "href=") || strings.HasPrefix(t, "<!--"))
}

// sentenceHeading reports a top-level heading that reads as prose: long, or
// ending like a sentence.
func sentenceHeading(s extract.Section) bool {
	if s.Level > 1 || s.Heading == "" {
		return false
	}
	h := strings.TrimSpace(s.Heading)
	return utf8.RuneCountInString(h) > 80 || strings.HasSuffix(h, ".") || strings.HasSuffix(h, "。") || strings.HasSuffix(h, "!") || strings.HasSuffix(h, "！")
}

// Route is how one sentence was read, for reviewers and debugging.
type Route struct {
	Span    casebook.Span      `json:"span"`
	Text    string             `json:"text"`
	Section string             `json:"section"` // the kind its heading gave it
	Field   string             `json:"field"`   // where it went, "" if nowhere
	Scores  map[string]float64 `json:"scores"`  // cue score per field
	Hand    string             `json:"hand"`    // where the hand rules sent it
	Prob    float64            `json:"prob"`    // the field model's probability for Field
}

var kindNames = map[field]string{
	fNarrative: "narrative", fAnalysis: "analysis", fTimeline: "timeline", fSkip: "skip", fRecap: "recap",
	fProblem: "problem",
}

// Explain returns every sentence of doc with the section kind, cue scores
// and field that Classify gave it.
func (c *Classifier) Explain(doc *extract.Document) []Route {
	a := analyse(doc)
	lang, _ := c.lang.DetectSeen(doc)
	a.applyModel(c.fields, lang)
	out := make([]Route, 0, len(a.units))
	name := func(f field) string {
		if n, ok := fieldNames[f]; ok {
			return n
		}
		return kindNames[f]
	}
	for _, u := range a.units {
		r := Route{Span: casebook.Span{Start: u.start, End: u.end}, Text: u.text, Section: name(u.kind), Field: name(u.assigned), Hand: name(u.hand), Prob: round2(u.prob), Scores: map[string]float64{}}
		for f, s := range u.scores {
			r.Scores[name(f)] = s
		}
		out = append(out, r)
	}
	return out
}

func hasHan(s string) bool {
	for i := 0; i < len(s); i++ {
		// every Han letter's UTF-8 lead byte is at least 0xE2 (U+2E80 is
		// E2 BA 80); continuation bytes and the lead bytes of lower code
		// points are under it, so only these bytes start a rune worth
		// decoding
		if s[i] < 0xE2 {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(s[i:]); isHanRune(r) {
			return true
		}
	}
	return false
}

// isQuestion reports a sentence that asks ("Why did it time out?", "为啥会超时呢？").
func isQuestion(s string) bool {
	s = strings.TrimRight(s, " \"'”’)）»")
	return strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？")
}

// isLeadIn reports a sentence that only announces what follows ("as below:").
func isLeadIn(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasSuffix(s, ":") || strings.HasSuffix(s, "：")
}

// isDefinition reports a "identifier: meaning" line, as settings and API
// references are written.
func isDefinition(text string) bool {
	i := labelColon(text, 64)
	if i <= 0 {
		return false
	}
	head := strings.Trim(text[:i], "`*_ ")
	if head == "" || strings.ContainsAny(head, " \t") {
		return false
	}
	code := false
	for _, r := range head {
		switch {
		case r == '_' || r == '.' || r == '-' || r == '/':
			code = true
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return code
}

// signature reports a block that is only the post's author's name ("Ryan
// Doe", "— Ryan Doe", "Cheers, Ryan Doe").
func signature(text, author string) bool {
	if author == "" || len(text) > len(author)+24 {
		return false
	}
	t := strings.Trim(text, " .,!-—–*_~")
	for _, lead := range []string{"cheers", "thanks", "best", "regards", "спасибо", "с уважением", "谢谢"} {
		if len(t) > len(lead) && strings.EqualFold(t[:len(lead)], lead) {
			t = strings.TrimLeft(t[len(lead):], " ,!—–-，！")
			break
		}
	}
	return strings.EqualFold(t, strings.TrimSpace(author))
}

// isFileLabel reports a line that names a file and nothing else ("File:
// src/lib/tools.ts", "Файл: docs/FIX.md", "文件：/etc/hosts"): it says where
// the change is, the sentences around it say what it was.
func isFileLabel(text string) bool {
	i := strings.IndexAny(text, ":：")
	if i <= 0 {
		return false
	}
	switch strings.ToLower(strings.Trim(text[:i], "`*_ ")) {
	case "file", "files", "path", "файл", "файлы", "путь", "文件", "路径", "文件路径":
	default:
		return false
	}
	_, size := utf8.DecodeRuneInString(text[i:])
	path := strings.Trim(text[i+size:], "`*_ ")
	return path != "" && !strings.ContainsAny(path, " \t") && strings.ContainsAny(path, "/.")
}

// commitment marks a plan the writers commit to ("we will add", "мы
// добавим", "我们将"), as against a lesson told as "we should".
var commitment = cues("we will", "we'll", "we are going to", "we plan to", "we're going to",
	"мы добавим", "мы сделаем", "мы настроим", "мы будем", "будем", "планируем", "собираемся", "добавим",
	"надо будет", "нужно будет",
	"我们将", "我们会", "后续将", "后续会", "计划")

// statusWords are the states a status page's updates open with, and the
// kind each gives its entry: investigating tells what is seen (a problem:
// symptoms when failure words are there), identified the cause, a fix or
// monitoring the mitigation; an update or the resolution is routed by cues.
var statusWords = []struct {
	kind  field
	words cueSet
}{
	{fProblem, cues("investigating", "under investigation", "расследуем", "исследуем", "выясняем", "изучаем",
		"проблема обнаружена", "调查中", "排查中", "正在调查", "正在排查")},
	{fRootCause, cues("identified", "cause identified", "root cause identified", "причина найдена", "причина установлена",
		"причина определена", "проблема локализована", "已定位", "原因已查明", "已查明原因", "已找到原因", "已确认原因")},
	{fRemediation, cues("monitoring", "fix implemented", "mitigated", "mitigating", "recovering", "мониторинг", "наблюдаем",
		"исправление выкачено", "устраняем", "观察中", "监控中", "处理中", "修复中", "恢复中", "已修复")},
	{fNarrative, cues("update", "resolved", "completed", "scheduled", "in progress", "postmortem", "post-incident report",
		"обновление", "решено", "устранено", "завершено", "更新", "已恢复", "已解决", "已完成")},
}

// statusEntry reads the status a status-page update opens with ("**Identified** -
// …", "Мониторинг — …", "调查中 - …"): the kind it gives the entry (fNone for
// none) and the length of the prefix, 0 if the paragraph is no such entry.
func statusEntry(text string) (field, int) {
	t := strings.TrimLeft(text, "*_ ")
	lead := len(text) - len(t)
	for _, sep := range []string{" - ", " – ", " — ", "：", ": "} {
		i := strings.Index(t, sep)
		if i <= 0 || i > 48 {
			continue
		}
		head := strings.ToLower(strings.Trim(t[:i], "*_ "))
		for _, sw := range statusWords {
			for _, c := range sw.words {
				colon := sep == "：" || sep == ": "
				if head == c.text && (!colon || sw.kind == fProblem || sw.kind == fRootCause || hasHan(head)) {
					// "Monitoring: …", "Update: …" are also plain labels
					n := lead + i + len(sep)
					for n < len(text) && (text[n] == ' ' || text[n] == '*' || text[n] == '_') {
						n++
					}
					return sw.kind, n
				}
			}
		}
	}
	return fNone, 0
}

// stampNoise is what a status update's date line holds besides figures.
var stampNoise = regexp.MustCompile(`(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b|\b(?:utc|gmt|pst|pdt|pt|est|edt|et|cet|cest|msk|cst|am|pm|z)\b|(?:январ|феврал|март|апрел|ма[йя]|июн|июл|август|сентябр|октябр|ноябр|декабр)[а-я]*|мск|утц|год[а]?|г\.|年|月|日|号|时|分|秒|北京时间|[0-9\s,.:/\-–—()（）|+]`)

// maxStampLen bounds a date-and-time line in bytes ("September 30, 2026 -
// 23:59:59 UTC" is 32, "30 сентября 2026 г., 23:59 МСК" 46).
const maxStampLen = 64

// isStampOnly reports a sentence that is only a date and a clock time ("Mar 14, 2026 -
// 15:58 UTC", "15 марта 2026, 12:40 МСК", "2026-05-20 21:35").
func isStampOnly(t string) bool {
	// a date line is short: the cap keeps the regexp off every long
	// sentence (it cost a third of Classify's time on a 50 KB post)
	if len(t) > maxStampLen || !strings.ContainsAny(t, ":：") || !strings.ContainsAny(t, "0123456789") {
		return false
	}
	return strings.TrimSpace(stampNoise.ReplaceAllString(t, "")) == ""
}
