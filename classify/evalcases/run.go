package evalcases

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/classify"
	"github.com/casebook/casebook/extract"
)

// Config says where the gold files and the shared tree are.
type Config struct {
	GoldDir   string // directory of gold *.json files
	SharedDir string // the shared/ tree the gold "doc" paths are relative to; default GoldDir/../..
	// Classifier to score; nil builds one with the default configuration.
	Classifier *classify.Classifier
	// PerDoc prints one line per document and field below the table.
	PerDoc bool
	// BySource makes Run score leave-one-source-out too (see RunBySource):
	// it prints the by-source tables and returns the cross-source report.
	BySource bool
	// Fit builds the classifier from the gold examples it may see; nil means
	// nothing is fitted (Classifier, or the default, scores every fold).
	Fit FitFunc
}

// Gold is one gold file.
type Gold struct {
	Doc    string              `json:"doc"`
	URL    string              `json:"url"`
	Expect json.RawMessage     `json:"expect"`
	Accept map[string][]string `json:"accept"`
}

// Score is a running mean.
type Score struct {
	Sum float64 `json:"sum"`
	N   int     `json:"n"`
}

// Add counts one observation.
func (s *Score) Add(v float64) { s.Sum += v; s.N++ }

// Mean is the mean, or 0 with no observations.
func (s *Score) Mean() float64 {
	if s == nil || s.N == 0 {
		return 0
	}
	return s.Sum / float64(s.N)
}

// DocResult is one document's per-field scores.
type DocResult struct {
	Gold   string             `json:"gold"`
	Source string             `json:"source"`
	Lang   string             `json:"lang"`
	Scores map[string]float64 `json:"scores"`
	Err    string             `json:"error,omitempty"`
}

// Report is the outcome of a run: scores[field][lang], lang "all" included.
type Report struct {
	Fields    map[string]map[string]*Score `json:"fields"`
	TextF1    map[string]*Score            `json:"text_f1"`
	EmptyKept map[string]*Score            `json:"empty_kept"`
	Docs      []DocResult                  `json:"docs"`
}

// Get returns the mean of field in lang ("all" for every language) and its count.
func (r *Report) Get(field, lang string) (float64, int) {
	s := r.Fields[field][lang]
	if s == nil {
		return 0, 0
	}
	return s.Mean(), s.N
}

// Field kinds, as the table in evaluation.md assigns them.
const (
	kindLabel = iota
	kindExact
	kindFold
	kindText
	kindList
	kindSet
	kindDuration
	kindBool
)

type fieldDef struct {
	name string
	kind int
	get  func(c *casebook.Case) any
}

// fields lists every scored field in the order the table prints them.
var fields = []fieldDef{
	{"language", kindLabel, func(c *casebook.Case) any { return c.Language }},
	{"relevance.is_postmortem", kindBool, func(c *casebook.Case) any { return c.Relevance.IsPostmortem }},
	{"root_cause.category", kindLabel, func(c *casebook.Case) any { return c.RootCause.Category }},
	{"trigger.kind", kindLabel, func(c *casebook.Case) any { return c.Trigger.Kind }},
	{"detection.method", kindLabel, func(c *casebook.Case) any { return c.Detection.Method }},
	{"title", kindText, func(c *casebook.Case) any { return c.Title }},
	{"organization", kindFold, func(c *casebook.Case) any { return c.Organization }},
	{"published", kindExact, func(c *casebook.Case) any { return c.Published }},
	{"incident_date", kindExact, func(c *casebook.Case) any { return c.IncidentDate }},
	{"tags", kindSet, func(c *casebook.Case) any { return c.Tags }},
	{"components", kindSet, func(c *casebook.Case) any { return c.Components }},
	{"summary", kindText, func(c *casebook.Case) any { return c.Summary }},
	{"symptoms", kindText, func(c *casebook.Case) any { return c.Symptoms }},
	{"root_cause.description", kindText, func(c *casebook.Case) any { return c.RootCause.Description }},
	{"trigger.description", kindText, func(c *casebook.Case) any { return c.Trigger.Description }},
	{"detection.description", kindText, func(c *casebook.Case) any { return c.Detection.Description }},
	{"remediation", kindList, func(c *casebook.Case) any { return c.Remediation }},
	{"action_items", kindList, func(c *casebook.Case) any { return c.ActionItems }},
	{"lessons", kindList, func(c *casebook.Case) any { return c.Lessons }},
	{"impact.severity", kindText, func(c *casebook.Case) any { return c.Impact.Severity }},
	{"impact.scope", kindText, func(c *casebook.Case) any { return c.Impact.Scope }},
	{"impact.users_affected", kindText, func(c *casebook.Case) any { return c.Impact.UsersAffected }},
	{"impact.region", kindText, func(c *casebook.Case) any { return c.Impact.Region }},
	{"impact.duration", kindDuration, func(c *casebook.Case) any { return c.Impact.Duration }},
	{"impact.time_to_detect", kindDuration, func(c *casebook.Case) any { return c.Impact.TimeToDetect }},
	{"impact.time_to_resolve", kindDuration, func(c *casebook.Case) any { return c.Impact.TimeToResolve }},
}

// headlineFields are the six text fields of the headline figures.
var headlineFields = map[string]bool{
	"symptoms": true, "root_cause.description": true, "remediation": true,
	"detection.description": true, "lessons": true, "action_items": true,
}

// ScoreCase scores pred against one gold expectation. present lists the
// dotted field names the gold annotates; only those are scored. It also
// reports, for the headline fields, whether the gold was empty.
func ScoreCase(expect *casebook.Case, present map[string]bool, accept map[string][]string, pred *casebook.Case) (scores map[string]float64, goldEmpty map[string]bool) {
	scores = map[string]float64{}
	goldEmpty = map[string]bool{}
	for _, f := range fields {
		if !present[f.name] {
			continue
		}
		g, p := f.get(expect), f.get(pred)
		var v float64
		switch f.kind {
		case kindLabel:
			gs := g.(string)
			if f.name != "language" && gs == "" {
				gs = "unknown"
			}
			v = b2f(LabelMatch(gs, accept[f.name], p.(string)))
		case kindBool:
			v = b2f(g.(bool) == p.(bool))
		case kindExact:
			v = b2f(strings.TrimSpace(g.(string)) == strings.TrimSpace(p.(string)))
		case kindFold:
			v = b2f(strings.EqualFold(strings.TrimSpace(g.(string)), strings.TrimSpace(p.(string))))
		case kindText:
			v = TokenF1(g.(string), p.(string))
			goldEmpty[f.name] = len(Tokens(g.(string))) == 0
		case kindList:
			gj, pj := strings.Join(g.([]string), "\n"), strings.Join(p.([]string), "\n")
			v = TokenF1(gj, pj)
			goldEmpty[f.name] = len(Tokens(gj)) == 0
		case kindSet:
			v = SetF1(g.([]string), p.([]string))
		case kindDuration:
			v = b2f(DurationEqual(g.(string), p.(string)))
		}
		scores[f.name] = v
	}
	return scores, goldEmpty
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// presentFields lists the dotted names of the fields an expect object holds.
func presentFields(raw json.RawMessage) (map[string]bool, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("expect: %w", err)
	}
	out := map[string]bool{}
	for k, v := range top {
		switch k {
		case "impact", "root_cause", "trigger", "detection", "relevance":
			var sub map[string]json.RawMessage
			if err := json.Unmarshal(v, &sub); err != nil {
				return nil, fmt.Errorf("expect.%s: %w", k, err)
			}
			for sk := range sub {
				out[k+"."+sk] = true
			}
		default:
			out[k] = true
		}
	}
	return out, nil
}

// Example is one gold document ready to be scored: its gold, the source it
// belongs to and the extracted document (nil when extraction failed). A Fit
// function trains on these.
type Example struct {
	File    string // the gold file's base name
	Source  string // the folder under corpus/ ("dfds", "zh-imroc")
	Gold    Gold
	Expect  casebook.Case
	Present map[string]bool // dotted names of the annotated fields
	Doc     *extract.Document
	Err     string // why extraction failed
}

// LoadExamples reads every gold file in cfg.GoldDir and extracts its
// document once.
func LoadExamples(ctx context.Context, cfg Config) ([]Example, error) {
	if cfg.SharedDir == "" {
		cfg.SharedDir = filepath.Join(cfg.GoldDir, "..", "..")
	}
	files, err := filepath.Glob(filepath.Join(cfg.GoldDir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("eval cases: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("eval cases: no gold files in %s", cfg.GoldDir)
	}
	sort.Strings(files)
	out := make([]Example, 0, len(files))
	for _, file := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ex, err := loadExample(cfg.SharedDir, file)
		if err != nil {
			return nil, err
		}
		out = append(out, ex)
	}
	return out, nil
}

// Run scores every gold file in cfg.GoldDir with one classifier (in-sample)
// and prints the per-field, per-language table to w.
func Run(ctx context.Context, cfg Config, w io.Writer) (Report, error) {
	exs, err := LoadExamples(ctx, cfg)
	if err != nil {
		return Report{Fields: map[string]map[string]*Score{}, TextF1: map[string]*Score{}, EmptyKept: map[string]*Score{}}, err
	}
	if cfg.BySource {
		sr, err := BySource(ctx, cfg, exs, w)
		if err != nil {
			return Report{}, err
		}
		return sr.CrossSource, nil
	}
	cl := cfg.Classifier
	if cl == nil {
		cl = classify.New(classify.Config{})
	}
	rep := aggregate(scoreAll(cl, exs))
	if w != nil {
		rep.Print(w, cfg.PerDoc)
	}
	return rep, nil
}

type docScore struct {
	DocResult
	goldEmpty map[string]bool
}

// scoreAll scores every example with cl.
func scoreAll(cl *classify.Classifier, exs []Example) []docScore {
	out := make([]docScore, len(exs))
	for i := range exs {
		out[i] = scoreExample(cl, &exs[i])
	}
	return out
}

// aggregate builds a report from per-document scores.
func aggregate(docs []docScore) Report {
	rep := Report{Fields: map[string]map[string]*Score{}, TextF1: map[string]*Score{}, EmptyKept: map[string]*Score{}}
	for _, dr := range docs {
		rep.Docs = append(rep.Docs, dr.DocResult)
		for name, v := range dr.Scores {
			rep.add(name, dr.Lang, v)
			if !headlineFields[name] {
				continue
			}
			if dr.goldEmpty[name] {
				rep.addTo(rep.EmptyKept, dr.Lang, v)
			} else {
				rep.addTo(rep.TextF1, dr.Lang, v)
			}
		}
	}
	return rep
}

// sourceOf is the source of a gold "doc" path: the folder under corpus/.
func sourceOf(doc string) string {
	p := filepath.ToSlash(doc)
	p = strings.TrimPrefix(p, "corpus/")
	if i := strings.IndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return filepath.Dir(p)
}

func loadExample(shared, file string) (Example, error) {
	var ex Example
	raw, err := os.ReadFile(file)
	if err != nil {
		return ex, fmt.Errorf("eval cases: %w", err)
	}
	if err := json.Unmarshal(raw, &ex.Gold); err != nil {
		return ex, fmt.Errorf("eval cases: %s: %w", file, err)
	}
	ex.Present, err = presentFields(ex.Gold.Expect)
	if err != nil {
		return ex, fmt.Errorf("eval cases: %s: %w", file, err)
	}
	if err := json.Unmarshal(ex.Gold.Expect, &ex.Expect); err != nil {
		return ex, fmt.Errorf("eval cases: %s: %w", file, err)
	}
	ex.File = filepath.Base(file)
	ex.Source = sourceOf(ex.Gold.Doc)
	body, err := os.ReadFile(filepath.Join(shared, ex.Gold.Doc))
	if err != nil {
		return ex, fmt.Errorf("eval cases: %s: %w", file, err)
	}
	format := extract.SniffFormat(ex.Gold.Doc, "", body)
	doc, err := extract.Extract(body, extract.Options{URL: ex.Gold.URL, Format: format})
	if err != nil {
		ex.Err = err.Error()
	} else {
		ex.Doc = doc
	}
	return ex, nil
}

func scoreExample(cl *classify.Classifier, ex *Example) docScore {
	var ds docScore
	ds.Gold = ex.File
	ds.Source = ex.Source
	ds.Lang = ex.Expect.Language
	if ds.Lang == "" {
		ds.Lang = "und"
	}
	var pred *casebook.Case
	if ex.Doc == nil {
		// A document that cannot be extracted scores as an empty case.
		ds.Err = ex.Err
		pred = &casebook.Case{}
		pred.Normalize()
	} else {
		pred = cl.Classify(ex.Doc)
	}
	ds.Scores, ds.goldEmpty = ScoreCase(&ex.Expect, ex.Present, ex.Gold.Accept, pred)
	return ds
}

func (r *Report) add(field, lang string, v float64) {
	m := r.Fields[field]
	if m == nil {
		m = map[string]*Score{}
		r.Fields[field] = m
	}
	r.addTo(m, lang, v)
}

func (r *Report) addTo(m map[string]*Score, lang string, v float64) {
	for _, l := range []string{lang, "all"} {
		if m[l] == nil {
			m[l] = &Score{}
		}
		m[l].Add(v)
	}
}

// Langs are the table's columns.
var Langs = []string{"en", "ru", "zh", "all"}

// Print writes the per-field, per-language table: mean (documents).
func (r *Report) Print(w io.Writer, perDoc bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "field\t%s\n", strings.Join(Langs, "\t"))
	row := func(name string, m map[string]*Score) {
		cells := make([]string, len(Langs))
		for i, l := range Langs {
			if s := m[l]; s != nil && s.N > 0 {
				cells[i] = fmt.Sprintf("%.2f (%d)", s.Mean(), s.N)
			} else {
				cells[i] = "-"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\n", name, strings.Join(cells, "\t"))
	}
	for _, f := range fields {
		if m := r.Fields[f.name]; m != nil {
			row(f.name, m)
		}
	}
	fmt.Fprintf(tw, "\t\n")
	row("TEXT F1 (6 fields, gold not empty)", r.TextF1)
	row("EMPTY KEPT (6 fields, gold empty)", r.EmptyKept)
	row("language accuracy", r.Fields["language"])
	row("relevance accuracy", r.Fields["relevance.is_postmortem"])
	row("root-cause accuracy", r.Fields["root_cause.category"])
	tw.Flush()
	if !perDoc {
		return
	}
	fmt.Fprintln(w)
	r.printDocs(w)
}

func (r *Report) printDocs(w io.Writer) {
	for _, d := range r.Docs {
		names := make([]string, 0, len(d.Scores))
		for n := range d.Scores {
			names = append(names, n)
		}
		sort.Strings(names)
		var parts []string
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s=%.2f", n, d.Scores[n]))
		}
		fmt.Fprintf(w, "%s [%s %s] %s\n", d.Gold, d.Source, d.Lang, strings.Join(parts, " "))
		if d.Err != "" {
			fmt.Fprintf(w, "  error: %s\n", d.Err)
		}
	}
}
