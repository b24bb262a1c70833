package evalcases

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casebook/casebook/classify"
	"github.com/casebook/casebook/extract"
)

var dumpDir = flag.String("dump", "", "write each gold document's extracted text and draft to this directory (a debugging aid)")

// TestDump writes, for each gold document, the extracted sections and the
// draft case, so a developer can compare them with the gold by eye.
func TestDump(t *testing.T) {
	if *dumpDir == "" {
		t.Skip("no -dump directory")
	}
	shared := sharedDir(t)
	files, _ := filepath.Glob(filepath.Join(shared, "eval", "gold", "*.json"))
	cl := classify.New(classify.Config{})
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var g Gold
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatal(err)
		}
		body, err := os.ReadFile(filepath.Join(shared, g.Doc))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := extract.Extract(body, extract.Options{URL: g.URL, Format: extract.SniffFormat(g.Doc, "", body)})
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "TITLE %q ORG %q PUB %q LANG %q TAGS %v\n", doc.Title, doc.Organization, doc.Published, doc.DeclaredLang, doc.Tags)
		for _, s := range doc.Sections {
			fmt.Fprintf(&sb, "\n## [%d] %s\n", s.Level, s.Heading)
			for _, b := range s.Blocks {
				fmt.Fprintf(&sb, "  <%s> %s\n", b.Kind, b.Text)
			}
		}
		sb.WriteString("\nROUTES\n")
		for _, r := range cl.Explain(doc) {
			fmt.Fprintf(&sb, "  [%s -> %s (hand %s) %.2f] %v %.100s\n", r.Section, r.Field, r.Hand, r.Prob, r.Scores, r.Text)
		}
		c := cl.Classify(doc)
		js, _ := json.MarshalIndent(c, "", "  ")
		sb.WriteString("\n\nCASE\n")
		sb.Write(js)
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if err := os.WriteFile(filepath.Join(*dumpDir, name+".txt"), []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
