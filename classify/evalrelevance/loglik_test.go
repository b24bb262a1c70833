package evalrelevance

import (
	"math"
	"testing"
)

// The mean log-likelihood scores each post by the probability its label
// gets, per language and over all; scores at 0 or 1 are held off the edges.
func TestLogLikelihood(t *testing.T) {
	r := &Report{Docs: []Doc{{Lang: "en", Label: true}, {Lang: "en", Label: false}, {Lang: "ru", Label: true}}}
	scores := []float64{0.8, 0.3, 0}
	for _, tt := range []struct {
		lang string
		want float64
	}{
		{"en", (math.Log(0.8) + math.Log(0.7)) / 2},
		{"ru", math.Log(0.001)},
		{"all", (math.Log(0.8) + math.Log(0.7) + math.Log(0.001)) / 3},
		{"zh", 0},
	} {
		if got := r.LogLikelihood(scores, tt.lang); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: %.4f, want %.4f", tt.lang, got, tt.want)
		}
	}
}
