package sinks

import (
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// scanSubmissions is the obvious answer: every submission, filtered.
func scanSubmissions(t *testing.T, s *Store, keep func(*SubmissionRecord) bool) []string {
	t.Helper()
	var out []string
	if err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bSubmissions).ForEach(func(k, v []byte) error {
			var r SubmissionRecord
			if err := jsonUnmarshal(v, &r); err != nil {
				return err
			}
			if keep(&r) {
				out = append(out, r.ID)
			}
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func subIDs(recs []SubmissionRecord) []string {
	out := []string{}
	for _, r := range recs {
		out = append(out, r.ID)
	}
	sort.Strings(out)
	return out
}

// The outbox replay and the reconcile read small id sets; they must answer
// exactly what a scan of every submission would, through each transition,
// and after a store written without the sets is reopened.
func TestSubmissionSetsMatchScan(t *testing.T) {
	s := openTemp(t)
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { clock = clock.Add(time.Second); return clock }
	var all []string
	for i := range 12 {
		u := fmt.Sprintf("https://s.example/%d", i)
		rec, _, err := s.CreateSubmission(u, u, "manual", "")
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, rec.ID)
	}
	// 0-1 stay unenqueued; the rest are enqueued, then moved along.
	if err := s.MarkEnqueuedMany(all[2:]); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		id    int
		state string
	}{{2, casebook.StateFetching}, {3, casebook.StateExtracting}, {4, casebook.StateFailed}, {5, casebook.StateSkipped}, {6, casebook.StateClassifying}}
	for _, st := range steps {
		if err := s.Progress(all[st.id], st.state, "", "boom", ""); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.SaveDraft(DraftInput{SubmissionID: all[7], CanonicalURL: "https://s.example/7", Case: draftCase("drafted")})
	if err != nil || res.DraftID == "" {
		t.Fatal(res, err)
	}
	if err := s.Reopen(all[4], "fetch"); err != nil { // failed -> queued again
		t.Fatal(err)
	}
	cutoff := clock.Add(-5 * time.Second)
	check := func(s *Store, when string) {
		t.Helper()
		un, err := s.Unenqueued()
		if err != nil {
			t.Fatal(err)
		}
		want := scanSubmissions(t, s, func(r *SubmissionRecord) bool { return !r.Enqueued && !r.Terminal() })
		if got := subIDs(un); !reflect.DeepEqual(got, want) || len(got) != 2 {
			t.Fatalf("%s: unenqueued %v, scan says %v", when, got, want)
		}
		stale, err := s.Stale(cutoff)
		if err != nil {
			t.Fatal(err)
		}
		limit := cutoff.UTC().Format(time.RFC3339)
		want = scanSubmissions(t, s, func(r *SubmissionRecord) bool { return r.Enqueued && !r.Terminal() && r.UpdatedAt < limit })
		if got := subIDs(stale); !reflect.DeepEqual(got, want) || len(got) == 0 {
			t.Fatalf("%s: stale %v, scan says %v", when, got, want)
		}
	}
	check(s, "as written")

	s2 := reopenAsOlder(t, s, metaSubIndexVersion, bSubOpen, bSubOutbox)
	check(s2, "after upgrade")
}

// BenchmarkOutboxReplay reads the unfinished submissions of a store holding
// 100,000 finished ones (months of crawling), next to the peer: a scan of
// every submission (CountSubmissions), what Unenqueued and Stale were.
//
//	go test -run '^$' -bench OutboxReplay ./sinks
func BenchmarkOutboxReplay(b *testing.B) {
	s, err := Open(b.TempDir()+"/casebook.db", Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n = 100_000
	if err := s.db.Update(func(tx *bolt.Tx) error {
		for i := range n {
			r := SubmissionRecord{Submission: casebook.Submission{ID: fmt.Sprintf("sub-%08d", i+1), URL: fmt.Sprintf("https://b.example/%d", i),
				State: casebook.StateDrafted, DraftID: fmt.Sprintf("draft-%06d", i+1), CreatedAt: "2026-01-01T00:00:00Z", UpdatedAt: "2026-01-01T00:00:00Z", Origin: "crawl:b"},
				CanonicalURL: fmt.Sprintf("https://b.example/%d", i), Enqueued: i%1000 != 0}
			if i%1000 == 0 {
				r.State = casebook.StateQueued
			}
			if err := putSubmission(tx, &r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.Run("Unenqueued", func(b *testing.B) {
		for b.Loop() {
			if un, err := s.Unenqueued(); err != nil || len(un) != n/1000 {
				b.Fatal(len(un), err)
			}
		}
	})
	b.Run("full-scan-peer", func(b *testing.B) {
		for b.Loop() {
			if c, err := s.CountSubmissions(); err != nil || c[casebook.StateDrafted] != n-n/1000 {
				b.Fatal(c, err)
			}
		}
	})
}
