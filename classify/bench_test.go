package classify

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/casebook/casebook/extract"
)

// bigPost builds a ~50 KB Markdown post of our own: the headed fixture's
// sections repeated under numbered headings, with narrative paragraphs.
func bigPost(t testing.TB) []byte {
	base, err := os.ReadFile("testdata/en_headed.md")
	if err != nil {
		t.Fatal(err)
	}
	narrative, err := os.ReadFile("testdata/ru_narrative.txt")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 0; b.Len() < 50<<10; i++ {
		b.WriteString(strings.ReplaceAll(string(base), "## ", "## "+strconv.Itoa(i)+". "))
		b.WriteString("\n\n## Notes " + strconv.Itoa(i) + "\n\n")
		b.Write(narrative)
		b.WriteString("\n\n```\nkubectl get pods -n checkout\nERROR pool exhausted\n```\n\n")
	}
	return []byte(b.String())
}

// benchVariants are the classifier with the field model (what ships) and
// with the hand rules alone (the code before the model), run in turn so
// their ratio is read from one run on a loaded machine.
func benchVariants(b *testing.B, fn func(b *testing.B, c *Classifier)) {
	base := testClassifier()
	b.Run("model", func(b *testing.B) { fn(b, base) })
	b.Run("handrules", func(b *testing.B) { fn(b, base.WithFields(nil)) })
}

func BenchmarkExtractClassify50KB(b *testing.B) {
	benchVariants(b, benchExtractClassify)
}

func benchExtractClassify(b *testing.B, c *Classifier) {
	raw := bigPost(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	n := 0
	for b.Loop() {
		doc, err := extract.Extract(raw, extract.Options{Format: extract.FormatMarkdown})
		if err != nil {
			b.Fatal(err)
		}
		c.Classify(doc)
		n++
	}
	// CPU time per op stays meaningful on a shared, loaded machine where
	// wall time does not (it includes the GC's work on other threads).
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(n), "cpu-ms/op")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDetectLanguage reports detections per second on paragraph-sized
// texts in the three languages and a confusable one.
func BenchmarkDetectLanguage(b *testing.B) {
	var texts []string
	for _, f := range []string{"testdata/ru_narrative.txt", "testdata/zh_headed.md", "testdata/en_headed.md", "testdata/lang/uk.txt"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(raw))
	}
	det := testClassifier().lang
	b.ResetTimer()
	n := 0
	for b.Loop() {
		det.DetectText(texts[n%len(texts)])
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "detections/s")
}

// TestDetectorMemory builds the language detector in a fresh process (this
// test binary, re-run for this test alone, so other tests' allocations do not
// count) and checks the heap it holds and the process's resident memory
// against the worker's budget of 150 MB.
func TestDetectorMemory(t *testing.T) {
	if os.Getenv("CASEBOOK_DETECTOR_CHILD") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDetectorMemory$", "-test.v")
		cmd.Env = append(os.Environ(), "CASEBOOK_DETECTOR_CHILD=1")
		out, err := cmd.CombinedOutput()
		t.Logf("%s", out)
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		return
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	det := NewLanguageDetector()
	det.DetectText("прогрев моделей")
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := float64(after.HeapAlloc-min(before.HeapAlloc, after.HeapAlloc)) / (1 << 20)
	rss := vmRSS()
	t.Logf("detector heap %.1f MB, process RSS %.1f MB", heap, rss)
	if heap > 150 || (rss > 150 && !raceEnabled) {
		t.Errorf("detector memory over budget: heap %.1f MB, RSS %.1f MB (limit 150)", heap, rss)
	}
	runtime.KeepAlive(det)
}

// vmRSS reads the resident set size in MB from /proc (0 where there is none).
func vmRSS() float64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(rest), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkClassify50KB is the classifier's share: the document is extracted once.
func BenchmarkClassify50KB(b *testing.B) {
	benchVariants(b, benchClassify)
}

func benchClassify(b *testing.B, c *Classifier) {
	doc, err := extract.Extract(bigPost(b), extract.Options{Format: extract.FormatMarkdown})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	n := 0
	for b.Loop() {
		c.Classify(doc)
		n++
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/float64(n), "cpu-ms/op")
}
