package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/casebook/casebook/classify"
	"github.com/casebook/casebook/classify/evalcases"
	"github.com/casebook/casebook/classify/evalrelevance"
	"github.com/casebook/casebook/extract/evalcontent"
)

func runEval(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return &usageError{"want content, cases or relevance"}
	}
	if wantsHelp(args) {
		fmt.Println("usage: casebook eval content -h | casebook eval cases -h")
		return flag.ErrHelp
	}
	switch args[0] {
	case "content":
		fs := newFlagSet("eval content")
		aeb := fs.String("aeb", "", "the article-extraction benchmark directory (html/, ground-truth.json)")
		daniel := fs.String("daniel", "", "the DAnIEL directory (html/, reference/, doc_lg.json)")
		limit := fs.Int("limit", 0, "at most this many pages per data set (0: all)")
		worst := fs.Int("worst", 0, "list this many lowest-scoring pages")
		if err := fs.Parse(args[1:]); err != nil {
			return flagError(err)
		}
		if *aeb == "" && *daniel == "" {
			return &usageError{"give --aeb DIR and/or --daniel DIR"}
		}
		_, err := evalcontent.Run(ctx, evalcontent.Config{AEBDir: *aeb, DanielDir: *daniel, Limit: *limit, Worst: *worst}, os.Stdout)
		if err == nil {
			fmt.Fprintln(os.Stderr, "casebook eval content: casebook alone; `go run ./cmd/evalcontent` runs the same pages with go-trafilatura and go-readability beside it")
		}
		return err
	case "cases":
		fs := newFlagSet("eval cases")
		gold := fs.String("gold", "", "directory of gold *.json files (../shared/eval/gold)")
		shared := fs.String("shared", "", "the tree the gold files' doc paths are relative to (default: GOLD/../..)")
		bySource := fs.Bool("by-source", false, "also score leave-one-source-out: per-source figures and cross-source beside in-sample")
		perDoc := fs.Bool("perdoc", false, "print every document's scores")
		loss := fs.Bool("loss", false, "instead of scores, tally per language and text field where the gold sentences' tokens go (right, nowhere, another field) and where wrong ones come from")
		lossSentences := fs.Bool("loss-sentences", false, "with --loss, print every lost or wrong sentence too")
		if err := fs.Parse(args[1:]); err != nil {
			return flagError(err)
		}
		if *gold == "" {
			return &usageError{"give --gold DIR"}
		}
		if *loss || *lossSentences {
			exs, err := evalcases.LoadExamples(ctx, evalcases.Config{GoldDir: *gold, SharedDir: *shared})
			if err != nil {
				return err
			}
			evalcases.WriteLoss(os.Stdout, evalcases.Loss(exs, classify.New(classify.Config{}), os.Stdout, *lossSentences))
			return nil
		}
		_, err := evalcases.Run(ctx, evalcases.Config{GoldDir: *gold, SharedDir: *shared, BySource: *bySource, PerDoc: *perDoc, Fit: evalcases.DefaultFit}, os.Stdout)
		return err
	case "relevance":
		fs := newFlagSet("eval relevance")
		dir := fs.String("dir", "", "the labelled blog posts (labels.tsv; ../shared/eval/relevance)")
		gold := fs.String("gold", "", "also the gold set's posts (../shared/eval/gold), more sources for leave-one-source-out")
		worst := fs.Int("worst", 0, "list at most this many misclassified posts per language (0: all)")
		threshold := fs.Float64("threshold", 0, "decision threshold (0: the classifier's default)")
		var pages, sets []string
		fs.Func("pages", "a directory of news/article pages (negatives) to train and report on; repeatable", func(s string) error {
			pages = append(pages, s)
			return nil
		})
		fs.Func("set", "another relevance set laid out as --dir (classify/testdata/relevance-unseen), trained on and reported per set; repeatable", func(s string) error {
			sets = append(sets, s)
			return nil
		})
		asFitted := fs.Bool("as-fitted", false, "the checked-in gate's inputs (make fit): ../shared's relevance and gold sets, both page sets and classify/testdata/relevance-unseen, under --root; the figure of record")
		root := fs.String("root", ".", "with --as-fitted: the repository root, beside ../shared")
		if err := fs.Parse(args[1:]); err != nil {
			return flagError(err)
		}
		if *asFitted {
			if *dir != "" || *gold != "" || len(sets) > 0 || len(pages) > 0 {
				return &usageError{"--as-fitted names every input: give no --dir, --gold, --set or --pages with it"}
			}
			in := evalrelevance.DefaultInputs(filepath.Join(*root, "..", "shared"), *root)
			for _, p := range append(append([]string{in.Dir, in.GoldDir}, in.Sets...), in.Pages...) {
				if _, err := os.Stat(p); err != nil {
					return fmt.Errorf("eval relevance --as-fitted: %w (run it from the repository root, or give --root)", err)
				}
			}
			*dir, *gold, sets, pages = in.Dir, in.GoldDir, in.Sets, in.Pages
		}
		if *dir == "" && *gold == "" && len(sets) == 0 {
			return &usageError{"give --as-fitted, or --dir DIR, --set DIR and/or --gold DIR"}
		}
		_, err := evalrelevance.Run(ctx, evalrelevance.Config{Dir: *dir, GoldDir: *gold, Sets: sets, Worst: *worst, Threshold: *threshold, Pages: pages}, os.Stdout)
		return err
	}
	return &usageError{"want content, cases or relevance"}
}
