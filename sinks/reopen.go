package sinks

import (
	"fmt"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// Reopen puts a failed submission back to queued, for a dead letter an
// operator retries. A submission that was drafted or skipped stays as it is
// (ErrConflict): retrying it could only make a duplicate.
func (s *Store) Reopen(id, stage string) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSubmissions)
		var r SubmissionRecord
		if err := getJSON(b, []byte(id), &r); err != nil {
			return fmt.Errorf("submission %s: %w", id, err)
		}
		if r.State == casebook.StateDrafted || r.State == casebook.StateSkipped {
			return fmt.Errorf("submission %s is %s: %w", id, r.State, ErrConflict)
		}
		r.State, r.Error, r.Reason = casebook.StateQueued, "", "retried from the "+stage+" dead letter"
		r.UpdatedAt = s.stamp()
		return putSubmission(tx, &r)
	})
}
