package sinks

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"runtime/debug"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ErrDamaged is what every error about a damaged store file matches.
var ErrDamaged = errors.New("store is damaged")

// DamagedError names a store file that failed its checks and why.
type DamagedError struct {
	Path   string
	Detail string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("store %s is damaged: %s; restore from `casebook backup` or move it away", e.Path, e.Detail)
}

// Is makes errors.Is(err, ErrDamaged) true.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// DefaultVerifyLimit is the largest file Open checks page by page when
// Options.Verify is set: bbolt's Tx.Check reads every page, so its time
// grows with the file; a larger file gets the header, size and freelist
// checks and is guarded on first touch instead, so a start never waits
// minutes (`casebook store check` checks any size).
const DefaultVerifyLimit = 1 << 30

// meta is the part of a bbolt meta page the checks read.
type meta struct {
	pageSize uint32
	freelist uint64
	pgid     uint64 // high-water mark: the file must hold this many pages
	txid     uint64
}

// readMeta parses the meta page at off (bbolt's on-disk layout: a 16-byte
// page header, then magic, version, page size, flags, root bucket, freelist,
// page count, txid and an FNV-64a checksum of what precedes it).
func readMeta(buf []byte) (meta, bool) {
	const hdr = 16
	if len(buf) < hdr+64 {
		return meta{}, false
	}
	m := buf[hdr : hdr+64]
	le := binary.LittleEndian
	if le.Uint32(m[0:]) != 0xED0CDAED || le.Uint32(m[4:]) != 2 {
		return meta{}, false
	}
	h := fnv.New64a()
	h.Write(m[:56])
	if h.Sum64() != le.Uint64(m[56:]) {
		return meta{}, false
	}
	return meta{pageSize: le.Uint32(m[8:]), freelist: le.Uint64(m[32:]), pgid: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}, true
}

// precheck looks at a store file without mapping it: an empty file (which
// bbolt would silently turn into a new empty store), no valid meta page,
// or a file shorter than its own page count (which faults with SIGBUS once
// a page past the end is touched) are damage. A missing file is fine: it is
// a new store.
func precheck(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	size := st.Size()
	if size == 0 {
		return &DamagedError{path, "the file is empty (0 bytes)"}
	}
	head := make([]byte, 4096+80)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return fmt.Errorf("read store %s: %w", path, err)
	}
	head = head[:n]
	best, ok := readMeta(head)
	if ok && best.pageSize > 0 && best.pageSize <= 1<<20 {
		// The second meta page sits one page in; the newer one is current.
		second := make([]byte, 80)
		if n, _ := f.ReadAt(second, int64(best.pageSize)); n == len(second) {
			if m1, ok1 := readMeta(second); ok1 && m1.txid > best.txid {
				best = m1
			}
		}
	} else if m1, ok1 := readMeta(head[min(len(head), 4096):]); ok1 {
		best, ok = m1, true
	}
	if !ok || best.pageSize == 0 {
		return &DamagedError{path, fmt.Sprintf("no valid bbolt header in its %d bytes (not a casebook store, or overwritten)", size)}
	}
	if need := int64(best.pgid) * int64(best.pageSize); size < need {
		return &DamagedError{path, fmt.Sprintf("truncated: %d bytes, its %d pages need %d", size, best.pgid, need)}
	}
	// bbolt reads the freelist page while opening, outside any transaction
	// a panic could be recovered from cleanly (the file's mapping, and with
	// it its lock, would stay behind): look at its header first.
	if best.freelist != ^uint64(0) {
		ph := make([]byte, 16)
		if best.freelist >= best.pgid {
			return &DamagedError{path, fmt.Sprintf("freelist page %d is past the end (%d pages)", best.freelist, best.pgid)}
		}
		if _, err := f.ReadAt(ph, int64(best.freelist)*int64(best.pageSize)); err != nil {
			return fmt.Errorf("read store %s: %w", path, err)
		}
		if id, flags := binary.LittleEndian.Uint64(ph), binary.LittleEndian.Uint16(ph[8:]); id != best.freelist || flags != 0x10 {
			return &DamagedError{path, fmt.Sprintf("freelist page %d is not a freelist page (id %d, flags %#x)", best.freelist, id, flags)}
		}
	}
	return nil
}

// guard runs f with faults on bad memory (a page mapped past the file's
// end) turned into panics, and any panic inside bbolt (a garbage page)
// turned into a DamagedError, so a damage found on first touch answers one
// request with an error instead of taking the process down.
func guard(path string, f func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = &DamagedError{path, fmt.Sprint(r)}
		}
	}()
	return f()
}

// openBolt is bolt.Open under guard; when bbolt panics half-way through
// (a garbage freelist page), the file it opened is closed, so its lock does
// not outlive the failed open.
func openBolt(path string, o bolt.Options) (*bolt.DB, error) {
	var f *os.File
	o.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		var err error
		f, err = os.OpenFile(name, flag, perm)
		return f, err
	}
	var db *bolt.DB
	err := guard(path, func() error {
		var err error
		db, err = bolt.Open(path, 0o600, &o)
		return err
	})
	if err != nil && db == nil && f != nil && errors.Is(err, ErrDamaged) {
		f.Close()
	}
	return db, err
}

// safeDB is bbolt with every transaction run under guard.
type safeDB struct {
	*bolt.DB
}

func (d safeDB) View(fn func(*bolt.Tx) error) error {
	return guard(d.Path(), func() error { return d.DB.View(fn) })
}

func (d safeDB) Update(fn func(*bolt.Tx) error) error {
	return guard(d.Path(), func() error { return d.DB.Update(fn) })
}

// Batch keeps bbolt's batching: fn is guarded where the batch runs it (on
// whichever goroutine commits the batch), the wait for it here.
func (d safeDB) Batch(fn func(*bolt.Tx) error) error {
	path := d.Path()
	return guard(path, func() error {
		return d.DB.Batch(func(tx *bolt.Tx) error { return guard(path, func() error { return fn(tx) }) })
	})
}

// Verify runs bbolt's own consistency check (every page reachable or free,
// no page twice, keys in order) over the whole file, in one read
// transaction, giving up after timeout.
func (s *Store) Verify(timeout time.Duration) error {
	return verify(s.db, timeout)
}

func verify(db safeDB, timeout time.Duration) error {
	return db.View(func(tx *bolt.Tx) error {
		var errs []error
		ch := tx.Check()
		deadline := time.After(timeout)
		for {
			select {
			case err, more := <-ch:
				if !more {
					if len(errs) > 0 {
						return &DamagedError{db.Path(), checkSummary(errs)}
					}
					return nil
				}
				errs = append(errs, err)
			case <-deadline:
				// The check goroutine holds tx; wait for it rather than
				// close the file under it, but report the time out.
				go func() {
					for range ch {
					}
				}()
				return fmt.Errorf("check of %s did not finish within %s: %w", db.Path(), timeout, errCheckTimeout)
			}
		}
	})
}

var errCheckTimeout = errors.New("check timed out")

func checkSummary(errs []error) string {
	s := errs[0].Error()
	if len(errs) > 1 {
		s += fmt.Sprintf(" (and %d more problems)", len(errs)-1)
	}
	return s
}

// CheckFile checks the store file at path without serving it: the header
// and size checks, then bbolt's page-by-page check. The file is opened
// read-only; a running server holding it makes this fail after timeout.
func CheckFile(path string, timeout time.Duration) (pages int64, err error) {
	if _, err := os.Stat(path); err != nil {
		return 0, fmt.Errorf("store %s: %w", path, err)
	}
	if err := precheck(path); err != nil {
		return 0, err
	}
	db, err := openBolt(path, bolt.Options{ReadOnly: true, Timeout: 2 * time.Second})
	if errors.Is(err, bolt.ErrTimeout) {
		return 0, fmt.Errorf("store %s is in use by a running casebook; check a `casebook backup` copy instead: %w", path, err)
	}
	if err != nil {
		return 0, asDamaged(path, err)
	}
	defer db.Close()
	sdb := safeDB{db}
	if err := verify(sdb, timeout); err != nil {
		return 0, err
	}
	_ = sdb.View(func(tx *bolt.Tx) error { pages = tx.Size() / int64(db.Info().PageSize); return nil })
	return pages, nil
}

// asDamaged turns bbolt's own refusals of a file (bad header, checksum,
// version) into a DamagedError; I/O and lock errors stay as they are.
func asDamaged(path string, err error) error {
	var d *DamagedError
	if errors.As(err, &d) {
		return err
	}
	for _, e := range []error{bolt.ErrInvalid, bolt.ErrChecksum, bolt.ErrVersionMismatch, bolt.ErrInvalidMapping} {
		if errors.Is(err, e) {
			return &DamagedError{path, err.Error()}
		}
	}
	return err
}
