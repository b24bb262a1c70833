package evalrelevance

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/casebook/casebook/classify"
)

// The band's objective: two decisions, two cuts, chosen on a 0.05 grid
// from the leave-one-source-out scores.
//
// The threshold (is_postmortem, a precision decision) is the cut with the
// best pooled F1 among those keeping MinRecall of the incident posts, under
// the page constraint: on every set of news or article pages at most
// MaxPageFP of the pages reach it (TestNewsPages and TestArticlePages fail
// above 0.1; the margin is for the half of each set the fit never reads).
// The page constraint is hard; when recall cannot be met under it, the cut
// that keeps most incident posts, and the note says so.
//
// The skip edge (Low, a recall decision: a skipped post is lost, a flagged
// one is seen) is at or under the threshold and above the off-topic cap
// (classify.OffTopicScore: a post with no systems vocabulary is a confident
// non-incident, and under the cap every news page would be drafted). It is
// the highest such cut at which every language keeps MinKept of its incident
// posts, or, for a language that cannot at any such cut, the most it keeps
// at any: recall is preferred to the flagged lane's size, and when the lane
// then holds more than MaxFlagged of the drafts the note says what it costs.
//
// The top of the band (High) is the highest cut from the threshold up that
// keeps the flagged lane within MaxFlagged; the threshold itself when none
// does (every draft under the threshold is flagged, whatever the lane holds).
const (
	MinRecall  = 0.95 // incident posts at or above the threshold
	MinKept    = 0.98 // incident posts not skipped, per language
	MaxFlagged = 0.15
	MaxPageFP  = 0.05
	bandStep   = 0.05
)

// Band is the chosen threshold and uncertain band with the figures the
// choice saw.
type Band struct {
	Threshold float64 // is_postmortem from here
	Low, High float64 // skip below Low, flag in [Low, High), draft from High
	// Recall, PageFP and F1 are at the threshold: the incident posts judged
	// incidents, the worst page set's share judged incidents, the pooled F1.
	Recall, PageFP, F1 float64
	// Kept, KeptLang and Flagged are at the band: the incident posts not
	// skipped (pooled and per language), the flagged share of the drafts.
	Kept     float64
	KeptLang map[string]float64
	Flagged  float64
	// PageDrafted is the worst page set's share at or above Low: news pages
	// a crawl would draft into the flagged lane.
	PageDrafted float64
	Note        string // what gave way, when a constraint could not be met
}

// ChooseBand picks the threshold and band from the labelled posts' scores
// and the pages' scores (each page doc's Source names its set).
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
	b := Band{Threshold: best.c, Recall: best.recall, PageFP: best.fp, F1: best.f1}
	b.Low = skipEdge(docs, scores, b.Threshold)
	b.High = topOfBand(scores, b.Low, b.Threshold)
	b.Kept, b.KeptLang = kept(docs, scores, b.Low), keptByLang(docs, scores, b.Low)
	b.Flagged = flaggedShare(scores, b.Low, b.High)
	b.PageDrafted = worstPageFP(pages, pageScores, b.Low)
	var short []string
	for _, l := range sortedKeys(b.KeptLang) {
		if b.KeptLang[l] < MinKept {
			short = append(short, fmt.Sprintf("%s %.2f", l, b.KeptLang[l]))
		}
	}
	if len(short) > 0 {
		notes = append(notes, fmt.Sprintf("kept under %.2f at any skip edge above %.2f: %s", MinKept, classify.OffTopicScore, strings.Join(short, ", ")))
	}
	if b.Flagged > MaxFlagged {
		// what the lane would hold with the skip edge at the threshold
		hi := topOfBand(scores, b.Threshold, b.Threshold)
		notes = append(notes, fmt.Sprintf("recall preferred: flagged %.2f over %.2f (skip edge at the threshold: flagged %.2f, kept %.2f)",
			b.Flagged, MaxFlagged, flaggedShare(scores, b.Threshold, hi), kept(docs, scores, b.Threshold)))
	}
	b.Note = strings.Join(notes, "; ")
	return b
}

// skipEdge is the highest cut in (OffTopicScore, threshold] at which every
// language keeps min(MinKept, the most it keeps at any such cut).
func skipEdge(docs []Doc, scores []float64, threshold float64) float64 {
	var cuts []float64
	for _, c := range grid() {
		if c > classify.OffTopicScore+1e-9 && c <= threshold+1e-9 {
			cuts = append(cuts, c)
		}
	}
	if len(cuts) == 0 {
		return threshold
	}
	target := keptByLang(docs, scores, cuts[0]) // kept only falls as the cut rises
	for l, v := range target {
		target[l] = min(v, MinKept)
	}
	low := cuts[0]
	for _, c := range cuts {
		ok := true
		for l, v := range keptByLang(docs, scores, c) {
			if v < target[l]-1e-9 {
				ok = false
			}
		}
		if ok {
			low = c // cuts ascend: the last that holds is the highest
		}
	}
	return low
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

// keptByLang is each language's share of incident posts scoring at least c.
func keptByLang(docs []Doc, scores []float64, c float64) map[string]float64 {
	k, pos := map[string]int{}, map[string]int{}
	for i, d := range docs {
		if d.Label {
			pos[d.Lang]++
			if at(scores[i], c) {
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

func sortedKeys(m map[string]float64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
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
	k, pos := 0, 0
	for i, d := range docs {
		if d.Label {
			pos++
			if at(scores[i], c) {
				k++
			}
		}
	}
	return ratio(k, max(pos, 1))
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
	drafted, flagged := 0, 0
	for _, s := range scores {
		if at(s, low) {
			drafted++
			if !at(s, high) {
				flagged++
			}
		}
	}
	return ratio(flagged, drafted)
}

// PageFP is each page set's share of pages scoring at least c.
func PageFP(pages []Doc, scores []float64, c float64) map[string]float64 {
	n, fp := map[string]int{}, map[string]int{}
	for i, d := range pages {
		n[d.Source]++
		if at(scores[i], c) {
			fp[d.Source]++
		}
	}
	out := map[string]float64{}
	for s := range n {
		out[s] = ratio(fp[s], n[s])
	}
	return out
}

func worstPageFP(pages []Doc, scores []float64, c float64) float64 {
	w := 0.0
	for _, v := range PageFP(pages, scores, c) {
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

// Tradeoff is one candidate skip edge with what it gives: the incident
// posts kept per language, the flagged share of drafts (pooled and per
// language) with the band's top chosen for it, and the worst page set's
// share drafted.
type Tradeoff struct {
	Low, High   float64
	KeptLang    map[string]float64
	Flagged     float64
	FlaggedLang map[string]float64
	PageDrafted float64
}

// Tradeoffs lists every skip edge on the grid up to threshold, for the
// README's account of what recall costs in flagged drafts.
func Tradeoffs(docs []Doc, scores []float64, pages []Doc, pageScores []float64, threshold float64) []Tradeoff {
	var out []Tradeoff
	for _, c := range grid() {
		if c > threshold+1e-9 {
			break
		}
		t := Tradeoff{Low: c, High: topOfBand(scores, c, threshold), KeptLang: keptByLang(docs, scores, c), FlaggedLang: map[string]float64{}}
		t.Flagged = flaggedShare(scores, c, t.High)
		t.PageDrafted = worstPageFP(pages, pageScores, c)
		byLang := map[string][]float64{}
		for i, d := range docs {
			byLang[d.Lang] = append(byLang[d.Lang], scores[i])
		}
		for l, s := range byLang {
			t.FlaggedLang[l] = flaggedShare(s, c, t.High)
		}
		out = append(out, t)
	}
	return out
}
