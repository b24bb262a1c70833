package sinks

import (
	bolt "go.etcd.io/bbolt"
)

// Two small sets beside the submissions bucket, so the periodic outbox
// replay and the stale-work reconcile read only the submissions they are
// about instead of decoding every submission ever made (a scan every 30 s
// that grew with the store's whole history).
var (
	bSubOutbox = []byte("sub_outbox") // id -> "": not finished, fetch task not yet acknowledged
	bSubOpen   = []byte("sub_open")   // id -> "": not finished
)

func init() { allBuckets = append(allBuckets, bSubOutbox, bSubOpen) }

// putSubmission writes a submission record and keeps both sets in step.
// Every write of a submission goes through here.
func putSubmission(tx *bolt.Tx, r *SubmissionRecord) error {
	if err := putJSON(tx.Bucket(bSubmissions), []byte(r.ID), r); err != nil {
		return err
	}
	return indexSubmission(tx, r)
}

func indexSubmission(tx *bolt.Tx, r *SubmissionRecord) error {
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

// upgradeSubIndex fills both sets once for a store written before them.
func upgradeSubIndex(tx *bolt.Tx) error {
	meta := tx.Bucket(bMeta)
	if string(meta.Get(metaSubIndexVersion)) == "1" {
		return nil
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
	return meta.Put(metaSubIndexVersion, []byte("1"))
}
