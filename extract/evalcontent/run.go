package evalcontent

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/casebook/casebook/extract"
)

// Extractor turns a page into its main text.
type Extractor struct {
	Name string
	Fn   func(page []byte, pageURL string) (string, error)
}

// Casebook is casebook's own extractor: Document.MainText of extract.Extract.
func Casebook() Extractor {
	return Extractor{Name: "casebook", Fn: func(page []byte, pageURL string) (string, error) {
		d, err := extract.Extract(page, extract.Options{URL: pageURL, Format: extract.FormatHTML})
		if err != nil {
			return "", err
		}
		return d.MainText(), nil
	}}
}

// Config says what to run.
type Config struct {
	AEBDir    string // ../shared/bench/aeb; "" to skip
	DanielDir string // ../shared/bench/daniel; "" to skip
	Limit     int    // at most this many pages per data set (0: all)
	Worst     int    // list this many lowest-scoring casebook pages
	// Extractors is the set run (default: casebook alone). The peers live in
	// package peers, so that the product binary does not link them.
	Extractors []Extractor
}

// PageResult is one extractor's outcome on one page.
type PageResult struct {
	Page   *Page
	Text   string
	Err    error
	Counts Counts
}

// Result is one extractor's figures.
type Result struct {
	Name        string
	Scores      map[string]Score // "aeb", "daniel/en", "daniel/ru", "daniel/zh"
	Pages       int
	Errors      int
	Elapsed     time.Duration // extraction time only, pages run one after another
	PagesPerSec float64       // by wall time
	CPU         time.Duration // process CPU time over the extraction pass
	// PagesPerCPUSec is pages per second of CPU: the one-core speed, not
	// disturbed by other load on the machine.
	PagesPerCPUSec float64
	AllocPerPage   float64 // bytes allocated per page
	PeakHeap       uint64  // highest heap seen above the starting heap, GOGC=10 pass
	PerPage        []PageResult
}

// Report is the whole run.
type Report struct {
	Results []Result
}

// Datasets in print order.
var Datasets = []string{"aeb", "daniel/en", "daniel/ru", "daniel/zh"}

func key(p *Page) string {
	if p.Dataset == "daniel" {
		return "daniel/" + p.Lang
	}
	return p.Dataset
}

// Load reads the configured data sets.
func Load(cfg Config) ([]Page, error) {
	var pages []Page
	if cfg.AEBDir != "" {
		ps, err := LoadAEB(cfg.AEBDir)
		if err != nil {
			return nil, err
		}
		if cfg.Limit > 0 && len(ps) > cfg.Limit {
			ps = ps[:cfg.Limit]
		}
		pages = append(pages, ps...)
	}
	if cfg.DanielDir != "" {
		ps, err := LoadDaniel(cfg.DanielDir)
		if err != nil {
			return nil, err
		}
		if cfg.Limit > 0 && len(ps) > cfg.Limit {
			ps = ps[:cfg.Limit]
		}
		pages = append(pages, ps...)
	}
	return pages, nil
}

// Run scores every extractor on every page, one page at a time (one core),
// and writes the table to w.
func Run(ctx context.Context, cfg Config, w io.Writer) (Report, error) {
	pages, err := Load(cfg)
	if err != nil {
		return Report{}, err
	}
	if len(pages) == 0 {
		return Report{}, fmt.Errorf("evalcontent: no pages (set AEBDir and/or DanielDir)")
	}
	exs := cfg.Extractors
	if len(exs) == 0 {
		exs = []Extractor{Casebook()}
	}
	// Pages are kept gzip-compressed and inflated one at a time, so the
	// heap the extractors are measured against is small.
	store, err := compressPages(pages)
	if err != nil {
		return Report{}, err
	}
	for i := range pages {
		pages[i].HTML = nil
	}
	var rep Report
	for _, ex := range exs {
		res, err := runOne(ctx, ex, pages, store)
		if err != nil {
			return rep, err
		}
		rep.Results = append(rep.Results, res)
	}
	if w != nil {
		rep.Print(w)
		if cfg.Worst > 0 && len(rep.Results) > 0 {
			rep.PrintWorst(w, cfg.Worst)
		}
	}
	return rep, nil
}

func runOne(ctx context.Context, ex Extractor, pages []Page, store [][]byte) (Result, error) {
	res := Result{Name: ex.Name, Scores: map[string]Score{}, Pages: len(pages)}
	// Pass 1: speed and allocation, pages one after another on one goroutine.
	runtime.GC()
	res.PerPage = make([]PageResult, len(pages))
	var alloc uint64
	for i := range pages {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		p := &pages[i]
		page, err := inflate(store[i])
		if err != nil {
			return res, err
		}
		a0 := allocated()
		c0 := processCPU()
		t0 := time.Now()
		text, err := Safe(ex.Fn, page, p.URL)
		res.Elapsed += time.Since(t0)
		res.CPU += processCPU() - c0
		alloc += allocated() - a0
		res.PerPage[i] = PageResult{Page: p, Text: text, Err: err}
		if err != nil {
			res.Errors++
		}
	}
	res.AllocPerPage = float64(alloc) / float64(len(pages))
	if res.Elapsed > 0 {
		res.PagesPerSec = float64(len(pages)) / res.Elapsed.Seconds()
	}
	if res.CPU > 0 {
		res.PagesPerCPUSec = float64(len(pages)) / res.CPU.Seconds()
	}
	// Pass 2: peak heap. With GOGC at 10 the heap tracks live memory
	// closely, so the highest sample above the starting heap is the
	// extractor's working set on its worst page, plus a little slack.
	peak, err := peakHeap(ctx, ex, pages, store)
	if err != nil {
		return res, err
	}
	res.PeakHeap = peak
	// Score last so the scorer's allocations are not counted.
	byKey := map[string][]Counts{}
	for i := range res.PerPage {
		pr := &res.PerPage[i]
		if pr.Page.Dataset == "aeb" {
			pr.Counts = AEBCounts(pr.Page.Gold, pr.Text)
		} else {
			pr.Counts = DanielCounts(pr.Page.Gold, pr.Text)
		}
		k := key(pr.Page)
		byKey[k] = append(byKey[k], pr.Counts)
	}
	for k, cs := range byKey {
		res.Scores[k] = Aggregate(cs)
	}
	return res, nil
}

func peakHeap(ctx context.Context, ex Extractor, pages []Page, store [][]byte) (uint64, error) {
	old := debug.SetGCPercent(10)
	defer debug.SetGCPercent(old)
	var peak uint64
	for i := range pages {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		page, err := inflate(store[i])
		if err != nil {
			return 0, err
		}
		if i%50 == 0 {
			runtime.GC() // keep the base honest as results accumulate
		}
		base := heapObjects()
		var pk atomic.Uint64
		stop := make(chan struct{})
		done := make(chan struct{})
		go samplePeak(base, &pk, stop, done)
		_, _ = Safe(ex.Fn, page, pages[i].URL)
		close(stop)
		<-done
		if v := heapObjects(); v > base && v-base > pk.Load() {
			pk.Store(v - base)
		}
		peak = max(peak, pk.Load())
	}
	return peak, nil
}

func compressPages(pages []Page) ([][]byte, error) {
	store := make([][]byte, len(pages))
	for i := range pages {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write(pages[i].HTML); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		store[i] = buf.Bytes()
	}
	return store, nil
}

func inflate(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

var allocSample = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}

func allocated() uint64 {
	metrics.Read(allocSample)
	return allocSample[0].Value.Uint64()
}

// safe runs fn, turning a panic into an error: a peer crashing on one page
// must not end the run.
// Safe runs an extractor, turning a panic into an error: a peer that
// crashes on one page must not end the benchmark.
func Safe(fn func([]byte, string) (string, error), page []byte, u string) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return fn(page, u)
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

func heapObjects() uint64 {
	metrics.Read(heapSample)
	return heapSample[0].Value.Uint64()
}

// samplePeak polls the heap every 200µs and keeps the highest value
// above base: Go has no peak-heap counter, so this is an estimate.
func samplePeak(base uint64, peak *atomic.Uint64, stop, done chan struct{}) {
	defer close(done)
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	for {
		select {
		case <-stop:
			return
		default:
		}
		time.Sleep(200 * time.Microsecond)
		metrics.Read(s)
		if v := s[0].Value.Uint64(); v > base && v-base > peak.Load() {
			peak.Store(v - base)
		}
	}
}

// Print writes the side-by-side table.
func (r Report) Print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "extractor\t")
	for _, d := range Datasets {
		fmt.Fprintf(tw, "%s\t", d)
	}
	fmt.Fprint(tw, "pages\terrors\tpages/s wall\tpages/CPU-s\tKiB alloc/page\tMiB peak heap\t\n")
	defer fmt.Fprintln(w, "first figure: evaluation.md's measure (aeb: F1 of mean P and mean R, as evaluate.py; daniel: mF1, the mean per-page token F1)")
	for _, res := range r.Results {
		fmt.Fprintf(tw, "%s\t", res.Name)
		for _, d := range Datasets {
			if s, ok := res.Scores[d]; ok {
				fmt.Fprintf(tw, "%.3f (F1 %.3f P %.3f R %.3f mF1 %.3f n=%d)\t", s.Headline(d), s.F1, s.Precision, s.Recall, s.MeanF1, s.Pages)
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		fmt.Fprintf(tw, "%d\t%d\t%.1f\t%.1f\t%.0f\t%.1f\t\n", res.Pages, res.Errors, res.PagesPerSec, res.PagesPerCPUSec, res.AllocPerPage/1024, float64(res.PeakHeap)/(1<<20))
	}
	tw.Flush()
	if len(r.Results) > 1 {
		base := r.Results[0]
		for _, res := range r.Results[1:] {
			fmt.Fprintf(w, "%s vs %s:", base.Name, res.Name)
			for _, d := range Datasets {
				a, ok1 := base.Scores[d]
				b, ok2 := res.Scores[d]
				if ok1 && ok2 {
					fmt.Fprintf(w, " %s %.3f/%.3f", d, a.Headline(d), b.Headline(d))
				}
			}
			if res.PagesPerSec > 0 && res.PeakHeap > 0 {
				fmt.Fprintf(w, "; speed x%.2f (CPU) x%.2f (wall); peak heap x%.2f; alloc x%.2f", base.PagesPerCPUSec/res.PagesPerCPUSec, base.PagesPerSec/res.PagesPerSec, float64(base.PeakHeap)/float64(res.PeakHeap), base.AllocPerPage/res.AllocPerPage)
			}
			fmt.Fprintln(w)
		}
	}
}

// PrintWorst lists the first extractor's n lowest-F1 pages per data set.
func (r Report) PrintWorst(w io.Writer, n int) {
	res := r.Results[0]
	for _, d := range Datasets {
		var prs []PageResult
		for _, pr := range res.PerPage {
			if key(pr.Page) == d {
				prs = append(prs, pr)
			}
		}
		sort.SliceStable(prs, func(i, j int) bool { return prs[i].Counts.F1() < prs[j].Counts.F1() })
		for i := 0; i < n && i < len(prs); i++ {
			pr := prs[i]
			fmt.Fprintf(w, "worst %s %.3f P %.3f R %.3f %s %s\n", d, pr.Counts.F1(), precision(pr.Counts), recall(pr.Counts), pr.Page.ID, pr.Page.URL)
		}
	}
}
