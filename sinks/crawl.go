package sinks

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The crawler's state: the seen-set and per-source crawl history.
//
//	seen     "u/<canonical URL>" -> SeenEntry   (URLs the crawler submitted)
//	         "h/<sha256>"        -> SeenEntry   (content a crawl already fetched)
//	sources  "s/<name>"          -> SourceState
//	         "r/<name>/<seq>"    -> CrawlRun    (the last MaxRunsKept per source)
var (
	bSeen    = []byte("seen")
	bSources = []byte("sources")
)

// MaxRunsKept is how many crawl runs per source the store keeps.
const MaxRunsKept = 20

// SeenEntry records why a URL or content hash is in the seen-set.
type SeenEntry struct {
	URL          string    `json:"url"`
	Source       string    `json:"source,omitempty"`
	SubmissionID string    `json:"submission_id,omitempty"`
	At           time.Time `json:"at"`
	// Resubmits counts how often a failed submission for it was retried.
	Resubmits int `json:"resubmits,omitempty"`
}

// SeenURL returns the seen-set entry for a canonical URL, nil if unseen.
func (s *Store) SeenURL(canonical string) (*SeenEntry, error) {
	var e *SeenEntry
	err := s.db.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bSeen).Get([]byte("u/" + canonical))
		if raw == nil {
			return nil
		}
		e = &SeenEntry{}
		return json.Unmarshal(raw, e)
	})
	return e, err
}

// MarkSeen records a canonical URL in the seen-set (overwriting: a retried
// URL points at its newest submission).
func (s *Store) MarkSeen(canonical string, e SeenEntry) error {
	if e.At.IsZero() {
		e.At = s.now().UTC()
	}
	return s.db.Batch(func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bSeen), []byte("u/"+canonical), e)
	})
}

// ClaimContent records that submission fetched a page with this content hash
// and (rel=canonical honoured) canonical URL. When another submission already
// claimed the hash or the canonical URL, it returns that entry and records
// nothing: the page is a duplicate. Re-claiming by the same submission (a
// redelivered message) is not a duplicate.
func (s *Store) ClaimContent(hash, canonical, source, submission string) (dup *SeenEntry, err error) {
	err = s.db.Batch(func(tx *bolt.Tx) error {
		dup = nil
		b := tx.Bucket(bSeen)
		keys := [][]byte{}
		if hash != "" {
			keys = append(keys, []byte("h/"+hash))
		}
		for _, k := range keys {
			var old SeenEntry
			// The same page claimed again (a retried submission of it) is not a duplicate.
			if raw := b.Get(k); raw != nil && json.Unmarshal(raw, &old) == nil && old.SubmissionID != submission && old.URL != canonical {
				dup = &old
				return nil
			}
		}
		// A canonical URL claimed by a different submission is a duplicate
		// only when that submission came from a different URL (rel=canonical
		// pointing at an already crawled page).
		if canonical != "" {
			var old SeenEntry
			if raw := b.Get([]byte("u/" + canonical)); raw != nil && json.Unmarshal(raw, &old) == nil &&
				old.SubmissionID != "" && old.SubmissionID != submission {
				dup = &old
				return nil
			}
		}
		e := SeenEntry{URL: canonical, Source: source, SubmissionID: submission, At: s.now().UTC()}
		for _, k := range keys {
			if err := putJSON(b, k, e); err != nil {
				return err
			}
		}
		if canonical != "" && b.Get([]byte("u/"+canonical)) == nil {
			return putJSON(b, []byte("u/"+canonical), e)
		}
		return nil
	})
	return dup, err
}

// SourceState is a source's crawl state and history summary.
type SourceState struct {
	Name string `json:"name"`
	// Conditional GET validators and the body hash of the source document,
	// so an unchanged feed is recognised even without validators.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	BodyHash     string `json:"body_hash,omitempty"`
	// ResolvedURL is the feed or sitemap found by discovery when the
	// configured URL is a page that links to it.
	ResolvedURL string `json:"resolved_url,omitempty"`

	LastRun     time.Time `json:"last_run"`
	LastOutcome string    `json:"last_outcome"` // ok, not_modified, unchanged, failed, running
	LastError   string    `json:"last_error,omitempty"`
	NextRun     time.Time `json:"next_run"`
	// ErrorCount counts consecutive failed runs; it drives the backoff and
	// resets on the first success.
	ErrorCount  int       `json:"error_count"`
	Runs        int       `json:"runs"`
	Failures    int       `json:"failures"`
	LastSuccess time.Time `json:"last_success"`
	LastRunID   string    `json:"last_run_id,omitempty"`
}

// CrawlRun is one crawl of one source.
type CrawlRun struct {
	ID         string    `json:"id"`
	Source     string    `json:"source"`
	Trigger    string    `json:"trigger"` // schedule or manual
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	Outcome    string    `json:"outcome"` // running, ok, not_modified, unchanged, failed
	Error      string    `json:"error,omitempty"`
	Found      int       `json:"found"`    // item URLs the source listed (after include/exclude)
	New        int       `json:"new"`      // not in the seen-set
	Deferred   int       `json:"deferred"` // new, left for the next run by the per-run cap
	// Submissions are the submissions this run created, in order.
	Submissions []string `json:"submissions"`
}

func runKey(source string, seq uint64) []byte {
	return []byte(fmt.Sprintf("r/%s/%016d", source, seq))
}

// GetSourceState returns a source's state; a source never crawled has a
// zero state with its name and ErrNotFound.
func (s *Store) GetSourceState(name string) (SourceState, error) {
	st := SourceState{Name: name}
	err := s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bSources), []byte("s/"+name), &st)
	})
	return st, err
}

// PutSourceState stores a source's state.
func (s *Store) PutSourceState(st SourceState) error {
	if st.Name == "" {
		return fmt.Errorf("source state without a name: %w", ErrInvalid)
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bSources), []byte("s/"+st.Name), st)
	})
}

// ListSourceStates returns every stored source state by name.
func (s *Store) ListSourceStates() (map[string]SourceState, error) {
	out := map[string]SourceState{}
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bSources).Cursor()
		prefix := []byte("s/")
		for k, v := c.Seek(prefix); k != nil && strings.HasPrefix(string(k), "s/"); k, v = c.Next() {
			var st SourceState
			if err := json.Unmarshal(v, &st); err != nil {
				return fmt.Errorf("source state %s: %w", k, err)
			}
			out[st.Name] = st
		}
		return nil
	})
	return out, err
}

// StartRun records a new run for run.Source, assigns its ID and drops the
// oldest runs beyond MaxRunsKept.
func (s *Store) StartRun(run *CrawlRun) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSources)
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		run.ID = fmt.Sprintf("run-%08d", seq)
		if run.Submissions == nil {
			run.Submissions = []string{}
		}
		if err := putJSON(b, runKey(run.Source, seq), run); err != nil {
			return err
		}
		prefix := "r/" + run.Source + "/"
		var keys [][]byte
		c := b.Cursor()
		for k, _ := c.Seek([]byte(prefix)); k != nil && strings.HasPrefix(string(k), prefix); k, _ = c.Next() {
			keys = append(keys, append([]byte(nil), k...))
		}
		for len(keys) > MaxRunsKept {
			if err := b.Delete(keys[0]); err != nil {
				return err
			}
			keys = keys[1:]
		}
		return nil
	})
}

// SaveRun stores an updated run (same ID).
func (s *Store) SaveRun(run *CrawlRun) error {
	var seq uint64
	if _, err := fmt.Sscanf(run.ID, "run-%d", &seq); err != nil {
		return fmt.Errorf("run id %q: %w", run.ID, ErrInvalid)
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bSources), runKey(run.Source, seq), run)
	})
}

// LatestRun returns a source's newest run.
func (s *Store) LatestRun(source string) (*CrawlRun, error) {
	runs, err := s.Runs(source, 1)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no crawl of %s yet: %w", source, ErrNotFound)
	}
	return &runs[0], nil
}

// Runs returns up to limit of a source's runs, newest first.
func (s *Store) Runs(source string, limit int) ([]CrawlRun, error) {
	var out []CrawlRun
	err := s.db.View(func(tx *bolt.Tx) error {
		prefix := "r/" + source + "/"
		c := tx.Bucket(bSources).Cursor()
		// Seek past the prefix's last key, then walk back.
		k, v := c.Seek([]byte(prefix + "~"))
		if k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
		for ; k != nil && strings.HasPrefix(string(k), prefix) && len(out) < limit; k, v = c.Prev() {
			var r CrawlRun
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	return out, err
}

// IsNotFound reports whether err is (or wraps) ErrNotFound.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
