package evalcases

import (
	"context"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/casebook/casebook/classify"
)

func losoConfig() Config {
	dir := filepath.Join("testdata", "loso")
	return Config{GoldDir: filepath.Join(dir, "eval", "gold"), SharedDir: dir}
}

// TestBySourceFolds checks that each source is scored by a fold fitted
// without any of its documents, and that the in-sample version saw all.
func TestBySourceFolds(t *testing.T) {
	cl := classify.New(classify.Config{})
	var seen [][]string
	cfg := losoConfig()
	cfg.Fit = func(train []Example) (*classify.Classifier, error) {
		var names []string
		for _, ex := range train {
			names = append(names, ex.File)
		}
		sort.Strings(names)
		seen = append(seen, names)
		return cl, nil
	}
	var sb strings.Builder
	rep, err := RunBySource(context.Background(), cfg, &sb)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"alpha--one.md.json", "alpha--two.md.json", "beta--one.md.json"}, // in-sample
		{"beta--one.md.json"},                        // without alpha
		{"alpha--one.md.json", "alpha--two.md.json"}, // without beta
	}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("folds trained on %v, want %v", seen, want)
	}
	if len(rep.Sources) != 2 || rep.Sources[0].Source != "alpha" || rep.Sources[0].Docs != 2 || rep.Sources[1].Lang != "zh" {
		t.Fatalf("sources %+v", rep.Sources)
	}
	// the same classifier in every fold: cross-source equals in-sample
	for _, l := range Langs {
		for _, m := range Metrics {
			if g := rep.Gap(m, l); g != 0 {
				t.Errorf("%s [%s]: gap %.3f with nothing fitted", m.Name, l, g)
			}
		}
	}
	if got, _ := Metrics[0].Get(&rep.CrossSource, "zh"); got == 0 {
		t.Errorf("zh text F1 0 on a plainly headed post:\n%s", sb.String())
	}
	for _, s := range []string{"per source", "alpha", "beta", "text F1", "remediation"} {
		if !strings.Contains(sb.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, sb.String())
		}
	}
}

// TestBySourceHeldOut checks that a held-out source is scored by its own
// fold: a fit that returns a different classifier per fold changes the
// cross-source figures and not the in-sample ones.
func TestBySourceHeldOut(t *testing.T) {
	good := classify.New(classify.Config{})
	cfg := losoConfig()
	cfg.Fit = func(train []Example) (*classify.Classifier, error) {
		if len(train) == 3 {
			return good, nil
		}
		return nil, nil // a nil classifier fails loudly if it is used
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a fold's classifier was not used for its held-out source")
		}
	}()
	_, _ = RunBySource(context.Background(), cfg, nil)
}

func TestSourceOf(t *testing.T) {
	for in, want := range map[string]string{
		"corpus/dfds/PM2019 x.md":   "dfds",
		"corpus/zh-imroc/a/b.md":    "zh-imroc",
		"corpus\\ru-jtprog\\x.html": "ru-jtprog",
	} {
		if got := sourceOf(filepath.FromSlash(strings.ReplaceAll(in, "\\", "/"))); got != want {
			t.Errorf("sourceOf(%q) = %q, want %q", in, got, want)
		}
	}
}
