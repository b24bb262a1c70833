package peers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/casebook/casebook/extract/evalcontent"
	"github.com/casebook/casebook/extract/evalcontent/peers"
)

// TestRunSmallPeers runs casebook and both peers on the small data sets of
// evalcontent's testdata, so the comparison table keeps working.
func TestRunSmallPeers(t *testing.T) {
	var out strings.Builder
	cfg := evalcontent.Config{AEBDir: "../testdata/aeb", DanielDir: "../testdata/daniel", Extractors: peers.All()}
	rep, err := evalcontent.Run(context.Background(), cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 3 {
		t.Fatalf("%d results, want casebook and two peers", len(rep.Results))
	}
	for _, res := range rep.Results {
		if res.Pages != 5 || res.Errors != 0 {
			t.Errorf("%s: %d pages, %d errors", res.Name, res.Pages, res.Errors)
		}
		if s := res.Scores["aeb"]; s.MeanF1 <= 0 {
			t.Errorf("%s: aeb F1 %.3f on easy pages", res.Name, s.MeanF1)
		}
	}
	for _, col := range []string{"casebook", "go-trafilatura", "go-readability"} {
		if !strings.Contains(out.String(), col) {
			t.Errorf("table lacks %q:\n%s", col, out.String())
		}
	}
}
