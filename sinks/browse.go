package sinks

import (
	"encoding/json"
	"sort"
	"strconv"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

// maxFacetScan bounds how many matching cases facet counting reads: past
// it, the counts are of the newest (or best) maxFacetScan matches.
const maxFacetScan = 20000

// ResultFacets counts, for each filter, the values the matching cases carry.
type ResultFacets struct {
	Tags          []Facet
	Components    []Facet
	Categories    []Facet
	Organizations []Facet
	Languages     []Facet
	Years         []Facet
	// Total is the number of matching cases (a search's is capped as its
	// Total is).
	Total int
	// Partial: the counts cover only the first maxFacetScan matches.
	Partial bool
}

// FacetsOf counts the filter values over the cases a search (q not empty)
// or a listing (q empty) with o.Filter matches, for the web UI's facets.
func (s *Store) FacetsOf(q string, o SearchOptions) (ResultFacets, error) {
	var rf ResultFacets
	if q == "" && o.Filter.Empty() {
		return s.globalFacets()
	}
	err := s.db.View(func(tx *bolt.Tx) error {
		acc := newFacetAcc()
		pub, cards, idx := tx.Bucket(bPublished), tx.Bucket(bCards), tx.Bucket(bIdx)
		count := func(seq uint64, id []byte) {
			rf.Total++
			if rf.Total > maxFacetScan {
				rf.Partial = true
				return
			}
			if id == nil {
				id = pub.Get(seqKey(seq))
			}
			var k card
			if raw := cards.Get(id); raw == nil || json.Unmarshal(raw, &k) != nil {
				return
			}
			lang := "und"
			for _, l := range casebook.Languages {
				if idx.Get(idxKey("language", l, seq)) != nil {
					lang = l
					break
				}
			}
			acc.add(&k, lang)
		}
		if q != "" {
			hits := hitsTx(tx, parseQuery(q), o)
			if len(hits) > maxHits {
				hits = topHits(hits, maxHits)
			}
			for _, h := range hits {
				count(h.seq, nil)
			}
		} else {
			pairs := o.Filter.pairs()
			counts := tx.Bucket(bIdxCount)
			rarestFirst(counts, pairs)
			walkSeqs(idx.Cursor(), idxPrefix(pairs[0][0], pairs[0][1]), false, ^uint64(0), func(k, v []byte) bool {
				seq := keySeq(k)
				for _, p := range pairs[1:] {
					if idx.Get(idxKey(p[0], p[1], seq)) == nil {
						return true
					}
				}
				count(seq, v)
				return true
			})
		}
		acc.into(&rf)
		return nil
	})
	return rf, err
}

// globalFacets are the index's own counts: every published case matches.
func (s *Store) globalFacets() (ResultFacets, error) {
	rf := ResultFacets{Total: s.Count("all", "")}
	for _, f := range []struct {
		field string
		dst   *[]Facet
	}{{"tag", &rf.Tags}, {"component", &rf.Components}, {"category", &rf.Categories}, {"organization", &rf.Organizations}, {"language", &rf.Languages}, {"year", &rf.Years}} {
		v, err := s.Facets(f.field)
		if err != nil {
			return rf, err
		}
		*f.dst = v
	}
	sortYears(rf.Years)
	return rf, nil
}

type facetAcc struct {
	tags, comps, cats, orgs, langs, years map[string]int
	orgName                               map[string]string
}

func newFacetAcc() *facetAcc {
	return &facetAcc{tags: map[string]int{}, comps: map[string]int{}, cats: map[string]int{}, orgs: map[string]int{},
		langs: map[string]int{}, years: map[string]int{}, orgName: map[string]string{}}
}

func (a *facetAcc) add(k *card, lang string) {
	for _, t := range uniqLower(k.Tags) {
		a.tags[t]++
	}
	for _, c := range uniqLower(k.Components) {
		a.comps[c]++
	}
	cat := k.Category
	if cat == "" {
		cat = "unknown"
	}
	a.cats[cat]++
	if o := normOrg(k.Organization); o != "" {
		a.orgs[o]++
		if _, ok := a.orgName[o]; !ok {
			a.orgName[o] = k.Organization
		}
	}
	a.langs[lang]++
	if k.Year > 0 {
		a.years[strconv.Itoa(k.Year)]++
	}
}

func (a *facetAcc) into(rf *ResultFacets) {
	rf.Tags, rf.Components, rf.Categories = ranked(a.tags, nil), ranked(a.comps, nil), ranked(a.cats, nil)
	rf.Organizations, rf.Languages, rf.Years = ranked(a.orgs, a.orgName), ranked(a.langs, nil), ranked(a.years, nil)
	sortYears(rf.Years)
}

// ranked lists the counted values most common first (ties by value);
// name gives a value its display form when it differs (organizations).
func ranked(m map[string]int, name map[string]string) []Facet {
	out := make([]Facet, 0, len(m))
	for v, n := range m {
		f := Facet{Value: v, Count: n}
		if d, ok := name[v]; ok {
			f.Label = d
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Value < out[j].Value
	})
	return out
}

// sortYears puts the newest year first: a year facet reads as a timeline.
func sortYears(ys []Facet) {
	sort.Slice(ys, func(i, j int) bool { return ys[i].Value > ys[j].Value })
}
