package sinks

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// SubmissionRecord is a submission plus what the store needs to keep its promises.
type SubmissionRecord struct {
	casebook.Submission
	CanonicalURL string `json:"canonical_url"`
	// Enqueued is set once JetStream acknowledged the fetch task. A record
	// still false on start-up is re-published (the Nats-Msg-Id makes that safe),
	// so a crash between the bbolt write and the publish loses nothing.
	Enqueued bool `json:"enqueued"`
	// Source names the crawl source, "" for manual submissions.
	Source string  `json:"source,omitempty"`
	Score  float64 `json:"score,omitempty"`
	// Scored says the relevance gate skipped it with Score (0.00 is a
	// score); a record written before the flag has a non-zero Score alone.
	Scored bool `json:"scored,omitempty"`
}

// GateScored reports that the relevance gate scored the skip.
func (r *SubmissionRecord) GateScored() bool { return r.Scored || r.Score != 0 }

var stateRank = map[string]int{
	casebook.StateQueued: 0, casebook.StateFetching: 1, casebook.StateExtracting: 2,
	casebook.StateClassifying: 3, casebook.StateDrafted: 4, casebook.StateSkipped: 4, casebook.StateFailed: 4,
}

// CreateSubmission records a new submission for url, or returns the existing
// one for the same canonical URL (existing=true) unless that one failed, in
// which case the URL is tried afresh.
func (s *Store) CreateSubmission(url, canonical, origin, source string) (rec SubmissionRecord, existing bool, err error) {
	// Batch: concurrent submissions share one commit (one fsync). The
	// function may run twice when a batch is retried, so it starts clean.
	err = s.db.Batch(func(tx *bolt.Tx) error {
		rec, existing = SubmissionRecord{}, false
		subs := tx.Bucket(bSubmissions)
		if id := tx.Bucket(bSubByURL).Get([]byte(canonical)); id != nil {
			var old SubmissionRecord
			if err := getJSON(subs, id, &old); err == nil && old.State != casebook.StateFailed {
				rec, existing = old, true
				return nil
			}
		}
		n, err := nextCounter(tx, "submission")
		if err != nil {
			return err
		}
		now := s.stamp()
		rec = SubmissionRecord{
			Submission: casebook.Submission{
				ID: fmt.Sprintf("sub-%08d", n), URL: url, State: casebook.StateQueued,
				CreatedAt: now, UpdatedAt: now, Origin: origin,
			},
			CanonicalURL: canonical, Source: source,
		}
		if err := putSubmission(tx, &rec); err != nil {
			return err
		}
		return tx.Bucket(bSubByURL).Put([]byte(canonical), []byte(rec.ID))
	})
	return rec, existing, err
}

// GetSubmission returns one submission record.
func (s *Store) GetSubmission(id string) (rec SubmissionRecord, err error) {
	err = s.db.View(func(tx *bolt.Tx) error { return getJSON(tx.Bucket(bSubmissions), []byte(id), &rec) })
	return rec, err
}

// MarkEnqueued notes that JetStream holds the submission's fetch task.
func (s *Store) MarkEnqueued(id string) error {
	return s.batchUpdateSubmission(id, func(r *SubmissionRecord) bool {
		if r.Enqueued {
			return false
		}
		r.Enqueued = true
		return true
	})
}

// MarkEnqueuedMany marks several submissions enqueued in one transaction.
func (s *Store) MarkEnqueuedMany(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		for _, id := range ids {
			err := s.updateSubmissionTx(tx, id, func(r *SubmissionRecord) bool {
				if r.Enqueued {
					return false
				}
				r.Enqueued = true
				return true
			})
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		return nil
	})
}

// Unenqueued lists submissions whose fetch task JetStream never acknowledged.
func (s *Store) Unenqueued() ([]SubmissionRecord, error) {
	var out []SubmissionRecord
	err := s.db.View(func(tx *bolt.Tx) error {
		return eachInSet(tx, bSubOutbox, func(r *SubmissionRecord) error {
			if !r.Enqueued && !r.Terminal() {
				out = append(out, *r)
			}
			return nil
		})
	})
	return out, err
}

// Stale lists enqueued submissions that are not finished and have not moved
// since before cutoff (RFC 3339 compare is chronological for one format).
// Their work was lost in transport (a JetStream write that a power loss took
// before its fsync) or is stuck; the caller re-publishes them.
func (s *Store) Stale(cutoff time.Time) ([]SubmissionRecord, error) {
	limit := cutoff.UTC().Format(time.RFC3339)
	var out []SubmissionRecord
	err := s.db.View(func(tx *bolt.Tx) error {
		return eachInSet(tx, bSubOpen, func(r *SubmissionRecord) error {
			if r.Enqueued && !r.Terminal() && r.UpdatedAt < limit {
				out = append(out, *r)
			}
			return nil
		})
	})
	return out, err
}

// Touch marks a submission as just handled, without changing its state.
func (s *Store) Touch(id string) error {
	return s.batchUpdateSubmission(id, func(r *SubmissionRecord) bool { return !r.Terminal() })
}

// Progress moves a submission forward. Events may arrive out of order or
// twice (at-least-once delivery), so a state never moves backwards and a
// terminal state is final: replays are no-ops.
func (s *Store) Progress(id, state, reason, errMsg, draftID string) error {
	return s.batchUpdateSubmission(id, func(r *SubmissionRecord) bool {
		if r.Terminal() || stateRank[state] < stateRank[r.State] || (state == r.State && !r.Terminal() && reason == "" && errMsg == "") {
			return false
		}
		r.State, r.Reason, r.Error = state, reason, errMsg
		if draftID != "" {
			r.DraftID = draftID
		}
		return true
	})
}

// ProgressSkipped records a skip by the relevance gate with its score,
// which the skipped list shows beside the reason; else as Progress.
func (s *Store) ProgressSkipped(id, reason string, score float64) error {
	return s.batchUpdateSubmission(id, func(r *SubmissionRecord) bool {
		if r.Terminal() {
			return false
		}
		r.State, r.Reason, r.Error, r.Score, r.Scored = casebook.StateSkipped, reason, "", score, true
		return true
	})
}

// ProgressMany records several non-terminal progress states in one
// transaction (progress is coalesced in memory and flushed periodically).
// Unknown submissions are ignored; the same forward-only rule applies.
func (s *Store) ProgressMany(states map[string]string) error {
	if len(states) == 0 {
		return nil
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		for id, state := range states {
			err := s.updateSubmissionTx(tx, id, func(r *SubmissionRecord) bool {
				if r.Terminal() || stateRank[state] <= stateRank[r.State] {
					return false
				}
				r.State = state
				// Moved on: the retries of the last stage are over.
				r.Error, r.Attempts = "", 0
				return true
			})
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		return nil
	})
}

// Retry is a failed try a stage will retry, shown on the submission.
type Retry struct {
	State    string
	Attempts int
	Error    string
}

// RecordRetries shows each submission's latest failed try (attempts and
// error) while its stage retries it; a submission already past that stage,
// or finished, is left alone.
func (s *Store) RecordRetries(retries map[string]Retry) error {
	if len(retries) == 0 {
		return nil
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		for id, rt := range retries {
			err := s.updateSubmissionTx(tx, id, func(r *SubmissionRecord) bool {
				if r.Terminal() || stateRank[rt.State] < stateRank[r.State] {
					return false
				}
				if len(rt.Error) > 1024 {
					rt.Error = rt.Error[:1024]
				}
				r.State, r.Attempts, r.Error = rt.State, rt.Attempts, strings.ToValidUTF8(rt.Error, "")
				return true
			})
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		return nil
	})
}

func (s *Store) batchUpdateSubmission(id string, f func(*SubmissionRecord) bool) error {
	return s.db.Batch(func(tx *bolt.Tx) error { return s.updateSubmissionTx(tx, id, f) })
}

func (s *Store) updateSubmissionTx(tx *bolt.Tx, id string, f func(*SubmissionRecord) bool) error {
	b := tx.Bucket(bSubmissions)
	var r SubmissionRecord
	if err := getJSON(b, []byte(id), &r); err != nil {
		return fmt.Errorf("submission %s: %w", id, err)
	}
	if !f(&r) {
		return nil
	}
	r.UpdatedAt = s.stamp()
	return putSubmission(tx, &r)
}

// CountSubmissions returns how many submissions are in each state.
func (s *Store) CountSubmissions() (map[string]int, error) {
	out := map[string]int{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bSubmissions).ForEach(func(k, v []byte) error {
			var r SubmissionRecord
			if err := jsonUnmarshal(v, &r); err != nil {
				return err
			}
			out[r.State]++
			return nil
		})
	})
	return out, err
}

// ValidSubmissionCursor reports whether c has the shape of the next_cursor
// ListSubmissions gives out: a submission id.
func ValidSubmissionCursor(c string) bool {
	d, ok := strings.CutPrefix(c, "sub-")
	if !ok || len(d) < 8 || len(d) > 20 {
		return false
	}
	for _, r := range d {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// submissionsBelow puts c on the newest submission below cursor (the
// newest of all for ""), for pages that walk newest first. Seek lands on the
// cursor or just past it; past the last key, the page starts at the last.
func submissionsBelow(c *bolt.Cursor, cursor string) (k, v []byte) {
	if cursor == "" {
		return c.Last()
	}
	if sk, _ := c.Seek([]byte(cursor)); sk == nil {
		return c.Last()
	}
	return c.Prev()
}

// ListSubmissions pages through submissions, newest first.
func (s *Store) ListSubmissions(cursor string, limit int) ([]casebook.Submission, string, error) {
	if cursor != "" && !ValidSubmissionCursor(cursor) {
		return nil, "", fmt.Errorf("cursor %q is not one this server gave out: %w", cursor, ErrInvalid)
	}
	var out []casebook.Submission
	next := ""
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bSubmissions).Cursor()
		for k, v := submissionsBelow(c, cursor); k != nil; k, v = c.Prev() {
			if len(out) == limit {
				next = string(out[len(out)-1].ID)
				break
			}
			var r SubmissionRecord
			if err := jsonUnmarshal(v, &r); err != nil {
				return err
			}
			out = append(out, r.Submission)
		}
		return nil
	})
	return out, next, err
}
