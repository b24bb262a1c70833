package sinks

import (
	"fmt"
	"strings"

	"github.com/casebook/casebook"

	bolt "go.etcd.io/bbolt"
)

// maxSkippedScan bounds how many entries of the skipped set one page reads
// (entries of other sources, when filtered, cost a key comparison each); a
// page that reaches it ends early with a cursor to go on from, so no one
// request is slow however many posts were skipped.
const maxSkippedScan = 20000

// ListSkipped lists crawled posts that were skipped (not an incident
// write-up, unsupported language, robots.txt, duplicate), newest first,
// with their reason and relevance score; source filters by crawl source
// ("" for all). Manual submissions are never skipped by the gate, so they
// are not listed. It walks the skipped set, not every submission, and gives
// a cursor only when a further post matches (or the scan bound was hit), so
// a full last page is not followed by an empty one.
func (s *Store) ListSkipped(source, cursor string, limit int) ([]SubmissionRecord, string, error) {
	if cursor != "" && !ValidSubmissionCursor(cursor) {
		return nil, "", fmt.Errorf("cursor %q is not one this server gave out: %w", cursor, ErrInvalid)
	}
	var out []SubmissionRecord
	next := ""
	err := s.db.View(func(tx *bolt.Tx) error {
		subs := tx.Bucket(bSubmissions)
		c := tx.Bucket(bSubSkipped).Cursor()
		var last []byte
		scanned := 0
		for k, v := submissionsBelow(c, cursor); k != nil; k, v = c.Prev() {
			if scanned == maxSkippedScan {
				next = string(last) // the next page goes on below the last key read
				break
			}
			scanned++
			last = append(last[:0], k...)
			if source != "" && string(v) != source {
				continue
			}
			if len(out) == limit { // one more matches: there is a next page
				next = out[len(out)-1].ID
				break
			}
			var r SubmissionRecord
			if err := getJSON(subs, k, &r); err != nil {
				return fmt.Errorf("skipped submission %s: %w", k, err)
			}
			if !onSkippedList(&r) { // cannot happen while putSubmission keeps the set
				continue
			}
			out = append(out, r)
		}
		return nil
	})
	return out, next, err
}

// OriginReview marks a submission a reviewer asked to draft from the
// skipped list: it is not a crawl any more, so the relevance gate drafts it
// (flagged when unsure) instead of skipping it again.
const OriginReview = "review"

// RedraftSkipped puts a skipped crawled post back to queued as a reviewer's
// request, so the pipeline fetches it again and drafts it. Anything but a
// skipped crawled post is ErrConflict; the caller publishes the fetch task
// (the record is left unenqueued, so the outbox replay publishes it should
// that fail).
func (s *Store) RedraftSkipped(id, by string) (SubmissionRecord, error) {
	var r SubmissionRecord
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSubmissions)
		if err := getJSON(b, []byte(id), &r); err != nil {
			return fmt.Errorf("submission %s: %w", id, err)
		}
		if r.State != casebook.StateSkipped || !strings.HasPrefix(r.Origin, "crawl") {
			return fmt.Errorf("submission %s is %s (%s), not a skipped crawled post: %w", id, r.State, r.Origin, ErrConflict)
		}
		was := r.Reason
		r.Origin, r.State, r.Error, r.DraftID = OriginReview, casebook.StateQueued, "", ""
		r.Reason = "drafted from the skipped list by " + by
		if was != "" {
			r.Reason += " (skipped: " + was + ")"
		}
		r.Enqueued = false
		r.UpdatedAt = s.stamp()
		return putSubmission(tx, &r)
	})
	return r, err
}
