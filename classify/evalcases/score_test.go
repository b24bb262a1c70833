package evalcases

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/casebook/casebook"
)

func TestTokens(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"Root cause: the pool (v3.45) was full!", []string{"root", "cause", "the", "pool", "v3", "45", "was", "full"}},
		{"Причина — пул", []string{"причина", "пул"}},
		{"数据库CPU告警", []string{"数", "据", "库", "cpu", "告", "警"}},
		{"ＡＢＣ１２", []string{"abc12"}}, // NFKC folds full-width forms
	}
	for _, tc := range cases {
		if got := Tokens(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestTokenF1(t *testing.T) {
	cases := []struct {
		gold, pred string
		want       float64
	}{
		{"", "", 1},
		{"", "something", 0},
		{"something", "", 0},
		{"a b c d", "a b c d", 1},
		{"a b", "a b c d", 2 * 0.5 * 1 / 1.5},
		// counts are clipped: the repeated "a" matches once
		{"a b", "a a", 2 * 0.5 * 0.5 / 1},
		{"原因是配置", "原因", 2 * 1 * 0.4 / 1.4},
	}
	for _, tc := range cases {
		if got := TokenF1(tc.gold, tc.pred); !near(got, tc.want) {
			t.Errorf("TokenF1(%q, %q) = %v, want %v", tc.gold, tc.pred, got, tc.want)
		}
	}
}

func TestSetF1AndDurations(t *testing.T) {
	if got := SetF1([]string{"aws", "eks"}, []string{"EKS", "gcp"}); !near(got, 0.5) {
		t.Errorf("SetF1 = %v, want 0.5", got)
	}
	if got := SetF1(nil, nil); got != 1 {
		t.Errorf("SetF1(empty, empty) = %v", got)
	}
	dur := []struct {
		a, b string
		eq   bool
	}{
		{"PT90M", "PT1H30M", true},
		{"PT54H10M", "P2DT6H10M", true},
		{"PT8M", "PT9M", false},
		{"", "", true},
		{"", "PT1M", false},
		{"PT1M", "", false},
	}
	for _, d := range dur {
		if got := DurationEqual(d.a, d.b); got != d.eq {
			t.Errorf("DurationEqual(%q, %q) = %v", d.a, d.b, got)
		}
	}
}

// TestScoreCase scores a hand-made gold/prediction pair field by field.
func TestScoreCase(t *testing.T) {
	expectJSON := `{"language":"en","root_cause":{"category":"configuration","description":"the rule was wrong"},
		"trigger":{"kind":"deploy"},"remediation":["rolled back","fixed the rule"],"lessons":[],
		"impact":{"time_to_detect":"PT8M","duration":""},"tags":["traefik","aws"],"relevance":{"is_postmortem":true}}`
	present, err := presentFields(json.RawMessage(expectJSON))
	if err != nil {
		t.Fatal(err)
	}
	var expect casebook.Case
	if err := json.Unmarshal([]byte(expectJSON), &expect); err != nil {
		t.Fatal(err)
	}
	pred := &casebook.Case{
		Language:    "en",
		RootCause:   casebook.RootCause{Category: "deployment", Description: "the rule was wrong"},
		Trigger:     casebook.Trigger{Kind: "config-change"},
		Remediation: []string{"rolled back"},
		Lessons:     []string{"invented"},
		Impact:      casebook.Impact{TimeToDetect: "PT8M", Duration: "PT1M"},
		Tags:        []string{"traefik"},
		Relevance:   casebook.Relevance{IsPostmortem: true},
	}
	accept := map[string][]string{"root_cause.category": {"deployment"}}
	scores, empty := ScoreCase(&expect, present, accept, pred)
	want := map[string]float64{
		"language": 1, "root_cause.category": 1, "root_cause.description": 1, "trigger.kind": 0,
		"remediation": 2 * 1 * 0.4 / 1.4, "lessons": 0, "impact.time_to_detect": 1, "impact.duration": 0,
		"tags": 2 * 1 * 0.5 / 1.5, "relevance.is_postmortem": 1,
	}
	for k, v := range want {
		if got, ok := scores[k]; !ok || !near(got, v) {
			t.Errorf("score[%s] = %v (present %v), want %v", k, got, ok, v)
		}
	}
	if _, ok := scores["symptoms"]; ok {
		t.Errorf("symptoms scored though the gold does not annotate it")
	}
	if !empty["lessons"] || empty["remediation"] {
		t.Errorf("gold-empty flags wrong: %v", empty)
	}
}
