package classify

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// langidDir locates ../shared/bench/langid from the module root.
func langidDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "bench", "langid", "derived")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared langid bench absent: %v", err)
	}
	return dir
}

// TestLangidBench measures the detector on the shared langid lines: en, ru
// and zh must be found, uk, be and ja must come out und. It reports the
// accuracy per set and holds a regression floor.
func TestLangidBench(t *testing.T) {
	dir := langidDir(t)
	det := NewLanguageDetector()
	floors := map[string]float64{"short.tsv": 0.70, "long.tsv": 0.99, "confusers.tsv": 0.95, "mixed.tsv": 0.97}
	for file, floor := range floors {
		f, err := os.Open(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		right, n := 0, 0
		wrong := map[string]int{}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			label, text, ok := strings.Cut(sc.Text(), "\t")
			if !ok {
				continue
			}
			want := label
			if i := strings.IndexByte(want, '+'); i > 0 {
				want = want[:i] // ru+en08: a Russian line with English words
			}
			if want != "en" && want != "ru" && want != "zh" {
				want = "und"
			}
			got, _ := det.DetectText(text)
			n++
			if got == want {
				right++
			} else {
				wrong[label+"->"+got]++
				if testing.Verbose() && strings.HasPrefix(label, "ru") && got == "und" {
					_, seen := det.DetectText(text)
					t.Logf("  %s %s: %s", label, seen, text)
				}
			}
		}
		f.Close()
		acc := float64(right) / float64(n)
		t.Logf("%s: %.3f (%d/%d) misses %v", file, acc, right, n, wrong)
		if acc < floor {
			t.Errorf("%s accuracy %.3f below floor %.2f", file, acc, floor)
		}
	}
}
