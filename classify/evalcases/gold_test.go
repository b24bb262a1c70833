package evalcases

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var perDoc = flag.Bool("perdoc", false, "print per-document scores in TestGoldSet")

// sharedDir finds ../shared relative to the module root.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared")
	if _, err := os.Stat(filepath.Join(dir, "eval", "gold")); err != nil {
		t.Skipf("shared tree absent: %v", err)
	}
	return dir
}

// TestGoldSet runs the gold set and holds the measured figures as a
// regression floor (final measurement minus a margin).
func TestGoldSet(t *testing.T) {
	shared := sharedDir(t)
	var sb strings.Builder
	cfg := Config{GoldDir: filepath.Join(shared, "eval", "gold"), SharedDir: shared, PerDoc: *perDoc, Fit: DefaultFit}
	var rep *Report
	if raceEnabled {
		// the refits take minutes under -race: the floors are then held on
		// the shipped table in-sample, within 0.05 of the cross-source
		// figure as the run without -race checks
		r, err := Run(context.Background(), cfg, &sb)
		if err != nil {
			t.Fatal(err)
		}
		rep = &r
	} else {
		sr, err := RunBySource(context.Background(), cfg, &sb)
		if err != nil {
			t.Fatal(err)
		}
		// the floors hold the cross-source figures, the figure of record
		rep = &sr.CrossSource
		// and what is fitted may not carry much better on the documents it saw
		for _, lang := range []string{"en", "ru", "zh"} {
			if gap := sr.Gap(Metrics[0], lang); gap > 0.05 {
				t.Errorf("text F1 [%s]: in-sample %.3f above cross-source, more than 0.05", lang, gap)
			}
		}
	}
	t.Log("\n" + sb.String())
	// Cross-source on the 49-document gold set (en/ru/zh): language 1/1/1,
	// relevance 0.95/0.73/0.88, root cause 0.89/0.44/0.62; with the field
	// model, and four source-specific rules removed, text F1 0.61/0.42/0.53,
	// 0.54 in zh with the model's veto at p 0.15 (in-sample 0.61/0.42/0.56) and empty kept 0.91/0.91/0.96 (in-sample
	// 0.91/0.91/1.00). With Markdown-wrapped Chinese sentences kept whole
	// and the plan_item feature: text F1 0.609/0.420/0.538 (in-sample
	// 0.609/0.423/0.555), empty kept 0.91/0.91/1.00; session 6 (experienced failures
	// under an impact heading, Chinese lead-ins no labels) 0.615/0.418/0.550
	// (in-sample 0.614/0.423/0.567); status-page entries and plans among
	// the lessons 0.622/0.420/0.550 (in-sample 0.622/0.423/0.567); session 7's
	// English story rules 0.625/0.420/0.553 (in-sample 0.625/0.424/0.569); Russian story order (ru_story.go): ru
	// 0.420 -> 0.473; each field's keep threshold chosen by leave-one-source-out
	// inside the fit: zh 0.553 -> 0.573 (in-sample 0.570 -> 0.590); session 9's
	// Russian explanations and labels out of their fields (ruHeaded) ru 0.473 -> 0.485,
	// Chinese story order zh 0.573 -> 0.587 (in-sample 0.604); session 14's
	// vague headings inside a field's section ru 0.48 -> 0.50; session 15's
	// Russian reflexive verbs no fix ("перезапустился") ru 0.50 -> 0.51. The floors leave room for
	// one document or field to move, since extract/ changes underneath.
	floors := []struct {
		what  string
		got   func(lang string) float64
		floor map[string]float64
	}{
		{"language", func(l string) float64 { v, _ := rep.Get("language", l); return v }, map[string]float64{"en": 0.99, "ru": 0.99, "zh": 0.99}},
		// the shipped gate's judgement, at its threshold: ru 0.64 -> 0.45
		// in session 15, when the repository's made-up set joined the
		// gate's fit and the news pages pushed the threshold 0.35 -> 0.45,
		// then 0.73 with the Russian base rate (cyrillic_text, threshold 0.40)
		{"relevance", func(l string) float64 { v, _ := rep.Get("relevance.is_postmortem", l); return v }, map[string]float64{"en": 0.9, "ru": 0.63, "zh": 0.82}},
		// labels (root cause, organization, tags, trigger kind) measured at
		// 0.89/0.89/1.00, 0.94/1.00/1.00, 0.68/0.68/0.73, 0.83/0.89/0.85
		// (trigger kind en 0.72 before session 6's story events),
		// less one document (hand tables: cross-source is in-sample here;
		// classify's TestLabelsHeldOut holds the held-out figures)
		{"root cause", func(l string) float64 { v, _ := rep.Get("root_cause.category", l); return v }, map[string]float64{"en": 0.83, "ru": 0.77, "zh": 0.84}},
		{"organization", func(l string) float64 { v, _ := rep.Get("organization", l); return v }, map[string]float64{"en": 0.77, "ru": 0.88, "zh": 0.92}},
		// tags measured at 0.72/0.72/0.77 in session 7 (team tools, pods, fill to five)
		{"tags", func(l string) float64 { v, _ := rep.Get("tags", l); return v }, map[string]float64{"en": 0.69, "ru": 0.69, "zh": 0.73}},
		// trigger kind ru 0.89 in session 7 (an attack with no trigger told is unknown, not latent)
		{"trigger kind", func(l string) float64 { v, _ := rep.Get("trigger.kind", l); return v }, map[string]float64{"en": 0.77, "ru": 0.78, "zh": 0.77}},
		// detection method measured at 0.78/0.67/0.92 (session 7: a team's
		// report that tells no detection is unknown; 0.56 en before), less one document
		{"detection", func(l string) float64 { v, _ := rep.Get("detection.method", l); return v }, map[string]float64{"en": 0.72, "ru": 0.55, "zh": 0.84}},
		// metadata (published) measured at 1.00/1.00/1.00, less one document
		{"published", func(l string) float64 { v, _ := rep.Get("published", l); return v }, map[string]float64{"en": 0.94, "ru": 0.88, "zh": 0.92}},
		{"text F1", func(l string) float64 { return rep.TextF1[l].Mean() }, map[string]float64{"en": 0.61, "ru": 0.49, "zh": 0.57}},
		{"empty kept", func(l string) float64 { return rep.EmptyKept[l].Mean() }, map[string]float64{"en": 0.81, "ru": 0.81, "zh": 0.95}},
	}
	for _, f := range floors {
		for lang, min := range f.floor {
			if got := f.got(lang); got < min {
				t.Errorf("%s [%s] = %.3f, below the floor %.3f", f.what, lang, got, min)
			}
		}
	}
}
