package sinks

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

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
// weight × idf. The cursor is the offset of the next page.
func (s *Store) Search(q string, cursor string, limit int) (SearchResult, error) {
	return s.search(q, cursor, limit, false)
}

// SearchJSON is Search returning the hits' stored JSON in Raw, for the
// HTTP API, which then need not decode and re-encode them.
func (s *Store) SearchJSON(q string, cursor string, limit int) (SearchResult, error) {
	return s.search(q, cursor, limit, true)
}

func (s *Store) search(q string, cursor string, limit int, raw bool) (SearchResult, error) {
	res := SearchResult{Items: []casebook.Case{}, Raw: []json.RawMessage{}}
	offset := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 {
			return res, fmt.Errorf("bad cursor %q: %w", cursor, ErrInvalid)
		}
		offset = n
	}
	terms := uniq(Tokens(q, false))
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	res.Terms = terms
	if len(terms) == 0 {
		return res, nil
	}
	err := s.db.View(func(tx *bolt.Tx) error {
		postings, dfb := tx.Bucket(bTerms), tx.Bucket(bTermDF)
		n := float64(getCount(tx.Bucket(bIdxCount), countKey("all", "")))
		type term struct {
			t   string
			df  uint64
			idf float64
		}
		ts := make([]term, 0, len(terms))
		missing := false
		for _, t := range terms {
			df := getCount(dfb, []byte(t))
			if df == 0 {
				missing = true
			}
			ts = append(ts, term{t, df, math.Log(1 + (n+1)/(float64(df)+0.5))})
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i].df < ts[j].df })
		all := ts
		if n > 0 {
			keep := 1
			for keep < len(ts) && float64(ts[keep].df) <= commonShare*n {
				keep++
			}
			ts = ts[:keep]
		}
		var hits []hit
		if !missing {
			// AND: walk the rarest term newest first, look the others up by key.
			first := ts[0]
			prefix := append([]byte(first.t), 0)
			cur := postings.Cursor()
			others := make([]postingWalker, len(ts)-1)
			for i, o := range ts[1:] {
				others[i] = postingWalker{cur: postings.Cursor(), prefix: append([]byte(o.t), 0)}
			}
			scanned := 0
			for k, v := reverseFrom(cur, prefix, math.MaxUint64); k != nil && bytes.HasPrefix(k, prefix) && scanned < maxDriverScan; k, v = cur.Prev() {
				if len(k) != len(prefix)+8 {
					continue
				}
				scanned++
				seq := keySeq(k)
				score := float64(binary.BigEndian.Uint16(v)) * first.idf
				ok := true
				for i := range others {
					w := others[i].at(seq)
					if w == nil {
						ok = false
						break
					}
					score += float64(binary.BigEndian.Uint16(w)) * ts[i+1].idf
				}
				if ok {
					hits = append(hits, hit{seq, score})
				}
			}
		}
		if len(hits) == 0 {
			acc := map[uint64]float64{}
			for _, o := range all {
				if o.df == 0 {
					continue
				}
				prefix := append([]byte(o.t), 0)
				cur := postings.Cursor()
				read := 0
				for k, v := reverseFrom(cur, prefix, math.MaxUint64); k != nil && bytes.HasPrefix(k, prefix) && read < maxPostingsOR; k, v = cur.Prev() {
					if len(k) != len(prefix)+8 {
						continue
					}
					read++
					acc[keySeq(k)] += float64(binary.BigEndian.Uint16(v)) * o.idf
				}
			}
			hits = make([]hit, 0, len(acc))
			for seq, sc := range acc {
				hits = append(hits, hit{seq, sc})
			}
		}
		res.Total = min(len(hits), maxHits)
		if offset >= res.Total {
			return nil
		}
		end := min(offset+limit, res.Total)
		hits = topHits(hits, end)
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
