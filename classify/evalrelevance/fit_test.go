package evalrelevance

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casebook/casebook/classify"
)

// copyMini copies the made-up set in testdata/mini to a temporary
// directory with labels.tsv's rows in reverse order.
func copyMini(t *testing.T) string {
	t.Helper()
	src := filepath.Join("testdata", "mini")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		body, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "labels.tsv" {
			lines := strings.Split(strings.TrimSpace(string(body)), "\n")
			for i, j := 1, len(lines)-1; i < j; i, j = i+1, j-1 {
				lines[i], lines[j] = lines[j], lines[i]
			}
			body = []byte(strings.Join(lines, "\n") + "\n")
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), body, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// The fit writes the same bytes on a rerun and whatever the row order of
// labels.tsv: the defect was a table nobody could reproduce.
func TestFitDeterministic(t *testing.T) {
	names := classify.RelevanceFeatureNames()
	table := func(dir string) []byte {
		d, err := LoadData(Inputs{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		src, err := FitTable(d).Source(names)
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	mini := filepath.Join("testdata", "mini")
	first, again, reversed := table(mini), table(mini), table(copyMini(t))
	if !bytes.Equal(first, again) {
		t.Error("two fits of the same posts differ")
	}
	if !bytes.Equal(first, reversed) {
		t.Errorf("the fit depends on the row order of labels.tsv:\n%s", firstDiff(first, reversed))
	}
	if !bytes.Contains(first, []byte("DefaultThreshold")) {
		t.Errorf("no threshold in the table:\n%s", first)
	}
}

// A fitted model separates the made-up incidents from the guides in-sample.
func TestFitSeparates(t *testing.T) {
	d, err := LoadData(Inputs{Dir: filepath.Join("testdata", "mini")})
	if err != nil {
		t.Fatal(err)
	}
	m := Fit(d.Docs, Lambda)
	for _, doc := range d.Docs {
		if s := m.Score(doc.Features, doc.Lang); (s >= 0.5) != doc.Label {
			t.Errorf("%s: score %.2f, label %v", doc.Path, s, doc.Label)
		}
	}
}

// docsAt makes labelled English docs with the given scores.
func docsAt(label bool, scores ...float64) ([]Doc, []float64) {
	return langDocsAt("en", label, scores...)
}

func langDocsAt(lang string, label bool, scores ...float64) ([]Doc, []float64) {
	docs := make([]Doc, len(scores))
	for i := range docs {
		docs[i] = Doc{Label: label, Lang: lang, Source: "s"}
	}
	return docs, scores
}

func TestChooseBand(t *testing.T) {
	join := func(parts ...func() ([]Doc, []float64)) ([]Doc, []float64) {
		var d []Doc
		var s []float64
		for _, p := range parts {
			dd, ss := p()
			d, s = append(d, dd...), append(s, ss...)
		}
		return d, s
	}
	set := func(lang string, label bool, scores ...float64) func() ([]Doc, []float64) {
		return func() ([]Doc, []float64) { return langDocsAt(lang, label, scores...) }
	}
	// 20 incidents and 14 other posts, in English
	enPos := set("en", true, 0.92, 0.9, 0.85, 0.8, 0.8, 0.75, 0.7, 0.7, 0.66, 0.62, 0.58, 0.55, 0.5, 0.45, 0.41, 0.38, 0.33, 0.3, 0.27, 0.22)
	enNeg := set("en", false, 0.02, 0.05, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.28, 0.31, 0.34, 0.4, 0.44, 0.52)
	pagesAt := func(scores ...float64) ([]Doc, []float64) {
		p := make([]Doc, len(scores))
		for i := range p {
			p[i] = Doc{Page: true, Source: "pages:a"}
		}
		return p, scores
	}
	quiet, quietS := pagesAt(0.01, 0.02, 0.03, 0.05, 0.06, 0.08, 0.1, 0.11, 0.12, 0.13, 0.15, 0.16, 0.17, 0.18, 0.19, 0.19, 0.19, 0.19, 0.19, 0.19, 0.19)
	loud, loudS := pagesAt(0.01, 0.02, 0.03, 0.05, 0.06, 0.08, 0.1, 0.11, 0.12, 0.13, 0.15, 0.16, 0.17, 0.18, 0.19, 0.29, 0.31, 0.32, 0.4, 0.45, 0.5)
	cases := []struct {
		name                 string
		docs                 func() ([]Doc, []float64)
		pages                []Doc
		pageS                []float64
		threshold, low, high float64
		flaggedOver          bool // recall preferred: the lane is over MaxFlagged
		short                string
		noted                bool
	}{
		// 0.20 keeps all 20 incidents with 8 guides (F1 0.833), 0.25 keeps
		// 19 with 7 (0.826): threshold 0.20, and no lower edge above the
		// off-topic cap keeps more; 28 drafts allow 4 flagged, [0.20, 0.25)
		// holds 2 and [0.20, 0.30) 5
		{"constraints met", func() ([]Doc, []float64) { return join(enPos, enNeg) }, quiet, quietS, 0.20, 0.20, 0.25, false, "", false},
		// 2 of 21 pages score 0.45 or more, 1 of 21 0.50: the threshold
		// goes to 0.50 (13 of 20 judged incidents); the skip edge goes back
		// down to 0.20, where all 20 are kept, and the 14 of 28 drafts under
		// 0.50 are flagged: recall wins over the lane's size, said in the note
		{"pages bind the threshold, not the skip edge", func() ([]Doc, []float64) { return join(enPos, enNeg) }, loud, loudS, 0.50, 0.20, 0.50, true, "", true},
		// a Russian incident scores 0.05, under the off-topic cap: no edge
		// above the cap keeps it, so ru's target is the 3 of 4 that 0.15
		// keeps (the 0.18 one needs an edge at 0.15); the pages hold the
		// threshold at 0.20 or more, where recall ties at 6 of 8 and the
		// higher cut wins (0.60)
		{"a language short under the cap", func() ([]Doc, []float64) {
			return join(set("en", true, 0.9, 0.8, 0.7, 0.6), set("ru", true, 0.9, 0.6, 0.18, 0.05), set("en", false, 0.05, 0.1, 0.2, 0.3))
		}, quiet, quietS, 0.60, 0.15, 0.60, true, "ru 0.75", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			docs, scores := c.docs()
			b := ChooseBand(docs, scores, c.pages, c.pageS)
			if b.Threshold != c.threshold || b.Low != c.low || b.High != c.high {
				t.Errorf("threshold %.2f band [%.2f, %.2f), want %.2f [%.2f, %.2f) (%+v)", b.Threshold, b.Low, b.High, c.threshold, c.low, c.high, b)
			}
			if !(b.Low <= b.Threshold && b.Threshold <= b.High && b.Low > classify.OffTopicScore) {
				t.Errorf("want %.2f < low %.2f <= threshold %.2f <= high %.2f", classify.OffTopicScore, b.Low, b.Threshold, b.High)
			}
			if (b.Note != "") != c.noted {
				t.Errorf("note %q, want one: %v", b.Note, c.noted)
			}
			if c.short != "" && !strings.Contains(b.Note, c.short) {
				t.Errorf("note %q does not name the short language %q", b.Note, c.short)
			}
			if b.PageFP > MaxPageFP {
				t.Errorf("pages %.3f over %.2f at the threshold", b.PageFP, MaxPageFP)
			}
			if over := b.Flagged > MaxFlagged; over != c.flaggedOver || over != strings.Contains(b.Note, "recall preferred") {
				t.Errorf("flagged %.2f (max %.2f), want over: %v; note %q", b.Flagged, MaxFlagged, c.flaggedOver, b.Note)
			}
		})
	}
}
