package evalrelevance

import (
	"context"
	"io"
	"path/filepath"
	"testing"
)

// crossFloors hold the gate's figure of record: each post scored by weights
// fitted without its own blog (leave-one-source-out), at the shipped
// threshold and bands, for ../shared's posts (relevance and gold sets) and
// for the repository's made-up set, both in the fit. Measured in session 15
// when the made-up set joined the fit (shared: F1 0.93 / 0.69 / 0.86, kept
// 1.00 / 0.87 / 1.00, flagged 0.35; made-up: F1 0.79 / 0.70 / 0.83, kept
// 1.00 / 0.91 / 1.00, flagged 0.28) and again with the Russian base rate
// (cyrillic_text; shared: 0.93 / 0.74 / 0.84, kept 1.00 / 0.87 / 1.00,
// flagged 0.33; made-up: 0.79 / 0.72 / 0.83, kept 1.00, flagged 0.28) and
// in session 16 with the Russian passive cause and fix cues and incident
// headings (shared: 0.95 / 0.83 / 0.88, kept 1.00 / 0.93 / 1.00, flagged
// 0.32; made-up: 0.83 / 0.75 / 0.83, kept 1.00 / 1.00 / 0.91, flagged 0.30),
// less about one post. They are
// regression floors, not issue #10's targets (F1 >= 0.90, flagged <= 0.15).
var crossFloors = []struct {
	set      string // "" for ../shared's posts
	f1, kept map[string]float64
	flagged  float64 // ceiling on the flagged share of all drafts
}{
	{"", map[string]float64{"en": 0.90, "ru": 0.78, "zh": 0.82}, map[string]float64{"en": 0.96, "ru": 0.86, "zh": 0.95}, 0.36},
	{filepath.Base(RepoSet), map[string]float64{"en": 0.78, "ru": 0.70, "zh": 0.78}, map[string]float64{"en": 0.94, "ru": 0.90, "zh": 0.86}, 0.34},
}

func TestCrossSourceFloors(t *testing.T) {
	shared := sharedDir(t)
	if raceEnabled {
		t.Skip("slow under -race: make test runs it without -race")
	}
	in := DefaultInputs(shared, filepath.Join("..", ".."))
	r, err := Run(context.Background(), Config{Dir: in.Dir, GoldDir: in.GoldDir, Sets: in.Sets, Pages: in.Pages}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	repoSet := filepath.Base(RepoSet)
	for _, fl := range crossFloors {
		name := fl.set
		sub := r.Subset(func(d Doc) bool { return (d.Set == repoSet) == (fl.set == repoSet) })
		if name == "" {
			name = "../shared"
		}
		for lang, min := range fl.f1 {
			if got := sub.CrossSource[lang].F1(); got < min {
				t.Errorf("%s [%s]: cross-source F1 %.3f under the floor %.2f", name, lang, got, min)
			}
			if got := sub.LaneCross[lang].KeptRecall(); got < fl.kept[lang] {
				t.Errorf("%s [%s]: cross-source incidents not skipped %.3f under the floor %.2f", name, lang, got, fl.kept[lang])
			}
		}
		if got := sub.LaneCross["all"].FlaggedShare(); got > fl.flagged {
			t.Errorf("%s: cross-source flagged share %.3f over the ceiling %.2f", name, got, fl.flagged)
		}
		t.Logf("%s: cross-source F1 en %.2f ru %.2f zh %.2f, kept %.2f, flagged %.2f", name,
			sub.CrossSource["en"].F1(), sub.CrossSource["ru"].F1(), sub.CrossSource["zh"].F1(),
			sub.LaneCross["all"].KeptRecall(), sub.LaneCross["all"].FlaggedShare())
	}
}
