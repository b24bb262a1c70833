package sinks

import (
	"errors"
	"strings"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// Two small sets beside the submissions bucket, so the periodic outbox
// replay and the stale-work reconcile read only the submissions they are
// about instead of decoding every submission ever made (a scan every 30 s
// that grew with the store's whole history).
var (
	bSubOutbox = []byte("sub_outbox") // id -> "": not finished, fetch task not yet acknowledged
	bSubOpen   = []byte("sub_open")   // id -> "": not finished
	// The skipped list's own set and its counts, so the review tabs can say
	// how many posts the gate skipped without decoding every submission.
	bSubSkipped      = []byte("sub_skipped")       // id -> source: on the skipped list
	bSubSkippedCount = []byte("sub_skipped_count") // "all" or "source:"+name -> uint64
)

func init() {
	allBuckets = append(allBuckets, bSubOutbox, bSubOpen, bSubSkipped, bSubSkippedCount)
}

// onSkippedList says whether r belongs on the skipped list: a crawled post
// the pipeline skipped. Manual submissions are never skipped by the gate.
func onSkippedList(r *SubmissionRecord) bool {
	return r.State == casebook.StateSkipped && r.Source != "" && strings.HasPrefix(r.Origin, "crawl")
}

var skippedAllKey = []byte("all")

func skippedSourceKey(source string) []byte { return []byte("source:" + source) }

// putSubmission writes a submission record and keeps the sets and counts
// in step. Every write of a submission goes through here.
func putSubmission(tx *bolt.Tx, r *SubmissionRecord) error {
	if err := putJSON(tx.Bucket(bSubmissions), []byte(r.ID), r); err != nil {
		return err
	}
	return indexSubmission(tx, r)
}

func indexSubmission(tx *bolt.Tx, r *SubmissionRecord) error {
	if err := indexUnfinished(tx, r); err != nil {
		return err
	}
	return indexSkipped(tx, r)
}

func indexUnfinished(tx *bolt.Tx, r *SubmissionRecord) error {
	key := []byte(r.ID)
	for _, set := range []struct {
		bucket []byte
		member bool
	}{{bSubOpen, !r.Terminal()}, {bSubOutbox, !r.Terminal() && !r.Enqueued}} {
		b := tx.Bucket(set.bucket)
		var err error
		if set.member {
			err = b.Put(key, nil)
		} else {
			err = b.Delete(key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// indexSkipped moves r into or out of the skipped set and adjusts the
// counts only when its membership (or source) changes: the set remembers
// what the count already holds, so writing the same record twice, or a
// batch re-run, never counts it twice.
func indexSkipped(tx *bolt.Tx, r *SubmissionRecord) error {
	set := tx.Bucket(bSubSkipped)
	key := []byte(r.ID)
	old := set.Get(key)
	was, is := old != nil, onSkippedList(r)
	if was && is && string(old) == r.Source {
		return nil
	}
	if !was && !is {
		return nil
	}
	counts := tx.Bucket(bSubSkippedCount)
	if was {
		if err := addCount(counts, skippedSourceKey(string(old)), -1); err != nil {
			return err
		}
		if err := set.Delete(key); err != nil {
			return err
		}
	}
	if is {
		if err := addCount(counts, skippedSourceKey(r.Source), 1); err != nil {
			return err
		}
		if err := set.Put(key, []byte(r.Source)); err != nil {
			return err
		}
	}
	switch {
	case was && !is:
		return addCount(counts, skippedAllKey, -1)
	case !was && is:
		return addCount(counts, skippedAllKey, 1)
	}
	return nil
}

// SkippedCounts is how many posts are on the skipped list: all of them, and
// those of the source asked for.
type SkippedCounts struct {
	Total  int
	Source int
}

// CountSkipped reads the skipped list's counts (source "" leaves Source 0)
// without a scan: they are kept by putSubmission.
func (s *Store) CountSkipped(source string) (SkippedCounts, error) {
	var c SkippedCounts
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSubSkippedCount)
		c.Total = int(getCount(b, skippedAllKey))
		if source != "" {
			c.Source = int(getCount(b, skippedSourceKey(source)))
		}
		return nil
	})
	return c, err
}

// eachInSet decodes the submissions whose ids are in set.
func eachInSet(tx *bolt.Tx, set []byte, f func(*SubmissionRecord) error) error {
	subs := tx.Bucket(bSubmissions)
	return tx.Bucket(set).ForEach(func(k, _ []byte) error {
		var r SubmissionRecord
		if err := getJSON(subs, k, &r); err != nil {
			return nil // no record under the id (submissions are never deleted)
		}
		return f(&r)
	})
}

var metaSubIndexVersion = []byte("sub_index_version")

// subIndexVersion names what the sets hold ("2": the skipped set and its
// counts too).
const subIndexVersion = "2"

// upgradeSubIndex fills the sets once for a store written before them. The
// skipped set and counts start empty, so every record is counted once.
func upgradeSubIndex(tx *bolt.Tx) error {
	meta := tx.Bucket(bMeta)
	if string(meta.Get(metaSubIndexVersion)) == subIndexVersion {
		return nil
	}
	for _, b := range [][]byte{bSubSkipped, bSubSkippedCount} {
		if err := tx.DeleteBucket(b); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
			return err
		}
		if _, err := tx.CreateBucket(b); err != nil {
			return err
		}
	}
	if err := tx.Bucket(bSubmissions).ForEach(func(_, v []byte) error {
		var r SubmissionRecord
		if err := jsonUnmarshal(v, &r); err != nil {
			return err
		}
		return indexSubmission(tx, &r)
	}); err != nil {
		return err
	}
	return meta.Put(metaSubIndexVersion, []byte(subIndexVersion))
}
