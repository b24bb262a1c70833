package pipelines

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines/crawl"
	"github.com/casebook/casebook/sinks"
)

// benchSite is 50 hosts (127.0.0.2 ... 127.0.0.51, all loopback on Linux)
// of 40 pages each, every host with a sitemap.
type benchSite struct {
	hosts []string // base URLs
	pages atomic.Int64
	srvs  []*http.Server
}

func startBenchSite(b *testing.B, hosts, perHost int) *benchSite {
	s := &benchSite{}
	filler := strings.Repeat("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>\n", 20)
	for i := 0; i < hosts; i++ {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", i+2))
		if err != nil {
			b.Skipf("loopback address 127.0.0.%d unavailable: %v", i+2, err)
		}
		base := "http://" + ln.Addr().String()
		mux := http.NewServeMux()
		mux.HandleFunc("/sitemap.xml", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			var sb strings.Builder
			sb.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
			for p := 0; p < perHost; p++ {
				fmt.Fprintf(&sb, "<url><loc>%s/p/%d</loc><lastmod>2024-01-%02d</lastmod></url>", base, p, p%28+1)
			}
			sb.WriteString("</urlset>")
			w.Write([]byte(sb.String()))
		})
		mux.HandleFunc("/p/{n}", func(w http.ResponseWriter, r *http.Request) {
			s.pages.Add(1)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<html><head><title>Page %s</title></head><body><article><h1>Page %s</h1>%s</article></body></html>", r.PathValue("n"), r.PathValue("n"), filler)
		})
		srv := &http.Server{Handler: mux}
		go srv.Serve(ln)
		s.srvs = append(s.srvs, srv)
		s.hosts = append(s.hosts, base)
	}
	b.Cleanup(func() {
		for _, srv := range s.srvs {
			srv.Close()
		}
	})
	return s
}

// memPeak samples the heap until stopped.
func memPeak() (stop func() (heapMiB, rssMiB float64)) {
	done := make(chan struct{})
	var peak atomic.Uint64
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() (float64, float64) {
		close(done)
		return float64(peak.Load()) / (1 << 20), float64(vmHWM()) / (1 << 20)
	}
}

// vmHWM is the process's peak resident set, from /proc (0 elsewhere).
func vmHWM() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}

// BenchmarkCrawl2000 crawls 2,000 pages on 50 hosts, concurrency 1 per
// host, and reports pages/s against the bound the per-host limit allows
// (50 hosts / delay: 2,500 pages/s at 20 ms, 250 at 200 ms) and peak memory.
//
//	crawl:  50 sitemap sources triggered at once; discovery, robots.txt,
//	        the seen-set, bbolt submissions and the fetch stage (64 handlers).
//	fetch:  the fetch stage alone on 2,000 queued tasks.
//	crawl-200ms: as crawl, with a delay long enough that politeness, not
//	        the machine, is the limit.
//
// go test ./pipelines -run '^$' -bench Crawl2000 -benchtime 1x
func BenchmarkCrawl2000(b *testing.B) {
	const hosts, perHost = 50, 40
	delay := 20 * time.Millisecond
	site := startBenchSite(b, hosts, perHost)
	total := int64(hosts * perHost)
	var sources []crawl.Source
	for i, h := range site.hosts {
		sources = append(sources, crawl.Source{Name: fmt.Sprintf("host%02d", i), Kind: crawl.KindSitemap, URL: h + "/sitemap.xml"})
	}
	start := func(b *testing.B, delay time.Duration) *Service {
		svc, err := Start(context.Background(), ServeConfig{
			DataDir: b.TempDir(), HTTPAddr: "127.0.0.1:0", NATSSync: 2 * time.Minute, Stages: []string{StageFetch},
			Fetch:      fetch.Config{AllowPrivateNetworks: true},
			Runner:     RunnerConfig{Concurrency: 64},
			Politeness: crawl.Politeness{Concurrency: 1, MinDelay: delay}, Log: quietLog(),
		})
		if err != nil {
			b.Fatal(err)
		}
		return svc
	}
	wait := func(b *testing.B, want int64) {
		deadline := time.Now().Add(5 * time.Minute)
		for site.pages.Load() < want {
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d pages after 5 minutes", site.pages.Load(), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	report := func(b *testing.B, delay, elapsed time.Duration, heap, rss float64) {
		bound := float64(hosts) / delay.Seconds()
		pps := float64(total) / elapsed.Seconds()
		b.ReportMetric(pps, "pages/s")
		b.ReportMetric(pps/bound, "ratio-to-bound")
		b.ReportMetric(heap, "peak-heap-MiB")
		b.ReportMetric(rss, "peak-rss-MiB")
		b.Logf("%d pages on %d hosts in %s: %.0f pages/s, bound %.0f pages/s, ratio %.2f; peak heap %.0f MiB, peak RSS %.0f MiB",
			total, hosts, elapsed.Round(time.Millisecond), pps, bound, pps/bound, heap, rss)
	}

	crawl := func(b *testing.B, delay time.Duration) {
		for n := 0; n < b.N; n++ {
			site.pages.Store(0)
			svc := start(b, delay)
			f, _ := fetch.New(fetch.Config{AllowPrivateNetworks: true})
			pf, err := crawl.NewPoliteFetcher(context.Background(), svc.Bus.JS, f)
			if err != nil {
				b.Fatal(err)
			}
			sched, err := crawl.NewScheduler(crawl.SchedulerConfig{Sources: sources, Store: svc.Store, Parallel: hosts,
				Submitter: &Submitter{Store: svc.Store, Bus: svc.Bus, Log: quietLog()}, Fetch: pf, Log: quietLog()})
			if err != nil {
				b.Fatal(err)
			}
			stop := memPeak()
			t0 := time.Now()
			runs := make([]*sinks.CrawlRun, len(sources))
			for i, src := range sources {
				if runs[i], err = sched.Crawl(context.Background(), src.Name); err != nil {
					b.Fatal(err)
				}
			}
			wait(b, total)
			elapsed := time.Since(t0)
			heap, rss := stop()
			report(b, delay, elapsed, heap, rss)
			sched.Wait()
			svc.Close()
		}
	}
	b.Run("crawl", func(b *testing.B) { crawl(b, delay) })

	b.Run("fetch", func(b *testing.B) {
		for n := 0; n < b.N; n++ {
			site.pages.Store(0)
			svc := start(b, delay)
			stop := memPeak()
			t0 := time.Now()
			// Interleave hosts as a crawl of many sources would.
			for p := 0; p < perHost; p++ {
				for h, base := range site.hosts {
					id := fmt.Sprintf("sub-%d-%02d-%02d", n, h, p)
					task := FetchTask{SubmissionID: id, URL: fmt.Sprintf("%s/p/%d", base, p), Origin: "manual"}
					if err := svc.Bus.Publish(context.Background(), SubjectFetch, id+":fetch", id, task); err != nil {
						b.Fatal(err)
					}
				}
			}
			wait(b, total)
			elapsed := time.Since(t0)
			heap, rss := stop()
			report(b, delay, elapsed, heap, rss)
			svc.Close()
		}
	})
	b.Run("crawl-200ms", func(b *testing.B) { crawl(b, 200*time.Millisecond) })
}
