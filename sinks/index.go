package sinks

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// Index buckets. They are written in the same transaction that publishes,
// edits or merges a case, so a reader never sees an index that disagrees
// with the cases.
var (
	// field \x00 value \x00 seq(8) -> case id, for published cases only.
	// Fields: tag, component, category, organization, year, language, and the
	// composites cc (category/component) and ct (category/tag) that let
	// related-case ranking read only cases sharing the root cause.
	bIdx = []byte("idx")
	// field \x00 value -> uint64 postings; field "all" counts published cases.
	bIdxCount = []byte("idx_count")
	// term \x00 seq(8) -> uint16 weight: the inverted search index.
	bTerms = []byte("terms")
	// term -> uint64 document frequency.
	bTermDF = []byte("term_df")
	// case id -> card: the few fields related-case ranking reads, so a read
	// does not decode whole cases. Present exactly for published cases.
	bCards = []byte("cards")
)

func init() {
	allBuckets = append(allBuckets, bIdx, bIdxCount, bTerms, bTermDF, bCards)
}

// card is a published case's ranking record.
type card struct {
	ID           string   `json:"i"`
	Title        string   `json:"t"`
	Organization string   `json:"o"`
	Year         int      `json:"y"`
	Category     string   `json:"c"`
	Components   []string `json:"m"`
	Tags         []string `json:"g"`
}

func cardOf(c *casebook.Case) card {
	return card{ID: c.ID, Title: c.Title, Organization: c.Organization, Year: c.Year(), Category: c.RootCause.Category, Components: c.Components, Tags: c.Tags}
}

func (k *card) labels() *casebook.Case {
	return &casebook.Case{ID: k.ID, Tags: k.Tags, Components: k.Components, RootCause: casebook.RootCause{Category: k.Category}}
}

// Filter narrows a listing of published cases; zero fields do not filter.
type Filter struct {
	Tag          string
	Component    string
	Category     string
	Organization string
	Language     string
	Year         int
}

// Empty reports whether f filters nothing.
func (f Filter) Empty() bool { return len(f.pairs()) == 0 }

func (f Filter) pairs() [][2]string {
	var out [][2]string
	add := func(field, v string) {
		if v != "" {
			out = append(out, [2]string{field, v})
		}
	}
	add("tag", strings.ToLower(f.Tag))
	add("component", strings.ToLower(f.Component))
	add("category", strings.ToLower(f.Category))
	add("organization", normOrg(f.Organization))
	add("language", strings.ToLower(f.Language))
	if f.Year != 0 {
		add("year", strconv.Itoa(f.Year))
	}
	return out
}

func normOrg(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// indexPairs lists the (field, value) entries a published case has.
func indexPairs(c *casebook.Case) [][2]string {
	seen := map[[2]string]bool{}
	var out [][2]string
	add := func(field, v string) {
		p := [2]string{field, v}
		if v == "" || seen[p] {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	cat := c.RootCause.Category
	if cat == "" {
		cat = "unknown"
	}
	add("category", cat)
	for _, t := range c.Tags {
		add("tag", strings.ToLower(t))
		add("ct", cat+"/"+strings.ToLower(t))
	}
	for _, comp := range c.Components {
		add("component", strings.ToLower(comp))
		add("cc", cat+"/"+strings.ToLower(comp))
	}
	add("organization", normOrg(c.Organization))
	if y := c.Year(); y > 0 {
		add("year", strconv.Itoa(y))
	}
	add("language", c.Language)
	return out
}

func idxPrefix(field, value string) []byte {
	k := make([]byte, 0, len(field)+len(value)+2+8)
	k = append(k, field...)
	k = append(k, 0)
	k = append(k, value...)
	return append(k, 0)
}

func idxKey(field, value string, seq uint64) []byte {
	return append(idxPrefix(field, value), seqKey(seq)...)
}

func countKey(field, value string) []byte { return []byte(field + "\x00" + value) }

// caseSeq is the publication sequence behind a CB-NNNN id (Approve and
// Import both take it from the "case" counter).
func caseSeq(id string) (uint64, error) {
	n, err := strconv.ParseUint(strings.TrimPrefix(id, "CB-"), 10, 64)
	if err != nil || !strings.HasPrefix(id, "CB-") {
		return 0, fmt.Errorf("%q is not a published case id: %w", id, ErrInvalid)
	}
	return n, nil
}

func addCount(b *bolt.Bucket, key []byte, delta int64) error {
	var n int64
	if raw := b.Get(key); len(raw) == 8 {
		n = int64(binary.BigEndian.Uint64(raw))
	}
	n += delta
	if n <= 0 {
		return b.Delete(key)
	}
	return b.Put(key, seqKey(uint64(n)))
}

func getCount(b *bolt.Bucket, key []byte) uint64 {
	if raw := b.Get(key); len(raw) == 8 {
		return binary.BigEndian.Uint64(raw)
	}
	return 0
}

// Search field weights: a word in the title says more than one in a step.
const (
	wTitle   = 4
	wSummary = 2
	wOther   = 1
)

// termWeights is the search terms of a case with their weights.
func termWeights(c *casebook.Case) map[string]int {
	w := map[string]int{}
	for _, f := range indexedTexts(c) {
		for _, text := range f.texts {
			for _, t := range Tokens(text, true) {
				w[t] += f.weight
			}
		}
	}
	return w
}

// indexTx adds (add=true) or removes a published case's index entries. To
// re-index an edited case, remove with the old version, add with the new.
func indexTx(tx *bolt.Tx, c *casebook.Case, add bool) error {
	seq, err := caseSeq(c.ID)
	if err != nil {
		return err
	}
	idx, counts := tx.Bucket(bIdx), tx.Bucket(bIdxCount)
	delta := int64(1)
	if !add {
		delta = -1
	}
	for _, p := range indexPairs(c) {
		k := idxKey(p[0], p[1], seq)
		if add {
			err = idx.Put(k, []byte(c.ID))
		} else {
			err = idx.Delete(k)
		}
		if err != nil {
			return err
		}
		if err := addCount(counts, countKey(p[0], p[1]), delta); err != nil {
			return err
		}
	}
	if err := addCount(counts, countKey("all", ""), delta); err != nil {
		return err
	}
	if add {
		err = putJSON(tx.Bucket(bCards), []byte(c.ID), cardOf(c))
	} else {
		err = tx.Bucket(bCards).Delete([]byte(c.ID))
	}
	if err != nil {
		return err
	}
	terms, df := tx.Bucket(bTerms), tx.Bucket(bTermDF)
	for t, w := range termWeights(c) {
		k := append(append([]byte(t), 0), seqKey(seq)...)
		if add {
			v := make([]byte, 2)
			binary.BigEndian.PutUint16(v, uint16(min(w, math.MaxUint16)))
			err = terms.Put(k, v)
		} else {
			err = terms.Delete(k)
		}
		if err != nil {
			return err
		}
		if err := addCount(df, []byte(t), delta); err != nil {
			return err
		}
	}
	return nil
}

// reindexTx moves a published case's index entries from before to after
// (same id), writing only the entries that differ: an edit of the title
// touches the title's terms, not every word of a long remediation list. It
// returns how many keys it wrote or deleted.
func reindexTx(tx *bolt.Tx, before, after *casebook.Case) (int, error) {
	seq, err := caseSeq(after.ID)
	if err != nil {
		return 0, err
	}
	if before.ID != after.ID {
		return 0, fmt.Errorf("reindex %s as %s: %w", before.ID, after.ID, ErrInvalid)
	}
	touched := 0
	idx, counts := tx.Bucket(bIdx), tx.Bucket(bIdxCount)
	oldPairs, newPairs := indexPairs(before), indexPairs(after)
	has := func(ps [][2]string, p [2]string) bool {
		for _, q := range ps {
			if q == p {
				return true
			}
		}
		return false
	}
	for _, p := range oldPairs {
		if has(newPairs, p) {
			continue
		}
		if err := idx.Delete(idxKey(p[0], p[1], seq)); err != nil {
			return touched, err
		}
		if err := addCount(counts, countKey(p[0], p[1]), -1); err != nil {
			return touched, err
		}
		touched += 2
	}
	for _, p := range newPairs {
		if has(oldPairs, p) {
			continue
		}
		if err := idx.Put(idxKey(p[0], p[1], seq), []byte(after.ID)); err != nil {
			return touched, err
		}
		if err := addCount(counts, countKey(p[0], p[1]), 1); err != nil {
			return touched, err
		}
		touched += 2
	}
	if oc, nc := cardOf(before), cardOf(after); !reflect.DeepEqual(oc, nc) {
		if err := putJSON(tx.Bucket(bCards), []byte(after.ID), nc); err != nil {
			return touched, err
		}
		touched++
	}
	n, err := reindexTermsTx(tx, seq, before, after)
	return touched + n, err
}

// indexedText is one searched field of a case with its term weight.
type indexedText struct {
	texts  []string
	weight int
}

// indexedTexts lists the fields termWeights reads, in a fixed order.
func indexedTexts(c *casebook.Case) []indexedText {
	return []indexedText{
		{[]string{c.Title}, wTitle}, {[]string{c.Organization}, wSummary}, {[]string{c.Summary}, wSummary},
		{[]string{c.Symptoms}, wOther}, {[]string{c.RootCause.Description}, wOther},
		{c.Remediation, wOther}, {c.Tags, wOther},
	}
}

// termKey is a posting's key in bTerms.
func termKey(t string, seq uint64) []byte { return append(append([]byte(t), 0), seqKey(seq)...) }

// reindexTermsTx moves a case's search postings from before to after. Only
// the fields that changed are tokenized: the weight a term had is read from
// its posting and the changed fields' difference applied. A posting at the
// uint16 cap has lost its exact weight, so then the whole case is recounted.
func reindexTermsTx(tx *bolt.Tx, seq uint64, before, after *casebook.Case) (int, error) {
	terms, df := tx.Bucket(bTerms), tx.Bucket(bTermDF)
	delta := map[string]int{}
	ob, na := indexedTexts(before), indexedTexts(after)
	for i := range ob {
		if slices.Equal(ob[i].texts, na[i].texts) {
			continue
		}
		for _, text := range ob[i].texts {
			for _, t := range Tokens(text, true) {
				delta[t] -= ob[i].weight
			}
		}
		for _, text := range na[i].texts {
			for _, t := range Tokens(text, true) {
				delta[t] += na[i].weight
			}
		}
	}
	oldW := make(map[string]int, len(delta))
	for t, d := range delta {
		if d == 0 {
			continue
		}
		if raw := terms.Get(termKey(t, seq)); len(raw) == 2 {
			w := int(binary.BigEndian.Uint16(raw))
			if w == math.MaxUint16 {
				return reindexAllTermsTx(tx, seq, before, after)
			}
			oldW[t] = w
		}
	}
	touched := 0
	for t, d := range delta {
		if d == 0 {
			continue
		}
		ow, had := oldW[t]
		w := ow + d
		var err error
		switch {
		case w <= 0 && had:
			if err = terms.Delete(termKey(t, seq)); err == nil {
				err = addCount(df, []byte(t), -1)
			}
			touched += 2
		case w > 0:
			v := make([]byte, 2)
			binary.BigEndian.PutUint16(v, uint16(min(w, math.MaxUint16)))
			err = terms.Put(termKey(t, seq), v)
			touched++
			if !had && err == nil {
				err = addCount(df, []byte(t), 1)
				touched++
			}
		}
		if err != nil {
			return touched, err
		}
	}
	return touched, nil
}

// reindexAllTermsTx recounts every term of both versions of a case.
func reindexAllTermsTx(tx *bolt.Tx, seq uint64, before, after *casebook.Case) (int, error) {
	touched := 0
	terms, df := tx.Bucket(bTerms), tx.Bucket(bTermDF)
	oldW, newW := termWeights(before), termWeights(after)
	for t := range oldW {
		if _, ok := newW[t]; ok {
			continue
		}
		if err := terms.Delete(termKey(t, seq)); err != nil {
			return touched, err
		}
		if err := addCount(df, []byte(t), -1); err != nil {
			return touched, err
		}
		touched += 2
	}
	for t, w := range newW {
		ow, had := oldW[t]
		if had && min(ow, math.MaxUint16) == min(w, math.MaxUint16) {
			continue
		}
		v := make([]byte, 2)
		binary.BigEndian.PutUint16(v, uint16(min(w, math.MaxUint16)))
		if err := terms.Put(termKey(t, seq), v); err != nil {
			return touched, err
		}
		touched++
		if !had {
			if err := addCount(df, []byte(t), 1); err != nil {
				return touched, err
			}
			touched++
		}
	}
	return touched, nil
}

// reverseFrom positions c on the newest entry under prefix whose seq is
// below before, or returns nil.
func reverseFrom(c *bolt.Cursor, prefix []byte, before uint64) (k, v []byte) {
	start := append(append([]byte(nil), prefix...), seqKey(before)...)
	if k, _ = c.Seek(start); k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	if k == nil || !bytes.HasPrefix(k, prefix) {
		return nil, nil
	}
	return k, v
}

func keySeq(k []byte) uint64 { return binary.BigEndian.Uint64(k[len(k)-8:]) }

// ListCases pages through published cases matching f, newest first. The
// cursor is the sequence of the last case returned, as in ListPublished.
func (s *Store) ListCases(f Filter, cursor string, limit int) ([]casebook.Case, string, error) {
	return s.ListCasesWith(f, ListOptions{}, cursor, limit)
}

// ListOptions order a listing and let a page be asked by number.
type ListOptions struct {
	// Sort is newest (the default) or oldest; the cursor of an oldest-first
	// listing is likewise the sequence of the last case returned.
	Sort string
	// Skip passes over this many matching cases first (the web UI's page
	// numbers; the API pages by cursor).
	Skip int
}

// ListCasesWith is ListCases ordered and offset by o.
func (s *Store) ListCasesWith(f Filter, o ListOptions, cursor string, limit int) ([]casebook.Case, string, error) {
	out := []casebook.Case{}
	next, err := s.listCases(f, o, cursor, limit, func(raw []byte) error {
		var cs casebook.Case
		if err := json.Unmarshal(raw, &cs); err != nil {
			return err
		}
		out = append(out, cs)
		return nil
	})
	return out, next, err
}

// rarestFirst orders filter pairs by how many cases carry them, so a walk
// reads the shortest posting list and looks the others up.
func rarestFirst(counts *bolt.Bucket, pairs [][2]string) {
	sort.Slice(pairs, func(i, j int) bool {
		return getCount(counts, countKey(pairs[i][0], pairs[i][1])) < getCount(counts, countKey(pairs[j][0], pairs[j][1]))
	})
}

// walkSeqs visits the entries under prefix newest first from below before,
// or oldest first from above after, until visit returns false.
func walkSeqs(cur *bolt.Cursor, prefix []byte, oldest bool, from uint64, visit func(k, v []byte) bool) {
	var k, v []byte
	if oldest {
		k, v = cur.Seek(append(append([]byte(nil), prefix...), seqKey(from)...))
		if k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8 && keySeq(k) == from {
			k, v = cur.Next() // the cursor's own case was on the last page
		}
	} else {
		k, v = reverseFrom(cur, prefix, from)
	}
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = step(cur, oldest) {
		if len(k) != len(prefix)+8 {
			continue
		}
		if !visit(k, v) {
			return
		}
	}
}

func step(cur *bolt.Cursor, forward bool) ([]byte, []byte) {
	if forward {
		return cur.Next()
	}
	return cur.Prev()
}

// listCases walks published cases matching f in o's order, handing each
// stored JSON (valid only during the call) to emit.
func (s *Store) listCases(f Filter, o ListOptions, cursor string, limit int, emit func([]byte) error) (string, error) {
	oldest := false
	switch o.Sort {
	case "", SortNewest:
	case SortOldest:
		oldest = true
	default:
		return "", fmt.Errorf("sort %q: want newest or oldest: %w", o.Sort, ErrInvalid)
	}
	from := uint64(math.MaxUint64)
	if oldest {
		from = 0
	}
	if cursor != "" {
		n, err := decodeCursor(cursor)
		if err != nil {
			return "", err
		}
		from = n
	}
	next := ""
	err := s.db.View(func(tx *bolt.Tx) error {
		idx, counts := tx.Bucket(bIdx), tx.Bucket(bIdxCount)
		cases := tx.Bucket(bCases)
		n, skip := 0, o.Skip
		var last uint64
		var werr error
		take := func(seq uint64, id []byte) bool {
			raw := cases.Get(id)
			if raw == nil {
				werr = fmt.Errorf("index names %s: %w", id, ErrNotFound)
				return false
			}
			if skip > 0 {
				skip--
				return true
			}
			if n == limit {
				next = strconv.FormatUint(last, 10)
				return false
			}
			if werr = emit(raw); werr != nil {
				return false
			}
			n, last = n+1, seq
			return true
		}
		if f.Empty() {
			// Every published case: the approval-order bucket is the list.
			walkSeqs(tx.Bucket(bPublished).Cursor(), nil, oldest, from, func(k, v []byte) bool {
				if cases.Get(v) == nil {
					return true
				}
				return take(keySeq(k), v)
			})
			return werr
		}
		pairs := f.pairs()
		// Walk the rarest posting list; check the others by point lookups.
		rarestFirst(counts, pairs)
		walkSeqs(idx.Cursor(), idxPrefix(pairs[0][0], pairs[0][1]), oldest, from, func(k, v []byte) bool {
			seq := keySeq(k)
			for _, p := range pairs[1:] {
				if idx.Get(idxKey(p[0], p[1], seq)) == nil {
					return true
				}
			}
			return take(seq, v)
		})
		return werr
	})
	return next, err
}

// Count returns how many published cases carry field=value ("tag", "kubernetes").
func (s *Store) Count(field, value string) int {
	var n uint64
	_ = s.db.View(func(tx *bolt.Tx) error {
		n = getCount(tx.Bucket(bIdxCount), countKey(field, value))
		return nil
	})
	return int(n)
}

// Facet is one value of an indexed field with its number of published cases.
type Facet struct {
	Value string `json:"value"`
	Count int    `json:"count"`
	// Label is how to show Value when it is a normalised form (an
	// organization's name as a case writes it); empty means Value.
	Label string `json:"label,omitempty"`
}

// Facets lists the values of field with their counts, most common first.
func (s *Store) Facets(field string) ([]Facet, error) {
	out := []Facet{}
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bIdxCount).Cursor()
		prefix := []byte(field + "\x00")
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			out = append(out, Facet{Value: string(k[len(prefix):]), Count: int(binary.BigEndian.Uint64(v))})
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	return out, err
}

// Similar is a related case with its score and a reason a person can read.
type Similar struct {
	casebook.Related
	Score  int    `json:"score"`
	Reason string `json:"reason"`
}

// Bounds on related-case ranking: posting lists are read newest first and
// only this far, so a popular component cannot make a read slow. The newest
// cases sharing the most labels win within that window.
const (
	relScanSameCause = 250
	relScanComponent = 200
	maxRelLabels     = 64 // labels beyond this many are not compared
)

type relCand struct {
	seq       uint64
	sameCause bool
	comps     uint64 // bit i: shares comps[i]
	tags      uint64 // bit i: shares tags[i]
}

func (rc *relCand) score() int {
	s := 3*bits.OnesCount64(rc.comps) + bits.OnesCount64(rc.tags)
	if rc.sameCause {
		s += 10
	}
	return s
}

func (rc *relCand) better(o *relCand) bool {
	if a, b := rc.score(), o.score(); a != b {
		return a > b
	}
	return rc.seq > o.seq
}

// similarTx ranks published cases related to c: those sharing the root-cause
// category and at least one component or tag first (most shared first), then
// those sharing a component. Only c's id and labels are read.
// relScratch is similarTx's candidate table, reused across calls.
type relScratch struct {
	at    map[uint64]int32
	cands []relCand
}

var relPool = sync.Pool{New: func() any {
	return &relScratch{at: make(map[uint64]int32, 2048), cands: make([]relCand, 0, 2048)}
}}

func similarTx(tx *bolt.Tx, c *casebook.Case, limit int) []Similar {
	idx := tx.Bucket(bIdx)
	self, _ := caseSeq(c.ID)
	// Scratch space from a pool: allocating (and collecting) a map sized for
	// the usual window cost a fifth of every case page.
	scratch := relPool.Get().(*relScratch)
	at, cands := scratch.at, scratch.cands[:0]
	defer func() {
		clear(at)
		scratch.cands = cands[:0]
		relPool.Put(scratch)
	}()
	scan := func(field, value string, cap int, note func(*relCand)) {
		prefix := idxPrefix(field, value)
		cur := idx.Cursor()
		n := 0
		for k, _ := reverseFrom(cur, prefix, math.MaxUint64); k != nil && bytes.HasPrefix(k, prefix) && n < cap; k, _ = cur.Prev() {
			n++
			seq := keySeq(k)
			if seq == self {
				continue
			}
			i, ok := at[seq]
			if !ok {
				i = int32(len(cands))
				at[seq] = i
				cands = append(cands, relCand{seq: seq})
			}
			note(&cands[i])
		}
	}
	cat := c.RootCause.Category
	comps := uniqLower(c.Components)
	tags := uniqLower(c.Tags)
	comps, tags = comps[:min(len(comps), maxRelLabels)], tags[:min(len(tags), maxRelLabels)]
	if cat != "" && cat != "unknown" {
		for i, comp := range comps {
			bit := uint64(1) << i
			scan("cc", cat+"/"+comp, relScanSameCause, func(rc *relCand) { rc.sameCause = true; rc.comps |= bit })
		}
		for i, t := range tags {
			bit := uint64(1) << i
			scan("ct", cat+"/"+t, relScanSameCause, func(rc *relCand) { rc.sameCause = true; rc.tags |= bit })
		}
	}
	if len(cands) < limit {
		for i, comp := range comps {
			bit := uint64(1) << i
			scan("component", comp, relScanComponent, func(rc *relCand) {
				if !rc.sameCause {
					rc.comps |= bit
				}
			})
		}
	}
	// Keep the best limit candidates: insertion into a short sorted list,
	// as limit is small and the candidates many.
	top := make([]*relCand, 0, limit+1)
	for i := range cands {
		rc := &cands[i]
		if !rc.sameCause && rc.comps == 0 {
			continue // shares only a tag, and not the cause: not related
		}
		if len(top) == limit && !rc.better(top[len(top)-1]) {
			continue
		}
		j := len(top)
		top = append(top, rc)
		for j > 0 && rc.better(top[j-1]) {
			top[j] = top[j-1]
			j--
		}
		top[j] = rc
		if len(top) > limit {
			top = top[:limit]
		}
	}
	cards, pub := tx.Bucket(bCards), tx.Bucket(bPublished)
	out := make([]Similar, 0, len(top))
	for _, rc := range top {
		id := pub.Get(seqKey(rc.seq))
		var other card
		if id == nil || getJSON(cards, id, &other) != nil {
			continue
		}
		var sc, st []string
		for i, comp := range comps {
			if rc.comps&(1<<i) != 0 {
				sc = append(sc, comp)
			}
		}
		for i, t := range tags {
			if rc.tags&(1<<i) != 0 {
				st = append(st, t)
			}
		}
		shared := append(append([]string{}, sc...), st...)
		rel := casebook.Related{ID: other.ID, Title: other.Title, Organization: other.Organization, Year: other.Year, Shared: shared}
		var why []string
		if rc.sameCause {
			rel.Relation = "same-root-cause"
			why = append(why, "same root cause ("+cat+")")
		} else {
			rel.Relation = "shared-component"
		}
		if len(sc) > 0 {
			why = append(why, "shared components: "+strings.Join(sc, ", "))
		}
		if len(st) > 0 {
			why = append(why, "shared tags: "+strings.Join(st, ", "))
		}
		out = append(out, Similar{Related: rel, Score: rc.score(), Reason: strings.Join(why, "; ")})
	}
	return out
}

func uniqLower(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		s = strings.ToLower(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func relatedOf(sim []Similar) []casebook.Related {
	out := make([]casebook.Related, len(sim))
	for i := range sim {
		out[i] = sim[i].Related
	}
	return out
}

// GetPublished returns a published case with its related cases filled in,
// in one read transaction. resolved is the id found after aliases.
func (s *Store) GetPublished(id string, related int) (c *casebook.Case, resolved string, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		resolved = resolveAlias(tx, id)
		c = new(casebook.Case)
		if err := getJSON(tx.Bucket(bCases), []byte(resolved), c); err != nil {
			return err
		}
		if c.Status != casebook.StatusPublished {
			return ErrNotFound
		}
		if related > 0 {
			c.Related = relatedOf(similarTx(tx, c, related))
		}
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("case %s: %w", id, err)
	}
	return c, resolved, nil
}

// emptyRelated is how a stored case's related field reads: stored cases
// never carry related cases. The first occurrence is the top-level field,
// since no string value can contain it unescaped and every map comes after.
var emptyRelated = []byte(`,"related":[]`)

// GetPublishedJSON is GetPublished for the HTTP API: the stored JSON with
// the related cases spliced in, without decoding and re-encoding the case.
func (s *Store) GetPublishedJSON(id string, related int) (out []byte, resolved string, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		resolved = resolveAlias(tx, id)
		var k card
		if err := getJSON(tx.Bucket(bCards), []byte(resolved), &k); err != nil {
			return err // no card: not published
		}
		raw := tx.Bucket(bCases).Get([]byte(resolved))
		if raw == nil {
			return ErrNotFound
		}
		rel, err := json.Marshal(nonNilRelated(relatedOf(similarTx(tx, k.labels(), related))))
		if err != nil {
			return err
		}
		i := bytes.Index(raw, emptyRelated)
		if i < 0 {
			// Stored with related cases by an older writer: decode instead.
			var c casebook.Case
			if err := json.Unmarshal(raw, &c); err != nil {
				return err
			}
			c.Related = nonNilRelated(relatedOf(similarTx(tx, k.labels(), related)))
			out, err = json.Marshal(c)
			return err
		}
		out = make([]byte, 0, len(raw)+len(rel))
		out = append(out, raw[:i]...)
		out = append(out, `,"related":`...)
		out = append(out, rel...)
		out = append(out, raw[i+len(emptyRelated):]...)
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("case %s: %w", id, err)
	}
	return out, resolved, nil
}

func nonNilRelated(r []casebook.Related) []casebook.Related {
	if r == nil {
		return []casebook.Related{}
	}
	for i := range r {
		if r[i].Shared == nil {
			r[i].Shared = []string{}
		}
	}
	return r
}

// ListCasesJSON is ListCases returning each case's stored JSON as is.
func (s *Store) ListCasesJSON(f Filter, cursor string, limit int) ([]json.RawMessage, string, error) {
	return s.ListCasesJSONWith(f, ListOptions{}, cursor, limit)
}

// ListCasesJSONWith is ListCasesJSON ordered and offset by o.
func (s *Store) ListCasesJSONWith(f Filter, o ListOptions, cursor string, limit int) ([]json.RawMessage, string, error) {
	var out []json.RawMessage
	next, err := s.listCases(f, o, cursor, limit, func(raw []byte) error {
		out = append(out, append(json.RawMessage(nil), raw...))
		return nil
	})
	if out == nil {
		out = []json.RawMessage{}
	}
	return out, next, err
}

// SimilarTo ranks published cases similar to the case id (any status).
func (s *Store) SimilarTo(id string, limit int) ([]Similar, error) {
	var out []Similar
	err := s.db.View(func(tx *bolt.Tx) error {
		var c casebook.Case
		if err := getJSON(tx.Bucket(bCases), []byte(resolveAlias(tx, id)), &c); err != nil {
			return fmt.Errorf("case %s: %w", id, err)
		}
		out = similarTx(tx, &c, limit)
		return nil
	})
	return out, err
}

// Import publishes finished cases directly (a seed, a restore, a benchmark),
// numbering them from the "case" counter and indexing them in the same
// transaction. Callers batch: one call is one transaction.
func (s *Store) Import(cases []*casebook.Case, by string) ([]string, error) {
	ids := make([]string, 0, len(cases))
	err := s.db.Update(func(tx *bolt.Tx) error {
		ids = ids[:0]
		now := s.stamp()
		for _, in := range cases {
			c := *in
			n, err := nextCounter(tx, "case")
			if err != nil {
				return err
			}
			c.ID = fmt.Sprintf("CB-%04d", n)
			c.Status = casebook.StatusPublished
			c.Related = nil
			if c.CreatedAt == "" {
				c.CreatedAt = now
			}
			c.UpdatedAt = now
			if c.Review.DecidedBy == "" {
				c.Review = casebook.Review{DecidedBy: by, DecidedAt: now, Note: "imported"}
			}
			c.Normalize()
			if err := putJSON(tx.Bucket(bCases), []byte(c.ID), c); err != nil {
				return err
			}
			if err := tx.Bucket(bPublished).Put(seqKey(n), []byte(c.ID)); err != nil {
				return err
			}
			for _, src := range c.Sources {
				if src.URL != "" {
					if err := tx.Bucket(bCaseByURL).Put([]byte(src.URL), []byte(c.ID)); err != nil {
						return err
					}
				}
				if src.SHA256 != "" {
					if err := tx.Bucket(bCaseByHash).Put([]byte(src.SHA256), []byte(c.ID)); err != nil {
						return err
					}
				}
			}
			if err := indexTx(tx, &c, true); err != nil {
				return err
			}
			if err := putSignature(tx, &c); err != nil {
				return err
			}
			if err := addHistory(tx, c.ID, Change{At: now, By: by, Action: "imported"}); err != nil {
				return err
			}
			ids = append(ids, c.ID)
		}
		return nil
	})
	return ids, err
}

// indexVersion names the layout of the index buckets; a store written
// before them (or by an older layout) is re-indexed once when opened.
const indexVersion = "1"

var metaIndexVersion = []byte("index_version")

// upgradeIndexes builds the indexes, cards and near-duplicate signatures of
// every published case and the signatures of drafts, in the opening
// transaction, when the store's index version is not the current one.
func upgradeIndexes(tx *bolt.Tx) error {
	meta := tx.Bucket(bMeta)
	if string(meta.Get(metaIndexVersion)) == indexVersion {
		return upgradeDerived(tx)
	}
	for _, b := range [][]byte{bIdx, bIdxCount, bTerms, bTermDF, bCards, bDupSig, bDupLSH} {
		if err := tx.DeleteBucket(b); err != nil {
			return err
		}
		if _, err := tx.CreateBucket(b); err != nil {
			return err
		}
	}
	cases := tx.Bucket(bCases)
	var all []casebook.Case
	if err := cases.ForEach(func(k, v []byte) error {
		var c casebook.Case
		if err := json.Unmarshal(v, &c); err != nil {
			return fmt.Errorf("case %s: %w", k, err)
		}
		if c.Status == casebook.StatusPublished || c.Status == casebook.StatusDraft {
			all = append(all, c)
		}
		return nil
	}); err != nil {
		return err
	}
	for i := range all {
		c := &all[i]
		if c.Status == casebook.StatusPublished {
			if err := indexTx(tx, c, true); err != nil {
				return err
			}
		}
		if err := putSignature(tx, c); err != nil {
			return err
		}
	}
	if err := meta.Put(metaIndexVersion, []byte(indexVersion)); err != nil {
		return err
	}
	return upgradeDerived(tx)
}

// upgradeDerived builds, once, the buckets derived from others that a store
// written by an older casebook lacks.
func upgradeDerived(tx *bolt.Tx) error {
	if err := upgradeAliasesOf(tx); err != nil {
		return err
	}
	if err := upgradeSubIndex(tx); err != nil {
		return err
	}
	if err := upgradeRecords(tx); err != nil {
		return err
	}
	return upgradeQueue(tx)
}

var metaRecordsVersion = []byte("records_version")

// upgradeRecords re-encodes, once, stored cases holding a JSON null (older
// casebooks wrote null evidence lists): the API serves the stored bytes as
// they are, and the case schema has no nulls.
func upgradeRecords(tx *bolt.Tx) error {
	meta := tx.Bucket(bMeta)
	if string(meta.Get(metaRecordsVersion)) == "1" {
		return nil
	}
	cases := tx.Bucket(bCases)
	fixed := map[string][]byte{}
	if err := cases.ForEach(func(k, v []byte) error {
		if !bytes.Contains(v, []byte("null")) {
			return nil
		}
		var c casebook.Case
		if err := json.Unmarshal(v, &c); err != nil {
			return fmt.Errorf("case %s: %w", k, err)
		}
		raw, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if !bytes.Equal(raw, v) {
			fixed[string(k)] = raw
		}
		return nil
	}); err != nil {
		return err
	}
	for k, raw := range fixed { // not during ForEach: bbolt forbids writes there
		if err := cases.Put([]byte(k), raw); err != nil {
			return err
		}
	}
	return meta.Put(metaRecordsVersion, []byte("1"))
}

var metaQueueVersion = []byte("queue_version")

// queueVersion names the layout of the queue buckets ("2": duplicates in
// their own bucket).
const queueVersion = "2"

// upgradeQueue builds the review queue's entries once for a store written
// before they existed.
func upgradeQueue(tx *bolt.Tx) error {
	meta := tx.Bucket(bMeta)
	if string(meta.Get(metaQueueVersion)) == queueVersion {
		return nil
	}
	if err := rebuildQueue(tx); err != nil {
		return err
	}
	return meta.Put(metaQueueVersion, []byte(queueVersion))
}
