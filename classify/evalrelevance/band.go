package evalrelevance

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/casebook/casebook/classify"
)

// The band's objective: two decisions, chosen on a 0.05 grid from the
// leave-one-source-out scores: one threshold for every language, and a
// band (skip edge and top) per language.
//
// The threshold (is_postmortem, a precision decision) is the cut with the
// best pooled F1 among those keeping MinRecall of the incident posts, under
// the page constraint: on every set of news or article pages at most
// MaxPageFP of the pages reach it (TestNewsPages and TestArticlePages fail
// above 0.1; the margin is for the half of each set the fit never reads).
// The page constraint is hard; when recall cannot be met under it, the cut
// that keeps most incident posts, and the note says so. Pages are of mixed
// languages, so they bind the one threshold; the bands only lower the
// cuts under which a page is skipped, never the threshold.
//
// The skip edge of a language (Low, a recall decision: a skipped post is
// lost, a flagged one is seen) is at or under the threshold and above the
// off-topic cap (classify.OffTopicScore: a post with no systems vocabulary
// is a confident non-incident, and under the cap every news page would be
// drafted). It must keep MinKept of the language's incident posts (or, when
// no such edge can, the most any keeps), and it must lie under the
// language's estimated MinKept point: with 15-26 incident posts a language,
// the edge that keeps 98% of them is just under the lowest one (the 2% tail
// is half a post), so the point is read from a normal fit of the incident
// posts' logits instead, the centre the language's own and the spread
// pooled over the languages (within-language deviations: Russian's
// heading-less stories show how far one blog's style pulls its write-ups
// down, which a new blog in any language can do). Of those edges, the
// lowest at which the language's flagged lane, [Low, threshold), holds at
// most MaxFlagged of its drafts; the highest of them when none does (recall
// is preferred: the lane grows and the note says what it costs).
//
// The top of a language's band (High) is the threshold: drafts from the
// threshold up are judged incidents, and flagging some of them too adds to
// the lane without keeping any post. Only a language whose skip edge is the
// threshold (nothing in its lane) has a band over it: the highest cut from
// the threshold up that keeps its flagged lane within MaxFlagged.
const (
	MinRecall  = 0.95 // incident posts at or above the threshold
	MinKept    = 0.98 // incident posts not skipped, per language
	MaxFlagged = 0.15 // the flagged lane's share of a language's drafts
	MaxPageFP  = 0.05
	bandStep   = 0.05
)

// Band is the chosen threshold and per-language bands with the figures the
// choice saw.
type Band struct {
	Threshold float64 // is_postmortem from here, in every language
	// Langs is each labelled language's band: skip below Low, flag in
	// [Low, High), draft from High.
	Langs map[string]LangBand
	// Low and High are the band of a language with none of its own (no
	// labelled post): the lowest skip edge of any language, flagged up to
	// the threshold.
	Low, High float64
	// Recall, PageFP and F1 are at the threshold: the incident posts judged
	// incidents, the worst page set's share judged incidents, the pooled F1.
	Recall, PageFP, F1 float64
	// Kept, KeptLang and Flagged are at the bands, each post at its
	// language's: the incident posts not skipped (pooled and per language),
	// the flagged share of the drafts.
	Kept     float64
	KeptLang map[string]float64
	Flagged  float64
	// PageDrafted is the worst page set's share at or above the skip edge
	// of each page's detected language: news pages a crawl would draft.
	PageDrafted float64
	Note        string // what gave way, when a constraint could not be met
}

// LangBand is one language's band and what it gives on its posts.
type LangBand struct {
	Low, High float64
	Point     float64 // the estimated MinKept point of its incident posts (keptPoint)
	Kept      float64 // the language's incident posts not skipped
	Flagged   float64 // the flagged share of the language's drafts
}

// BandOf is the band of lang: its own, or the fallback.
func (b Band) BandOf(lang string) (low, high float64) {
	if lb, ok := b.Langs[lang]; ok {
		return lb.Low, lb.High
	}
	return b.Low, b.High
}

// ChooseBand picks the threshold and the bands from the labelled posts'
// scores and the pages' scores (each page doc's Source names its set, its
// Lang the language the classifier detected).
func ChooseBand(docs []Doc, scores []float64, pages []Doc, pageScores []float64) Band {
	type cut struct{ c, recall, fp, f1 float64 }
	var best *cut
	better := func(b, than *cut) bool {
		if than == nil {
			return true
		}
		bOK, tOK := b.recall >= MinRecall, than.recall >= MinRecall
		switch {
		case bOK != tOK:
			return bOK
		case !bOK && b.recall != than.recall:
			return b.recall > than.recall
		case b.f1 != than.f1:
			return b.f1 > than.f1
		}
		return b.c > than.c
	}
	var pageOnly *cut // the best cut ignoring the page constraint, to report what it cost
	for _, c := range grid() {
		b := &cut{c: c, recall: kept(docs, scores, c), fp: worstPageFP(pages, pageScores, c), f1: pooledF1(docs, scores, c)}
		if better(b, pageOnly) {
			pageOnly = b
		}
		if b.fp > MaxPageFP {
			continue
		}
		if better(b, best) {
			best = b
		}
	}
	var notes []string
	if best == nil { // no cut keeps the pages out: the highest cut
		best = &cut{c: 0.95, recall: kept(docs, scores, 0.95), fp: worstPageFP(pages, pageScores, 0.95), f1: pooledF1(docs, scores, 0.95)}
		notes = append(notes, "no cut meets the page constraint")
	}
	if best.recall < MinRecall {
		n := fmt.Sprintf("threshold recall %.2f under %.2f", best.recall, MinRecall)
		if pageOnly != nil && pageOnly.c < best.c {
			n += fmt.Sprintf(" (%.2f at %.2f, where pages reach %.3f)", pageOnly.recall, pageOnly.c, pageOnly.fp)
		}
		notes = append(notes, n)
	}
	b := Band{Threshold: best.c, Recall: best.recall, PageFP: best.fp, F1: best.f1, Langs: map[string]LangBand{}, Low: best.c, High: best.c}
	byLang := splitByLang(docs, scores)
	spread := incidentSpread(byLang)
	var short, over []string
	for _, l := range sortedKeys(byLang) {
		ld, ls := byLang[l].docs, byLang[l].scores
		lb := LangBand{Point: keptPoint(ld, ls, spread)}
		lb.Low = skipEdge(ld, ls, b.Threshold, lb.Point)
		lb.High = bandTop(ls, lb.Low, b.Threshold)
		lb.Kept, lb.Flagged = kept(ld, ls, lb.Low), flaggedShare(ls, lb.Low, lb.High)
		b.Langs[l] = lb
		b.Low = min(b.Low, lb.Low)
		if hasPositives(ld) && lb.Kept < MinKept {
			short = append(short, fmt.Sprintf("%s %.2f", l, lb.Kept))
		}
		if lb.Flagged > MaxFlagged {
			// what the lane would hold with the skip edge at the threshold
			hi := bandTop(ls, b.Threshold, b.Threshold)
			o := fmt.Sprintf("%s flagged %.2f over %.2f (skip edge at the threshold: flagged %.2f, kept %.2f", l, lb.Flagged, MaxFlagged,
				flaggedShare(ls, b.Threshold, hi), kept(ld, ls, b.Threshold))
			if lb.Point < b.Threshold {
				o += fmt.Sprintf("; its 98%% point %.2f", lb.Point)
			}
			over = append(over, o+")")
		}
	}
	low := bandLows(b, docs)
	b.Kept, b.KeptLang = keptAt(docs, scores, low), keptByLangAt(docs, scores, low)
	b.Flagged = flaggedShareAt(scores, low, bandHighs(b, docs))
	b.PageDrafted = worstPageFPAt(pages, pageScores, bandLows(b, pages))
	if len(short) > 0 {
		notes = append(notes, fmt.Sprintf("kept under %.2f at any skip edge above %.2f: %s", MinKept, classify.OffTopicScore, strings.Join(short, ", ")))
	}
	if len(over) > 0 {
		notes = append(notes, "recall preferred: "+strings.Join(over, ", "))
	}
	b.Note = strings.Join(notes, "; ")
	return b
}

type langSet struct {
	docs   []Doc
	scores []float64
}

// splitByLang groups the labelled posts and their scores by language.
func splitByLang(docs []Doc, scores []float64) map[string]langSet {
	out := map[string]langSet{}
	for i, d := range docs {
		s := out[d.Lang]
		s.docs, s.scores = append(s.docs, d), append(s.scores, scores[i])
		out[d.Lang] = s
	}
	return out
}

func hasPositives(docs []Doc) bool {
	for _, d := range docs {
		if d.Label {
			return true
		}
	}
	return false
}

// bandLows and bandHighs are each doc's cut under its language's band.
func bandLows(b Band, docs []Doc) []float64 {
	out := make([]float64, len(docs))
	for i, d := range docs {
		out[i], _ = b.BandOf(d.Lang)
	}
	return out
}

func bandHighs(b Band, docs []Doc) []float64 {
	out := make([]float64, len(docs))
	for i, d := range docs {
		_, out[i] = b.BandOf(d.Lang)
	}
	return out
}

// skipEdge is, among the cuts in (OffTopicScore, threshold] at or under
// point at which the posts (one language's) keep min(MinKept, the most
// they keep at any such cut), the lowest at which the flagged lane [cut,
// threshold) holds at most MaxFlagged of the drafts, or the highest of them
// when none does; the lowest cut when none is under point.
func skipEdge(docs []Doc, scores []float64, threshold, point float64) float64 {
	var cuts []float64
	for _, c := range grid() {
		if c > classify.OffTopicScore+1e-9 && c <= threshold+1e-9 {
			cuts = append(cuts, c)
		}
	}
	if len(cuts) == 0 {
		return threshold
	}
	target := min(kept(docs, scores, cuts[0]), MinKept) // kept only falls as the cut rises
	ok := cuts[:1]
	for _, c := range cuts[1:] {
		if c <= point+1e-9 && kept(docs, scores, c) >= target-1e-9 {
			ok = append(ok, c) // ascending, and a prefix of cuts
		}
	}
	for _, c := range ok {
		if flaggedShare(scores, c, threshold) <= MaxFlagged {
			return c
		}
	}
	return ok[len(ok)-1]
}

// logit of a score as the classifier decides on it (rounded to two
// decimals, so 0.00 and 1.00 read as 0.005 and 0.995).
func logit(score float64) float64 {
	p := min(max(math.Round(score*100)/100, 0.005), 0.995)
	return math.Log(p / (1 - p))
}

// incidentSpread is the standard deviation of the incident posts' logits
// about their language's mean, pooled over the languages (0 when no
// language has two incident posts).
func incidentSpread(byLang map[string]langSet) float64 {
	ss, df := 0.0, 0
	for _, l := range sortedKeys(byLang) {
		var v []float64
		for i, d := range byLang[l].docs {
			if d.Label {
				v = append(v, logit(byLang[l].scores[i]))
			}
		}
		if len(v) < 2 {
			continue
		}
		m := 0.0
		for _, x := range v {
			m += x
		}
		m /= float64(len(v))
		for _, x := range v {
			ss += (x - m) * (x - m)
		}
		df += len(v) - 1
	}
	if df == 0 {
		return 0
	}
	return math.Sqrt(ss / float64(df))
}

// keptPoint is the score MinKept of the language's incident posts reach
// under a normal fit of their logits (their mean, the pooled spread): the
// highest the skip edge may go. 1 (no bound) when the spread is unknown or
// the language has no incident post.
func keptPoint(docs []Doc, scores []float64, spread float64) float64 {
	m, n := 0.0, 0
	for i, d := range docs {
		if d.Label {
			m += logit(scores[i])
			n++
		}
	}
	if n == 0 || spread == 0 {
		return 1
	}
	z := math.Sqrt2 * math.Erfinv(2*MinKept-1) // the normal's MinKept quantile, 2.05
	return 1 / (1 + math.Exp(-(m/float64(n) - z*spread)))
}

// bandTop is the top of a band from low: the threshold, or, when low is
// the threshold (an empty lane under it), topOfBand.
func bandTop(scores []float64, low, threshold float64) float64 {
	if low >= threshold-1e-9 {
		return topOfBand(scores, low, threshold)
	}
	return threshold
}

// topOfBand is the highest cut from threshold up whose flagged lane,
// [low, cut), holds at most MaxFlagged of the drafts; threshold when none.
func topOfBand(scores []float64, low, threshold float64) float64 {
	high := threshold
	for _, c := range grid() {
		if c <= threshold+1e-9 || c <= low+1e-9 {
			continue
		}
		if flaggedShare(scores, low, c) <= MaxFlagged {
			high = c
		}
	}
	return high
}

// keptAt is the share of incident posts scoring at least their own cut.
func keptAt(docs []Doc, scores, cuts []float64) float64 {
	k, pos := 0, 0
	for i, d := range docs {
		if d.Label {
			pos++
			if at(scores[i], cuts[i]) {
				k++
			}
		}
	}
	return ratio(k, max(pos, 1))
}

// keptByLangAt is each language's share of incident posts scoring at
// least their own cut.
func keptByLangAt(docs []Doc, scores, cuts []float64) map[string]float64 {
	k, pos := map[string]int{}, map[string]int{}
	for i, d := range docs {
		if d.Label {
			pos[d.Lang]++
			if at(scores[i], cuts[i]) {
				k[d.Lang]++
			}
		}
	}
	out := map[string]float64{}
	for l, n := range pos {
		out[l] = ratio(k[l], n)
	}
	return out
}

// flaggedShareAt is the share of drafts (score >= its low) under its high.
func flaggedShareAt(scores, lows, highs []float64) float64 {
	drafted, flagged := 0, 0
	for i, s := range scores {
		if at(s, lows[i]) {
			drafted++
			if !at(s, highs[i]) {
				flagged++
			}
		}
	}
	return ratio(flagged, drafted)
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// grid is the cuts 0.05, 0.10, ... 0.95, rounded so they print and
// compare as written.
func grid() []float64 {
	var out []float64
	for i := 1; i <= 19; i++ {
		out = append(out, math.Round(float64(i)*bandStep*100)/100)
	}
	return out
}

// at reports a score at or above cut, as the classifier decides it (on
// the score rounded to two decimals).
func at(score, cut float64) bool { return math.Round(score*100)/100 >= cut-1e-9 }

// kept is the share of incident posts scoring at least c.
func kept(docs []Doc, scores []float64, c float64) float64 {
	return keptAt(docs, scores, uniform(len(docs), c))
}

// uniform is n copies of cut: one cut for every post, for the
// per-post-cut forms (keptAt, flaggedShareAt, PageFPAt).
func uniform(n int, cut float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = cut
	}
	return out
}

// pooledF1 is the F1 over all languages at cut c.
func pooledF1(docs []Doc, scores []float64, c float64) float64 {
	var f Figures
	for i, d := range docs {
		f.Count(d.Label, at(scores[i], c))
	}
	return f.F1()
}

// flaggedShare is the share of drafts (score >= low) under high.
func flaggedShare(scores []float64, low, high float64) float64 {
	return flaggedShareAt(scores, uniform(len(scores), low), uniform(len(scores), high))
}

// PageFP is each page set's share of pages scoring at least c.
func PageFP(pages []Doc, scores []float64, c float64) map[string]float64 {
	return PageFPAt(pages, scores, uniform(len(pages), c))
}

func worstPageFP(pages []Doc, scores []float64, c float64) float64 {
	return worstPageFPAt(pages, scores, uniform(len(pages), c))
}

// PageFPAt is each page set's share of pages scoring at least their own
// cut (the skip edge of the page's detected language).
func PageFPAt(pages []Doc, scores, cuts []float64) map[string]float64 {
	n, fp := map[string]int{}, map[string]int{}
	for i, d := range pages {
		n[d.Source]++
		if at(scores[i], cuts[i]) {
			fp[d.Source]++
		}
	}
	out := map[string]float64{}
	for s := range n {
		out[s] = ratio(fp[s], n[s])
	}
	return out
}

func worstPageFPAt(pages []Doc, scores, cuts []float64) float64 {
	w := 0.0
	for _, v := range PageFPAt(pages, scores, cuts) {
		w = max(w, v)
	}
	return w
}

// pageSets lists the page sets' names, sorted.
func pageSets(m map[string]float64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Tradeoff is one candidate skip edge of one language with what it gives:
// the language's incident posts kept, the flagged share of its drafts with
// the band's top chosen for it, and the worst page set's share drafted of
// the pages detected in that language.
type Tradeoff struct {
	Lang        string
	Low, High   float64
	Kept        float64
	Flagged     float64
	PageDrafted float64
}

// Tradeoffs lists every skip edge on the grid up to threshold for every
// language, for the README's account of what recall costs in flagged
// drafts.
func Tradeoffs(docs []Doc, scores []float64, pages []Doc, pageScores []float64, threshold float64) []Tradeoff {
	var out []Tradeoff
	byLang := splitByLang(docs, scores)
	pageLang := map[string]langSet{}
	for i, p := range pages {
		s := pageLang[p.Lang]
		s.docs, s.scores = append(s.docs, p), append(s.scores, pageScores[i])
		pageLang[p.Lang] = s
	}
	for _, l := range sortedKeys(byLang) {
		ld, ls := byLang[l].docs, byLang[l].scores
		for _, c := range grid() {
			if c > threshold+1e-9 {
				break
			}
			t := Tradeoff{Lang: l, Low: c, High: bandTop(ls, c, threshold), Kept: kept(ld, ls, c)}
			t.Flagged = flaggedShare(ls, c, t.High)
			t.PageDrafted = worstPageFP(pageLang[l].docs, pageLang[l].scores, c)
			out = append(out, t)
		}
	}
	return out
}
