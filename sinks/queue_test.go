package sinks

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// referenceCounts is the queue's counts under each filter, computed the
// slow, obvious way: decode every draft and look its duplicates up afresh.
func referenceCounts(t *testing.T, s *Store, filters []QueueFilter) []QueueCounts {
	t.Helper()
	now := s.now()
	out := make([]QueueCounts, len(filters))
	for i := range out {
		out[i] = QueueCounts{ByLanguage: map[string]int{}, BySource: map[string]int{}}
	}
	err := s.db.View(func(tx *bolt.Tx) error {
		cases := tx.Bucket(bCases)
		return tx.Bucket(bDraftQueue).ForEach(func(_, v []byte) error {
			var c casebook.Case
			if getJSON(cases, v, &c) != nil || c.Status != casebook.StatusDraft {
				return nil
			}
			dup := len(duplicatesTx(tx, &c, 1)) > 0
			for i, f := range filters {
				counts := &out[i]
				counts.Total++
				counts.ByLanguage[c.Language]++
				if h := SourceHost(&c); h != "" {
					counts.BySource[h]++
				}
				if c.Relevance.Flagged {
					counts.Flagged++
				}
				if dup {
					counts.Duplicates++
				}
				if f.Match(&c, now) {
					counts.Matched++
				}
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// incidentText is incident k's text, distinct from every other incident's;
// variant v changes its last words, so texts of one incident stay
// near-duplicates of each other.
func incidentText(k, v int) (title, cause string) {
	r := rand.New(rand.NewPCG(uint64(k), 1))
	var b strings.Builder
	for range 60 {
		fmt.Fprintf(&b, "w%d ", r.IntN(500))
	}
	fmt.Fprintf(&b, "variant %d of incident %d.", v, k)
	return fmt.Sprintf("Incident %d", k), b.String()
}

// TestQueueCountsMatchReference drives a store through random saves, edits,
// approvals, rejections and merges of near-duplicate and distinct drafts,
// and after every step compares the queue's counts (kept incrementally)
// with counts computed from scratch.
func TestQueueCountsMatchReference(t *testing.T) {
	s := openTemp(t)
	rng := rand.New(rand.NewPCG(7, 11))
	flaggedOnly, ru := true, QueueFilter{Language: "ru", Source: "blog1"}
	filters := []QueueFilter{{}, ru, {Flagged: &flaggedOnly}, {MinRelevance: 0.5}, {NewerThan: time.Hour}}
	var drafts, published []string
	sawMix := false
	langs := []string{"en", "ru", "zh"}
	for step := range 160 {
		op := rng.IntN(10)
		switch {
		case op < 5 || len(drafts) == 0: // save
			u := fmt.Sprintf("https://blog%d.example/p/%d", step%3, step)
			rec, _, err := s.CreateSubmission(u, u, "crawl:t", "t")
			if err != nil {
				t.Fatal(err)
			}
			title, cause := incidentText(rng.IntN(12), rng.IntN(3))
			c := &casebook.Case{Title: title, Language: langs[rng.IntN(3)],
				RootCause: casebook.RootCause{Category: "configuration", Description: cause},
				Sources:   []casebook.Source{{URL: u, Site: fmt.Sprintf("Blog %d", step%3)}},
				Relevance: casebook.Relevance{Score: float64(rng.IntN(10)) / 10, Flagged: rng.IntN(3) == 0}}
			res, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: u, ContentHash: fmt.Sprint("h", step), Case: c})
			if err != nil {
				t.Fatal(err)
			}
			if res.DraftID != "" && res.DuplicateOf == "" {
				drafts = append(drafts, res.DraftID)
			}
		case op < 7: // edit a draft or a published case to another incident's text
			pool := drafts
			if len(published) > 0 && rng.IntN(2) == 0 {
				pool = published
			}
			id := pool[rng.IntN(len(pool))]
			_, cause := incidentText(rng.IntN(12), rng.IntN(3))
			if _, _, err := s.EditCase(id, "rita", "", func(c *casebook.Case) error { c.RootCause.Description = cause; return nil }); err != nil {
				t.Fatal(err)
			}
		case op < 8: // approve, sometimes with an edit
			i := rng.IntN(len(drafts))
			var edit func(*casebook.Case) error
			if rng.IntN(2) == 0 {
				_, cause := incidentText(rng.IntN(12), 9)
				edit = func(c *casebook.Case) error { c.RootCause.Description = cause; return nil }
			}
			c, err := s.Approve(drafts[i], "rita", "", edit)
			if err != nil {
				t.Fatal(err)
			}
			published = append(published, c.ID)
			drafts = append(drafts[:i], drafts[i+1:]...)
		case op < 9: // reject
			i := rng.IntN(len(drafts))
			if _, err := s.Reject(drafts[i], "rita", "not useful"); err != nil {
				t.Fatal(err)
			}
			drafts = append(drafts[:i], drafts[i+1:]...)
		default: // merge into a published case
			if len(published) == 0 {
				continue
			}
			i := rng.IntN(len(drafts))
			if _, err := s.Merge(drafts[i], published[rng.IntN(len(published))], "rita", ""); err != nil {
				t.Fatal(err)
			}
			drafts = append(drafts[:i], drafts[i+1:]...)
		}
		want := referenceCounts(t, s, filters)
		for i, f := range filters {
			_, _, got, err := s.ListQueue(f, "", 10)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want[i]) {
				t.Fatalf("step %d (op %d), filter %+v:\n got %+v\nwant %+v", step, op, f, got, want[i])
			}
			sawMix = sawMix || (got.Duplicates > 0 && got.Duplicates < got.Total)
		}
	}
	_, _, counts, _ := s.ListQueue(QueueFilter{}, "", 10)
	if !sawMix {
		t.Fatalf("the walk never mixed drafts with and without duplicates: %+v", counts)
	}
	t.Logf("final queue %+v, %d published", counts, len(published))
}

// A store written before queue entries existed gets them when opened.
func TestQueueEntriesBuiltOnUpgrade(t *testing.T) {
	s := openTemp(t)
	for i := range 3 {
		u := fmt.Sprintf("https://old.example/%d", i)
		rec, _, _ := s.CreateSubmission(u, u, "manual", "")
		_, cause := incidentText(1, i)
		if _, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: u, Case: &casebook.Case{Title: "t", Language: "en", RootCause: casebook.RootCause{Category: "expiry", Description: cause}, Sources: []casebook.Source{{URL: u}}}}); err != nil {
			t.Fatal(err)
		}
	}
	s2 := reopenAsOlder(t, s, metaQueueVersion, bQueue, bQueueDup)
	_, _, counts, err := s2.ListQueue(QueueFilter{}, "", 10)
	if err != nil || counts.Total != 3 || counts.Duplicates != 3 {
		t.Fatalf("after upgrade: %+v %v (want 3 drafts, all near-duplicates)", counts, err)
	}
}
