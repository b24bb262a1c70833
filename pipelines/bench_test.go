package pipelines_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/classify"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines"
	"github.com/casebook/casebook/pipelines/crawl"
	"github.com/casebook/casebook/sinks"
)

// The pipeline benchmarks push distinct local pages through every stage and
// report documents per second and the peak heap, for three set-ups run in
// the same process: the stages called directly (the peer), the pipeline on
// the embedded NATS server (the default), and the pipeline on a three-server
// cluster. Run with a fixed count, e.g.
//
//	go test -run '^$' -bench Pipeline -benchtime 5000x ./pipelines
//
// The ratio NATS/direct is the cost of going through NATS.

// benchSite serves the pages on every loopback address, so page i can name
// host 127.0.0.(1+i%50): fifty hosts, as a crawl of many blogs would have,
// rather than one host whose politeness slot every fetch would queue for.
type benchSite struct{ port string }

func newBenchSite(b *testing.B) *benchSite {
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		fmt.Sscanf(r.URL.Path, "/post/%d", &i)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, incidentPage(i))
	})}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return &benchSite{port: port}
}

func (s *benchSite) url(i int) string {
	return fmt.Sprintf("http://127.0.0.%d:%s/post/%d", 1+i%50, s.port, i)
}

// peakHeap samples the live heap until stop is called, and returns the peak.
// It also resets the process's peak resident set (VmHWM), so report can give
// this run's peak RSS rather than the highest since the test binary started.
func peakHeap() (stop func() uint64) {
	debug.FreeOSMemory() // hand back what earlier benchmarks left, then reset
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

func report(b *testing.B, n int, elapsed time.Duration, peak uint64) {
	b.ReportMetric(float64(n)/elapsed.Seconds(), "docs/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	if _, err := os.Stat("/proc/self/status"); err == nil {
		b.ReportMetric(peakRSS(b, os.Getpid()), "peak-rss-MiB")
	}
	b.ReportMetric(0, "ns/op") // the per-op time is meaningless for a batch
}

// BenchmarkPipelineDirect is the peer: the same four stages, called in this
// process with the same concurrency (16 workers, each taking a document
// through every stage), no NATS in between and so no cross-process
// politeness either.
func BenchmarkPipelineDirect(b *testing.B) {
	site := newBenchSite(b)
	store, err := sinks.Open(filepath.Join(b.TempDir(), "casebook.db"), sinks.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	f, err := fetch.New(fetch.Config{AllowPrivateNetworks: true})
	if err != nil {
		b.Fatal(err)
	}
	fetchSt, extractSt := &pipelines.FetchStage{Fetcher: f}, &pipelines.ExtractStage{}
	classifySt := &pipelines.ClassifyStage{Classifier: classify.New(classify.Config{})}
	sinkSt := &pipelines.SinkStage{Store: store}
	ctx := context.Background()
	stop := peakHeap()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	work := make(chan int)
	for range benchConcurrency(b) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				u := site.url(i)
				rec, _, err := store.CreateSubmission(u, u, "manual", "")
				if err != nil {
					b.Error(err)
					return
				}
				page, err := fetchSt.Process(ctx, pipelines.FetchTask{SubmissionID: rec.ID, URL: u})
				if err != nil {
					b.Error(err)
					return
				}
				ref := pipelines.PageRef{SubmissionID: rec.ID, Origin: "manual", URL: page.URL, ContentType: page.ContentType, SHA256: page.RawSHA256, FetchedAt: page.FetchedAt}
				doc, err := extractSt.Process(ctx, pipelines.ExtractInput{Page: ref, Body: page.Body})
				if err != nil {
					b.Error(err)
					return
				}
				task, err := classifySt.Process(ctx, pipelines.DocTask{Page: ref, Doc: doc})
				if err != nil {
					b.Error(err)
					return
				}
				if _, err := sinkSt.Process(ctx, *task); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	for i := 0; i < b.N; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	report(b, b.N, elapsed, stop())
}

// BenchmarkPipelineEmbedded runs the default all-in-one service (embedded
// JetStream with sync_always, every stage in this process).
func BenchmarkPipelineEmbedded(b *testing.B) {
	benchService(b, "")
}

// BenchmarkPipelineCluster runs the stages against a three-server cluster
// (in-process servers with routes, streams with three replicas).
func BenchmarkPipelineCluster(b *testing.B) {
	if testing.Short() {
		b.Skip("cluster benchmark skipped in -short mode")
	}
	benchService(b, startCluster(b).urls())
}

func benchService(b *testing.B, natsURL string) {
	site := newBenchSite(b)
	svc, err := pipelines.Start(context.Background(), pipelines.ServeConfig{
		DataDir: b.TempDir(), HTTPAddr: "127.0.0.1:0", NATSURL: natsURL,
		NATSSync: benchSync(b),
		Fetch:    fetch.Config{AllowPrivateNetworks: true},
		Runner:   pipelines.RunnerConfig{Concurrency: benchConcurrency(b)},
		// Short per-host spacing: the benchmark measures the pipeline, not
		// the politeness bound (the crawl benchmark does that).
		Politeness: crawl.Politeness{Concurrency: 4, MinDelay: time.Millisecond},
		Log:        quietLogger(),
	})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	sub := svc.Submitter
	ctx := context.Background()
	stop := peakHeap()
	b.ResetTimer()
	start := time.Now()
	ids := submitAll(b, func(i int) string {
		rec, _, err := sub.Submit(ctx, site.url(i), "manual", "")
		if err != nil {
			b.Error(err)
		}
		return rec.ID
	})
	awaitDrafted(b, ids, start, func(id string) (casebook.Submission, error) {
		rec, err := svc.Store.GetSubmission(id)
		return rec.Submission, err
	})
	elapsed := time.Since(start)
	b.StopTimer()
	report(b, b.N, elapsed, stop())
}

// submitAll submits pages 0..b.N-1 from 8 goroutines, as concurrent API
// clients would, and returns the submission ids in page order.
func submitAll(b *testing.B, submit func(i int) string) []string {
	ids := make([]string, b.N)
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				ids[i] = submit(i)
			}
		}()
	}
	for i := 0; i < b.N; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	return ids
}

// awaitDrafted waits for each submission in turn to be drafted: O(N) reads
// in all, so waiting costs the pipeline next to nothing.
func awaitDrafted(b *testing.B, ids []string, start time.Time, get func(id string) (casebook.Submission, error)) {
	for _, id := range ids {
		for {
			sub, err := get(id)
			if err == nil && sub.Terminal() {
				if sub.State != casebook.StateDrafted {
					b.Fatalf("%s ended %s (%s%s), want drafted", id, sub.State, sub.Reason, sub.Error)
				}
				break
			}
			if time.Since(start) > 10*time.Minute {
				b.Fatalf("%s still %s after 10 minutes (%v)", id, sub.State, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// benchSync reads CASEBOOK_BENCH_SYNC ("always" or a duration; default: the
// serve command's default) so the durability settings can be compared.
func benchSync(b *testing.B) time.Duration {
	v := os.Getenv("CASEBOOK_BENCH_SYNC")
	switch v {
	case "":
		return pipelines.DefaultNATSSync
	case "always":
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		b.Fatalf("CASEBOOK_BENCH_SYNC=%q: %v", v, err)
	}
	return d
}

func benchConcurrency(b *testing.B) int {
	if v := os.Getenv("CASEBOOK_BENCH_CONCURRENCY"); v != "" {
		var n int
		fmt.Sscan(v, &n)
		return n
	}
	return 16
}
