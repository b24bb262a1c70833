package sinks

import (
	"fmt"
	"testing"
	"time"

	"github.com/casebook/casebook"
)

// A queue of mutually near-duplicate drafts (the same incident reported by
// many mirrors) must still list quickly: the count asks only whether a draft
// has a duplicate, and the stored signatures are reused.
func TestQueueCountsNearDuplicatesCheaply(t *testing.T) {
	s := openTemp(t)
	const n = 200
	for i := 0; i < n; i++ {
		u := fmt.Sprintf("https://mirror%d.example/outage", i)
		rec, _, _ := s.CreateSubmission(u, u, "crawl:m", "m")
		c := &casebook.Case{
			Title:       "Checkout outage after the queue prefetch change",
			Language:    "en",
			Symptoms:    "Checkout requests timed out for forty minutes and the error-rate alert paged the on-call engineer during the evening peak.",
			RootCause:   casebook.RootCause{Category: "configuration", Description: fmt.Sprintf("A configuration change set the consumer prefetch of the order workers to one, so the queue drained far too slowly (mirror %d).", i)},
			Remediation: []string{"We reverted the configuration change.", "We restarted the order workers."},
		}
		if _, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: u, ContentHash: fmt.Sprint("h", i), Case: c}); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	items, _, counts, err := s.ListQueue(QueueFilter{}, "", 50)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ListQueue over %d near-duplicate drafts: %v", n, time.Since(start))
	if len(items) != 50 || counts.Total != n || counts.Duplicates != n {
		t.Fatalf("items %d, counts %+v: want 50 items, %d drafts, all flagged as duplicates", len(items), counts, n)
	}
	dups, err := s.Duplicates(items[0].ID)
	if err != nil || len(dups) < 2 {
		t.Fatalf("duplicates of one draft: %d, %v (want many)", len(dups), err)
	}
}
