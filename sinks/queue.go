package sinks

import (
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// bQueue holds, for each draft awaiting review, the few facts the review
// queue's counts and filters read. Listing a queue of thousands of drafts
// then reads these small records instead of decoding every draft and
// running a duplicate lookup for each (2–4 s for 5,000 drafts before).
var bQueue = []byte("queue_entries") // draft id -> queueEntry

func init() { allBuckets = append(allBuckets, bQueue) }

type queueEntry struct {
	Language string   `json:"l,omitempty"`
	Host     string   `json:"h,omitempty"`  // first source's host, for the by-source facet
	Hosts    []string `json:"hs,omitempty"` // every source's host, lower case
	Sites    []string `json:"ss,omitempty"` // every source's site name, lower case
	Score    float64  `json:"r"`
	Flagged  bool     `json:"f,omitempty"`
	Created  string   `json:"c,omitempty"`
	// DupOf is a case this draft duplicates, found when the draft was saved
	// or edited, or when a later draft found it. ListQueue re-checks it is
	// still live (not rejected or merged) and looks again if not.
	DupOf string `json:"d,omitempty"`
}

func newQueueEntry(c *casebook.Case) queueEntry {
	e := queueEntry{Language: c.Language, Host: SourceHost(c), Score: c.Relevance.Score, Flagged: c.Relevance.Flagged, Created: c.CreatedAt}
	for _, s := range c.Sources {
		host := ""
		if u, err := url.Parse(s.URL); err == nil {
			host = strings.ToLower(u.Host)
		}
		e.Hosts = append(e.Hosts, host)
		e.Sites = append(e.Sites, strings.ToLower(s.Site))
	}
	return e
}

// putQueueEntry records draft c's queue entry and its duplicate, and marks
// the drafts it duplicates as having one too (the relation goes both ways).
// Call it after c's signature is stored.
func putQueueEntry(tx *bolt.Tx, c *casebook.Case) error {
	e := newQueueEntry(c)
	dups := duplicateRefsTx(tx, c, 0)
	if len(dups) > 0 {
		e.DupOf = dups[0].ID
	}
	if err := putJSON(tx.Bucket(bQueue), []byte(c.ID), e); err != nil {
		return err
	}
	return markDuplicates(tx, c.ID, dups)
}

// markDuplicates points the queue entries of the drafts among dups that
// have no live duplicate at id, which they duplicate.
func markDuplicates(tx *bolt.Tx, id string, dups []Duplicate) error {
	qb := tx.Bucket(bQueue)
	for _, d := range dups {
		if d.Status != casebook.StatusDraft {
			continue
		}
		var other queueEntry
		if getJSON(qb, []byte(d.ID), &other) != nil || liveCase(tx, other.DupOf) {
			continue
		}
		other.DupOf = id
		if err := putJSON(qb, []byte(d.ID), other); err != nil {
			return err
		}
	}
	return nil
}

// refreshPointers recomputes the entries of the drafts in prev (the
// duplicates case id had before an edit) that named id as their duplicate:
// the edit may have made them distinct.
func refreshPointers(tx *bolt.Tx, prev []Duplicate, id string) error {
	qb, cases := tx.Bucket(bQueue), tx.Bucket(bCases)
	id = resolveAlias(tx, id)
	for _, d := range prev {
		var e queueEntry
		if d.ID == id || getJSON(qb, []byte(d.ID), &e) != nil || resolveAlias(tx, e.DupOf) != id {
			continue
		}
		var c casebook.Case
		if getJSON(cases, []byte(d.ID), &c) != nil || c.Status != casebook.StatusDraft {
			continue
		}
		if err := putQueueEntry(tx, &c); err != nil {
			return err
		}
	}
	return nil
}

func delQueueEntry(tx *bolt.Tx, id string) error { return tx.Bucket(bQueue).Delete([]byte(id)) }

// liveCase reports whether id (following aliases) is a draft or a published
// case, reading only the head of its record.
func liveCase(tx *bolt.Tx, id string) bool {
	if id == "" {
		return false
	}
	raw := tx.Bucket(bCases).Get([]byte(resolveAlias(tx, id)))
	if raw == nil {
		return false
	}
	st, err := statusOf(raw)
	return err == nil && (st == casebook.StatusDraft || st == casebook.StatusPublished)
}

// hasDuplicate answers from the entry, and falls back to a full lookup only
// when the duplicate it names has since been rejected or merged.
func hasDuplicate(tx *bolt.Tx, id string, e *queueEntry) bool {
	if e.DupOf == "" {
		return false
	}
	if liveCase(tx, e.DupOf) {
		return true
	}
	var c casebook.Case
	if getJSON(tx.Bucket(bCases), []byte(id), &c) != nil {
		return false
	}
	return len(duplicateRefsTx(tx, &c, 1)) > 0
}

// rebuildQueue recomputes every draft's entry (store upgrades).
func rebuildQueue(tx *bolt.Tx) error {
	if err := tx.DeleteBucket(bQueue); err != nil && err != bolt.ErrBucketNotFound {
		return err
	}
	if _, err := tx.CreateBucket(bQueue); err != nil {
		return err
	}
	cases := tx.Bucket(bCases)
	return tx.Bucket(bDraftQueue).ForEach(func(_, v []byte) error {
		raw := cases.Get(v)
		if raw == nil {
			return nil
		}
		var c casebook.Case
		if err := json.Unmarshal(raw, &c); err != nil || c.Status != casebook.StatusDraft {
			return nil
		}
		return putQueueEntry(tx, &c)
	})
}

// match applies the filter to an entry; Match applies it to a whole case.
func (f QueueFilter) match(e *queueEntry, now time.Time) bool {
	if f.Language != "" && e.Language != f.Language {
		return false
	}
	if f.Source != "" {
		want, ok := strings.ToLower(f.Source), false
		for i := range e.Hosts {
			if strings.Contains(e.Hosts[i], want) || strings.Contains(e.Sites[i], want) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if e.Score < f.MinRelevance || (f.MaxRelevance > 0 && e.Score > f.MaxRelevance) {
		return false
	}
	if f.Flagged != nil && e.Flagged != *f.Flagged {
		return false
	}
	if f.OlderThan > 0 || f.NewerThan > 0 {
		t, err := time.Parse(time.RFC3339, e.Created)
		if err != nil {
			return false
		}
		age := now.Sub(t)
		if (f.OlderThan > 0 && age < f.OlderThan) || (f.NewerThan > 0 && age > f.NewerThan) {
			return false
		}
	}
	return true
}
