// Command evalcontent scores casebook's main-content extractor beside its
// open-source peers (go-trafilatura, go-readability) on the same pages, in
// one process. It is separate from the casebook binary so that the product
// does not link the peers:
//
//	go run ./cmd/evalcontent --aeb ../shared/bench/aeb --daniel ../shared/bench/daniel
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/casebook/casebook/extract/evalcontent"
	"github.com/casebook/casebook/extract/evalcontent/peers"
)

func main() {
	fs := flag.NewFlagSet("evalcontent", flag.ContinueOnError)
	aeb := fs.String("aeb", "", "the article-extraction benchmark directory (html/, ground-truth.json)")
	daniel := fs.String("daniel", "", "the DAnIEL directory (html/, reference/, doc_lg.json)")
	alone := fs.Bool("casebook-only", false, "run casebook's extractor alone")
	limit := fs.Int("limit", 0, "at most this many pages per data set (0: all)")
	worst := fs.Int("worst", 0, "list this many lowest-scoring casebook pages")
	if err := fs.Parse(os.Args[1:]); err != nil {
		if err == flag.ErrHelp {
			os.Exit(0)
		}
		os.Exit(2)
	}
	if *aeb == "" && *daniel == "" {
		fmt.Fprintln(os.Stderr, "evalcontent: give --aeb DIR and/or --daniel DIR")
		os.Exit(2)
	}
	cfg := evalcontent.Config{AEBDir: *aeb, DanielDir: *daniel, Limit: *limit, Worst: *worst}
	if !*alone {
		cfg.Extractors = peers.All()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := evalcontent.Run(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "evalcontent:", err)
		os.Exit(1)
	}
}
