package evalcontent

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRunSmall runs the whole benchmark (casebook alone; peers/ runs it
// with the peers) on the small
// data sets in testdata (same formats as AEB and DAnIEL, written for
// this test; the Russian page is in windows-1251).
func TestRunSmall(t *testing.T) {
	pages, err := Load(Config{AEBDir: "testdata/aeb", DanielDir: "testdata/daniel"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 5 { // the Polish page is not one of the three languages
		t.Fatalf("loaded %d pages, want 5", len(pages))
	}
	for _, p := range pages {
		if p.Lang == "ru" && !bytes.Contains(p.HTML, []byte("подстанции")) {
			t.Fatalf("windows-1251 page not decoded: %q", p.HTML[:120])
		}
	}
	var out strings.Builder
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(out.String())
		}
	})
	rep, err := Run(context.Background(), Config{AEBDir: "testdata/aeb", DanielDir: "testdata/daniel", Worst: 1}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 {
		t.Fatalf("%d results, want casebook alone", len(rep.Results))
	}
	for _, res := range rep.Results {
		if res.Pages != 5 || res.PagesPerSec <= 0 || res.AllocPerPage <= 0 {
			t.Errorf("%s: pages %d, %.1f pages/s, %.0f B/page", res.Name, res.Pages, res.PagesPerSec, res.AllocPerPage)
		}
		for _, d := range Datasets {
			s, ok := res.Scores[d]
			if !ok || s.F1 < 0 || s.F1 > 1 || s.MeanF1 < 0 || s.MeanF1 > 1 {
				t.Errorf("%s %s: score %+v", res.Name, d, s)
			}
		}
	}
	cb := rep.Results[0]
	if cb.Name != "casebook" {
		t.Fatalf("first result %q, want casebook", cb.Name)
	}
	// easy pages: the article is found and the chrome is not
	for _, d := range Datasets {
		if h := cb.Scores[d].Headline(d); h < 0.85 {
			t.Errorf("casebook %s = %.3f on easy pages", d, h)
		}
	}
	for _, col := range []string{"casebook", "aeb", "daniel/ru", "pages/CPU-s", "worst aeb"} {
		if !strings.Contains(out.String(), col) {
			t.Errorf("table lacks %q:\n%s", col, out.String())
		}
	}
}
