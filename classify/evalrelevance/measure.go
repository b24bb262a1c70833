package evalrelevance

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Measurement is the gate's figures on Data for one feature set: in-sample
// (fitted on everything) and cross-source (each source held out), at the
// band chosen from the cross-source scores.
type Measurement struct {
	Band      Band
	In, Cross map[string]Figures // per language and "all", at Band.Threshold
	// PerSource is each labelled source's accuracy when held out, PerSourceLL
	// its posts' mean log-likelihood (finer: it moves before a post flips).
	PerSource, PerSourceLL map[string]float64
	PageIn, PageCross      map[string]float64 // each page set's share judged incidents
}

// Measure fits and scores d, with the features in drop zeroed, for
// ablations and the feature-selection rule (a feature stays when the mean
// over the held-out sources that did not suggest it goes up).
func Measure(d *Data, drop ...int) Measurement {
	dd := *d
	for _, i := range drop {
		if i >= 0 {
			dd.Docs, dd.Pages = without(dd.Docs, i), without(dd.Pages, i)
		}
	}
	t := FitTable(&dd)
	m := Measurement{Band: t.Band, PerSource: map[string]float64{}, PerSourceLL: map[string]float64{}}
	in := make([]float64, len(dd.Docs))
	for i, doc := range dd.Docs {
		in[i] = t.Model.Score(doc.Features, doc.Lang)
	}
	pin := make([]float64, len(dd.Pages))
	for i, doc := range dd.Pages {
		pin[i] = t.Model.Score(doc.Features, doc.Lang)
	}
	m.In = figures(dd.Docs, in, t.Band.Threshold)
	m.Cross = figures(dd.Docs, t.Cross, t.Band.Threshold)
	m.PageIn = PageFP(dd.Pages, pin, t.Band.Threshold)
	m.PageCross = PageFP(dd.Pages, t.PageCross, t.Band.Threshold)
	right, n := map[string]int{}, map[string]int{}
	for i, doc := range dd.Docs {
		n[doc.Source]++
		p := min(max(t.Cross[i], 1e-4), 1-1e-4)
		if !doc.Label {
			p = 1 - p
		}
		m.PerSourceLL[doc.Source] += math.Log(p)
		if at(t.Cross[i], t.Band.Threshold) == doc.Label {
			right[doc.Source]++
		}
	}
	for s := range n {
		m.PerSource[s] = ratio(right[s], n[s])
		m.PerSourceLL[s] /= float64(n[s])
	}
	return m
}

// SourceMean is the mean of PerSource over the sources not in skip.
func (m Measurement) SourceMean(skip map[string]bool) float64 { return meanOver(m.PerSource, skip) }

// SourceLL is the mean of PerSourceLL over the sources not in skip.
func (m Measurement) SourceLL(skip map[string]bool) float64 { return meanOver(m.PerSourceLL, skip) }

func meanOver(per map[string]float64, skip map[string]bool) float64 {
	sum, n := 0.0, 0
	for s, v := range per {
		if !skip[s] {
			sum += v
			n++
		}
	}
	return sum / float64(max(n, 1))
}

// Line is the measurement in one line.
func (m Measurement) Line(skip map[string]bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cut %.2f band", m.Band.Threshold)
	for _, l := range sortedKeys(m.Band.Langs) {
		fmt.Fprintf(&b, " %s %.2f-%.2f", l, m.Band.Langs[l].Low, m.Band.Langs[l].High)
	}
	fmt.Fprintf(&b, "  F1 cross/in")
	for _, l := range []string{"en", "ru", "zh", "all"} {
		fmt.Fprintf(&b, " %s %.2f/%.2f", l, m.Cross[l].F1(), m.In[l].F1())
	}
	fmt.Fprintf(&b, "  R cross")
	for _, l := range []string{"en", "ru", "zh"} {
		fmt.Fprintf(&b, " %.2f", m.Cross[l].Recall())
	}
	fmt.Fprintf(&b, "  src-acc %.3f src-ll %.3f", m.SourceMean(skip), m.SourceLL(skip))
	if len(skip) > 0 {
		fmt.Fprintf(&b, " (all %.3f %.3f)", m.SourceMean(nil), m.SourceLL(nil))
	}
	fmt.Fprintf(&b, "  pages cross/in")
	for _, s := range pageSets(m.PageCross) {
		fmt.Fprintf(&b, " %.3f/%.3f", m.PageCross[s], m.PageIn[s])
	}
	fmt.Fprintf(&b, "  kept %.2f flagged %.2f", m.Band.Kept, m.Band.Flagged)
	return b.String()
}

// SourceLine lists each source's accuracy and log-likelihood, or their
// changes from base and baseLL.
func (m Measurement) SourceLine(base, baseLL map[string]float64) string {
	var srcs []string
	for s := range m.PerSource {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	var cells []string
	for _, s := range srcs {
		if base == nil {
			cells = append(cells, fmt.Sprintf("%s %.2f/%.2f", s, m.PerSource[s], m.PerSourceLL[s]))
		} else if d := m.PerSource[s] - base[s]; d > 0.005 || d < -0.005 {
			cells = append(cells, fmt.Sprintf("%s %+.2f", s, d))
		}
		if baseLL != nil {
			if d := m.PerSourceLL[s] - baseLL[s]; d > 0.02 || d < -0.02 {
				cells = append(cells, fmt.Sprintf("%s ll%+.2f", s, d))
			}
		}
	}
	return strings.Join(cells, " ")
}

// figures counts per language and "all" at cut.
func figures(docs []Doc, scores []float64, cut float64) map[string]Figures {
	out := map[string]Figures{}
	for i, d := range docs {
		yes := at(scores[i], cut)
		for _, k := range []string{d.Lang, "all"} {
			f := out[k]
			f.Count(d.Label, yes)
			out[k] = f
		}
	}
	return out
}

// without zeroes feature i everywhere (a constant feature weighs nothing).
func without(docs []Doc, i int) []Doc {
	out := make([]Doc, len(docs))
	for k, d := range docs {
		d.Features = append([]float64{}, d.Features...)
		d.Features[i] = 0
		out[k] = d
	}
	return out
}
