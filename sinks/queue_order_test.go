package sinks

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/casebook/casebook"
)

// TestQueueByRelevance: the queue in relevance order is highest score
// first, newest first among equal scores; its pages neither repeat nor skip
// a draft when a draft arrives between two of them; filters still apply,
// and a cursor of the other order is refused.
func TestQueueByRelevance(t *testing.T) {
	s := openTemp(t)
	add := func(title string, score float64, flagged bool) {
		t.Helper()
		u := "https://blog.example/" + title
		rec, _, err := s.CreateSubmission(u, u, "crawl:blog", "blog")
		if err != nil {
			t.Fatal(err)
		}
		c := draftCase(title)
		c.Relevance = casebook.Relevance{Score: score, Flagged: flagged}
		c.Sources = []casebook.Source{{URL: u, Site: "Blog"}}
		if _, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: u, ContentHash: u, Case: c}); err != nil {
			t.Fatal(err)
		}
	}
	for i, score := range []float64{0.2, 0.9, 0.35, 0.35, 0.6, 0.15} {
		add(fmt.Sprint("d", i), score, score < 0.4)
	}
	list := func(f QueueFilter, cursor string, limit int) ([]string, string) {
		t.Helper()
		items, next, _, err := s.ListQueue(f, cursor, limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range items {
			got = append(got, c.Title)
		}
		return got, next
	}
	f := QueueFilter{ByRelevance: true}
	// d3 and d2 share 0.35: the newer (d3) first
	if got, _ := list(f, "", 10); !slices.Equal(got, []string{"d1", "d4", "d3", "d2", "d0", "d5"}) {
		t.Errorf("by relevance: %v", got)
	}
	page1, next := list(f, "", 3)
	add("d6", 0.95, false) // arrives between the pages: it belongs before them
	page2, next2 := list(f, next, 3)
	if !slices.Equal(page1, []string{"d1", "d4", "d3"}) || !slices.Equal(page2, []string{"d2", "d0", "d5"}) || next2 != "" {
		t.Errorf("pages %v (next %q) then %v (next %q)", page1, next, page2, next2)
	}
	yes := true
	if got, _ := list(QueueFilter{ByRelevance: true, Flagged: &yes}, "", 10); !slices.Equal(got, []string{"d3", "d2", "d0", "d5"}) {
		t.Errorf("flagged lane by relevance: %v", got)
	}
	if got, _ := list(QueueFilter{}, "", 3); !slices.Equal(got, []string{"d6", "d5", "d4"}) {
		t.Errorf("newest first is unchanged: %v", got)
	}
	_, newestCursor := list(QueueFilter{}, "", 1)
	for _, bad := range []string{newestCursor, "r0.5", "rx.00", "r0.5.zz"} {
		if _, _, _, err := s.ListQueue(f, bad, 3); !errors.Is(err, ErrInvalid) {
			t.Errorf("cursor %q in relevance order: %v, want ErrInvalid", bad, err)
		}
	}
}
