package evalcases

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/casebook/casebook/classify"
)

// The held-out case set: gold for the incident posts of
// classify/testdata/relevance-unseen, annotated blind (before the extractor
// ran on them) by someone who wrote neither the posts nor the rules. No fit,
// rule or threshold may read either folder, so what the shipped classifier
// scores here is the "sources never seen" figure of issue #11. It lives in
// the repository, so this test never skips.
const (
	unseenGoldDir  = "../testdata/cases-unseen"
	unseenPostsDir = "../testdata/relevance-unseen"
)

// unseenPerBlog prints the per-blog table too. It is off by default: the
// held-out set stays blind to whoever tunes rules, who reads the aggregate
// only, and -v alone must not show more.
var unseenPerBlog = flag.Bool("unseen-perblog", false, "print TestCasesUnseen's per-blog table (not for rule work: the set is held out)")

// unseenFloor is one regression floor: a figure as measured on the held-out
// set (2026-12-02; the shipped classifier of commits 0b4053c and 2d79252
// alike) and the room it leaves before the test fails.
type unseenFloor struct {
	metric   string
	lang     string
	measured float64
	// oneDoc: the room is one document (label figures move in steps of 1/n);
	// otherwise a fixed 0.03 for the token-F1 means.
	oneDoc bool
}

// Raise these as the classifier improves; never lower one to land a change.
// (Session 7, the Russian story order, ru_story.go: ru text F1 0.45 -> 0.50,
// tags 0.59 -> 0.62; the English closing lessons and review headings: en text F1 0.54 -> 0.55.)
var unseenFloors = []unseenFloor{
	{"text F1", "en", 0.55, false}, {"text F1", "ru", 0.50, false}, {"text F1", "zh", 0.52, false},
	{"empty kept", "en", 1.00, true}, {"empty kept", "ru", 1.00, true}, {"empty kept", "zh", 0.90, true},
	{"root cause", "en", 0.68, true}, {"root cause", "ru", 0.91, true}, {"root cause", "zh", 0.64, true},
	{"organization", "en", 0.53, true}, {"organization", "ru", 1.00, true}, {"organization", "zh", 0.91, true},
	{"tags", "en", 0.44, false}, {"tags", "ru", 0.62, false}, {"tags", "zh", 0.66, false},
	{"trigger kind", "en", 0.47, true}, {"trigger kind", "ru", 0.45, true}, {"trigger kind", "zh", 0.64, true},
	{"detection", "en", 0.63, true}, {"detection", "ru", 0.45, true}, {"detection", "zh", 0.64, true},
}

// unseenTargets are issue #11's "done when" figures, logged beside the
// measurement (not enforced: the floors are).
var unseenTargets = map[string]float64{"text F1": 0.60, "empty kept": 0.85, "root cause": 0.80, "organization": 0.85, "tags": 0.60}

// unseenMetrics are the figures the floors and the per-blog table use.
var unseenMetrics = append(append([]Metric{}, Metrics...),
	Metric{"detection", func(r *Report, l string) (float64, int) { return r.Get("detection.method", l) }})

func TestCasesUnseen(t *testing.T) {
	cfg := Config{GoldDir: unseenGoldDir, SharedDir: unseenPostsDir, Classifier: classify.New(classify.Config{})}
	exs, err := LoadExamples(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("set", func(t *testing.T) { testUnseenSet(t, exs) })
	t.Run("extractive", func(t *testing.T) { testUnseenExtractive(t, exs) })

	// one scoring pass, as Run does it (`casebook eval cases --gold
	// classify/testdata/cases-unseen --shared classify/testdata/relevance-unseen`
	// prints the same table), kept per document for the per-blog table
	docs := scoreAll(cfg.Classifier, exs)
	rep := aggregate(docs)
	var sb strings.Builder
	rep.Print(&sb, false)
	t.Log("held-out cases, shipped classifier:\n" + sb.String())
	if *unseenPerBlog {
		t.Log("per blog:\n" + unseenByBlog(exs, docs))
	}

	var tb strings.Builder
	tw := tabwriter.NewWriter(&tb, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tlang\tgot\tfloor\ttarget")
	for _, f := range unseenFloors {
		got, n := metric(f.metric).Get(&rep, f.lang)
		if n == 0 {
			t.Errorf("%s [%s]: nothing scored", f.metric, f.lang)
			continue
		}
		floor := f.measured - 0.03
		if f.oneDoc {
			floor = f.measured - 1/float64(n) - 0.005
		}
		target := "-"
		if v, ok := unseenTargets[f.metric]; ok {
			target = fmt.Sprintf("%.2f", v)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%s\n", f.metric, f.lang, got, floor, target)
		if got < floor {
			t.Errorf("%s [%s] = %.3f on the held-out set, below the floor %.3f (measured %.2f)", f.metric, f.lang, got, floor, f.measured)
		}
	}
	tw.Flush()
	t.Log("floors:\n" + tb.String())
}

func metric(name string) Metric {
	for _, m := range unseenMetrics {
		if m.Name == name {
			return m
		}
	}
	panic("no metric " + name)
}

// testUnseenSet checks the gold covers what the README promises: one gold
// file per incident post of labels.tsv and nothing else, the languages as
// labelled, every field of the schema annotated, at least 30 documents and
// every blog that has an incident.
func testUnseenSet(t *testing.T, exs []Example) {
	f, err := os.Open(filepath.Join(unseenPostsDir, "labels.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{} // incident post -> language
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) >= 3 && cols[2] == "1" {
			want[cols[0]] = cols[1]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(exs) < 30 {
		t.Errorf("%d gold documents, want at least 30", len(exs))
	}
	blogs := map[string]bool{}
	for p := range want {
		blogs[unseenBlog(p)] = true
	}
	for _, ex := range exs {
		lang, ok := want[ex.Gold.Doc]
		if !ok {
			t.Errorf("%s: doc %q is not an incident post of labels.tsv", ex.File, ex.Gold.Doc)
			continue
		}
		delete(blogs, unseenBlog(ex.Gold.Doc))
		if ex.Expect.Language != lang {
			t.Errorf("%s: language %q, labels.tsv says %q", ex.File, ex.Expect.Language, lang)
		}
		if ex.Err != "" {
			t.Errorf("%s: extraction failed: %s", ex.File, ex.Err)
		}
		for _, f := range fields {
			if f.name != "summary" && !ex.Present[f.name] {
				t.Errorf("%s: %s not annotated", ex.File, f.name)
			}
		}
		if !ex.Expect.Relevance.IsPostmortem {
			t.Errorf("%s: an incident post annotated as a negative", ex.File)
		}
	}
	for b := range blogs {
		t.Errorf("blog %s has incident posts but no gold", b)
	}
}

// testUnseenExtractive holds the gold to the guide's "whole sentences copied
// as they stand": every sentence of a text field must occur in its post, as a
// run of tokens (so markup and line breaks do not matter).
func testUnseenExtractive(t *testing.T, exs []Example) { testExtractive(t, unseenPostsDir, exs) }

// testExtractive checks every gold sentence is copied from its post, in dir.
func testExtractive(t *testing.T, dir string, exs []Example) {
	for _, ex := range exs {
		raw, err := os.ReadFile(filepath.Join(dir, ex.Gold.Doc))
		if err != nil {
			t.Fatal(err)
		}
		post := " " + strings.Join(Tokens(string(raw)), " ") + " "
		e := &ex.Expect
		var texts []string
		texts = append(texts, e.Symptoms, e.RootCause.Description, e.Trigger.Description, e.Detection.Description)
		texts = append(texts, e.Remediation...)
		texts = append(texts, e.ActionItems...)
		texts = append(texts, e.Lessons...)
		for _, text := range texts {
			for _, s := range sentences(text) {
				toks := Tokens(s)
				if len(toks) == 0 {
					continue
				}
				if !strings.Contains(post, " "+strings.Join(toks, " ")+" ") {
					t.Errorf("%s: not in the post: %q", ex.File, s)
				}
			}
		}
	}
}

// sentences splits gold text where one copied sentence ends and the next
// may have come from elsewhere in the post.
func sentences(text string) []string {
	var out []string
	start := 0
	rs := []rune(text)
	for i, r := range rs {
		end := strings.ContainsRune("。！？", r) ||
			(strings.ContainsRune(".!?", r) && (i+1 == len(rs) || rs[i+1] == ' '))
		if end {
			out = append(out, string(rs[start:i+1]))
			start = i + 1
		}
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

// unseenBlog is a post's blog: the folder under its language.
func unseenBlog(doc string) string {
	parts := strings.Split(filepath.ToSlash(doc), "/")
	if len(parts) < 3 {
		return doc
	}
	return parts[0] + "/" + parts[1]
}

// unseenByBlog tabulates the headline figures per invented blog, to show
// whether a language's figure rests on one blog.
func unseenByBlog(exs []Example, docs []docScore) string {
	byBlog := map[string][]docScore{}
	for i := range exs {
		b := unseenBlog(exs[i].Gold.Doc)
		byBlog[b] = append(byBlog[b], docs[i])
	}
	blogs := make([]string, 0, len(byBlog))
	for b := range byBlog {
		blogs = append(blogs, b)
	}
	sort.Strings(blogs)
	var sb strings.Builder
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "blog\tdocs\t"+strings.Join(metricNames(), "\t"))
	for _, b := range blogs {
		rep := aggregate(byBlog[b])
		lang := byBlog[b][0].Lang
		cells := []string{b, fmt.Sprint(len(byBlog[b]))}
		for _, m := range unseenMetrics {
			if v, n := m.Get(&rep, lang); n > 0 {
				cells = append(cells, fmt.Sprintf("%.2f", v))
			} else {
				cells = append(cells, "-")
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	return sb.String()
}

func metricNames() []string {
	var out []string
	for _, m := range unseenMetrics {
		out = append(out, m.Name)
	}
	return out
}
