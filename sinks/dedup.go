package sinks

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// Near-duplicate detection: a MinHash signature of each draft's and
// published case's text (three-term shingles), with LSH bands so a new draft
// finds candidates by a few key lookups instead of comparing with every case.
var (
	bDupSig   = []byte("dup_sig")    // case id -> signature (sigSize uint64)
	bDupLSH   = []byte("dup_lsh")    // band(1) + band hash(8) + case id -> ""
	bDraftTxt = []byte("draft_text") // case id -> extracted source text, for the review page
)

func init() { allBuckets = append(allBuckets, bDupSig, bDupLSH, bDraftTxt) }

const (
	sigRows  = 3
	sigBands = 21
	sigSize  = sigRows * sigBands
	// minShingles: shorter texts say too little to call anything a duplicate.
	minShingles = 8
	// NearDuplicate is the estimated Jaccard similarity above which two
	// cases are flagged as the same text.
	NearDuplicate = 0.5
)

func dupText(c *casebook.Case) string {
	parts := []string{c.Title, c.Summary, c.Symptoms, c.RootCause.Description, c.Trigger.Description, c.Detection.Description}
	parts = append(parts, c.Remediation...)
	parts = append(parts, c.ActionItems...)
	parts = append(parts, c.Lessons...)
	return strings.Join(parts, "\n")
}

func mix64(x uint64) uint64 { // splitmix64 finaliser
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// signature is the MinHash of text's shingles, nil when the text is too short.
func signature(text string) []uint64 {
	toks := Tokens(text, false)
	if len(toks) < minShingles+2 {
		return nil
	}
	sig := make([]uint64, sigSize)
	for i := range sig {
		sig[i] = ^uint64(0)
	}
	h := fnv.New64a()
	for i := 0; i+3 <= len(toks); i++ {
		h.Reset()
		h.Write([]byte(toks[i] + "\x00" + toks[i+1] + "\x00" + toks[i+2]))
		x := h.Sum64()
		for j := range sig {
			if v := mix64(x ^ uint64(j+1)*0x9e3779b97f4a7c15); v < sig[j] {
				sig[j] = v
			}
		}
	}
	return sig
}

func similarity(a, b []uint64) float64 {
	if len(a) != sigSize || len(b) != sigSize {
		return 0
	}
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	return float64(same) / sigSize
}

func bandKeys(sig []uint64) [][]byte {
	out := make([][]byte, sigBands)
	for b := 0; b < sigBands; b++ {
		x := uint64(b)
		for r := 0; r < sigRows; r++ {
			x = mix64(x ^ sig[b*sigRows+r])
		}
		k := make([]byte, 9)
		k[0] = byte(b)
		binary.BigEndian.PutUint64(k[1:], x)
		out[b] = k
	}
	return out
}

func encodeSig(sig []uint64) []byte {
	out := make([]byte, 8*len(sig))
	for i, v := range sig {
		binary.BigEndian.PutUint64(out[8*i:], v)
	}
	return out
}

func decodeSig(raw []byte) []uint64 {
	out := make([]uint64, len(raw)/8)
	for i := range out {
		out[i] = binary.BigEndian.Uint64(raw[8*i:])
	}
	return out
}

// putSignature (re)writes the signature and bands of c.
func putSignature(tx *bolt.Tx, c *casebook.Case) error {
	if err := delSignature(tx, c.ID); err != nil {
		return err
	}
	sig := signature(dupText(c))
	if sig == nil {
		return nil
	}
	lsh := tx.Bucket(bDupLSH)
	for _, k := range bandKeys(sig) {
		if err := lsh.Put(append(k, c.ID...), nil); err != nil {
			return err
		}
	}
	return tx.Bucket(bDupSig).Put([]byte(c.ID), encodeSig(sig))
}

func delSignature(tx *bolt.Tx, id string) error {
	sigs := tx.Bucket(bDupSig)
	raw := sigs.Get([]byte(id))
	if raw == nil {
		return nil
	}
	lsh := tx.Bucket(bDupLSH)
	for _, k := range bandKeys(decodeSig(raw)) {
		if err := lsh.Delete(append(k, id...)); err != nil {
			return err
		}
	}
	return sigs.Delete([]byte(id))
}

// Duplicate is another case a draft probably repeats.
type Duplicate struct {
	ID         string  `json:"id"`
	Title      string  `json:"title"`
	Status     string  `json:"status"`
	Reason     string  `json:"reason"` // same-canonical-url, same-content-hash, near-duplicate-text
	Similarity float64 `json:"similarity,omitempty"`
}

// Duplicates lists the drafts and published cases that the case id likely
// repeats: one of its sources' canonical URL or content hash belongs to
// another case, or its text is a near duplicate of another case's.
func (s *Store) Duplicates(id string) ([]Duplicate, error) {
	var out []Duplicate
	err := s.db.View(func(tx *bolt.Tx) error {
		cid := resolveAlias(tx, id)
		var c casebook.Case
		if err := getJSON(tx.Bucket(bCases), []byte(cid), &c); err != nil {
			return fmt.Errorf("case %s: %w", id, err)
		}
		out = duplicatesTx(tx, &c, 0)
		return nil
	})
	return out, err
}

// sigOf is c's stored MinHash signature, or one computed from its text when
// none is stored (the MinHash of a long text is the expensive part).
func sigOf(tx *bolt.Tx, c *casebook.Case) []uint64 {
	if raw := tx.Bucket(bDupSig).Get([]byte(c.ID)); raw != nil {
		return decodeSig(raw)
	}
	return signature(dupText(c))
}

// nearCandidates are the cases sharing an LSH band with sig, at most 200.
func nearCandidates(tx *bolt.Tx, sig []uint64) map[string]bool {
	lsh := tx.Bucket(bDupLSH)
	cands := map[string]bool{}
	for _, bk := range bandKeys(sig) {
		cur := lsh.Cursor()
		for k, _ := cur.Seek(bk); k != nil && bytes.HasPrefix(k, bk) && len(cands) < 200; k, _ = cur.Next() {
			cands[string(k[len(bk):])] = true
		}
	}
	return cands
}

// duplicatesTx finds the likely duplicates of c; max > 0 stops at that many
// (the queue's counts only ask whether there is one).
func duplicatesTx(tx *bolt.Tx, c *casebook.Case, max int) []Duplicate {
	return findDuplicates(tx, c, max, true, true)
}

// duplicateRefsTx is duplicatesTx without the titles: it reads only the
// head of each duplicate's record, so the queue's bookkeeping stays cheap
// when a draft has hundreds of mirrors.
func duplicateRefsTx(tx *bolt.Tx, c *casebook.Case, max int) []Duplicate {
	return findDuplicates(tx, c, max, false, true)
}

// findDuplicates looks c's sources up by canonical URL and content hash,
// then, when byText is set, its text among the near-duplicate signatures.
func findDuplicates(tx *bolt.Tx, c *casebook.Case, max int, titles, byText bool) []Duplicate {
	out := []Duplicate{}
	seen := map[string]bool{c.ID: true}
	cases := tx.Bucket(bCases)
	add := func(other, reason string, sim float64) {
		other = resolveAlias(tx, other)
		if seen[other] {
			return
		}
		raw := cases.Get([]byte(other))
		if raw == nil {
			return
		}
		st, err := statusOf(raw)
		if err != nil || st == casebook.StatusRejected || st == casebook.StatusMerged {
			return
		}
		seen[other] = true
		d := Duplicate{ID: other, Status: st, Reason: reason, Similarity: sim}
		if titles {
			var oc casebook.Case
			if json.Unmarshal(raw, &oc) != nil {
				return
			}
			d.Title = oc.Title
		}
		out = append(out, d)
	}
	for _, src := range c.Sources {
		if src.URL != "" {
			if v := tx.Bucket(bCaseByURL).Get([]byte(src.URL)); v != nil {
				add(string(v), "same-canonical-url", 0)
			}
		}
		if src.SHA256 != "" {
			if v := tx.Bucket(bCaseByHash).Get([]byte(src.SHA256)); v != nil {
				add(string(v), "same-content-hash", 0)
			}
		}
	}
	if max > 0 && len(out) >= max {
		return out[:max]
	}
	if !byText {
		return out
	}
	sig := sigOf(tx, c)
	if sig == nil {
		return out
	}
	cands := nearCandidates(tx, sig)
	sigs := tx.Bucket(bDupSig)
	if !titles && max > 0 {
		// Only whether there are duplicates is asked: any near enough
		// will do, so stop at the first rather than rank them all.
		for id := range cands {
			if seen[id] {
				continue
			}
			if raw := sigs.Get([]byte(id)); raw != nil && similarity(sig, decodeSig(raw)) >= NearDuplicate {
				add(id, "near-duplicate-text", 0)
				if len(out) >= max {
					return out
				}
			}
		}
		return out
	}
	type scored struct {
		id  string
		sim float64
	}
	var near []scored
	for id := range cands {
		if seen[id] {
			continue
		}
		raw := sigs.Get([]byte(id))
		if raw == nil {
			continue
		}
		if sim := similarity(sig, decodeSig(raw)); sim >= NearDuplicate {
			near = append(near, scored{id, sim})
		}
	}
	sort.Slice(near, func(i, j int) bool { return near[i].sim > near[j].sim })
	for _, n := range near {
		if max > 0 && len(out) >= max {
			break
		}
		add(n.id, "near-duplicate-text", float64(int(n.sim*100))/100)
	}
	return out
}

// SourceText returns the extracted main text a draft was made from, the
// text its evidence spans point into; "" when the pipeline did not keep it.
func (s *Store) SourceText(id string) string {
	var t string
	_ = s.db.View(func(tx *bolt.Tx) error {
		cid := resolveAlias(tx, id)
		t = string(tx.Bucket(bDraftTxt).Get([]byte(cid)))
		if t == "" {
			// Published and merged cases keep the text under the draft id.
			for _, old := range earlierIDs(tx, cid) {
				if t = string(tx.Bucket(bDraftTxt).Get([]byte(old))); t != "" {
					break
				}
			}
		}
		return nil
	})
	return t
}
