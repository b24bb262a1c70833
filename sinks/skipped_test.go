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

// TestPagesEndOnTheLastItem: a page hands out a cursor only when another
// item follows, also when the items fill the pages exactly (n = k*limit)
// and older submissions that do not match lie below the last one.
func TestPagesEndOnTheLastItem(t *testing.T) {
	s := openTemp(t)
	add := func(n int, origin, source, state string) {
		for range n {
			u := fmt.Sprintf("https://x.example/%d", len(mustList(t, s)))
			rec, _, err := s.CreateSubmission(u, u, origin, source)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Progress(rec.ID, state, "guide", "", ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Oldest first: skipped blog-a posts and a drafted one below the
	// blog-b posts, a manual skip on top.
	add(2, "crawl:blog-a", "blog-a", casebook.StateSkipped)
	add(1, "crawl:blog-a", "blog-a", casebook.StateDrafted)
	add(2, "crawl:blog-b", "blog-b", casebook.StateSkipped)
	add(2, "crawl:blog-a", "blog-a", casebook.StateSkipped)
	add(1, "manual", "", casebook.StateSkipped)
	skipped := func(source string) func(string, int) ([]string, string, error) {
		return func(cursor string, limit int) ([]string, string, error) {
			recs, next, err := s.ListSkipped(source, cursor, limit)
			return subIDs(recs), next, err
		}
	}
	submissions := func(cursor string, limit int) ([]string, string, error) {
		subs, next, err := s.ListSubmissions(cursor, limit)
		var ids []string
		for _, r := range subs {
			ids = append(ids, r.ID)
		}
		return ids, next, err
	}
	for _, tc := range []struct {
		name  string
		list  func(string, int) ([]string, string, error)
		limit int
		pages []int
	}{
		{"submissions/exact", submissions, 4, []int{4, 4}},
		{"submissions/one page", submissions, 8, []int{8}},
		{"submissions/short last", submissions, 3, []int{3, 3, 2}},
		{"skipped/exact", skipped(""), 3, []int{3, 3}},
		{"skipped/one page", skipped(""), 6, []int{6}},
		{"skipped/short last", skipped(""), 4, []int{4, 2}},
		{"skipped blog-a/exact", skipped("blog-a"), 2, []int{2, 2}},
		{"skipped blog-b/exact", skipped("blog-b"), 1, []int{1, 1}},
		{"skipped blog-b/one page", skipped("blog-b"), 2, []int{2}},
		{"skipped blog-b/short", skipped("blog-b"), 5, []int{2}},
		{"skipped blog-z/none", skipped("blog-z"), 2, []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			cursor := ""
			for range 10 {
				ids, next, err := tc.list(cursor, tc.limit)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, len(ids))
				if next == "" {
					break
				}
				cursor = next
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.pages) {
				t.Errorf("pages of %v, want %v", got, tc.pages)
			}
		})
	}
}

func mustList(t *testing.T, s *Store) []casebook.Submission {
	t.Helper()
	subs, _, err := s.ListSubmissions("", 1000)
	if err != nil {
		t.Fatal(err)
	}
	return subs
}
