package sinks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/fetch"
	bolt "go.etcd.io/bbolt"
)

func jsonUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }

// DraftInput is what the sink stage hands the store.
type DraftInput struct {
	SubmissionID string
	CanonicalURL string
	ContentHash  string
	Case         *casebook.Case
	// Text is the extracted main text the evidence spans point into; kept
	// (bounded) for the review page. Optional.
	Text string
}

// DraftResult says what SaveDraft did.
type DraftResult struct {
	DraftID     string // the draft created, or the one this submission already had
	DuplicateOf string // set when an existing case has the same URL or content
}

// SaveDraft stores a new draft for a submission and marks the submission
// drafted, in one transaction. It is idempotent: a redelivered sink message
// for the same submission returns the draft made the first time, and a page
// whose canonical URL or content hash is already a case becomes a duplicate
// of that case instead of a second draft.
func (s *Store) SaveDraft(in DraftInput) (res DraftResult, err error) {
	err = s.db.Batch(func(tx *bolt.Tx) error {
		res = DraftResult{}
		subs := tx.Bucket(bSubmissions)
		var sub SubmissionRecord
		if err := getJSON(subs, []byte(in.SubmissionID), &sub); err != nil {
			return fmt.Errorf("submission %s: %w", in.SubmissionID, err)
		}
		if sub.DraftID != "" {
			res.DraftID = sub.DraftID
			return nil
		}
		if sub.Terminal() {
			return nil
		}
		for _, look := range []struct {
			b   []byte
			key string
		}{{bCaseByURL, in.CanonicalURL}, {bCaseByHash, in.ContentHash}} {
			if look.key == "" {
				continue
			}
			if id := tx.Bucket(look.b).Get([]byte(look.key)); id != nil {
				other := resolveAlias(tx, string(id))
				if bytes.Equal(look.b, bCaseByHash) && !sameSiteAs(tx, other, in.CanonicalURL) {
					// The same bytes on another site may be a copy or the
					// original: the reviewer decides (it is listed among
					// the draft's duplicates), the pipeline does not.
					continue
				}
				res.DuplicateOf = other
				sub.State, sub.Reason, sub.DraftID = casebook.StateSkipped, "duplicate of case "+res.DuplicateOf, res.DuplicateOf
				sub.UpdatedAt = s.stamp()
				return putSubmission(tx, &sub)
			}
		}
		n, err := nextCounter(tx, "draft")
		if err != nil {
			return err
		}
		c := *in.Case
		c.ID = fmt.Sprintf("draft-%06d", n)
		c.Status = casebook.StatusDraft
		now := s.stamp()
		c.CreatedAt, c.UpdatedAt = now, now
		c.Related = nil
		c.Normalize()
		if err := putJSON(tx.Bucket(bCases), []byte(c.ID), c); err != nil {
			return err
		}
		if err := tx.Bucket(bDraftQueue).Put(seqKey(n), []byte(c.ID)); err != nil {
			return err
		}
		if err := tx.Bucket(bCaseSub).Put([]byte(c.ID), []byte(sub.ID)); err != nil {
			return err
		}
		if in.CanonicalURL != "" {
			if err := tx.Bucket(bCaseByURL).Put([]byte(in.CanonicalURL), []byte(c.ID)); err != nil {
				return err
			}
		}
		if in.ContentHash != "" && tx.Bucket(bCaseByHash).Get([]byte(in.ContentHash)) == nil {
			if err := tx.Bucket(bCaseByHash).Put([]byte(in.ContentHash), []byte(c.ID)); err != nil {
				return err
			}
		}
		if err := addHistory(tx, c.ID, Change{At: now, By: "pipeline", Action: "drafted", Note: sub.URL}); err != nil {
			return err
		}
		if err := saveDraftExtras(tx, &c, in.Text); err != nil {
			return err
		}
		if err := putQueueEntry(tx, &c); err != nil {
			return err
		}
		sub.State, sub.DraftID, sub.Reason, sub.Error, sub.Attempts = casebook.StateDrafted, c.ID, "", "", 0
		if c.Relevance.Flagged {
			// A post under the skip edge is drafted only because a person
			// asked (a manual submission, "draft it"): the gate was not
			// unsure of it, and the reason must not say so.
			judged := "uncertain"
			if c.Relevance.Band == "not-incident" {
				judged = "judged no incident, drafted as asked"
			}
			sub.Reason = fmt.Sprintf("flagged: relevance %.2f %s (%s)", c.Relevance.Score, judged, c.Relevance.Reason)
		}
		sub.UpdatedAt = now
		res.DraftID = c.ID
		return putSubmission(tx, &sub)
	})
	return res, err
}

func resolveAlias(tx *bolt.Tx, id string) string {
	for i := 0; i < 8; i++ { // bounded: aliases never chain deeper in practice
		next := tx.Bucket(bAliases).Get([]byte(id))
		if next == nil {
			return id
		}
		id = string(next)
	}
	return id
}

// GetCase returns a case by id, following aliases (a draft's id keeps
// answering after approval or merge). resolved is the id actually found.
func (s *Store) GetCase(id string) (c *casebook.Case, resolved string, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		resolved = resolveAlias(tx, id)
		c = new(casebook.Case)
		return getJSON(tx.Bucket(bCases), []byte(resolved), c)
	})
	if err != nil {
		return nil, "", fmt.Errorf("case %s: %w", id, err)
	}
	return c, resolved, nil
}

// SubmissionOf returns the submission a case was drafted from.
func (s *Store) SubmissionOf(caseID string) string {
	var id string
	_ = s.db.View(func(tx *bolt.Tx) error {
		id = string(tx.Bucket(bCaseSub).Get([]byte(caseID)))
		return nil
	})
	return id
}

// page walks bucket b (seq -> case id) newest first, strictly below cursor,
// keeping cases for which keep returns true. The cursor is the seq of the
// last item returned, so pages stay stable while new cases are added.
func (s *Store) page(b []byte, cursor string, limit int, keep func(*casebook.Case) bool) ([]casebook.Case, string, error) {
	out := []casebook.Case{}
	next := ""
	err := s.db.View(func(tx *bolt.Tx) error {
		cases := tx.Bucket(bCases)
		c := tx.Bucket(b).Cursor()
		var k, v []byte
		if cursor == "" {
			k, v = c.Last()
		} else {
			seq, err := decodeCursor(cursor)
			if err != nil {
				return err
			}
			if k, _ = c.Seek(seqKey(seq)); k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
		}
		var lastKey []byte
		for ; k != nil; k, v = c.Prev() {
			var cs casebook.Case
			if err := getJSON(cases, v, &cs); err != nil {
				continue // index entry of a case that moved on (an approved draft)
			}
			if keep != nil && !keep(&cs) {
				continue
			}
			if len(out) == limit {
				next = encodeCursor(lastKey)
				break
			}
			out = append(out, cs)
			lastKey = append(lastKey[:0], k...)
		}
		return nil
	})
	return out, next, err
}

// ListDrafts pages through drafts awaiting review, newest first.
func (s *Store) ListDrafts(cursor string, limit int, keep func(*casebook.Case) bool) ([]casebook.Case, string, error) {
	return s.page(bDraftQueue, cursor, limit, func(c *casebook.Case) bool {
		return c.Status == casebook.StatusDraft && (keep == nil || keep(c))
	})
}

// ListPublished pages through published cases, newest first.
func (s *Store) ListPublished(cursor string, limit int, keep func(*casebook.Case) bool) ([]casebook.Case, string, error) {
	return s.page(bPublished, cursor, limit, func(c *casebook.Case) bool {
		return c.Status == casebook.StatusPublished && (keep == nil || keep(c))
	})
}

// EachPublished calls f for every published case in approval order.
func (s *Store) EachPublished(f func(*casebook.Case) error) error {
	return s.db.View(func(tx *bolt.Tx) error {
		cases := tx.Bucket(bCases)
		return tx.Bucket(bPublished).ForEach(func(k, v []byte) error {
			var cs casebook.Case
			if err := getJSON(cases, v, &cs); err != nil {
				return nil
			}
			if cs.Status != casebook.StatusPublished {
				return nil
			}
			return f(&cs)
		})
	})
}

// draftTx loads the draft id names (following aliases); anything but a
// draft is ErrConflict, an unknown id ErrNotFound.
func draftTx(tx *bolt.Tx, id string) (casebook.Case, string, error) {
	cid := resolveAlias(tx, id)
	var c casebook.Case
	if err := getJSON(tx.Bucket(bCases), []byte(cid), &c); err != nil {
		return c, cid, fmt.Errorf("draft %s: %w", id, err)
	}
	if c.Status != casebook.StatusDraft {
		return c, cid, fmt.Errorf("%s is %s, not a draft: %w", cid, c.Status, ErrConflict)
	}
	return c, cid, nil
}

// Approve publishes a draft under the next CB-NNNN id. The draft id becomes
// an alias of the new id. edit, when non-nil, is applied first (a reviewer's
// changes) and must leave the case valid.
func (s *Store) Approve(id, by, note string, edit func(*casebook.Case) error) (*casebook.Case, error) {
	var out casebook.Case
	err := s.db.Update(func(tx *bolt.Tx) error {
		cases := tx.Bucket(bCases)
		c, draftID, err := draftTx(tx, id)
		if err != nil {
			return err
		}
		before := c
		var prevDups []Duplicate
		if edit != nil {
			prevDups = duplicateRefsTx(tx, &before, 0)
			if err := edit(&c); err != nil {
				return err
			}
		}
		n, err := nextCounter(tx, "case")
		if err != nil {
			return err
		}
		now := s.stamp()
		c.ID = fmt.Sprintf("CB-%04d", n)
		c.Status = casebook.StatusPublished
		c.Review = casebook.Review{DecidedBy: by, DecidedAt: now, Note: note}
		c.UpdatedAt = now
		if err := putJSON(cases, []byte(c.ID), c); err != nil {
			return err
		}
		if err := cases.Delete([]byte(draftID)); err != nil {
			return err
		}
		if err := delQueueEntry(tx, draftID); err != nil {
			return err
		}
		if err := putAlias(tx, draftID, c.ID); err != nil {
			return err
		}
		if err := tx.Bucket(bPublished).Put(seqKey(n), []byte(c.ID)); err != nil {
			return err
		}
		if err := repoint(tx, c.Sources, draftID, c.ID); err != nil {
			return err
		}
		if err := publishIndexes(tx, draftID, &c); err != nil {
			return err
		}
		if edit != nil {
			// The reviewer's edit may have made the case a duplicate of
			// other drafts, or no longer one.
			if err := markDuplicates(tx, &c); err != nil {
				return err
			}
			if err := refreshPointers(tx, prevDups, c.ID); err != nil {
				return err
			}
		}
		changed := diffFields(&before, &c)
		if err := addHistory(tx, c.ID, Change{At: now, By: by, Action: "approved", Note: note, Fields: changed, From: draftID}); err != nil {
			return err
		}
		out = c
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// sameSiteAs reports whether case id has a source on the same site as
// url; an unreadable case counts as the same site (the old, cautious skip).
func sameSiteAs(tx *bolt.Tx, id, url string) bool {
	var c casebook.Case
	if url == "" || getJSON(tx.Bucket(bCases), []byte(id), &c) != nil {
		return true
	}
	for _, src := range c.Sources {
		if src.URL == "" || fetch.SameSite(src.URL, url) {
			return true
		}
	}
	return false
}

// releaseSourceKeys deletes the canonical-URL and content-hash entries that
// still name case id, so a page it claimed can be drafted later.
func releaseSourceKeys(tx *bolt.Tx, sources []casebook.Source, id string) error {
	return moveSourceKeys(tx, sources, id, "")
}

// repoint moves the URL/hash entries of a case's sources and its submission
// link from one case id to another. Only the keys the sources name are
// touched, so an approval costs the same with 100 cases or 100,000.
func repoint(tx *bolt.Tx, sources []casebook.Source, from, to string) error {
	if err := moveSourceKeys(tx, sources, from, to); err != nil {
		return err
	}
	cs := tx.Bucket(bCaseSub)
	if sub := cs.Get([]byte(from)); sub != nil {
		if err := cs.Put([]byte(to), append([]byte(nil), sub...)); err != nil {
			return err
		}
	}
	return nil
}

// moveSourceKeys points the canonical-URL and content-hash entries of
// sources that name case from at case to instead; with to "", it deletes them.
func moveSourceKeys(tx *bolt.Tx, sources []casebook.Source, from, to string) error {
	for _, src := range sources {
		for _, e := range []struct {
			bucket []byte
			key    string
		}{{bCaseByURL, src.URL}, {bCaseByHash, src.SHA256}} {
			bk := tx.Bucket(e.bucket)
			if e.key == "" || string(bk.Get([]byte(e.key))) != from {
				continue
			}
			var err error
			if to == "" {
				err = bk.Delete([]byte(e.key))
			} else {
				err = bk.Put([]byte(e.key), []byte(to))
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// Reject marks a draft rejected with the reviewer's reason; the submission's
// status then shows that reason.
func (s *Store) Reject(id, by, reason string) (*casebook.Case, error) {
	if strings.TrimSpace(reason) == "" {
		return nil, fmt.Errorf("a reject needs a reason: %w", ErrInvalid)
	}
	var out casebook.Case
	err := s.db.Update(func(tx *bolt.Tx) error {
		cases := tx.Bucket(bCases)
		c, cid, err := draftTx(tx, id)
		if err != nil {
			return err
		}
		now := s.stamp()
		c.Status = casebook.StatusRejected
		c.Review = casebook.Review{DecidedBy: by, DecidedAt: now, Note: reason}
		c.UpdatedAt = now
		if err := putJSON(cases, []byte(cid), c); err != nil {
			return err
		}
		if err := delQueueEntry(tx, cid); err != nil {
			return err
		}
		if err := delSignature(tx, cid); err != nil {
			return err
		}
		if err := releaseSourceKeys(tx, c.Sources, cid); err != nil {
			return err
		}
		if subID := tx.Bucket(bCaseSub).Get([]byte(cid)); subID != nil {
			if err := s.updateSubmissionTx(tx, string(subID), func(r *SubmissionRecord) bool {
				r.Reason = "rejected: " + reason
				return true
			}); err != nil {
				return err
			}
		}
		if err := addHistory(tx, cid, Change{At: now, By: by, Action: "rejected", Note: reason}); err != nil {
			return err
		}
		out = c
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// CountCases returns how many cases are in each status.
func (s *Store) CountCases() (map[string]int, error) {
	out := map[string]int{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bCases).ForEach(func(k, v []byte) error {
			st, err := statusOf(v)
			if err != nil {
				return err
			}
			out[st]++
			return nil
		})
	})
	return out, err
}

// statusOf reads a stored case's status. Case JSON is always written with
// "status" second (after "id"), so a short scan of the head answers it
// without decoding the whole record, which matters on a /metrics scrape of a
// large store; anything else falls back to a full decode.
func statusOf(raw []byte) (string, error) {
	head := raw[:min(len(raw), 256)]
	if i := bytes.Index(head, []byte(`"status":"`)); i >= 0 {
		rest := head[i+len(`"status":"`):]
		if j := bytes.IndexByte(rest, '"'); j >= 0 {
			return string(rest[:j]), nil
		}
	}
	var c struct {
		Status string `json:"status"`
	}
	err := json.Unmarshal(raw, &c)
	return c.Status, err
}
