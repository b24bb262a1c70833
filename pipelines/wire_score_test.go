package pipelines

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
)

// TestWireRecordsZeroScore: a skip the gate scored 0.00 keeps its score
// through the event stream into the store; one skipped before the gate (no
// score) stays unscored, and an event from before Scored existed counts by
// its non-zero score.
func TestWireRecordsZeroScore(t *testing.T) {
	bus := testBus(t)
	store, err := sinks.Open(filepath.Join(t.TempDir(), "casebook.db"), sinks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	stop := runFor(t, WireRecorder(bus, store, fastConfig()))
	defer stop()
	ctx := context.Background()
	cases := []struct {
		name       string
		ev         Event
		wantScored bool
		wantScore  float64
	}{
		{"gate, 0.00", Event{Score: 0, Scored: true, Reason: "not an incident write-up (relevance 0.00 below 0.15; not about systems)"}, true, 0},
		{"before the gate", Event{Reason: "disallowed by robots.txt"}, false, 0},
		{"gate, older event", Event{Score: 0.12, Reason: "not an incident write-up (relevance 0.12 below 0.15; guide)"}, true, 0.12},
	}
	ids := make([]string, len(cases))
	for i, tc := range cases {
		u := "https://blog.example/post-" + string(rune('a'+i))
		rec, _, err := store.CreateSubmission(u, u, "crawl:blog", "blog")
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = rec.ID
		ev := tc.ev
		ev.SubmissionID, ev.Stage, ev.State = rec.ID, StageClassify, casebook.StateSkipped
		if err := bus.Emit(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	for i, tc := range cases {
		deadline := time.Now().Add(20 * time.Second)
		for {
			rec, err := store.GetSubmission(ids[i])
			if err != nil {
				t.Fatal(err)
			}
			if rec.State == casebook.StateSkipped {
				if rec.GateScored() != tc.wantScored || rec.Score != tc.wantScore {
					t.Errorf("%s: scored %v score %.2f, want %v %.2f", tc.name, rec.GateScored(), rec.Score, tc.wantScored, tc.wantScore)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: still %s", tc.name, rec.State)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
