package classify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/casebook/casebook/extract"
)

func TestZZDebugRelevance(t *testing.T) {
	debugRelevance = func(title string, heads int, cue bool, density float64, has map[field]int, score float64) {
		fmt.Printf("%-50.50s heads=%d cue=%v dens=%.1f rc=%d rem=%d sym=%d det=%d score=%.2f\n", title, heads, cue, density, has[fRootCause], has[fRemediation], has[fSymptoms], has[fDetection], score)
	}
	defer func() { debugRelevance = nil }()
	files, _ := filepath.Glob("../../shared/eval/gold/*.json")
	c := New(Config{})
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		var g struct{ Doc, URL string }
		json.Unmarshal(raw, &g)
		body, _ := os.ReadFile(filepath.Join("../../shared", g.Doc))
		doc, _ := extract.Extract(body, extract.Options{URL: g.URL, Format: extract.SniffFormat(g.Doc, "", body)})
		c.Classify(doc)
	}
}
