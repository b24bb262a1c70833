// Package sinks holds casebook's bbolt store: submissions, drafts, published
// cases, reviewer tokens, history and the indexes the API serves from.
//
// The store has one writer: the process that runs the sink stage and the API.
// Every write is one bbolt transaction, fsynced on commit (bbolt's default), so
// an acknowledged effect survives a crash. Writes that may race (sink batches,
// progress events) go through db.Batch, which coalesces them into few
// transactions; batched functions are idempotent because Batch may re-run them.
package sinks

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Errors callers branch on.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
	ErrInvalid  = errors.New("invalid")
)

var (
	bSubmissions = []byte("submissions")  // submission id -> SubmissionRecord
	bSubByURL    = []byte("sub_by_url")   // canonical URL -> submission id
	bCases       = []byte("cases")        // case id (draft-N or CB-NNNN) -> Case
	bCaseByURL   = []byte("case_by_url")  // canonical URL -> case id
	bCaseByHash  = []byte("case_by_hash") // content sha256 -> case id
	bAliases     = []byte("aliases")      // old id -> current id
	bDraftQueue  = []byte("draft_queue")  // seq -> draft id, drafts awaiting review
	bPublished   = []byte("published")    // seq -> case id, in approval order
	bCaseSub     = []byte("case_sub")     // case id -> submission id
	bTokens      = []byte("tokens")       // sha256(token) hex -> Reviewer
	bHistory     = []byte("history")      // case id -> sub-bucket seq -> Change
	bCounters    = []byte("counters")     // name -> uint64
	bMeta        = []byte("meta")         // schema version etc.
	allBuckets   = [][]byte{bSubmissions, bSubByURL, bCases, bCaseByURL, bCaseByHash, bAliases,
		bDraftQueue, bPublished, bCaseSub, bTokens, bHistory, bCounters, bMeta, bSeen, bSources}
)

// Store is the bbolt-backed casebook store.
type Store struct {
	db  safeDB // every transaction recovers from a damaged page
	now func() time.Time
}

// Options tunes Open.
type Options struct {
	// Timeout bounds the wait for the file lock: a second process opening the
	// same file gets a clear error instead of hanging.
	Timeout time.Duration
	// Verify runs bbolt's page-by-page check before the store is served
	// when the file is at most VerifyLimit bytes (0: DefaultVerifyLimit),
	// bounded by VerifyTimeout (0: 60 s). The header and size checks, which
	// catch an empty or truncated file, always run.
	Verify        bool
	VerifyLimit   int64
	VerifyTimeout time.Duration
}

// Open opens (creating if needed) the store file at path.
func Open(path string, opts Options) (*Store, error) {
	if opts.Timeout == 0 {
		opts.Timeout = 2 * time.Second
	}
	if err := precheck(path); err != nil {
		return nil, err
	}
	bdb, err := openBolt(path, bolt.Options{Timeout: opts.Timeout, FreelistType: bolt.FreelistMapType})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			// bbolt only says "timeout": name the lock and its likely holder.
			return nil, fmt.Errorf("open store %s: locked by another process (a casebook serve already running on this data directory?): %w", path, err)
		}
		if d := asDamaged(path, err); errors.Is(d, ErrDamaged) {
			return nil, d
		}
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db := safeDB{bdb}
	if opts.Verify {
		limit, timeout := opts.VerifyLimit, opts.VerifyTimeout
		if limit == 0 {
			limit = DefaultVerifyLimit
		}
		if timeout == 0 {
			timeout = 60 * time.Second
		}
		var size int64
		if st, err := os.Stat(path); err == nil {
			size = st.Size()
		}
		if size <= limit {
			if err := verify(db, timeout); err != nil {
				db.Close()
				return nil, err
			}
		}
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return upgradeIndexes(tx)
	})
	if err != nil {
		db.Close()
		if errors.Is(err, ErrDamaged) {
			return nil, err
		}
		return nil, fmt.Errorf("init store: %w", err)
	}
	return &Store{db: db, now: time.Now}, nil
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// DB exposes the handle for packages that keep their own buckets in the same file.
func (s *Store) DB() *bolt.DB { return s.db.DB }

// Backup writes a consistent copy of the store to w while it keeps serving.
// before, if set, learns the copy's size first (from the same transaction).
func (s *Store) Backup(w io.Writer, before func(size int64)) (int64, error) {
	var n int64
	err := s.db.View(func(tx *bolt.Tx) error {
		if before != nil {
			before(tx.Size())
		}
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	return n, err
}

// Size is the file's size in bytes.
func (s *Store) Size() int64 {
	var n int64
	_ = s.db.View(func(tx *bolt.Tx) error { n = tx.Size(); return nil })
	return n
}

func (s *Store) stamp() string { return s.now().UTC().Format(time.RFC3339) }

func seqKey(n uint64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, n)
	return k
}

func getJSON(b *bolt.Bucket, key []byte, v any) error {
	raw := b.Get(key)
	if raw == nil {
		return ErrNotFound
	}
	return json.Unmarshal(raw, v)
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, raw)
}

func nextCounter(tx *bolt.Tx, name string) (uint64, error) {
	b := tx.Bucket(bCounters)
	var n uint64
	if raw := b.Get([]byte(name)); len(raw) == 8 {
		n = binary.BigEndian.Uint64(raw)
	}
	n++
	return n, b.Put([]byte(name), seqKey(n))
}
