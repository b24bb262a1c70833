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
var (
	bQueue = []byte("queue_entries") // draft id -> queueEntry
	// bQueueDup names, for a queued draft, a case it duplicates: found when
	// the draft was saved or edited, or when a later near-duplicate found
	// it. ListQueue re-checks the case is still live (not rejected or
	// merged) and looks again if not. Kept apart from the entry so checking
	// it is one read, not a decode.
	bQueueDup = []byte("queue_dup_of") // draft id -> case id
)

func init() { allBuckets = append(allBuckets, bQueue, bQueueDup) }

type queueEntry struct {
	Language string   `json:"l,omitempty"`
	Host     string   `json:"h,omitempty"`  // first source's host, for the by-source facet
	Hosts    []string `json:"hs,omitempty"` // every source's host, lower case
	Sites    []string `json:"ss,omitempty"` // every source's site name, lower case
	Score    float64  `json:"r"`
	Flagged  bool     `json:"f,omitempty"`
	Created  string   `json:"c,omitempty"`
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

// putQueueEntry records draft c's queue entry and a case it duplicates, and
// marks the queued drafts it is a near-duplicate of that had none as having
// c (the relation goes both ways). Call it after c's signature is stored.
func putQueueEntry(tx *bolt.Tx, c *casebook.Case) error {
	if err := putJSON(tx.Bucket(bQueue), []byte(c.ID), newQueueEntry(c)); err != nil {
		return err
	}
	own := ""
	if d := findDuplicates(tx, c, 1, false, false); len(d) > 0 {
		own = d[0].ID // same canonical URL or content hash
	}
	near, err := linkNear(tx, c, own == "")
	if err != nil {
		return err
	}
	if own == "" {
		own = near
	}
	return setDupOf(tx, c.ID, own)
}

// markDuplicates records c as the duplicate of each queued draft it is a
// near-duplicate of that has none recorded (after an edit or an approval).
func markDuplicates(tx *bolt.Tx, c *casebook.Case) error {
	_, err := linkNear(tx, c, false)
	return err
}

func dupOf(tx *bolt.Tx, id string) string { return string(tx.Bucket(bQueueDup).Get([]byte(id))) }

func setDupOf(tx *bolt.Tx, id, of string) error {
	if of == "" {
		return tx.Bucket(bQueueDup).Delete([]byte(id))
	}
	return tx.Bucket(bQueueDup).Put([]byte(id), []byte(of))
}

// linkNear walks c's near-duplicate candidates once. Each queued draft with
// no duplicate recorded that is near enough gets c as its duplicate; a draft
// that has one is left alone even if that one has since gone (ListQueue then
// looks again and finds c), so a draft with hundreds of mirrors costs a read
// each. With wantOwn it also returns a live near-duplicate of c, if any.
func linkNear(tx *bolt.Tx, c *casebook.Case, wantOwn bool) (own string, err error) {
	sig := sigOf(tx, c)
	if sig == nil {
		return "", nil
	}
	qb, sigs := tx.Bucket(bQueue), tx.Bucket(bDupSig)
	for id := range nearCandidates(tx, sig) {
		if id == c.ID {
			continue
		}
		mark := dupOf(tx, id) == "" && qb.Get([]byte(id)) != nil
		if !mark && (!wantOwn || own != "") {
			continue
		}
		if raw := sigs.Get([]byte(id)); raw == nil || similarity(sig, decodeSig(raw)) < NearDuplicate {
			continue
		}
		if own == "" && wantOwn && liveCase(tx, id) {
			own = id
		}
		if mark {
			if err := setDupOf(tx, id, c.ID); err != nil {
				return "", err
			}
		}
	}
	return own, nil
}

// refreshPointers recomputes the entries of the drafts in prev (the
// duplicates case id had before an edit) that named id as their duplicate:
// the edit may have made them distinct.
func refreshPointers(tx *bolt.Tx, prev []Duplicate, id string) error {
	cases := tx.Bucket(bCases)
	id = resolveAlias(tx, id)
	for _, d := range prev {
		if d.ID == id || resolveAlias(tx, dupOf(tx, d.ID)) != id {
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

func delQueueEntry(tx *bolt.Tx, id string) error {
	if err := tx.Bucket(bQueueDup).Delete([]byte(id)); err != nil {
		return err
	}
	return tx.Bucket(bQueue).Delete([]byte(id))
}

// liveCase reports whether case id is a draft or a published case, reading
// only the head of its record. A draft approved since has no record of its
// own and answers as the case it became; a merged one is not live, although
// its id redirects to the case it was merged into.
func liveCase(tx *bolt.Tx, id string) bool {
	if id == "" {
		return false
	}
	cases := tx.Bucket(bCases)
	raw := cases.Get([]byte(id))
	if raw == nil {
		raw = cases.Get([]byte(resolveAlias(tx, id)))
	}
	if raw == nil {
		return false
	}
	st, err := statusOf(raw)
	return err == nil && (st == casebook.StatusDraft || st == casebook.StatusPublished)
}

// hasDuplicate answers from the recorded duplicate, and falls back to a
// full lookup only when that one has since been rejected or merged.
func hasDuplicate(tx *bolt.Tx, id string) bool {
	of := dupOf(tx, id)
	if of == "" {
		return false
	}
	if liveCase(tx, of) {
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
	for _, b := range [][]byte{bQueue, bQueueDup} {
		if err := tx.DeleteBucket(b); err != nil && err != bolt.ErrBucketNotFound {
			return err
		}
		if _, err := tx.CreateBucket(b); err != nil {
			return err
		}
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
