package sinks

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
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

// TestSkippedCountMatchesScan: the skipped list's counts and pages must say
// exactly what a scan of every submission says, after every kind of write
// (skip by the gate, skip as a duplicate, a skip written twice, redraft,
// re-submission, failure, manual skips that are not listed) and after a
// store written without them, or with wrong ones, is reopened.
func TestSkippedCountMatchesScan(t *testing.T) {
	s := openTemp(t)
	sources := []string{"", "blog-a", "blog-b", "blog-z"}
	// The scan spells the rule out itself rather than calling onSkippedList.
	listed := func(r *SubmissionRecord) bool {
		return r.State == casebook.StateSkipped && r.Source != "" && strings.HasPrefix(r.Origin, "crawl")
	}
	check := func(s *Store, when string) {
		t.Helper()
		for _, src := range sources {
			want := scanSubmissions(t, s, func(r *SubmissionRecord) bool { return listed(r) && (src == "" || r.Source == src) })
			c, err := s.CountSkipped(src)
			if err != nil {
				t.Fatal(err)
			}
			if all := len(scanSubmissions(t, s, listed)); c.Total != all {
				t.Fatalf("%s: total %d (asked with source %q), scan says %d", when, c.Total, src, all)
			}
			if src != "" && c.Source != len(want) {
				t.Fatalf("%s: count for source %q is %d, scan says %d (%v)", when, src, c.Source, len(want), want)
			}
			var walked []SubmissionRecord
			cursor := ""
			for page := 0; ; page++ {
				items, next, err := s.ListSkipped(src, cursor, 2)
				if err != nil {
					t.Fatal(err)
				}
				if cursor != "" && len(items) == 0 {
					t.Fatalf("%s: source %q: a cursor led to an empty page", when, src)
				}
				walked = append(walked, items...)
				if next == "" {
					break
				}
				if page > 20 {
					t.Fatal("paging does not end")
				}
				cursor = next
			}
			if got := subIDs(walked); !reflect.DeepEqual(got, sorted(want)) {
				t.Fatalf("%s: source %q lists %v, scan says %v", when, src, got, want)
			}
		}
	}
	create := func(u, origin, source string) string {
		t.Helper()
		rec, _, err := s.CreateSubmission(u, u, origin, source)
		if err != nil {
			t.Fatal(err)
		}
		return rec.ID
	}
	ok := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	for i := range 9 {
		src := []string{"blog-a", "blog-b", "blog-a"}[i%3]
		ids = append(ids, create(fmt.Sprintf("https://%s.example/%d", src, i), "crawl:"+src, src))
	}
	check(s, "created")
	manual := create("https://m.example/x", "manual", "")
	ok(s.MarkEnqueuedMany(ids))
	steps := []struct {
		name string
		do   func()
	}{
		{"gate skips", func() {
			for _, i := range []int{0, 1, 2, 4, 5} {
				ok(s.ProgressSkipped(ids[i], "guide: second person, no dated event", 0.05))
			}
		}},
		{"skip before the gate", func() { ok(s.Progress(ids[6], casebook.StateSkipped, "disallowed by robots.txt", "", "")) }},
		{"skip written again", func() {
			ok(s.Progress(ids[0], casebook.StateSkipped, "another reason", "", ""))
			ok(s.ProgressSkipped(ids[1], "again", 0.01))
			ok(s.MarkEnqueued(ids[2]))
		}},
		{"manual skip", func() { ok(s.Progress(manual, casebook.StateSkipped, "duplicate of case CB-0001", "", "")) }},
		{"drafted", func() {
			res, err := s.SaveDraft(DraftInput{SubmissionID: ids[3], CanonicalURL: "https://blog-a.example/3", Case: draftCase("drafted")})
			if err != nil || res.DraftID == "" {
				t.Fatal(res, err)
			}
		}},
		{"skip as a duplicate", func() {
			res, err := s.SaveDraft(DraftInput{SubmissionID: ids[7], CanonicalURL: "https://blog-a.example/3", Case: draftCase("again")})
			if err != nil || res.DuplicateOf == "" {
				t.Fatal(res, err)
			}
		}},
		{"redraft", func() {
			_, err := s.RedraftSkipped(ids[4], "rita")
			ok(err)
		}},
		{"redrafted post skipped again", func() { ok(s.Progress(ids[4], casebook.StateSkipped, "duplicate", "", "")) }},
		{"failed, reopened, re-submitted", func() {
			ok(s.Progress(ids[8], casebook.StateFailed, "", "boom", ""))
			ok(s.Reopen(ids[8], "fetch"))
			ok(s.Progress(ids[8], casebook.StateFailed, "", "boom", ""))
			again := create("https://blog-a.example/8", "crawl:blog-a", "blog-a") // a failed URL is tried afresh
			ok(s.ProgressSkipped(again, "release notes", 0.1))
			if same := create("https://blog-a.example/8", "manual", ""); same != again { // a skipped URL is not
				t.Fatalf("re-submitting a skipped URL made %s, want %s", same, again)
			}
		}},
		{"redraft of the newest and the oldest", func() {
			for _, i := range []int{0, 6} {
				_, err := s.RedraftSkipped(ids[i], "rita")
				ok(err)
			}
		}},
	}
	for _, st := range steps {
		st.do()
		check(s, st.name)
	}
	if c, _ := s.CountSkipped("blog-a"); c.Total == 0 || c.Source == 0 {
		t.Fatalf("the sequence left nothing skipped to count: %+v", c)
	}

	s2 := reopenAsOlder(t, s, metaSubIndexVersion, bSubSkipped, bSubSkippedCount)
	check(s2, "after upgrade")
	// A store at the version before the skipped set, with counts gone wrong.
	path := s2.db.Path()
	ok(s2.db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bSubSkippedCount).Put(skippedAllKey, seqKey(99)); err != nil {
			return err
		}
		return tx.Bucket(bMeta).Put(metaSubIndexVersion, []byte("1"))
	}))
	s2.Close()
	s3, err := Open(path, Options{})
	ok(err)
	defer s3.Close()
	check(s3, "after upgrade from version 1")
}

func sorted(ids []string) []string {
	out := append([]string{}, ids...)
	sort.Strings(out)
	return out
}

// BenchmarkSubmissionWrites is the cost of the writes one crawled post
// makes on its way (queued, enqueued, fetching, skipped, drafted from the
// skipped list), beside the peer: the same writes without the skipped set
// and counts (putSubmission before them). "in-tx" puts 200 posts in one
// transaction without fsync, to see the added work itself; "committed"
// gives each write its own transaction, as the pipeline does.
//
//	go test -run '^$' -bench SubmissionWrites ./sinks
func BenchmarkSubmissionWrites(b *testing.B) {
	for _, v := range []struct {
		name string
		put  func(*bolt.Tx, *SubmissionRecord) error
	}{
		{"putSubmission", putSubmission},
		{"without-skipped-count-peer", func(tx *bolt.Tx, r *SubmissionRecord) error {
			if err := putJSON(tx.Bucket(bSubmissions), []byte(r.ID), r); err != nil {
				return err
			}
			return indexUnfinished(tx, r)
		}},
	} {
		for _, mode := range []struct {
			name  string
			posts int
			each  bool // one transaction per write
		}{{"in-tx", 200, false}, {"committed", 1, true}} {
			b.Run(mode.name+"/"+v.name, func(b *testing.B) {
				s, err := Open(b.TempDir()+"/casebook.db", Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				s.db.NoSync = !mode.each // without commits, the fsync would drown the difference
				lifecycle := func(r *SubmissionRecord, put func(*SubmissionRecord) error) error {
					for _, step := range []func(){
						func() {},
						func() { r.Enqueued = true },
						func() { r.State = casebook.StateFetching },
						func() {
							r.State, r.Reason, r.Score = casebook.StateSkipped, "guide: second person, no dated event", 0.05
						},
						func() { r.State, r.Origin, r.Enqueued = casebook.StateQueued, OriginReview, false },
					} {
						step()
						if err := put(r); err != nil {
							return err
						}
					}
					return nil
				}
				post := func(i int) SubmissionRecord {
					return SubmissionRecord{Submission: casebook.Submission{ID: fmt.Sprintf("sub-%08d", i+1), URL: fmt.Sprintf("https://b.example/%d", i),
						State: casebook.StateQueued, CreatedAt: "2026-01-01T00:00:00Z", UpdatedAt: "2026-01-01T00:00:00Z", Origin: "crawl:b"},
						CanonicalURL: fmt.Sprintf("https://b.example/%d", i), Source: "b"}
				}
				for b.Loop() {
					var err error
					if mode.each {
						r := post(0)
						err = lifecycle(&r, func(r *SubmissionRecord) error {
							return s.db.Update(func(tx *bolt.Tx) error { return v.put(tx, r) })
						})
					} else {
						err = s.db.Update(func(tx *bolt.Tx) error {
							for i := range mode.posts {
								r := post(i)
								if err := lifecycle(&r, func(r *SubmissionRecord) error { return v.put(tx, r) }); err != nil {
									return err
								}
							}
							return nil
						})
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
