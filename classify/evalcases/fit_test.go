package evalcases

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/casebook/casebook/classify"
)

func TestContains(t *testing.T) {
	gold := Tokens("The disk filled up. We restarted the brokers after that.")
	joined := " " + joinTokens(gold) + " "
	for _, c := range []struct {
		sent string
		want bool
	}{
		{"The disk filled up.", true},
		{"we restarted the brokers after that", true},
		{"We restarted the brokers after this.", true}, // 5 of 6 tokens
		{"The disk", true},                             // in order, short
		{"The queue filled up quickly today.", false},
		{"", false},
	} {
		if got := contains(gold, joined, Tokens(c.sent)); got != c.want {
			t.Errorf("contains(%q) = %v, want %v", c.sent, got, c.want)
		}
	}
}

func joinTokens(ts []string) string {
	var b bytes.Buffer
	for i, s := range ts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}

// TestFitFieldModel fits on the made-up loso set: the gold sentences of a
// field come out more probable for it than the other sentences.
func TestFitFieldModel(t *testing.T) {
	exs, err := LoadExamples(context.Background(), losoConfig())
	if err != nil {
		t.Fatal(err)
	}
	cl := classify.New(classify.Config{HandRules: true})
	m, err := FitFieldModel(cl, exs, FitLambda)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := FitFieldModel(cl, exs, FitLambda)
	a, _ := MarshalFieldModel(m)
	b, _ := MarshalFieldModel(again)
	if !bytes.Equal(a, b) {
		t.Fatal("fitting twice gave two tables")
	}
	fc := newFeatureCache(cl)
	names := classify.ModelFields()
	for fi, name := range names {
		var pos, neg []float64
		for i := range exs {
			for _, s := range fc.samples(&exs[i]) {
				p := prob(m.Fields[name], s.x)
				switch s.labels[fi] {
				case 1:
					pos = append(pos, p)
				case 0:
					neg = append(neg, p)
				}
			}
		}
		if len(pos) == 0 || len(neg) == 0 {
			continue
		}
		if mean(pos) <= mean(neg) {
			t.Errorf("%s: gold sentences %.2f, others %.2f", name, mean(pos), mean(neg))
		}
	}
}

func prob(w *classify.FieldWeights, x []float64) float64 {
	z := w.Bias
	for i, v := range x {
		z += w.W[i] * v
	}
	return 1 / (1 + math.Exp(-z))
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// TestFieldModelFresh fails when classify/fieldmodel.json is not what
// `go run ./classify/internal/fitfields` writes from the gold set today.
func TestFieldModelFresh(t *testing.T) {
	shared := sharedDir(t)
	exs, err := LoadExamples(context.Background(), Config{GoldDir: filepath.Join(shared, "eval", "gold"), SharedDir: shared})
	if err != nil {
		t.Fatal(err)
	}
	cl := classify.New(classify.Config{HandRules: true})
	want, err := os.ReadFile(filepath.Join("..", "fieldmodel.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m *classify.FieldModel
	if raceEnabled {
		// the keep thresholds' inner folds take a minute and a half under
		// -race: the weights are checked here, the thresholds without -race
		var old classify.FieldModel
		if err := json.Unmarshal(want, &old); err != nil {
			t.Fatal(err)
		}
		if m, err = newFeatureCache(cl).fit(exs, FitLambda); err != nil {
			t.Fatal(err)
		}
		m.Keep = old.Keep
	} else if m, err = FitFieldModel(cl, exs, FitLambda); err != nil {
		t.Fatal(err)
	}
	got, _ := MarshalFieldModel(m)
	if bytes.Equal(got, want) {
		return
	}
	// a change to extract/ or to the cues elsewhere moves the weights a
	// little; the table is stale when one moved by more than freshTolerance
	var old classify.FieldModel
	if err := json.Unmarshal(want, &old); err != nil {
		t.Fatal(err)
	}
	worst, where := 0.0, ""
	for name, w := range m.Fields {
		ow := old.Fields[name]
		if ow == nil || len(ow.W) != len(w.W) {
			t.Fatalf("classify/fieldmodel.json lacks %s or has other features: run go run ./classify/internal/fitfields", name)
		}
		if d := math.Abs(ow.Bias - w.Bias); d > worst {
			worst, where = d, name+" bias"
		}
		for i := range w.W {
			if d := math.Abs(ow.W[i] - w.W[i]); d > worst {
				worst, where = d, name+" "+m.Features[i]
			}
		}
	}
	for _, f := range classify.ModelFields() {
		if m.Keep[f] != old.Keep[f] {
			t.Errorf("classify/fieldmodel.json keeps %s from %.2f, a refit from %.2f: run go run ./classify/internal/fitfields", f, old.Keep[f], m.Keep[f])
		}
	}
	if worst > freshTolerance {
		t.Errorf("classify/fieldmodel.json is stale (%s moved by %.3f): run go run ./classify/internal/fitfields", where, worst)
	} else {
		t.Logf("classify/fieldmodel.json differs from a refit by at most %.3f (%s): refit when convenient", worst, where)
	}
}

// freshTolerance is how far a weight may drift before the table is stale.
const freshTolerance = 0.5
