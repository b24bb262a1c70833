// Command fitrelevance fits the relevance gate's weights on the labelled
// blog posts, the gold set and news/article pages, and writes
// classify/relevance_weights.go (`make fit` runs it with these inputs):
//
//	go run ./classify/internal/fitrelevance -dir ../shared/eval/relevance -gold ../shared/eval/gold \
//	    -pages ../shared/bench/daniel/html -pages ../shared/bench/aeb/html
//
// (those are the defaults).
// The fit is deterministic: inputs are sorted, Newton's method runs a
// fixed number of steps from zero, sources are held out in sorted order,
// so a rerun writes the same bytes (TestRelevanceWeightsFresh checks the
// checked-in file against a refit). The threshold and uncertain band are
// chosen from the leave-one-source-out scores under the constraints of
// evalrelevance.ChooseBand: the threshold for precision (few news/article
// pages judged incidents, 95% recall), the skip edge under it for recall
// (98% of each language's incident posts not skipped), the flagged lane at
// most 15% of the drafts where recall allows.
//
// -ablate prints, for the gate and with each feature left out, the
// cross-source F1 per language and the mean accuracy over held-out
// sources (-except leaves sources out of that mean: those that suggested
// a feature), the test a feature must pass to stay. -add F,G fits the
// gate without the candidates and with each added alone; -drop leaves
// features out of every fit of -ablate or -add (to measure a candidate
// against today's gate while other candidates are still in the table).
package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/casebook/casebook/classify"
	"github.com/casebook/casebook/classify/evalrelevance"
)

func main() {
	def := evalrelevance.DefaultInputs("../shared", ".")
	in := evalrelevance.Inputs{}
	flag.StringVar(&in.Dir, "dir", def.Dir, "the relevance set (labels.tsv)")
	flag.StringVar(&in.GoldDir, "gold", def.GoldDir, "the gold set, as extra posts")
	out := flag.String("out", "classify/relevance_weights.go", "the Go table to write")
	flag.Float64Var(&in.Lambda, "lambda", evalrelevance.Lambda, "L2 penalty")
	ablate := flag.Bool("ablate", false, "print cross-source figures leaving each feature out, write nothing")
	only := flag.String("features", "", "with -ablate: only these features (comma-separated)")
	add := flag.String("add", "", "with -ablate: candidate features, left out of the base and added one at a time (comma-separated)")
	drop := flag.String("drop", "", "with -ablate or -add: features left out of every fit (comma-separated)")
	except := flag.String("except", "", "with -ablate: sources left out of the per-source mean (comma-separated)")
	dump := flag.Bool("dump", false, "print every post's features, write nothing")
	explain := flag.String("explain", "", "print the features and their terms in the fitted score of the posts whose path contains this, write nothing")
	flag.Func("set", "another relevance set laid out as -dir, fitted on and scored alike; repeatable (default: "+strings.Join(def.Sets, ", ")+")", func(s string) error {
		in.Sets = append(in.Sets, s)
		return nil
	})
	flag.Func("pages", "a directory of pages that are not incident write-ups (news, articles), every other one a negative; repeatable (default: "+strings.Join(def.Pages, ", ")+")", func(s string) error {
		in.Pages = append(in.Pages, s)
		return nil
	})
	flag.Parse()
	if in.Pages == nil {
		in.Pages = def.Pages
	}
	if in.Sets == nil {
		in.Sets = def.Sets
	} else if len(in.Sets) == 1 && in.Sets[0] == "" {
		in.Sets = nil // -set "": none
	}
	if *explain != "" {
		if err := explainPosts(in, *explain); err != nil {
			fmt.Fprintln(os.Stderr, "fitrelevance:", err)
			os.Exit(1)
		}
		return
	}
	if *add != "" {
		*ablate = true
	}
	dropped = split(*drop)
	if err := run(in, *out, *ablate, *dump, split(*only), split(*except), split(*add)); err != nil {
		fmt.Fprintln(os.Stderr, "fitrelevance:", err)
		os.Exit(1)
	}
}

// dropped lists the features -drop leaves out of every measurement.
var dropped []string

// measure is evalrelevance.Measure with the -drop features left out too.
func measure(d *evalrelevance.Data, names []string, drop ...int) evalrelevance.Measurement {
	for _, n := range dropped {
		if i := indexOf(names, n); i >= 0 {
			drop = append(drop, i)
		}
	}
	return evalrelevance.Measure(d, drop...)
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func run(in evalrelevance.Inputs, out string, ablate, dump bool, only, except, add []string) error {
	d, err := evalrelevance.LoadData(in)
	if err != nil {
		return err
	}
	names := classify.RelevanceFeatureNames()
	if dump {
		fmt.Println("label\tlang\tsource\t" + strings.Join(names, "\t") + "\tpath")
		for _, doc := range d.All() {
			var cells []string
			for _, v := range doc.Features {
				cells = append(cells, fmt.Sprintf("%.2f", v))
			}
			fmt.Printf("%v\t%s\t%s\t%s\t%s\n", doc.Label, doc.Lang, doc.Source, strings.Join(cells, "\t"), doc.Path)
		}
		return nil
	}
	if len(add) > 0 {
		return addition(d, names, add, except)
	}
	if ablate {
		return ablation(d, names, only, except)
	}
	t := evalrelevance.FitTable(d)
	src, err := t.Source(names)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, src, 0o644); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	b := t.Band
	fmt.Printf("wrote %s: threshold %.2f; cross-source: recall %.2f, F1 %.3f, worst page set %.3f at the threshold; kept %.2f %v, flagged %.2f, worst page set drafted %.3f\n",
		out, b.Threshold, b.Recall, b.F1, b.PageFP, b.Kept, b.KeptLang, b.Flagged, b.PageDrafted)
	for _, l := range sortedLangs(b.Langs) {
		lb := b.Langs[l]
		fmt.Printf("  %s band [%.2f, %.2f): kept %.2f, flagged %.2f; 98%% point of its incident posts %.3f\n", l, lb.Low, lb.High, lb.Kept, lb.Flagged, lb.Point)
	}
	if b.Note != "" {
		fmt.Println("note:", b.Note)
	}
	fmt.Println("skip edges per language (cross-source): lang low high  kept  flagged  worst page set drafted (pages of that language)")
	for _, o := range evalrelevance.Tradeoffs(d.Docs, t.Cross, d.Pages, t.PageCross, b.Threshold) {
		fmt.Printf("  %s %.2f %.2f  %.2f  %.2f  %.3f\n", o.Lang, o.Low, o.High, o.Kept, o.Flagged, o.PageDrafted)
	}
	return nil
}

// ablation prints the gate's cross-source figures with every feature and
// with each one left out (zeroed: a constant feature weighs nothing).
func ablation(d *evalrelevance.Data, names, only, except []string) error {
	skip := map[string]bool{}
	for _, s := range except {
		skip[s] = true
	}
	base := measure(d, names, -1)
	fmt.Printf("%-20s %s\n", "all features", base.Line(skip))
	fmt.Printf("%-20s %s\n", "", "per source: "+base.SourceLine(nil, nil))
	for i, n := range names {
		if len(only) > 0 && !contains(only, n) {
			continue
		}
		m := measure(d, names, i)
		fmt.Printf("%-20s %s\n", "- "+n, m.Line(skip))
		fmt.Printf("%-20s %s\n", "", "per source: "+m.SourceLine(base.PerSource, base.PerSourceLL))
	}
	return nil
}

func sortedLangs(m map[string]evalrelevance.LangBand) []string {
	return slices.Sorted(maps.Keys(m))
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// addition prints the figures of the base (every feature but the
// candidates) and of the base with each candidate added alone.
func addition(d *evalrelevance.Data, names, add, except []string) error {
	skip := map[string]bool{}
	for _, s := range except {
		skip[s] = true
	}
	var cand []int
	for _, a := range add {
		i := indexOf(names, a)
		if i < 0 {
			return fmt.Errorf("no feature %q", a)
		}
		cand = append(cand, i)
	}
	base := measure(d, names, cand...)
	fmt.Printf("%-20s %s\n", "base", base.Line(skip))
	fmt.Printf("%-20s %s\n", "", "per source: "+base.SourceLine(nil, nil))
	for k, i := range cand {
		var rest []int
		for _, j := range cand {
			if j != i {
				rest = append(rest, j)
			}
		}
		m := measure(d, names, rest...)
		fmt.Printf("%-20s %s\n", "+ "+add[k], m.Line(skip))
		fmt.Printf("%-20s %s\n", "", "per source: "+m.SourceLine(base.PerSource, base.PerSourceLL))
	}
	return nil
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// explainPosts prints each feature's value and term for the posts whose
// path contains sub, under weights fitted on every post.
func explainPosts(in evalrelevance.Inputs, sub string) error {
	d, err := evalrelevance.LoadData(in)
	if err != nil {
		return err
	}
	names := classify.RelevanceFeatureNames()
	m := evalrelevance.FitTable(d).Model
	nm := m.Norms[""]
	for _, doc := range d.Docs {
		if !strings.Contains(doc.Path, sub) {
			continue
		}
		fmt.Printf("%s label %v score %.2f\n", doc.Path, doc.Label, m.Score(doc.Features, doc.Lang))
		for i, n := range names {
			z := (doc.Features[i] - nm.Mean[i]) / nm.Scale[i]
			fmt.Printf("  %-18s %6.2f  z %+5.2f  term %+5.2f\n", n, doc.Features[i], z, m.Weights[i]*z)
		}
	}
	return nil
}
