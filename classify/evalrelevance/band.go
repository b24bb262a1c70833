package evalrelevance

import (
	"fmt"
	"math"
	"sort"
)

// The band's objective. The cut between skipped and drafted (also the
// is_postmortem threshold: a flagged draft is one the reviewer should see)
// and the top of the uncertain band are chosen on a 0.05 grid from the
// leave-one-source-out scores, under three constraints:
//
//   - pages: on every set of news or article pages, at most MaxPageFP of
//     the pages score at or above the cut (TestNewsPages and
//     TestArticlePages fail above 0.1; the margin is for the half of each
//     set the fit never reads). This one is hard: when it and the next
//     cannot both hold, it wins and the band says so.
//   - nothing lost: at least MinKept of the incident posts score at or
//     above the cut;
//   - the flagged lane holds at most MaxFlagged of the drafts.
//
// Among the cuts that meet the first two, the one with the best pooled F1
// is taken (ties: the higher cut); when none meets the recall constraint,
// the cut that keeps most incident posts under the page constraint. The
// top of the band is the highest cut above it that keeps the flagged lane
// within MaxFlagged.
const (
	MinKept    = 0.95
	MaxFlagged = 0.15
	MaxPageFP  = 0.05
	bandStep   = 0.05
)

// Band is the chosen threshold and uncertain band with the figures the
// choice saw.
type Band struct {
	Low, High float64 // skip below Low, flag in [Low, High), draft from High
	// Kept, Flagged, PageFP and F1 are at the chosen band: the incident
	// posts not skipped, the flagged share of drafts, the worst page set's
	// share judged incidents, the pooled F1 at Low.
	Kept, Flagged, PageFP, F1 float64
	Note                      string // what gave way, when a constraint could not be met
}

// ChooseBand picks the band from the labelled posts' scores and the pages'
// scores (each page doc's Source names its set).
func ChooseBand(docs []Doc, scores []float64, pages []Doc, pageScores []float64) Band {
	var best *Band
	better := func(b, than *Band) bool {
		if than == nil {
			return true
		}
		bOK, tOK := b.Kept >= MinKept, than.Kept >= MinKept
		switch {
		case bOK != tOK:
			return bOK
		case !bOK && b.Kept != than.Kept:
			return b.Kept > than.Kept
		case b.F1 != than.F1:
			return b.F1 > than.F1
		}
		return b.Low > than.Low
	}
	var pageOnly *Band // the best cut ignoring the page constraint, to report what it cost
	for _, c := range grid() {
		b := &Band{Low: c, Kept: kept(docs, scores, c), PageFP: worstPageFP(pages, pageScores, c), F1: pooledF1(docs, scores, c)}
		if better(b, pageOnly) {
			pageOnly = b
		}
		if b.PageFP > MaxPageFP {
			continue
		}
		if better(b, best) {
			best = b
		}
	}
	if best == nil { // no cut keeps the pages out: the highest cut
		best = &Band{Low: 0.95, Kept: kept(docs, scores, 0.95), PageFP: worstPageFP(pages, pageScores, 0.95), F1: pooledF1(docs, scores, 0.95)}
		best.Note = "no cut meets the page constraint"
	}
	if best.Kept < MinKept {
		best.Note = fmt.Sprintf("recall constraint not met: %.2f of incident posts kept", best.Kept)
		if pageOnly != nil && pageOnly.Low < best.Low {
			best.Note += fmt.Sprintf(" (%.2f at %.2f, where pages reach %.3f)", pageOnly.Kept, pageOnly.Low, pageOnly.PageFP)
		}
	}
	best.High = best.Low
	for _, c := range grid() {
		if c <= best.Low+1e-9 {
			continue
		}
		if f := flaggedShare(scores, best.Low, c); f <= MaxFlagged {
			best.High = c // grid ascends: the last that holds is the highest
		}
	}
	best.Flagged = flaggedShare(scores, best.Low, best.High)
	return *best
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
		yes := at(scores[i], c)
		switch {
		case d.Label && yes:
			f.TP++
		case d.Label:
			f.FN++
		case yes:
			f.FP++
		}
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
