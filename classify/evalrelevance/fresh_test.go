package evalrelevance

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/casebook/casebook/classify"
)

// sharedDir is ../shared from the repository root, or a skip.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared")
	for _, sub := range []string{"eval/relevance/labels.tsv", "eval/gold", "bench/daniel/html", "bench/aeb/html"} {
		if _, err := os.Stat(filepath.Join(dir, sub)); err != nil {
			t.Skipf("shared tree absent: %v", err)
		}
	}
	return dir
}

// TestRelevanceWeightsFresh fails when classify/relevance_weights.go is not
// what `make fit` (go run ./classify/internal/fitrelevance) writes from
// ../shared today: a change to the cues, the sentence splitting or
// extract/ moves the features, and the checked-in weights and band must
// follow, or the figures in the READMEs describe another gate.
func TestRelevanceWeightsFresh(t *testing.T) {
	shared := sharedDir(t)
	if raceEnabled {
		t.Skip("slow under -race: make test runs it without -race")
	}
	d, err := LoadData(DefaultInputs(shared, filepath.Join("..", "..")))
	if err != nil {
		t.Fatal(err)
	}
	got, err := FitTable(d).Source(classify.RelevanceFeatureNames())
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "relevance_weights.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("classify/relevance_weights.go is stale: run make fit (go run ./classify/internal/fitrelevance)\n%s", firstDiff(want, got))
	}
}

// firstDiff shows the first line that differs.
func firstDiff(want, got []byte) string {
	wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return fmt.Sprintf("line %d:\n checked in: %s\n refit:      %s", i+1, w, g)
		}
	}
	return ""
}
