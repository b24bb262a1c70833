package classify

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/extract"
)

var heldOutPerSource = flag.Bool("heldout-sources", false, "print TestLabelsHeldOut's per-source figures")

// The label fields (organization, root-cause category, trigger kind, tags)
// come from hand-written tables, so `casebook eval cases --by-source`
// scores them the same in and out of sample. TestLabelsHeldOut measures
// what the tables carry to a source they were not written on: each source
// is scored with every table entry (category cue, trigger word or event,
// tag alias) that occurs in its gold documents and in no other source's
// left out. What only one source's text holds cannot have been checked on
// any other source, so it does not count for that one (evaluation.md: a
// rule is kept only if it raises the mean over the sources that did not
// suggest it). It is a lower bound: a general word ("хакер", "redis") that
// only one gold source happens to use is left out too.

// heldOutDoc is one gold document of the label fields.
type heldOutDoc struct {
	name, source, lang string
	expect             casebook.Case
	present            map[string]bool
	accept             map[string][]string
	doc                *extract.Document
	text               string // lower-cased title, front-matter tags and text, where entries are looked for
}

func loadHeldOutDocs(t *testing.T) []heldOutDoc {
	t.Helper()
	shared := filepath.Join("..", "..", "shared")
	files, _ := filepath.Glob(filepath.Join(shared, "eval", "gold", "*.json"))
	if len(files) == 0 {
		t.Skip("../shared/eval/gold absent")
	}
	var out []heldOutDoc
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var g struct {
			Doc    string                     `json:"doc"`
			URL    string                     `json:"url"`
			Expect json.RawMessage            `json:"expect"`
			Accept map[string][]string        `json:"accept"`
			Fields map[string]json.RawMessage `json:"-"`
		}
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		d := heldOutDoc{name: filepath.Base(f), accept: g.Accept, present: map[string]bool{}}
		if err := json.Unmarshal(g.Expect, &d.expect); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var top map[string]json.RawMessage
		_ = json.Unmarshal(g.Expect, &top)
		for k, v := range top {
			d.present[k] = true
			var sub map[string]json.RawMessage
			if json.Unmarshal(v, &sub) == nil {
				for k2 := range sub {
					d.present[k+"."+k2] = true
				}
			}
		}
		d.source, _, _ = strings.Cut(strings.TrimPrefix(filepath.ToSlash(g.Doc), "corpus/"), "/")
		d.lang = d.expect.Language
		body, err := os.ReadFile(filepath.Join(shared, g.Doc))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := extract.Extract(body, extract.Options{URL: g.URL, Format: extract.SniffFormat(g.Doc, "", body)})
		if err != nil {
			continue
		}
		d.doc = doc
		d.text = strings.ToLower(doc.Title + "\n" + strings.Join(doc.Tags, "\n") + "\n" + doc.Text)
		out = append(out, d)
	}
	return out
}

// labelScores scores one document's label fields as evaluation.md does.
func labelScores(d *heldOutDoc, c *casebook.Case) map[string]float64 {
	out := map[string]float64{}
	label := func(name, gold, pred string) {
		if !d.present[name] {
			return
		}
		ok := gold == pred || slices.Contains(d.accept[name], pred)
		out[name] = map[bool]float64{true: 1}[ok]
	}
	label("root_cause.category", d.expect.RootCause.Category, c.RootCause.Category)
	label("trigger.kind", d.expect.Trigger.Kind, c.Trigger.Kind)
	if d.present["organization"] {
		ok := strings.EqualFold(strings.TrimSpace(d.expect.Organization), strings.TrimSpace(c.Organization))
		out["organization"] = map[bool]float64{true: 1}[ok]
	}
	if d.present["tags"] {
		out["tags"] = setF1(d.expect.Tags, c.Tags)
	}
	return out
}

func setF1(gold, pred []string) float64 {
	if len(gold) == 0 && len(pred) == 0 {
		return 1
	}
	if len(gold) == 0 || len(pred) == 0 {
		return 0
	}
	g := map[string]bool{}
	for _, x := range gold {
		g[strings.ToLower(x)] = true
	}
	hit := 0
	seen := map[string]bool{}
	for _, x := range pred {
		x = strings.ToLower(x)
		if g[x] && !seen[x] {
			hit++
		}
		seen[x] = true
	}
	if hit == 0 {
		return 0
	}
	p, r := float64(hit)/float64(len(seen)), float64(hit)/float64(len(g))
	return 2 * p * r / (p + r)
}

// sourcesOf returns, for each cue text, the sources whose documents hold it.
func sourcesOf(docs []heldOutDoc, texts []string, whole bool) map[string]map[string]bool {
	cs := make(cueSet, len(texts))
	for i, s := range texts {
		cs[i] = cue{text: s, weight: 1}
	}
	out := map[string]map[string]bool{}
	for _, d := range docs {
		compiledWith(cs, whole).each(d.text, func(ci int) bool {
			if out[texts[ci]] == nil {
				out[texts[ci]] = map[string]bool{}
			}
			out[texts[ci]][d.source] = true
			return true
		})
	}
	return out
}

// onlyIn reports whether the entry occurs in source's documents and no other's.
func onlyIn(seen map[string]map[string]bool, text, source string) bool {
	s := seen[text]
	return len(s) == 1 && s[source]
}

// withHeldOut swaps in tables without the entries only source's documents
// hold, runs f, and puts the tables back.
func withHeldOut(docs []heldOutDoc, source string, f func()) {
	var texts []string
	for _, cs := range rootCauseCues {
		for _, c := range cs {
			texts = append(texts, c.text)
		}
	}
	for _, tbl := range []map[string]cueSet{triggerCues, triggerEvents} {
		for _, cs := range tbl {
			for _, c := range cs {
				texts = append(texts, c.text)
			}
		}
	}
	seen := sourcesOf(docs, texts, false)
	var tagTexts []string
	for _, al := range tagAliases() {
		tagTexts = append(tagTexts, strings.ToLower(al.text))
	}
	tagSeen := sourcesOf(docs, tagTexts, true)

	drop := func(tbl map[string]cueSet, unique func(string) bool) map[string]cueSet {
		out := map[string]cueSet{}
		for label, cs := range tbl {
			for _, c := range cs {
				if !unique(c.text) {
					out[label] = append(out[label], c)
				}
			}
		}
		return out
	}
	unique := func(s string) bool { return onlyIn(seen, s, source) }
	savedRC, savedTA, savedTE := rootCauseCues, triggerAll, triggerEvent
	savedAliases, savedFolded, savedSlugs, savedExact, savedNorm := tagAliasList, foldedTags, foldedSlugs, exactTags, normalizeTag
	defer func() {
		rootCauseCues, triggerAll, triggerEvent = savedRC, savedTA, savedTE
		tagAliasList, foldedTags, foldedSlugs, exactTags, normalizeTag = savedAliases, savedFolded, savedSlugs, savedExact, savedNorm
	}()
	rootCauseCues = drop(savedRC, unique)
	triggerAll, triggerEvent = triggerIndex(drop(triggerCues, unique), drop(triggerEvents, unique))
	var kept []tagAlias
	gone := map[string]bool{}
	for _, al := range savedAliases {
		if onlyIn(tagSeen, strings.ToLower(al.text), source) {
			gone[strings.ToLower(al.text)] = true
			continue
		}
		kept = append(kept, al)
	}
	tagAliasList = kept
	foldedTags, foldedSlugs, exactTags = foldTags(kept)
	normalizeTag = func(s string) (string, bool) {
		if gone[strings.ToLower(strings.TrimSpace(s))] {
			return "", false
		}
		return savedNorm(s)
	}
	f()
}

type meanScore struct {
	sum float64
	n   int
}

func (m *meanScore) add(v float64) { m.sum += v; m.n++ }
func (m meanScore) mean() float64 {
	if m.n == 0 {
		return 0
	}
	return m.sum / float64(m.n)
}

// heldOutReport holds in-sample and held-out means per field and language.
type heldOutReport struct {
	in, out   map[string]map[string]*meanScore // field -> lang -> score
	bySource  map[string]map[string]*[2]meanScore
	sourceLng map[string]string
}

func runHeldOut(t *testing.T, docs []heldOutDoc) heldOutReport {
	c := New(Config{})
	rep := heldOutReport{in: map[string]map[string]*meanScore{}, out: map[string]map[string]*meanScore{},
		bySource: map[string]map[string]*[2]meanScore{}, sourceLng: map[string]string{}}
	add := func(m map[string]map[string]*meanScore, field, lang string, v float64) {
		if m[field] == nil {
			m[field] = map[string]*meanScore{}
		}
		for _, l := range []string{lang, "all"} {
			if m[field][l] == nil {
				m[field][l] = &meanScore{}
			}
			m[field][l].add(v)
		}
	}
	bySrc := func(src, field string, i int, v float64) {
		if rep.bySource[src] == nil {
			rep.bySource[src] = map[string]*[2]meanScore{}
		}
		if rep.bySource[src][field] == nil {
			rep.bySource[src][field] = &[2]meanScore{}
		}
		rep.bySource[src][field][i].add(v)
	}
	for i := range docs {
		d := &docs[i]
		for f, v := range labelScores(d, c.Classify(d.doc)) {
			add(rep.in, f, d.lang, v)
			bySrc(d.source, f, 0, v)
		}
	}
	sources := map[string]bool{}
	for _, d := range docs {
		sources[d.source] = true
	}
	for src := range sources {
		withHeldOut(docs, src, func() {
			for i := range docs {
				d := &docs[i]
				if d.source != src {
					continue
				}
				for f, v := range labelScores(d, c.Classify(d.doc)) {
					add(rep.out, f, d.lang, v)
					bySrc(d.source, f, 1, v)
				}
			}
		})
	}
	return rep
}

var heldOutFields = []string{"organization", "root_cause.category", "trigger.kind", "tags"}

func (r heldOutReport) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "label fields, held out/in-sample (documents)\n%-20s %-16s %-16s %-16s %-16s\n", "field", "en", "ru", "zh", "all")
	for _, f := range heldOutFields {
		fmt.Fprintf(&sb, "%-20s", f)
		for _, l := range []string{"en", "ru", "zh", "all"} {
			in, out := r.in[f][l], r.out[f][l]
			if in == nil {
				fmt.Fprintf(&sb, " %-16s", "-")
				continue
			}
			fmt.Fprintf(&sb, " %-16s", fmt.Sprintf("%.2f/%.2f (%d)", out.mean(), in.mean(), in.n))
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

func (r heldOutReport) sourceTable() string {
	var srcs []string
	for s := range r.bySource {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-16s", "source")
	for _, f := range heldOutFields {
		fmt.Fprintf(&sb, " %-20s", f)
	}
	sb.WriteByte('\n')
	for _, s := range srcs {
		fmt.Fprintf(&sb, "%-16s", s)
		for _, f := range heldOutFields {
			v := r.bySource[s][f]
			if v == nil {
				fmt.Fprintf(&sb, " %-20s", "-")
				continue
			}
			fmt.Fprintf(&sb, " %-20s", fmt.Sprintf("%.2f/%.2f (%d)", v[1].mean(), v[0].mean(), v[0].n))
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestLabelsHeldOut holds the held-out label figures as regression floors.
func TestLabelsHeldOut(t *testing.T) {
	docs := loadHeldOutDocs(t)
	rep := runHeldOut(t, docs)
	t.Log("\n" + rep.String())
	if *heldOutPerSource {
		t.Log("\n" + rep.sourceTable())
	}
	// measured held out: organization 0.94/1.00/1.00, root cause
	// 0.78/0.78/0.77, trigger kind 0.44/0.89/0.62, tags 0.49/0.45/0.56 (session 5: 0.50/0.45/0.60);
	// the floors leave room for one document to move
	floors := map[string]map[string]float64{
		"organization":        {"en": 0.77, "ru": 0.88, "zh": 0.92},
		"root_cause.category": {"en": 0.72, "ru": 0.66, "zh": 0.69},
		"trigger.kind":        {"en": 0.38, "ru": 0.77, "zh": 0.54},
		"tags":                {"en": 0.46, "ru": 0.40, "zh": 0.56},
	}
	for field, byLang := range floors {
		for lang, min := range byLang {
			if got := rep.out[field][lang].mean(); got < min {
				t.Errorf("%s [%s] held out = %.3f, below the floor %.3f", field, lang, got, min)
			}
		}
	}
}
