package sinks

import (
	"errors"
	"fmt"
	"testing"

	"github.com/casebook/casebook"
)

func TestSkippedListAndRedraft(t *testing.T) {
	s := openTemp(t)
	// Ten crawled posts on two sources, every other one skipped, plus a
	// skipped-looking manual one that must not be listed.
	for i := 0; i < 10; i++ {
		src := []string{"blog-a", "blog-b"}[i%2]
		u := fmt.Sprintf("https://%s.example/p/%d", src, i)
		rec, _, err := s.CreateSubmission(u, u, "crawl:"+src, src)
		if err != nil {
			t.Fatal(err)
		}
		state := casebook.StateDrafted
		if i%4 < 2 {
			state = casebook.StateSkipped
		}
		if err := s.Progress(rec.ID, state, "guide: second person, no dated event", "", ""); err != nil {
			t.Fatal(err)
		}
	}
	man, _, err := s.CreateSubmission("https://m.example/x", "https://m.example/x", "manual", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Progress(man.ID, casebook.StateSkipped, "duplicate of case CB-0001", "", ""); err != nil {
		t.Fatal(err)
	}
	var all []SubmissionRecord
	cursor := ""
	for page := 0; ; page++ {
		items, next, err := s.ListSkipped("", cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, items...)
		if next == "" {
			break
		}
		if page > 10 {
			t.Fatal("paging does not end")
		}
		cursor = next
	}
	if len(all) != 6 { // i = 0, 1, 4, 5, 8, 9
		t.Fatalf("%d skipped crawled posts listed, want 6: %+v", len(all), all)
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID >= all[i-1].ID {
			t.Fatalf("not newest first: %s after %s", all[i].ID, all[i-1].ID)
		}
	}
	onlyB, _, err := s.ListSkipped("blog-b", "", 50)
	if err != nil || len(onlyB) != 3 {
		t.Fatalf("blog-b: %d, %v", len(onlyB), err)
	}
	for _, r := range onlyB {
		if r.Source != "blog-b" || r.Reason == "" {
			t.Fatalf("filtered %+v", r)
		}
	}

	// Drafting one: back to queued as a reviewer's request, unenqueued so
	// the outbox publishes it, and off the skipped list.
	got, err := s.RedraftSkipped(all[0].ID, "rita")
	if err != nil {
		t.Fatal(err)
	}
	if got.State != casebook.StateQueued || got.Origin != OriginReview || got.Enqueued {
		t.Fatalf("redrafted %+v", got)
	}
	pending, err := s.Unenqueued()
	if err != nil || len(pending) != 1 || pending[0].ID != got.ID {
		t.Fatalf("unenqueued %v %v", pending, err)
	}
	left, _, _ := s.ListSkipped("", "", 50)
	if len(left) != 5 {
		t.Fatalf("%d left on the list, want 5", len(left))
	}
	for _, id := range []string{got.ID, man.ID} { // not skipped any more; not a crawl
		if _, err := s.RedraftSkipped(id, "rita"); !errors.Is(err, ErrConflict) {
			t.Errorf("redraft %s: %v, want conflict", id, err)
		}
	}
	if _, err := s.RedraftSkipped("sub-99999999", "rita"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown: %v", err)
	}
	if _, _, err := s.ListSkipped("", "nope", 5); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad cursor: %v", err)
	}
}
