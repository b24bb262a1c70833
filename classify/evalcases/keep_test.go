package evalcases

import (
	"context"
	"math"
	"testing"

	"github.com/casebook/casebook/classify"
)

// TestChooseKeep checks the choice of the keep thresholds on made-up
// held-out outcomes: with nothing to tell thresholds apart the default
// stands; a filled gold field at p 0.22 lowers its field's threshold to the
// nearest that keeps it; an empty gold field drafted at p 0.35 raises its
// field's threshold over it; and a gain that costs more elsewhere is not
// taken.
func TestChooseKeep(t *testing.T) {
	names := classify.ModelFields()
	idx := map[string]int{}
	for i, n := range names {
		idx[n] = i
	}
	outs := make([][]fieldOutcome, len(names))
	add := func(f string, o fieldOutcome) { outs[idx[f]] = append(outs[idx[f]], o) }
	add("symptoms", fieldOutcome{routed: true, best: 0.9, f1: 0.5})
	add("root_cause", fieldOutcome{routed: true, best: 0.22, f1: 0.8})
	add("root_cause", fieldOutcome{routed: true, best: 0.6, f1: 0.4})
	add("lessons", fieldOutcome{routed: true, best: 0.35, goldEmpty: true})
	add("lessons", fieldOutcome{routed: true, best: 0.7, f1: 0.9})
	// a detection kept at 0.12 scores 0.1, but the empty one at 0.15 costs 1
	add("detection", fieldOutcome{routed: true, best: 0.12, f1: 0.1})
	add("detection", fieldOutcome{routed: true, best: 0.15, goldEmpty: true})
	add("action_items", fieldOutcome{goldEmpty: true})
	got := chooseKeep(outs)
	want := map[string]float64{"symptoms": 0.3, "root_cause": 0.2, "lessons": 0.4, "detection": 0.3, "action_items": 0.3, "remediation": 0.3}
	for f, w := range want {
		if math.Abs(got[f]-w) > 1e-9 {
			t.Errorf("%s: keep %.2f, want %.2f", f, got[f], w)
		}
	}
}

// TestReplayMatchesClassify checks that the fit's replay of the routing
// (FieldModel.Route, the caps, the token F1) scores every field as Classify
// and the scorer do, on the made-up loso set.
func TestReplayMatchesClassify(t *testing.T) {
	exs, err := LoadExamples(context.Background(), losoConfig())
	if err != nil {
		t.Fatal(err)
	}
	base := classify.New(classify.Config{HandRules: true})
	fc := newFeatureCache(base)
	m, err := fc.fit(exs, FitLambda)
	if err != nil {
		t.Fatal(err)
	}
	m.Keep = map[string]float64{}
	for _, f := range classify.ModelFields() {
		m.Keep[f] = 0 // every routed field drafted, as the replay scores it
	}
	cl := base.WithFields(m)
	gold := map[string]string{"root_cause": "root_cause.description", "detection": "detection.description"}
	checked := 0
	for i := range exs {
		ex := &exs[i]
		outs := make([][]fieldOutcome, len(classify.ModelFields()))
		replay(m, fc.doc(ex), 0, outs)
		sc, _ := ScoreCase(&ex.Expect, ex.Present, ex.Gold.Accept, cl.Classify(ex.Doc))
		for fi, f := range classify.ModelFields() {
			name := f
			if g, ok := gold[f]; ok {
				name = g
			}
			if len(outs[fi]) == 0 {
				if _, ok := sc[name]; ok {
					t.Errorf("%s %s: scored but not replayed", ex.File, f)
				}
				continue
			}
			checked++
			if d := outs[fi][0].f1 - sc[name]; math.Abs(d) > 1e-9 {
				t.Errorf("%s %s: replay F1 %.3f, Classify %.3f", ex.File, f, outs[fi][0].f1, sc[name])
			}
		}
	}
	if checked == 0 {
		t.Fatal("no field compared")
	}
}
