package sinks

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// maxSourceText bounds the source text kept per draft.
const maxSourceText = 1 << 20

// saveDraftExtras stores what the review page needs beside a new draft: the
// source text and the near-duplicate signature.
func saveDraftExtras(tx *bolt.Tx, c *casebook.Case, text string) error {
	if text != "" {
		if len(text) > maxSourceText {
			text = text[:maxSourceText]
		}
		if err := tx.Bucket(bDraftTxt).Put([]byte(c.ID), []byte(text)); err != nil {
			return err
		}
	}
	return putSignature(tx, c)
}

// publishIndexes indexes a case just published from draftID.
func publishIndexes(tx *bolt.Tx, draftID string, c *casebook.Case) error {
	if err := delSignature(tx, draftID); err != nil {
		return err
	}
	if err := putSignature(tx, c); err != nil {
		return err
	}
	return indexTx(tx, c, true)
}

// EditCase applies a reviewer's edit to a draft or a published case and
// records which fields changed. A published case is re-indexed in the same
// transaction. edit must leave the case valid; it may not change the id or
// status (those move only by approve, reject and merge).
func (s *Store) EditCase(id, by, note string, edit func(*casebook.Case) error) (*casebook.Case, []string, error) {
	var out casebook.Case
	var changed []string
	err := s.db.Update(func(tx *bolt.Tx) error {
		cases := tx.Bucket(bCases)
		cid := resolveAlias(tx, id)
		var c casebook.Case
		if err := getJSON(cases, []byte(cid), &c); err != nil {
			return fmt.Errorf("case %s: %w", id, err)
		}
		if c.Status != casebook.StatusDraft && c.Status != casebook.StatusPublished {
			return fmt.Errorf("%s is %s and cannot be edited: %w", cid, c.Status, ErrConflict)
		}
		before := c
		prevDups := duplicateRefsTx(tx, &before, 0)
		if err := edit(&c); err != nil {
			return err
		}
		c.ID, c.Status = before.ID, before.Status
		c.Related = nil
		c.Normalize()
		changed = diffFields(&before, &c)
		if len(changed) == 0 {
			out = c
			return nil
		}
		c.UpdatedAt = s.stamp()
		if c.Status == casebook.StatusPublished {
			if _, err := reindexTx(tx, &before, &c); err != nil {
				return err
			}
		}
		if err := putSignature(tx, &c); err != nil {
			return err
		}
		if err := putJSON(cases, []byte(cid), c); err != nil {
			return err
		}
		if c.Status == casebook.StatusDraft {
			if err := putQueueEntry(tx, &c); err != nil {
				return err
			}
		} else if err := markDuplicates(tx, &c); err != nil {
			return err
		}
		if err := refreshPointers(tx, prevDups, c.ID); err != nil {
			return err
		}
		if err := addHistory(tx, cid, Change{At: c.UpdatedAt, By: by, Action: "edited", Note: note, Fields: changed, Values: fieldChanges(&before, &c, changed)}); err != nil {
			return err
		}
		out = c
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return &out, changed, nil
}

// Merge folds a draft into a published case: the case gains the draft's
// sources, the draft becomes merged (review.note and an alias name the
// case, so the draft id redirects) and the submission says so.
func (s *Store) Merge(draftID, intoID, by, note string) (*casebook.Case, error) {
	var out casebook.Case
	err := s.db.Update(func(tx *bolt.Tx) error {
		cases := tx.Bucket(bCases)
		did := resolveAlias(tx, draftID)
		tid := resolveAlias(tx, intoID)
		var d, t casebook.Case
		if err := getJSON(cases, []byte(did), &d); err != nil {
			return fmt.Errorf("draft %s: %w", draftID, err)
		}
		// A draft already merged or approved resolves to its case, maybe the
		// target itself: that is "not a draft any more" (409), as for any
		// decided draft, not a merge into itself.
		if did != draftID {
			return fmt.Errorf("%s is no longer a draft: it resolves to %s, which is %s: %w", draftID, did, d.Status, ErrConflict)
		}
		if d.Status != casebook.StatusDraft {
			return fmt.Errorf("%s is %s, not a draft: %w", did, d.Status, ErrConflict)
		}
		if did == tid {
			return fmt.Errorf("cannot merge %s into itself: %w", draftID, ErrInvalid)
		}
		if err := getJSON(cases, []byte(tid), &t); err != nil {
			return fmt.Errorf("merge target %s: %w", intoID, err)
		}
		if t.Status != casebook.StatusPublished {
			return fmt.Errorf("merge target %s is %s, not published: %w", tid, t.Status, ErrConflict)
		}
		now := s.stamp()
		var added []string
		for _, src := range d.Sources {
			if !slices.ContainsFunc(t.Sources, func(o casebook.Source) bool { return o.URL == src.URL }) {
				t.Sources = append(t.Sources, src)
				added = append(added, src.URL)
			}
		}
		t.UpdatedAt = now
		if err := putJSON(cases, []byte(tid), t); err != nil {
			return err
		}
		d.Status = casebook.StatusMerged
		d.Review = casebook.Review{DecidedBy: by, DecidedAt: now, Note: strings.TrimSpace("merged into " + tid + ". " + note)}
		d.UpdatedAt = now
		if err := putJSON(cases, []byte(did), d); err != nil {
			return err
		}
		if err := delQueueEntry(tx, did); err != nil {
			return err
		}
		if err := delSignature(tx, did); err != nil {
			return err
		}
		// Only the URL/hash entries move: the target keeps its own submission.
		if err := moveSourceKeys(tx, d.Sources, did, tid); err != nil {
			return err
		}
		if err := putAlias(tx, did, tid); err != nil {
			return err
		}
		if subID := tx.Bucket(bCaseSub).Get([]byte(did)); subID != nil {
			if err := s.updateSubmissionTx(tx, string(subID), func(r *SubmissionRecord) bool {
				r.Reason = "merged into case " + tid
				r.DraftID = tid
				return true
			}); err != nil {
				return err
			}
		}
		if err := addHistory(tx, did, Change{At: now, By: by, Action: "merged", Note: note, From: did}); err != nil {
			return err
		}
		if err := addHistory(tx, tid, Change{At: now, By: by, Action: "source-added", Note: strings.Join(added, " "), From: did}); err != nil {
			return err
		}
		out = t
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// QueueFilter narrows the review queue; zero fields do not filter.
type QueueFilter struct {
	Language string
	// Source matches a source's host or site name (case-insensitive substring).
	Source       string
	MinRelevance float64
	MaxRelevance float64 // 0 = no upper bound
	// OlderThan / NewerThan bound the draft's age.
	OlderThan, NewerThan time.Duration
	// Flagged: nil any, true only drafts flagged below the relevance
	// threshold, false only unflagged ones.
	Flagged *bool
	// ByRelevance orders the queue by the relevance gate's score, highest
	// first (newest first among equal scores), instead of newest first: a
	// reviewer can work the flagged lane from its likeliest write-ups down.
	ByRelevance bool
}

// Match reports whether c passes f at time now.
func (f QueueFilter) Match(c *casebook.Case, now time.Time) bool {
	e := newQueueEntry(c)
	return f.match(&e, now)
}

// SourceHost is the host a case's first source came from.
func SourceHost(c *casebook.Case) string {
	for _, s := range c.Sources {
		if u, err := url.Parse(s.URL); err == nil && u.Host != "" {
			return strings.TrimPrefix(strings.ToLower(u.Host), "www.")
		}
	}
	return ""
}

// QueueCounts summarises the drafts awaiting review.
type QueueCounts struct {
	Total      int            `json:"total"`
	Matched    int            `json:"matched"`
	Flagged    int            `json:"flagged"`
	Duplicates int            `json:"with_duplicates"`
	ByLanguage map[string]int `json:"by_language"`
	BySource   map[string]int `json:"by_source"`
}

// ListQueue pages through drafts matching f, newest first (or by relevance,
// f.ByRelevance), and counts the whole queue (facets) and the matches.
func (s *Store) ListQueue(f QueueFilter, cursor string, limit int) ([]casebook.Case, string, QueueCounts, error) {
	now := s.now()
	counts := QueueCounts{ByLanguage: map[string]int{}, BySource: map[string]int{}}
	var after *rankedDraft
	if f.ByRelevance && cursor != "" {
		score, key, ok := parseRelevanceCursor(cursor)
		if !ok {
			return nil, "", counts, fmt.Errorf("bad cursor %q: %w", cursor, ErrInvalid)
		}
		after = &rankedDraft{score: score, key: key}
	}
	var items []casebook.Case
	next := ""
	err := s.db.View(func(tx *bolt.Tx) error {
		qb := tx.Bucket(bQueue)
		var ranked []rankedDraft // the matches, for the relevance order
		err := tx.Bucket(bDraftQueue).ForEach(func(k, v []byte) error {
			var e queueEntry
			if getJSON(qb, v, &e) != nil {
				return nil // approved, rejected or merged since it was queued
			}
			counts.Total++
			counts.ByLanguage[e.Language]++
			if e.Host != "" {
				counts.BySource[e.Host]++
			}
			if e.Flagged {
				counts.Flagged++
			}
			if hasDuplicate(tx, string(v)) {
				counts.Duplicates++
			}
			if f.match(&e, now) {
				counts.Matched++
				if f.ByRelevance {
					ranked = append(ranked, rankedDraft{e.Score, slices.Clone(k), string(v)})
				}
			}
			return nil
		})
		if err != nil || !f.ByRelevance {
			return err
		}
		items, next = pageByRelevance(tx, ranked, after, limit)
		return nil
	})
	if err != nil {
		return nil, "", counts, err
	}
	if f.ByRelevance {
		return items, next, counts, nil
	}
	items, next, err = s.ListDrafts(cursor, limit, func(c *casebook.Case) bool { return f.Match(c, now) })
	return items, next, counts, err
}

// rankedDraft is a queued draft in the relevance order: its score, then its
// queue key (newer is greater).
type rankedDraft struct {
	score float64
	key   []byte
	id    string
}

// before reports that a comes before b in the relevance order.
func (a *rankedDraft) before(b *rankedDraft) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return bytes.Compare(a.key, b.key) > 0
}

// relevanceCursorPrefix marks a cursor of the queue in relevance order: the
// last item's score and queue key, so a page starts right after it however
// many drafts arrived meanwhile.
const relevanceCursorPrefix = "r"

// pageByRelevance sorts ranked and returns the drafts of the page after
// after (nil: the first page), and the cursor of the next page.
func pageByRelevance(tx *bolt.Tx, ranked []rankedDraft, after *rankedDraft, limit int) ([]casebook.Case, string) {
	sort.Slice(ranked, func(i, j int) bool { return ranked[i].before(&ranked[j]) })
	cases := tx.Bucket(bCases)
	out := []casebook.Case{}
	var last *rankedDraft
	for i := range ranked {
		r := &ranked[i]
		if after != nil && !after.before(r) {
			continue
		}
		var c casebook.Case
		if getJSON(cases, []byte(r.id), &c) != nil || c.Status != casebook.StatusDraft {
			continue
		}
		if len(out) == limit {
			return out, relevanceCursorPrefix + strconv.FormatFloat(last.score, 'g', -1, 64) + "." + hex.EncodeToString(last.key)
		}
		out = append(out, c)
		last = r
	}
	return out, ""
}

// ValidQueueCursor reports a cursor the queue gives out in its order:
// newest first, or by relevance.
func ValidQueueCursor(cursor string, byRelevance bool) bool {
	if byRelevance {
		_, _, ok := parseRelevanceCursor(cursor)
		return ok
	}
	_, err := decodeCursor(cursor)
	return err == nil
}

// parseRelevanceCursor reads a cursor pageByRelevance wrote.
func parseRelevanceCursor(cursor string) (float64, []byte, bool) {
	rest, ok := strings.CutPrefix(cursor, relevanceCursorPrefix)
	if !ok {
		return 0, nil, false
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return 0, nil, false
	}
	score, err := strconv.ParseFloat(rest[:i], 64)
	key, err2 := hex.DecodeString(rest[i+1:])
	if err != nil || err2 != nil || len(key) == 0 {
		return 0, nil, false
	}
	return score, key, true
}

// fieldChanges pairs the JSON of each changed field before and after.
func fieldChanges(before, after *casebook.Case, fields []string) map[string]FieldChange {
	var a, b map[string]json.RawMessage
	ra, err1 := json.Marshal(before)
	rb, err2 := json.Marshal(after)
	if err1 != nil || err2 != nil || json.Unmarshal(ra, &a) != nil || json.Unmarshal(rb, &b) != nil {
		return nil
	}
	out := make(map[string]FieldChange, len(fields))
	for _, f := range fields {
		out[f] = FieldChange{Before: a[f], After: b[f]}
	}
	return out
}
