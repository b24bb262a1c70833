package sinks

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// dumpIndexes copies every key and value of the derived index buckets.
func dumpIndexes(t *testing.T, s *Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := s.db.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bIdx, bIdxCount, bTerms, bTermDF, bCards} {
			if err := tx.Bucket(b).ForEach(func(k, v []byte) error {
				out[string(b)+"|"+string(k)] = string(v)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// longSteps is a remediation list of n made-up steps with distinct words.
func longSteps(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("Rotated the zq%dvex keys on the wbl%dnor hosts and drained pool %d", i, i, i)
	}
	return out
}

// TestEditReindexWritesOnlyWhatChanged: re-indexing an edited published
// case writes the entries that differ, not all of them (an edit of the
// title of a case with a long remediation list used to delete and re-put
// every term), and leaves the same indexes a full rebuild makes.
func TestEditReindexWritesOnlyWhatChanged(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	big := sample("Broker disks filled up", "Acme", "en", "capacity", 2024, []string{"message-queue", "storage"}, []string{"kafka"}, "Retained segments filled the broker disks.")
	big.Remediation = longSteps(100)
	ids, err := s.Import([]*casebook.Case{big}, "test")
	if err != nil {
		t.Fatal(err)
	}
	id := ids[0]
	before, _, err := s.GetCase(id)
	if err != nil {
		t.Fatal(err)
	}
	full := 2*len(indexPairs(before)) + 2*len(termWeights(before))

	for _, tc := range []struct {
		name string
		edit func(*casebook.Case)
		max  int // keys written or deleted
	}{
		{"title", func(c *casebook.Case) { c.Title = "Broker disks ran full" }, 8},
		{"tag", func(c *casebook.Case) { c.Tags = []string{"kafka", "kubernetes"} }, 8},
		{"one step", func(c *casebook.Case) { c.Remediation[7] = "Rotated the keys again" }, 12},
		{"nothing indexed", func(c *casebook.Case) { c.Lessons = []string{"Watch the disks"} }, 0},
		// Over 65,535 the stored weight is capped, so the case is recounted.
		{"capped term", func(c *casebook.Case) { c.Symptoms = strings.Repeat("qqzz ", 70000) }, 4},
		{"edit beside a capped term", func(c *casebook.Case) { c.Title = "Broker disks ran full qqzz" }, 8},
		{"capped term gone", func(c *casebook.Case) { c.Symptoms = "Producers timed out." }, 8},
	} {
		var n int
		err := s.db.Update(func(tx *bolt.Tx) error {
			var cur casebook.Case
			if err := getJSON(tx.Bucket(bCases), []byte(id), &cur); err != nil {
				return err
			}
			after := cur
			after.Remediation = append([]string(nil), cur.Remediation...)
			tc.edit(&after)
			var err error
			n, err = reindexTx(tx, &cur, &after)
			if err != nil {
				return err
			}
			return putJSON(tx.Bucket(bCases), []byte(id), after)
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if n > tc.max {
			t.Errorf("%s: %d index keys written, want at most %d (a full re-index is %d)", tc.name, n, tc.max, full)
		}
	}

	sameAsRebuild(t, s)

	// Through the store, then against a rebuild from the cases alone.
	if _, _, err := s.EditCase(id, "alice", "", func(c *casebook.Case) error {
		c.Summary = "Retained segments filled every broker disk."
		c.Remediation = append(longSteps(50), "Added a disk alert")
		c.Components = []string{"storage"}
		c.Organization = "Acme Corp"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sameAsRebuild(t, s)
	if res, _ := s.Search("wbl49nor", "", 10); len(res.Items) != 1 {
		t.Fatalf("kept step not searchable: %v", res.Items)
	}
	if res, _ := s.Search("wbl77nor", "", 10); len(res.Items) != 0 {
		t.Fatalf("dropped step still searchable: %v", res.Items)
	}
}

// sameAsRebuild fails when the indexes differ from those a rebuild from the
// stored cases makes (and leaves the rebuilt ones).
func sameAsRebuild(t *testing.T, s *Store) {
	t.Helper()
	got := dumpIndexes(t, s)
	if err := s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bMeta).Put(metaIndexVersion, []byte("stale")); err != nil {
			return err
		}
		return upgradeIndexes(tx)
	}); err != nil {
		t.Fatal(err)
	}
	want := dumpIndexes(t, s)
	if !maps.Equal(got, want) {
		var diff []string
		for k, v := range want {
			if got[k] != v {
				diff = append(diff, "want "+k)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				diff = append(diff, "extra "+k)
			}
		}
		t.Fatalf("incremental indexes differ from a rebuild (%d keys):\n%s", len(diff), strings.Join(diff[:min(len(diff), 20)], "\n"))
	}
}
