// Command fitrelevance fits the relevance gate's weights on the labelled
// blog posts and the gold set and writes classify/relevance_weights.go:
//
//	go run ./classify/internal/fitrelevance -dir ../shared/eval/relevance -gold ../shared/eval/gold
//
// The uncertain band is chosen from the leave-one-source-out scores: Low is
// the highest cut (in steps of 0.05) under which no more than 5% of the
// incident posts fall (nothing lost at the margin), High the
// highest cut from -confident (0.5) on that keeps the flagged lane at
// most 15% of the drafts. -ablate prints the cross-source F1 with each
// feature left out, the test a feature must pass to stay.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/casebook/casebook/classify"
	"github.com/casebook/casebook/classify/evalrelevance"
)

func main() {
	dir := flag.String("dir", "", "the relevance set (labels.tsv)")
	gold := flag.String("gold", "", "the gold set, as extra posts")
	out := flag.String("out", "classify/relevance_weights.go", "the Go table to write")
	lambda := flag.Float64("lambda", evalrelevance.Lambda, "L2 penalty")
	threshold := flag.Float64("confident", 0.5, "the lowest cut the confident band may start at")
	ablate := flag.Bool("ablate", false, "print cross-source F1 leaving each feature out, write nothing")
	dump := flag.Bool("dump", false, "print every post's features, write nothing")
	var pages []string
	flag.Func("pages", "a directory of pages that are not incident write-ups (news, articles), every other one a negative; repeatable", func(s string) error {
		pages = append(pages, s)
		return nil
	})
	flag.Parse()
	if err := run(*dir, *gold, pages, *out, *lambda, *threshold, *ablate, *dump); err != nil {
		fmt.Fprintln(os.Stderr, "fitrelevance:", err)
		os.Exit(1)
	}
}

func run(dir, gold string, pages []string, out string, lambda, threshold float64, ablate, dump bool) error {
	docs, err := evalrelevance.Load(dir, gold)
	if err != nil {
		return err
	}
	labelled := len(docs)
	for _, p := range pages {
		neg, err := evalrelevance.LoadPages(p, "pages:"+filepath.Base(filepath.Dir(p)))
		if err != nil {
			return err
		}
		docs = append(docs, neg...)
	}
	names := classify.RelevanceFeatureNames()
	if dump {
		fmt.Println("label\tlang\tsource\t" + strings.Join(names, "\t") + "\tpath")
		for _, d := range docs {
			var cells []string
			for _, v := range d.Features {
				cells = append(cells, fmt.Sprintf("%.2f", v))
			}
			fmt.Printf("%v\t%s\t%s\t%s\t%s\n", d.Label, d.Lang, d.Source, strings.Join(cells, "\t"), d.Path)
		}
		return nil
	}
	if ablate {
		base := crossF1(docs, lambda, threshold)
		fmt.Printf("%-20s %s\n", "all features", fmtF1(base))
		for i, n := range names {
			fmt.Printf("%-20s %s\n", "- "+n, fmtF1(crossF1(without(docs, i), lambda, threshold)))
		}
		return nil
	}
	m := evalrelevance.Fit(docs, lambda)
	// the band is chosen on the labelled blog posts: a crawl reads blogs,
	// and the news pages would swamp the flagged share
	scores := evalrelevance.LOSO(docs, lambda)
	low, high := chooseBand(docs[:labelled], scores[:labelled], threshold)
	// a post is judged an incident write-up (is_postmortem) from the band's
	// low end: a flagged draft is one the reviewer should see
	return writeTable(out, m, names, low, low, high, len(docs))
}

// crossF1 is the leave-one-source-out F1 per language and their mean.
func crossF1(docs []evalrelevance.Doc, lambda, threshold float64) map[string]float64 {
	scores := evalrelevance.LOSO(docs, lambda)
	figs := map[string]*evalrelevance.Figures{}
	for i, d := range docs {
		f := figs[d.Lang]
		if f == nil {
			f = &evalrelevance.Figures{}
			figs[d.Lang] = f
		}
		yes := scores[i] >= threshold
		switch {
		case d.Label && yes:
			f.TP++
		case d.Label:
			f.FN++
		case yes:
			f.FP++
		}
	}
	out := map[string]float64{}
	mean := 0.0
	for l, f := range figs {
		out[l] = f.F1()
		mean += f.F1() / float64(len(figs))
	}
	out["mean"] = mean
	return out
}

func fmtF1(m map[string]float64) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %.3f  ", k, m[k])
	}
	return b.String()
}

// without zeroes feature i everywhere (a constant feature weighs nothing).
func without(docs []evalrelevance.Doc, i int) []evalrelevance.Doc {
	out := make([]evalrelevance.Doc, len(docs))
	for k, d := range docs {
		d.Features = append([]float64{}, d.Features...)
		d.Features[i] = 0
		out[k] = d
	}
	return out
}

// chooseBand picks the uncertain band from the cross-source scores.
func chooseBand(docs []evalrelevance.Doc, scores []float64, threshold float64) (low, high float64) {
	low = 0.05
	for c := threshold; c >= 0.05; c -= 0.05 {
		if kept(docs, scores, c) >= 0.95 {
			low = c
			break
		}
	}
	high = threshold
	for c := 0.95; c > threshold; c -= 0.05 {
		drafted, flagged := 0, 0
		for _, s := range scores {
			if s >= low {
				drafted++
				if s < c {
					flagged++
				}
			}
		}
		if float64(flagged) <= 0.15*float64(drafted) {
			high = c
			break
		}
	}
	return math.Round(low*100) / 100, math.Round(high*100) / 100
}

// kept is the share of incident posts scoring at least c.
func kept(docs []evalrelevance.Doc, scores []float64, c float64) float64 {
	k, pos := 0, 0
	for i, d := range docs {
		if d.Label {
			pos++
			if scores[i] >= c-1e-9 {
				k++
			}
		}
	}
	return float64(k) / float64(max(pos, 1))
}

func writeTable(out string, m *classify.RelevanceModel, names []string, threshold, low, high float64, n int) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by go run ./classify/internal/fitrelevance; DO NOT EDIT.\n\npackage classify\n\n")
	fmt.Fprintf(&b, "// DefaultThreshold is the decision threshold (is_postmortem); DefaultLow and DefaultHigh\n")
	fmt.Fprintf(&b, "// bound the uncertain band, chosen from the leave-one-source-out scores of\n// %d labelled posts.\n", n)
	fmt.Fprintf(&b, "const (\n\tDefaultThreshold = %.2f\n\tDefaultLow = %.2f\n\tDefaultHigh = %.2f\n)\n\n", threshold, low, high)
	fmt.Fprintf(&b, "var fittedRelevance = RelevanceModel{\n\tBias: %.4f,\n", m.Bias)
	fmt.Fprintf(&b, "\tWeights: []float64{\n")
	for i, v := range m.Weights {
		fmt.Fprintf(&b, "\t\t%.4f, // %s\n", v, names[i])
	}
	fmt.Fprintf(&b, "\t},\n\tNorms: map[string]RelevanceNorm{\n")
	var langs []string
	for l := range m.Norms {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	for _, l := range langs {
		nm := m.Norms[l]
		fmt.Fprintf(&b, "\t\t%q: {\n\t\t\tMean: []float64{%s},\n\t\t\tScale: []float64{%s},\n\t\t},\n", l, row(nm.Mean), row(nm.Scale))
	}
	fmt.Fprintf(&b, "\t},\n}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return fmt.Errorf("format table: %w", err)
	}
	if err := os.WriteFile(out, src, 0o644); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	fmt.Printf("wrote %s: threshold %.2f, band [%.2f, %.2f)\n", out, threshold, low, high)
	return nil
}

func row(v []float64) string {
	cells := make([]string, len(v))
	for i, x := range v {
		cells[i] = fmt.Sprintf("%.4f", x)
	}
	return strings.Join(cells, ", ")
}
