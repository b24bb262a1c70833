package peers_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/casebook/casebook/extract/evalcontent"
	"github.com/casebook/casebook/extract/evalcontent/peers"
)

// sharedDir finds ../shared next to the module root, or skips.
func sharedDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("module root not found")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared", "bench")
	if _, err := os.Stat(shared); err != nil {
		tb.Skip("../shared/bench absent")
	}
	return shared
}

// TestBenchmarkReport runs the whole benchmark when CASEBOOK_BENCH is set
// (1: casebook only; peers: with go-trafilatura and go-readability); it is
// slow, so plain `go test` skips it.
func TestBenchmarkReport(t *testing.T) {
	mode := os.Getenv("CASEBOOK_BENCH")
	if mode == "" {
		t.Skip("set CASEBOOK_BENCH=1 or CASEBOOK_BENCH=peers")
	}
	shared := sharedDir(t)
	limit, _ := strconv.Atoi(os.Getenv("CASEBOOK_BENCH_LIMIT"))
	worst, _ := strconv.Atoi(os.Getenv("CASEBOOK_BENCH_WORST"))
	cfg := evalcontent.Config{
		AEBDir:    filepath.Join(shared, "aeb"),
		DanielDir: filepath.Join(shared, "daniel"),
		Limit:     limit,
		Worst:     worst,
	}
	if mode == "peers" {
		cfg.Extractors = peers.All()
	}
	rep, err := evalcontent.Run(context.Background(), cfg, os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	if dump := os.Getenv("CASEBOOK_BENCH_DUMP"); dump != "" {
		for _, res := range rep.Results {
			for _, pr := range res.PerPage {
				d := filepath.Join(dump, res.Name)
				os.MkdirAll(d, 0o755)
				os.WriteFile(filepath.Join(d, pr.Page.ID+".txt"), []byte(strconv.FormatFloat(pr.Counts.F1(), 'f', 3, 64)+"\n"+pr.Text), 0o644)
			}
		}
	}
}
