package sinks

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// Search bounds: a query has at most maxQueryTerms terms, and an OR
// fallback reads at most maxPostingsOR postings per term, so no query can
// walk the whole index.
const (
	maxQueryTerms = 16
	maxPostingsOR = 6000
	maxHits       = 10000
	// maxDriverScan bounds the AND walk: the rarest term's postings are read
	// newest first, and only this many, so one common word cannot make a
	// query slow; the newest matches of such a query rank.
	maxDriverScan = 6000
	// A term in more than this share of cases says almost nothing about
	// them (a dynamic stop word): it neither filters nor scores, unless the
	// query has nothing rarer.
	commonShare = 0.5
)

// SearchResult is one page of search hits, best first.
type SearchResult struct {
	Items []casebook.Case
	// Raw holds the stored JSON of the hits instead of Items (SearchJSON).
	Raw        []json.RawMessage
	Scores     []float64
	Total      int
	NextCursor string
	// Terms are the index terms the query was reduced to.
	Terms []string
}

type hit struct {
	seq   uint64
	score float64
}

// Search finds published cases whose title, summary, symptoms, root cause
// or remediation contain every term of q (stemmed; Han text by bigrams). When
// no case has them all, cases with any of them are returned, ranked by
// weight × idf. The cursor is the offset of the next page. See SearchWith
// for the query syntax.
func (s *Store) Search(q string, cursor string, limit int) (SearchResult, error) {
	return s.search(q, SearchOptions{}, cursor, limit, false)
}

// SearchJSON is Search returning the hits' stored JSON in Raw, for the
// HTTP API, which then need not decode and re-encode them.
func (s *Store) SearchJSON(q string, cursor string, limit int) (SearchResult, error) {
	return s.search(q, SearchOptions{}, cursor, limit, true)
}

// Sort orders of a search or a listing.
const (
	SortRelevance = "relevance"
	SortNewest    = "newest"
	SortOldest    = "oldest"
)

// SearchOptions narrow and order a search: the hits must also match
// Filter, and Sort is relevance (the default), newest or oldest.
type SearchOptions struct {
	Filter Filter
	Sort   string
	// Raw returns the hits' stored JSON in Raw instead of Items.
	Raw bool
}

// SearchWith is Search narrowed by a filter and ordered by o.Sort. A query
// word that is a tag alias ("k8s") also matches the cases carrying its tag
// (kubernetes); -word drops the cases containing word; "a quoted phrase"
// must occur as such (its words in that order) in a searched field.
func (s *Store) SearchWith(q string, o SearchOptions, cursor string, limit int) (SearchResult, error) {
	return s.search(q, o, cursor, limit, o.Raw)
}

// alt is one way a query clause matches: a term's postings (terms bucket,
// weight values) or a tag's index entries (idx bucket).
type alt struct {
	tag    bool
	prefix []byte
	df     uint64
	idf    float64
}

// clause is satisfied when any of its alternatives holds the case.
type clause struct {
	alts []alt
	df   uint64 // sum over alts: an upper bound on the cases it matches
	// filter clauses narrow without scoring.
	filter bool
}

// queryPlan is a parsed query.
type queryPlan struct {
	words   []string   // plain and quoted words' terms, for Terms
	must    [][]string // each: the terms a word became (a Han run: several)
	aliasOf []string   // parallel to must: the tag slug a word names, or ""
	not     [][]string
	notTags []string
	phrases [][]string
	// phraseTags is parallel to phrases: the tag a quoted alias names
	// ("service mesh"), whose cases hold the phrase without its words.
	phraseTags []string
	notPhrases [][]string
}

// maxAliasWords is the most words of a multi-word tag alias a query is
// read for ("elastic kubernetes service").
const maxAliasWords = 4

// queryItem is one word or "quoted phrase" of a query, as written.
type queryItem struct {
	text        string
	neg, phrase bool
}

// splitQuery cuts q into words, -words and "phrases" (an unclosed quote
// runs to the end).
func splitQuery(q string) []queryItem {
	var items []queryItem
	for i := 0; i < len(q); {
		r := q[i]
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			i++
			continue
		}
		neg := false
		if r == '-' && i+1 < len(q) && q[i+1] != ' ' {
			neg, i = true, i+1
		}
		if q[i] == '"' {
			j := strings.IndexByte(q[i+1:], '"')
			var text string
			if j < 0 {
				text, i = q[i+1:], len(q)
			} else {
				text, i = q[i+1:i+1+j], i+2+j
			}
			items = append(items, queryItem{text: text, neg: neg, phrase: true})
			continue
		}
		j := i
		for j < len(q) && q[j] != ' ' && q[j] != '\t' && q[j] != '\n' && q[j] != '\r' && q[j] != '"' {
			j++
		}
		items = append(items, queryItem{text: q[i:j], neg: neg})
		i = j
	}
	return items
}

// parseQuery splits q into words, -excluded words and "quoted phrases". A
// word, a run of words or a phrase that is a tag alias ("k8s", connection
// pool, "service mesh", 服务网格) also matches the cases carrying its tag:
// each of its terms becomes "the term or the tag", and the AND of those is
// "all the terms, or the tag".
func parseQuery(q string) queryPlan {
	var p queryPlan
	addTerms := func(terms []string, slug string) {
		for _, t := range terms {
			p.words = append(p.words, t)
			p.must = append(p.must, []string{t})
			p.aliasOf = append(p.aliasOf, slug)
		}
	}
	items := splitQuery(q)
	// Each word's terms, read once: the alias runs below ask for them again.
	termsOf := make([][]string, len(items))
	for i, it := range items {
		if !it.phrase {
			termsOf[i] = Tokens(it.text, false)
		}
	}
	for i := 0; i < len(items); i++ {
		it := items[i]
		if it.phrase {
			terms := Tokens(it.text, false)
			words := strings.Fields(it.text)
			slug := aliasOfWords(words, tokensEach(words))
			switch {
			case len(terms) == 0:
			case it.neg:
				p.notPhrases = append(p.notPhrases, terms)
				if slug != "" {
					p.notTags = append(p.notTags, slug)
				}
			default:
				addTerms(terms, slug)
				if len(terms) > 1 {
					p.phrases, p.phraseTags = append(p.phrases, terms), append(p.phraseTags, slug)
				}
			}
			continue
		}
		if it.neg {
			terms := termsOf[i]
			if len(terms) > 0 {
				p.not = append(p.not, terms)
			}
			if slug, ok := casebook.NormalizeTag(it.text); ok && len(terms) > 0 {
				p.notTags = append(p.notTags, slug)
			}
			continue
		}
		// The longest run of plain words from here that is an alias (as
		// written or by its terms), as if it were quoted but without the
		// order: the words anywhere, or the tag.
		n := 1
		slug, _ := casebook.NormalizeTag(it.text)
		for j := min(len(items), i+maxAliasWords); j > i+1; j-- {
			run := make([]string, 0, j-i)
			for _, w := range items[i:j] {
				if w.neg || w.phrase {
					break
				}
				run = append(run, w.text)
			}
			if len(run) != j-i {
				continue
			}
			if s := aliasOfWords(run, termsOf[i:j]); s != "" {
				n, slug = j-i, s
				break
			}
		}
		if n == 1 && slug == "" {
			if slug = aliasOfWords([]string{it.text}, termsOf[i:i+1]); slug == "" {
				// A word without spaces may hold a Han-script alias.
				if strings.IndexFunc(it.text, isHanRune) < 0 {
					addTerms(termsOf[i], "")
					continue
				}
				for _, part := range hanParts(it.text) {
					addTerms(Tokens(part.text, false), part.slug)
				}
				continue
			}
		}
		for k := i; k < i+n; k++ {
			addTerms(termsOf[k], slug)
		}
		i += n - 1
	}
	// One clause a term: a term asked twice counts once, and asked both
	// plainly and as part of an alias it is needed plainly (t AND (t OR
	// tag) is t); asked for two different tags, plainly too (a subset).
	at := map[string]int{}
	var must [][]string
	var aliasOf []string
	for i, m := range p.must {
		if k, ok := at[m[0]]; ok {
			if aliasOf[k] != p.aliasOf[i] {
				aliasOf[k] = ""
			}
			continue
		}
		at[m[0]] = len(must)
		must, aliasOf = append(must, m), append(aliasOf, p.aliasOf[i])
	}
	p.must, p.aliasOf, p.words = must, aliasOf, uniq(p.words)
	if len(p.must) > maxQueryTerms {
		p.must, p.aliasOf = p.must[:maxQueryTerms], p.aliasOf[:maxQueryTerms]
	}
	return p
}

// maxPhraseCheck bounds how many hits a phrase query reads back to see the
// phrase in order: the index has no positions.
const maxPhraseCheck = 3000

func (s *Store) search(q string, o SearchOptions, cursor string, limit int, raw bool) (SearchResult, error) {
	res := SearchResult{Items: []casebook.Case{}, Raw: []json.RawMessage{}}
	offset := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 {
			return res, fmt.Errorf("bad cursor %q: %w", cursor, ErrInvalid)
		}
		offset = n
	}
	switch o.Sort {
	case "", SortRelevance, SortNewest, SortOldest:
	default:
		return res, fmt.Errorf("sort %q: want relevance, newest or oldest: %w", o.Sort, ErrInvalid)
	}
	plan := parseQuery(q)
	res.Terms = plan.words
	if res.Terms == nil {
		res.Terms = []string{}
	}
	if len(plan.must) == 0 {
		return res, nil
	}
	err := s.db.View(func(tx *bolt.Tx) error {
		hits := hitsTx(tx, plan, o)
		res.Total = min(len(hits), maxHits)
		if offset >= res.Total {
			return nil
		}
		end := min(offset+limit, res.Total)
		switch o.Sort {
		case SortNewest:
			sort.Slice(hits, func(i, j int) bool { return hits[i].seq > hits[j].seq })
		case SortOldest:
			sort.Slice(hits, func(i, j int) bool { return hits[i].seq < hits[j].seq })
		default:
			hits = topHits(hits, end)
		}
		cases, pub := tx.Bucket(bCases), tx.Bucket(bPublished)
		for _, h := range hits[offset:end] {
			id := pub.Get(seqKey(h.seq))
			if id == nil {
				continue
			}
			if raw {
				v := cases.Get(id)
				if v == nil {
					continue
				}
				res.Raw = append(res.Raw, append(json.RawMessage(nil), v...))
			} else {
				var c casebook.Case
				if getJSON(cases, id, &c) != nil {
					continue
				}
				res.Items = append(res.Items, c)
			}
			res.Scores = append(res.Scores, math.Round(h.score*1000)/1000)
		}
		if end < res.Total {
			res.NextCursor = strconv.Itoa(end)
		}
		return nil
	})
	return res, err
}

// hitsTx finds the cases matching a parsed query and filter, unordered
// (at most maxDriverScan per driving alternative, as in Search).
func hitsTx(tx *bolt.Tx, plan queryPlan, o SearchOptions) []hit {
	postings, dfb, counts, idx := tx.Bucket(bTerms), tx.Bucket(bTermDF), tx.Bucket(bIdxCount), tx.Bucket(bIdx)
	n := float64(getCount(counts, countKey("all", "")))
	idf := func(df uint64) float64 { return math.Log(1 + (n+1)/(float64(df)+0.5)) }
	cls := make([]clause, 0, len(plan.must))
	missing := false
	for i, m := range plan.must {
		df := getCount(dfb, []byte(m[0]))
		c := clause{alts: []alt{{prefix: append([]byte(m[0]), 0), df: df, idf: idf(df)}}, df: df}
		if slug := plan.aliasOf[i]; slug != "" {
			if tdf := getCount(counts, countKey("tag", slug)); tdf > 0 {
				c.alts = append(c.alts, alt{tag: true, prefix: idxPrefix("tag", slug), df: tdf, idf: idf(tdf)})
				c.df += tdf
			}
		}
		if c.df == 0 {
			missing = true
		}
		cls = append(cls, c)
	}
	sort.SliceStable(cls, func(i, j int) bool { return cls[i].df < cls[j].df })
	all := cls
	if n > 0 {
		keep := 1
		for keep < len(cls) && float64(cls[keep].df) <= commonShare*n {
			keep++
		}
		cls = cls[:keep]
	}
	filters := o.Filter.pairs()
	for _, p := range filters {
		df := getCount(counts, countKey(p[0], p[1]))
		if df == 0 {
			return nil // nothing carries the filter value
		}
		cls = append(cls, clause{alts: []alt{{tag: true, prefix: idxPrefix(p[0], p[1]), df: df}}, df: df, filter: true})
	}
	// keeps reports whether seq passes the filters and exclusions; the
	// driving clause, if a filter, is not asked again.
	// walkers[i] answers for filter clause i when seqs come in descending
	// order (the AND walk): cheaper than a B-tree lookup a case on a dense
	// filter such as a language.
	var walkers map[int]*postingWalker
	keeps := func(seq uint64, skip int) bool {
		for i, c := range cls {
			if !c.filter || i == skip {
				continue
			}
			if walkers != nil {
				if walkers[i].at(seq) == nil {
					return false
				}
			} else if idx.Get(append(c.alts[0].prefix, seqKey(seq)...)) == nil {
				return false
			}
		}
		for _, terms := range plan.not {
			for _, t := range terms {
				if postings.Get(append(append([]byte(t), 0), seqKey(seq)...)) != nil {
					return false
				}
			}
		}
		for _, slug := range plan.notTags {
			if idx.Get(idxKey("tag", slug, seq)) != nil {
				return false
			}
		}
		return true
	}
	var hits []hit
	matched := 0
	if !missing {
		walkers = map[int]*postingWalker{}
		for i, c := range cls {
			if c.filter {
				walkers[i] = &postingWalker{cur: idx.Cursor(), prefix: c.alts[0].prefix}
			}
		}
		hits, matched = andHits(tx, cls, o.Sort == SortOldest, keeps)
		walkers = nil // the OR fallback asks in no order
	}
	// The OR fallback is for words no case has together; when cases have
	// them all and the filters or exclusions leave none, none is the answer.
	if len(hits) == 0 && matched == 0 {
		acc := map[uint64]float64{}
		for _, c := range all {
			for _, a := range c.alts {
				b := postings
				if a.tag {
					b = idx
				}
				cur := b.Cursor()
				read := 0
				for k, v := reverseFrom(cur, a.prefix, math.MaxUint64); k != nil && bytes.HasPrefix(k, a.prefix) && read < maxPostingsOR; k, v = cur.Prev() {
					if len(k) != len(a.prefix)+8 {
						continue
					}
					read++
					acc[keySeq(k)] += weightOf(a, v) * a.idf
				}
			}
		}
		hits = make([]hit, 0, len(acc))
		for seq, sc := range acc {
			if keeps(seq, -1) {
				hits = append(hits, hit{seq, sc})
			}
		}
	}
	if len(plan.phrases)+len(plan.notPhrases) > 0 {
		hits = phraseHits(tx, hits, plan)
	}
	return hits
}

// weightOf is an entry's search weight: a term posting holds it, a tag
// entry counts as a word in a step.
func weightOf(a alt, v []byte) float64 {
	if a.tag || len(v) < 2 {
		return wOther
	}
	return float64(binary.BigEndian.Uint16(v))
}

// andHits walks the rarest clause (newest first, or oldest first) for at
// most maxDriverScan entries per alternative and keeps the cases every
// other clause holds; matched counts those holding every word, before the
// filters and exclusions.
func andHits(tx *bolt.Tx, cls []clause, oldest bool, keeps func(uint64, int) bool) (hits []hit, matched int) {
	postings, idx := tx.Bucket(bTerms), tx.Bucket(bIdx)
	d := 0
	for i := range cls {
		if cls[i].df < cls[d].df {
			d = i
		}
	}
	// Candidates in walk order; a clause of one alternative (the common
	// case) needs no merging, which keeps a plain search streaming-cheap.
	var cands []hit
	for _, a := range cls[d].alts {
		b := postings
		if a.tag {
			b = idx
		}
		cur := b.Cursor()
		var k, v []byte
		if oldest {
			k, v = cur.Seek(a.prefix)
		} else {
			k, v = reverseFrom(cur, a.prefix, math.MaxUint64)
		}
		for scanned := 0; k != nil && bytes.HasPrefix(k, a.prefix) && scanned < maxDriverScan; scanned++ {
			if len(k) == len(a.prefix)+8 {
				sc := 0.0
				if !cls[d].filter {
					sc = weightOf(a, v) * a.idf
				}
				cands = append(cands, hit{keySeq(k), sc})
			}
			if oldest {
				k, v = cur.Next()
			} else {
				k, v = cur.Prev()
			}
		}
	}
	// The walkers answer for seqs asked in descending order.
	switch {
	case len(cls[d].alts) > 1:
		best := make(map[uint64]float64, len(cands))
		for _, c := range cands {
			if sc, ok := best[c.seq]; !ok || c.score > sc {
				best[c.seq] = c.score
			}
		}
		cands = cands[:0]
		for seq, sc := range best {
			cands = append(cands, hit{seq, sc})
		}
		sort.Slice(cands, func(i, j int) bool { return cands[i].seq > cands[j].seq })
	case oldest:
		slices.Reverse(cands)
	}
	type other struct {
		c  *clause
		ws []postingWalker
	}
	var others []other
	for i := range cls {
		if i == d || cls[i].filter {
			continue
		}
		o := other{c: &cls[i]}
		for _, a := range cls[i].alts {
			b := postings
			if a.tag {
				b = idx
			}
			o.ws = append(o.ws, postingWalker{cur: b.Cursor(), prefix: a.prefix})
		}
		others = append(others, o)
	}
	for _, cand := range cands {
		seq, sc, ok := cand.seq, cand.score, true
		for i := range others {
			best := -1.0
			for j := range others[i].ws {
				if w := others[i].ws[j].at(seq); w != nil {
					best = max(best, weightOf(others[i].c.alts[j], w)*others[i].c.alts[j].idf)
				}
			}
			if best < 0 {
				ok = false
				break
			}
			sc += best
		}
		if !ok {
			continue
		}
		if !cls[d].filter {
			matched++
		}
		if keeps(seq, d) {
			hits = append(hits, hit{seq, sc})
		}
	}
	return hits, matched
}

// phraseHits keeps the hits whose searched text holds every phrase of the
// plan as consecutive terms, and none of its excluded phrases, reading at
// most maxPhraseCheck cases (the best, or newest, first).
func phraseHits(tx *bolt.Tx, hits []hit, plan queryPlan) []hit {
	sort.Slice(hits, func(i, j int) bool { return better(hits[i], hits[j]) })
	cases, pub := tx.Bucket(bCases), tx.Bucket(bPublished)
	out := hits[:0]
	for i, h := range hits {
		if i == maxPhraseCheck {
			break
		}
		id := pub.Get(seqKey(h.seq))
		var c casebook.Case
		if id == nil || getJSON(cases, id, &c) != nil {
			continue
		}
		fields := searchedTexts(&c)
		holds := func(ph []string) bool {
			for _, f := range fields {
				if containsRun(Tokens(f, false), ph) {
					return true
				}
			}
			return false
		}
		ok := true
		for i, ph := range plan.phrases {
			// A quoted alias holds for a case carrying its tag.
			ok = ok && (holds(ph) || plan.phraseTags[i] != "" && slices.Contains(c.Tags, plan.phraseTags[i]))
		}
		for _, ph := range plan.notPhrases {
			ok = ok && !holds(ph)
		}
		if ok {
			out = append(out, h)
		}
	}
	return out
}

// searchedTexts are the fields termWeights indexes, one text each, so a
// phrase does not run from one field into the next.
func searchedTexts(c *casebook.Case) []string {
	out := []string{c.Title, c.Organization, c.Summary, c.Symptoms, c.RootCause.Description}
	return append(append(out, c.Remediation...), c.Tags...)
}

func containsRun(tokens, run []string) bool {
	for i := 0; i+len(run) <= len(tokens); i++ {
		if slices.Equal(tokens[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

func uniq(in []string) []string {
	seen := map[string]bool{}
	out := in[:0:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func better(a, b hit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.seq > b.seq
}

// hitHeap is a min-heap by rank: its root is the worst of the best k.
type hitHeap []hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// topHits returns the best k hits in rank order; a common word matches tens
// of thousands of cases, and only a page of them is shown.
func topHits(hits []hit, k int) []hit {
	if len(hits) <= k*4 {
		sort.Slice(hits, func(i, j int) bool { return better(hits[i], hits[j]) })
		return hits[:min(k, len(hits))]
	}
	h := make(hitHeap, 0, k)
	for _, x := range hits {
		if len(h) < k {
			heap.Push(&h, x)
		} else if better(x, h[0]) {
			h[0] = x
			heap.Fix(&h, 0)
		}
	}
	out := make([]hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(hit)
	}
	return out
}

// postingWalker answers "does this term's posting list hold seq?" for seqs
// asked in descending order, moving one cursor backwards: a few Prev steps
// are far cheaper than a B-tree lookup per question.
type postingWalker struct {
	cur    *bolt.Cursor
	prefix []byte
	k, v   []byte
	seq    uint64
	done   bool // no posting at or below the last seq asked
	primed bool
}

func (p *postingWalker) seek(seq uint64) {
	p.k, p.v = reverseFrom(p.cur, p.prefix, seq+1)
	p.load()
}

func (p *postingWalker) load() {
	// Keys under "term\x00" are that term's: terms never contain \x00.
	p.done = p.k == nil || !bytes.HasPrefix(p.k, p.prefix)
	if !p.done {
		p.seq = keySeq(p.k)
	}
}

// at returns the weight of seq in the list, or nil.
func (p *postingWalker) at(seq uint64) []byte {
	if !p.primed {
		p.primed = true
		p.seek(seq)
	}
	for steps := 0; !p.done && p.seq > seq; steps++ {
		if steps == 8 { // far behind: jump
			p.seek(seq)
			break
		}
		p.k, p.v = p.cur.Prev()
		p.load()
	}
	if p.done || p.seq != seq {
		return nil
	}
	return p.v
}
