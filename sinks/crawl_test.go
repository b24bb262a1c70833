package sinks

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestSeenSet(t *testing.T) {
	s := openTemp(t)
	if e, err := s.SeenURL("https://example.org/a"); err != nil || e != nil {
		t.Fatalf("unseen URL: %+v %v", e, err)
	}
	if err := s.MarkSeen("https://example.org/a", SeenEntry{URL: "https://example.org/a", Source: "blog", SubmissionID: "sub-1"}); err != nil {
		t.Fatal(err)
	}
	if e, _ := s.SeenURL("https://example.org/a"); e == nil || e.SubmissionID != "sub-1" || e.At.IsZero() {
		t.Fatalf("seen entry %+v", e)
	}

	cases := []struct {
		name, hash, canonical, sub string
		dupOf                      string // "" = new
	}{
		{"first fetch of a page", "h1", "https://example.org/a", "sub-1", ""},
		{"the same submission redelivered", "h1", "https://example.org/a", "sub-1", ""},
		{"same content under another URL", "h1", "https://example.org/copy", "sub-2", "https://example.org/a"},
		{"rel=canonical names a page another submission crawled", "h2", "https://example.org/a", "sub-3", "https://example.org/a"},
		{"new content, new URL", "h3", "https://example.org/b", "sub-4", ""},
		// The scheduler points the seen-set at the new submission before retrying.
		{"a retried submission of the same page", "h3", "https://example.org/b", "sub-5", ""},
	}
	for _, tc := range cases {
		if tc.sub == "sub-5" {
			if err := s.MarkSeen(tc.canonical, SeenEntry{URL: tc.canonical, SubmissionID: "sub-5", Resubmits: 1}); err != nil {
				t.Fatal(err)
			}
		}
		dup, err := s.ClaimContent(tc.hash, tc.canonical, "blog", tc.sub)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := ""
		if dup != nil {
			got = dup.URL
		}
		if got != tc.dupOf {
			t.Errorf("%s: duplicate of %q, want %q", tc.name, got, tc.dupOf)
		}
	}
	// A duplicate leaves no trace; a URL points at its newest submission.
	if e, _ := s.SeenURL("https://example.org/copy"); e != nil {
		t.Errorf("a duplicate's URL was recorded: %+v", e)
	}
	if e, _ := s.SeenURL("https://example.org/b"); e == nil || e.SubmissionID != "sub-5" {
		t.Errorf("claimed URL entry %+v", e)
	}
}

func TestSourceStateAndRuns(t *testing.T) {
	s := openTemp(t)
	if _, err := s.GetSourceState("blog"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("state of an unknown source: %v", err)
	}
	next := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	if err := s.PutSourceState(SourceState{Name: "blog", ETag: `"x"`, NextRun: next, ErrorCount: 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutSourceState(SourceState{Name: "other"}); err != nil {
		t.Fatal(err)
	}
	all, err := s.ListSourceStates()
	if err != nil || len(all) != 2 || all["blog"].ETag != `"x"` || !all["blog"].NextRun.Equal(next) || all["blog"].ErrorCount != 2 {
		t.Fatalf("states %+v %v", all, err)
	}
	if err := s.PutSourceState(SourceState{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("state without a name: %v", err)
	}

	if _, err := s.LatestRun("blog"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("latest run before any: %v", err)
	}
	var last *CrawlRun
	for i := 0; i < MaxRunsKept+5; i++ {
		run := &CrawlRun{Source: "blog", Outcome: "running"}
		if err := s.StartRun(run); err != nil {
			t.Fatal(err)
		}
		run.Outcome, run.Found = "ok", i
		run.Submissions = append(run.Submissions, fmt.Sprintf("sub-%d", i))
		if err := s.SaveRun(run); err != nil {
			t.Fatal(err)
		}
		last = run
	}
	// Runs of another source with a name sharing the prefix stay apart.
	if err := s.StartRun(&CrawlRun{Source: "blog2"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.LatestRun("blog")
	if err != nil || got.ID != last.ID || got.Found != MaxRunsKept+4 || len(got.Submissions) != 1 {
		t.Fatalf("latest %+v %v, want %s", got, err, last.ID)
	}
	runs, err := s.Runs("blog", 100)
	if err != nil || len(runs) != MaxRunsKept {
		t.Fatalf("%d runs kept (%v), want %d", len(runs), err, MaxRunsKept)
	}
	for i := 1; i < len(runs); i++ {
		if runs[i].ID >= runs[i-1].ID {
			t.Fatalf("runs not newest first: %s then %s", runs[i-1].ID, runs[i].ID)
		}
	}
	if err := s.SaveRun(&CrawlRun{ID: "bogus", Source: "blog"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("save with a bad id: %v", err)
	}
}
