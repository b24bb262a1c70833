package sinks

import (
	"slices"
	"testing"
	"time"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// A published case's history and source text come from the ids it had
// before (its draft, a draft merged into it), oldest first; a store written
// before the reverse alias bucket existed answers the same once reopened.
func TestHistoryAcrossEarlierIDs(t *testing.T) {
	s := openTemp(t)
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { clock = clock.Add(time.Minute); return clock }
	save := func(u, text string) string {
		rec, _, err := s.CreateSubmission(u, u, "manual", "")
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: u, ContentHash: u, Text: text,
			Case: &casebook.Case{Title: "Disk full", Language: "en", RootCause: casebook.RootCause{Category: "capacity", Description: "The disk filled up."}, Sources: []casebook.Source{{URL: u}}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.DraftID
	}
	first := save("https://a.example/disk", "first source text")
	mirror := save("https://b.example/disk", "mirror text") // drafted before the approval
	pub, err := s.Approve(first, "rita", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Merge(mirror, pub.ID, "rita", "same incident"); err != nil {
		t.Fatal(err)
	}
	check := func(s *Store, when string) {
		t.Helper()
		h, err := s.History(pub.ID)
		if err != nil {
			t.Fatal(err)
		}
		var actions []string
		for i, ch := range h {
			actions = append(actions, ch.Action)
			if i > 0 && ch.At < h[i-1].At {
				t.Fatalf("%s: history out of order at %d: %+v", when, i, h)
			}
		}
		if !slices.Contains(actions, "drafted") || !slices.Contains(actions, "approved") || !slices.Contains(actions, "merged") || actions[0] != "drafted" {
			t.Fatalf("%s: history actions %v", when, actions)
		}
		if got := s.SourceText(pub.ID); got != "first source text" {
			t.Fatalf("%s: source text of %s = %q", when, pub.ID, got)
		}
	}
	check(s, "as written")

	s2 := reopenAsOlder(t, s, metaAliasesOfVersion, bAliasesOf)
	check(s2, "after upgrade")
}

// reopenAsOlder makes s look like a store an older casebook wrote (without
// the derived buckets named and their version mark), closes it and opens it
// again, so the upgrade runs.
func reopenAsOlder(t *testing.T, s *Store, version []byte, buckets ...[]byte) *Store {
	t.Helper()
	path := s.db.Path()
	if err := s.db.Update(func(tx *bolt.Tx) error {
		for _, b := range buckets {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
		}
		return tx.Bucket(bMeta).Delete(version)
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	return s2
}
