package evalcases

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/casebook/casebook/classify"
)

// FitFunc builds the classifier a fold is scored with from the only gold
// examples it may see. Anything fitted on the gold (weights, tables) is fitted
// here, so that leave-one-source-out refits it without the held-out source.
type FitFunc func(train []Example) (*classify.Classifier, error)

// SourceFigures are one source's documents scored in-sample and by the fold
// that never saw the source.
type SourceFigures struct {
	Source      string `json:"source"`
	Lang        string `json:"lang"` // the language of its documents ("mixed" if several)
	Docs        int    `json:"docs"`
	InSample    Report `json:"in_sample"`
	CrossSource Report `json:"cross_source"`
}

// SourceReport is the outcome of a leave-one-source-out run.
type SourceReport struct {
	InSample    Report          `json:"in_sample"`    // every document by the version fitted on all of them
	CrossSource Report          `json:"cross_source"` // every document by the version that saw none of its source
	Sources     []SourceFigures `json:"sources"`
}

// Metric names a headline figure: text F1, empty kept, or a field's mean.
type Metric struct {
	Name string
	Get  func(r *Report, lang string) (float64, int)
}

// Metrics are the figures the by-source table prints per source.
var Metrics = []Metric{
	{"text F1", func(r *Report, l string) (float64, int) { s := r.TextF1[l]; return s.Mean(), n(s) }},
	{"empty kept", func(r *Report, l string) (float64, int) { s := r.EmptyKept[l]; return s.Mean(), n(s) }},
	{"root cause", func(r *Report, l string) (float64, int) { return r.Get("root_cause.category", l) }},
	{"organization", func(r *Report, l string) (float64, int) { return r.Get("organization", l) }},
	{"tags", func(r *Report, l string) (float64, int) { return r.Get("tags", l) }},
	{"trigger kind", func(r *Report, l string) (float64, int) { return r.Get("trigger.kind", l) }},
}

func n(s *Score) int {
	if s == nil {
		return 0
	}
	return s.N
}

// RunBySource scores the gold set twice: in-sample (one version fitted on
// every document, or cfg.Classifier when nothing is fitted) and
// leave-one-source-out (each source's documents by a version fitted without
// that source). With cfg.Fit nil the hand rules are identical in both, and so
// are the figures. It prints per-source figures, the per-language means over
// documents, and every field cross-source beside in-sample to w.
func RunBySource(ctx context.Context, cfg Config, w io.Writer) (*SourceReport, error) {
	exs, err := LoadExamples(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return BySource(ctx, cfg, exs, w)
}

// BySource is RunBySource on examples already loaded.
func BySource(ctx context.Context, cfg Config, exs []Example, w io.Writer) (*SourceReport, error) {
	base := cfg.Classifier
	fit := cfg.Fit
	if fit == nil {
		if base == nil {
			base = classify.New(classify.Config{})
		}
		fit = func([]Example) (*classify.Classifier, error) { return base, nil }
	}
	all, err := fit(exs)
	if err != nil {
		return nil, fmt.Errorf("eval cases: fit on all: %w", err)
	}
	in := scoreAll(all, exs)
	cross := make([]docScore, len(exs))
	var sources []string
	bySrc := map[string][]int{}
	for i, ex := range exs {
		if _, ok := bySrc[ex.Source]; !ok {
			sources = append(sources, ex.Source)
		}
		bySrc[ex.Source] = append(bySrc[ex.Source], i)
	}
	sort.Strings(sources)
	rep := &SourceReport{}
	for _, src := range sources {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		train := make([]Example, 0, len(exs))
		for _, ex := range exs {
			if ex.Source != src {
				train = append(train, ex)
			}
		}
		cl, err := fit(train)
		if err != nil {
			return nil, fmt.Errorf("eval cases: fit without %s: %w", src, err)
		}
		var inS, crossS []docScore
		langs := map[string]bool{}
		for _, i := range bySrc[src] {
			cross[i] = scoreExample(cl, &exs[i])
			inS = append(inS, in[i])
			crossS = append(crossS, cross[i])
			langs[cross[i].Lang] = true
		}
		lang := "mixed"
		if len(langs) == 1 {
			for l := range langs {
				lang = l
			}
		}
		rep.Sources = append(rep.Sources, SourceFigures{Source: src, Lang: lang, Docs: len(bySrc[src]), InSample: aggregate(inS), CrossSource: aggregate(crossS)})
	}
	rep.InSample = aggregate(in)
	rep.CrossSource = aggregate(cross)
	if w != nil {
		rep.Print(w, cfg.PerDoc)
	}
	return rep, nil
}

// Gap is in-sample minus cross-source of m in lang.
func (r *SourceReport) Gap(m Metric, lang string) float64 {
	a, _ := m.Get(&r.InSample, lang)
	b, _ := m.Get(&r.CrossSource, lang)
	return a - b
}

// Print writes three tables: each source's figures (cross-source / in-sample),
// the per-language means over documents, and every field per language.
func (r *SourceReport) Print(w io.Writer, perDoc bool) {
	pair := func(x, in *Report, m Metric, lang string) string {
		xv, xn := m.Get(x, lang)
		iv, _ := m.Get(in, lang)
		if xn == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f/%.2f (%d)", xv, iv, xn)
	}
	names := make([]string, len(Metrics))
	for i, m := range Metrics {
		names[i] = m.Name
	}
	fmt.Fprintln(w, "per source: cross-source/in-sample (count)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "source\tlang\tdocs\t%s\n", strings.Join(names, "\t"))
	for _, s := range r.Sources {
		cells := make([]string, len(Metrics))
		for i, m := range Metrics {
			cells[i] = pair(&s.CrossSource, &s.InSample, m, "all")
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", s.Source, s.Lang, s.Docs, strings.Join(cells, "\t"))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nper language, mean over documents: cross-source/in-sample (count)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "figure\t%s\n", strings.Join(Langs, "\t"))
	for _, m := range Metrics {
		cells := make([]string, len(Langs))
		for i, l := range Langs {
			cells[i] = pair(&r.CrossSource, &r.InSample, m, l)
		}
		fmt.Fprintf(tw, "%s\t%s\n", m.Name, strings.Join(cells, "\t"))
	}
	for _, f := range fields {
		if r.CrossSource.Fields[f.name] == nil {
			continue
		}
		m := Metric{f.name, func(rep *Report, l string) (float64, int) { return rep.Get(f.name, l) }}
		cells := make([]string, len(Langs))
		for i, l := range Langs {
			cells[i] = pair(&r.CrossSource, &r.InSample, m, l)
		}
		fmt.Fprintf(tw, "%s\t%s\n", f.name, strings.Join(cells, "\t"))
	}
	tw.Flush()
	if perDoc {
		fmt.Fprintln(w, "\ncross-source, per document")
		r.CrossSource.printDocs(w)
	}
}

// DefaultFit fits what the shipped classifier fits on the gold set: the
// field model (FitFieldModel with FitLambda: weights and keep thresholds),
// on top of the hand rules. The fits are cached by training set, so the
// folds inside and outside share them.
func DefaultFit(train []Example) (*classify.Classifier, error) {
	fitOnce.Do(func() {
		fitBase = classify.New(classify.Config{HandRules: true})
		fitCache = newFeatureCache(fitBase)
	})
	m, err := fitCache.fitKeep(train, FitLambda)
	if err != nil {
		return nil, err
	}
	return fitBase.WithFields(m), nil
}

var (
	fitOnce  sync.Once
	fitBase  *classify.Classifier
	fitCache *featureCache
)
