package classify

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/extract"
)

var formatsDump = flag.Bool("formats.dump", false, "TestFormats: log every sentence's route and the drafted fields")

// TestFormats drafts the made-up write-ups under testdata/formats (one per
// widely used public format: status-page updates, monthly availability
// reports, engineering-blog postmortems, Habr-style and 故障复盘 reviews,
// narratives without headings, cloud status reports) and checks the field
// each key sentence lands in, as testdata/formats/*.want says a careful
// annotator would put it (field<TAB>sentence; "-" for no field). A line
// starting with "?" is a known miss: logged, not failed.
func TestFormats(t *testing.T) {
	wants, err := filepath.Glob("testdata/formats/*.want")
	if err != nil || len(wants) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, wf := range wants {
		name := strings.TrimSuffix(filepath.Base(wf), ".want")
		t.Run(name, func(t *testing.T) {
			md, err := os.ReadFile(strings.TrimSuffix(wf, ".want") + ".md")
			if err != nil {
				t.Fatal(err)
			}
			doc, err := extract.Extract(md, extract.Options{Format: extract.FormatMarkdown})
			if err != nil {
				t.Fatal(err)
			}
			cs := testClassifier().Classify(doc)
			got := draftedFields(cs)
			if *formatsDump {
				for _, r := range testClassifier().Explain(doc) {
					t.Logf("%-12s hand=%-12s p=%.2f %s | %s", r.Field, r.Hand, r.Prob, r.Section, strings.TrimSpace(r.Text))
				}
				for _, f := range draftFieldOrder {
					t.Logf("DRAFT %s: %q", f, got[f])
				}
			}
			f, err := os.Open(wf)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			misses, known := 0, 0
			for sc.Scan() {
				line := sc.Text()
				if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
					continue
				}
				knownMiss := strings.HasPrefix(line, "?")
				field, sentence, ok := strings.Cut(strings.TrimPrefix(line, "?"), "\t")
				if !ok {
					t.Fatalf("bad line %q", line)
				}
				in := fieldsHolding(got, sentence)
				if field != "trigger" {
					// the trigger's description is drawn from the cause
					// sentences by the labels' rules (trigger.go): only
					// checked where the want names it
					in = slices.DeleteFunc(in, func(f string) bool { return f == "trigger" })
				}
				right := (field == "-" && len(in) == 0) || (len(in) == 1 && in[0] == field)
				switch {
				case right && knownMiss:
					t.Logf("known miss now right (drop the ?): %s %q", field, sentence)
				case !right && knownMiss:
					known++
					t.Logf("known miss: %q in %v, want %s", sentence, in, field)
				case !right:
					misses++
					t.Errorf("%q in %v, want %s", sentence, in, field)
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			if known > 0 {
				t.Logf("%d known misses", known)
			}
		})
	}
}

var draftFieldOrder = []string{"symptoms", "root_cause", "trigger", "detection", "remediation", "action_items", "lessons"}

func draftedFields(cs *casebook.Case) map[string]string {
	return map[string]string{
		"symptoms":     cs.Symptoms,
		"root_cause":   cs.RootCause.Description,
		"trigger":      cs.Trigger.Description,
		"detection":    cs.Detection.Description,
		"remediation":  strings.Join(cs.Remediation, "\n"),
		"action_items": strings.Join(cs.ActionItems, "\n"),
		"lessons":      strings.Join(cs.Lessons, "\n"),
	}
}

// fieldsHolding names the drafted fields whose text holds the sentence.
func fieldsHolding(got map[string]string, sentence string) []string {
	var in []string
	for _, f := range draftFieldOrder {
		if strings.Contains(got[f], sentence) {
			in = append(in, f)
		}
	}
	return in
}
