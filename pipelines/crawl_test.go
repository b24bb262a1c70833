package pipelines

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/api"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines/crawl"
	"github.com/casebook/casebook/sinks"
)

// hits records what a test site was asked, server side.
type hits struct {
	mu   sync.Mutex
	reqs []hit
}

type hit struct {
	// at is wall clock only: the limiter keeps its holds and gaps in the
	// wall clock that every process shares, and on a VM that clock can run
	// off the monotonic one (CI saw 7.5 ms in 1.5 s), so a request on time
	// by the wall clock could read as early by the monotonic one.
	at          time.Time
	path, agent string
	inm         string // If-None-Match
}

func (h *hits) add(r *http.Request) {
	h.mu.Lock()
	h.reqs = append(h.reqs, hit{at: time.Now().Round(0), path: r.URL.Path, agent: r.UserAgent(), inm: r.Header.Get("If-None-Match")})
	h.mu.Unlock()
}

func (h *hits) all() []hit {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hit(nil), h.reqs...)
}

func (h *hits) count(path string) int {
	n := 0
	for _, r := range h.all() {
		if r.path == path {
			n++
		}
	}
	return n
}

func quietLog() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func postBody(t testing.TB, name string) []byte {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "posts", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// notIncident is a crawled post that is not an incident write-up.
const notIncident = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Release notes 4.2</title></head>
<body><main><article><h1>Release notes 4.2</h1>
<p>This release adds a dark theme to the dashboard, new keyboard shortcuts for the editor and a faster search box.</p>
<p>We also refreshed the onboarding tour, translated the settings page into six languages and updated the icons.</p>
<p>Thanks to everyone who sent feedback on the beta. Upgrade from the downloads page; the changelog lists every change.</p>
</article></main></body></html>`

// crawlEnv is a serve process (all stages) plus a scheduler under test control.
type crawlEnv struct {
	svc   *Service
	sched *crawl.Scheduler
	pf    *crawl.PoliteFetcher // the scheduler's fetcher
	api   *api.Client
}

func startCrawlEnv(t *testing.T, sources []crawl.Source, pol crawl.Politeness, tune func(*crawl.SchedulerConfig)) *crawlEnv {
	t.Helper()
	dir := t.TempDir()
	svc, err := Start(context.Background(), ServeConfig{
		DataDir: dir, HTTPAddr: "127.0.0.1:0", NATSSync: 2 * time.Minute,
		Fetch:      fetch.Config{AllowPrivateNetworks: true},
		Runner:     RunnerConfig{Concurrency: 4, Backoff: func(int) time.Duration { return 100 * time.Millisecond }},
		Politeness: pol, Log: quietLog(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	f, err := fetch.New(fetch.Config{AllowPrivateNetworks: true})
	if err != nil {
		t.Fatal(err)
	}
	pf, err := crawl.NewPoliteFetcher(context.Background(), svc.Bus.JS, f)
	if err != nil {
		t.Fatal(err)
	}
	cfg := crawl.SchedulerConfig{Sources: sources, Store: svc.Store, Submitter: &Submitter{Store: svc.Store, Bus: svc.Bus, Log: quietLog()},
		Fetch: pf, RetryBase: 200 * time.Millisecond, MaxBackoff: 2 * time.Second, FirstRunSpread: time.Millisecond, Log: quietLog()}
	if tune != nil {
		tune(&cfg)
	}
	sched, err := crawl.NewScheduler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := os.ReadFile(filepath.Join(dir, AdminTokenFile))
	return &crawlEnv{svc: svc, sched: sched, pf: pf, api: &api.Client{BaseURL: "http://" + svc.Addr, Token: strings.TrimSpace(string(tok))}}
}

// waitRun waits until every submission of run is terminal.
func (e *crawlEnv) waitRun(t *testing.T, run *sinks.CrawlRun) *api.CrawlProgress {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		p, err := api.Progress(e.svc.Store, run)
		if err != nil {
			t.Fatal(err)
		}
		if p.Done {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s not done after 60s: %+v", run.ID, p)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func feedXML(base string, paths ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Example Engineering</title><link>` + base + `/</link><ttl>5</ttl>`)
	for i, p := range paths {
		fmt.Fprintf(&b, "<item><title>Post %d</title><link>%s%s?utm_source=rss#top</link><pubDate>Mon, 0%d Jan 2024 10:00:00 GMT</pubDate></item>", i, base, p, i+1)
	}
	b.WriteString("</channel></rss>")
	return b.String()
}

// TestCrawlFeedDiscoveryConditionalGet crawls a blog whose home page links
// its feed: the feed is discovered, new items go through the pipeline
// (incidents drafted, the other post skipped with its relevance score),
// and the second crawl is a 304 that fetches nothing else.
func TestCrawlFeedDiscoveryConditionalGet(t *testing.T) {
	var h hits
	mux := http.NewServeMux()
	var base string
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.add(r)
		switch {
		case r.URL.Path == "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, `<html><head><title>Blog</title><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body>hi</body></html>`)
		case r.URL.Path == "/feed.xml":
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Content-Type", "application/rss+xml")
			io.WriteString(w, feedXML(base, "/posts/en-queue-outage.html", "/posts/ru-disk-full.md", "/posts/zh-dns-timeout.html", "/posts/release-notes.html"))
		case r.URL.Path == "/posts/release-notes.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, notIncident)
		case strings.HasPrefix(r.URL.Path, "/posts/"):
			ct := "text/html; charset=utf-8"
			if strings.HasSuffix(r.URL.Path, ".md") {
				ct = "text/markdown; charset=utf-8"
			}
			w.Header().Set("Content-Type", ct)
			w.Write(postBody(t, strings.TrimPrefix(r.URL.Path, "/posts/")))
		default:
			http.NotFound(w, r)
		}
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	base = site.URL
	env := startCrawlEnv(t, []crawl.Source{{Name: "blog", Kind: crawl.KindFeed, URL: site.URL + "/"}}, crawl.Politeness{MinDelay: 20 * time.Millisecond}, nil)
	ctx := context.Background()

	run, err := env.sched.CrawlNow(ctx, "blog")
	if err != nil {
		t.Fatal(err)
	}
	if run.Outcome != "ok" || run.Found != 4 || run.New != 4 || len(run.Submissions) != 4 {
		t.Fatalf("first crawl: %+v", run)
	}
	st, _ := env.svc.Store.GetSourceState("blog")
	if st.ResolvedURL != site.URL+"/feed.xml" || st.ETag != `"v1"` || st.ErrorCount != 0 {
		t.Fatalf("state after discovery: %+v", st)
	}
	// The feed's <ttl> of 5 minutes is shorter than the interval: no effect.
	if d := time.Until(st.NextRun); d < 5*time.Hour || d > 7*time.Hour {
		t.Errorf("next run in %s, want about the 6h interval", d)
	}
	p := env.waitRun(t, run)
	if p.Drafted != 3 || p.Skipped != 1 || p.Failed != 0 || p.Fetched != 4 {
		t.Fatalf("progress: %+v", p)
	}
	for _, it := range p.Items {
		if it.State == casebook.StateSkipped && (!strings.Contains(it.URL, "release-notes") || !strings.Contains(it.Reason, "relevance")) {
			t.Errorf("skipped item %+v: want the release notes, with the relevance score", it)
		}
		if strings.Contains(it.URL, "utm_source") || strings.Contains(it.URL, "#") {
			// The submission keeps the URL as listed; the seen-set key is canonical.
		}
		canon, _ := fetch.CanonicalURL(it.URL)
		if e, _ := env.svc.Store.SeenURL(canon); e == nil || e.SubmissionID != it.SubmissionID {
			t.Errorf("%s not in the seen-set under %s", it.URL, canon)
		}
	}

	again, err := env.sched.CrawlNow(ctx, "blog")
	if err != nil {
		t.Fatal(err)
	}
	if again.Outcome != "not_modified" || len(again.Submissions) != 0 {
		t.Fatalf("second crawl: %+v", again)
	}
	var conditional bool
	for _, r := range h.all() {
		if r.path == "/feed.xml" && r.inm == `"v1"` {
			conditional = true
		}
	}
	if !conditional {
		t.Error("second crawl sent no If-None-Match")
	}
	for _, path := range []string{"/posts/en-queue-outage.html", "/posts/ru-disk-full.md", "/posts/release-notes.html"} {
		if n := h.count(path); n != 1 {
			t.Errorf("%s fetched %d times, want once", path, n)
		}
	}
	if n := h.count("/"); n != 1 {
		t.Errorf("home page fetched %d times: discovery should be remembered", n)
	}
}

// TestCrawlSitemapDiscovery points a sitemap source at a site root: the
// sitemap index comes from robots.txt, its child sitemap gives the posts,
// and include/exclude filter them.
func TestCrawlSitemapDiscovery(t *testing.T) {
	var base string
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: %s/sitemaps/index.xml\n", base)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>home</body></html>")
	})
	mux.HandleFunc("/sitemaps/index.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>%s/sitemaps/posts.xml</loc><lastmod>2024-03-01</lastmod></sitemap></sitemapindex>`, base)
	})
	mux.HandleFunc("/sitemaps/posts.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>%[1]s/posts/zh-dns-timeout.html</loc><lastmod>2024-03-01</lastmod></url>
<url><loc>%[1]s/posts/en-queue-outage.html</loc><lastmod>2024-02-01</lastmod></url>
<url><loc>%[1]s/tags/outage</loc></url></urlset>`, base)
	})
	mux.HandleFunc("/posts/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(postBody(t, r.PathValue("name")))
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	base = site.URL
	env := startCrawlEnv(t, []crawl.Source{{Name: "site", Kind: crawl.KindSitemap, URL: site.URL + "/", Exclude: []string{"/tags/"}}},
		crawl.Politeness{MinDelay: 10 * time.Millisecond}, nil)
	run, err := env.sched.CrawlNow(context.Background(), "site")
	if err != nil {
		t.Fatal(err)
	}
	if run.Outcome != "ok" || run.Found != 2 || len(run.Submissions) != 2 {
		t.Fatalf("crawl: %+v", run)
	}
	st, _ := env.svc.Store.GetSourceState("site")
	if st.ResolvedURL != site.URL+"/sitemaps/index.xml" {
		t.Fatalf("resolved %q", st.ResolvedURL)
	}
	first, _ := env.svc.Store.GetSubmission(run.Submissions[0])
	if !strings.HasSuffix(first.URL, "zh-dns-timeout.html") {
		t.Errorf("newest item not first: %s", first.URL)
	}
	if p := env.waitRun(t, run); p.Drafted != 2 {
		t.Fatalf("progress %+v", p)
	}
}

// TestCrawlRobots: a disallowed item is skipped without being fetched, and
// Crawl-delay spaces the requests to the host beyond the minimum delay.
func TestCrawlRobots(t *testing.T) {
	var h hits
	var base string
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.add(r)
		switch {
		case r.URL.Path == "/robots.txt":
			io.WriteString(w, "User-agent: *\nDisallow: /private/\nCrawl-delay: 0.7\n")
		case r.URL.Path == "/feed.xml":
			w.Header().Set("Content-Type", "application/rss+xml")
			io.WriteString(w, feedXML(base, "/private/secret.html", "/posts/en-queue-outage.html", "/posts/zh-dns-timeout.html"))
		case strings.HasPrefix(r.URL.Path, "/posts/"):
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(postBody(t, strings.TrimPrefix(r.URL.Path, "/posts/")))
		default:
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><body><article><p>secret</p></article></body></html>")
		}
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	base = site.URL
	env := startCrawlEnv(t, []crawl.Source{{Name: "blog", Kind: crawl.KindFeed, URL: site.URL + "/feed.xml"}}, crawl.Politeness{MinDelay: 50 * time.Millisecond}, nil)
	run, err := env.sched.CrawlNow(context.Background(), "blog")
	if err != nil {
		t.Fatal(err)
	}
	p := env.waitRun(t, run)
	var skipped int
	for _, it := range p.Items {
		if strings.Contains(it.URL, "/private/") {
			skipped++
			if it.State != casebook.StateSkipped || it.Reason != crawl.ReasonRobots {
				t.Errorf("private item: %+v", it)
			}
		} else if it.State != casebook.StateDrafted {
			t.Errorf("allowed item: %+v", it)
		}
	}
	if skipped != 1 || p.Fetched != 2 {
		t.Fatalf("progress %+v", p)
	}
	if n := h.count("/private/secret.html"); n != 0 {
		t.Errorf("disallowed page fetched %d times", n)
	}
	reqs := h.all()
	if len(reqs) < 4 || reqs[0].path != "/robots.txt" {
		t.Fatalf("requests %+v", reqs)
	}
	for i := 2; i < len(reqs); i++ { // after robots.txt and the request it preceded
		if gap := reqs[i].at.Sub(reqs[i-1].at); gap < 700*time.Millisecond-15*time.Millisecond {
			t.Errorf("%s -> %s only %s apart, Crawl-delay is 0.7s", reqs[i-1].path, reqs[i].path, gap)
		}
	}
	if gap := reqs[1].at.Sub(reqs[0].at); gap < 50*time.Millisecond-5*time.Millisecond {
		t.Errorf("robots.txt and the next request %s apart, min delay 50ms", gap)
	}
}

// TestSourceBackoffAndRecovery runs the scheduler loop against a feed that
// fails (500), then asks to slow down (429, Retry-After: 1), then works:
// the waits grow, Retry-After is honoured for the source and for the host
// in the shared bucket, and the source recovers without help.
func TestSourceBackoffAndRecovery(t *testing.T) {
	var h hits
	var mu sync.Mutex
	n := 0
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		h.add(r)
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		switch k {
		case 1:
			http.Error(w, "boom", http.StatusInternalServerError)
		case 2:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		default:
			w.Header().Set("Content-Type", "application/rss+xml")
			io.WriteString(w, feedXML("http://127.0.0.1"))
		}
	}))
	defer site.Close()
	env := startCrawlEnv(t, []crawl.Source{{Name: "flaky", Kind: crawl.KindFeed, URL: site.URL + "/feed.xml", Interval: time.Hour}},
		crawl.Politeness{MinDelay: 10 * time.Millisecond}, func(c *crawl.SchedulerConfig) { c.RetryBase = 300 * time.Millisecond })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = env.sched.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	var sawBackoff bool
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, _ := env.svc.Store.GetSourceState("flaky")
		if st.ErrorCount == 2 && !sawBackoff {
			sawBackoff = true
			next, err := env.pf.Limiter.NextAllowed(ctx, "127.0.0.1")
			if err != nil || time.Until(next) < 500*time.Millisecond {
				t.Errorf("host next-allowed %s (%v): the 429's Retry-After should hold every worker off", time.Until(next), err)
			}
			if !strings.Contains(st.LastError, "429") {
				t.Errorf("last error %q", st.LastError)
			}
		}
		if st.LastOutcome == "ok" {
			if st.ErrorCount != 0 || st.Failures != 2 || st.Runs != 3 || time.Until(st.NextRun) < 50*time.Minute {
				t.Fatalf("recovered state %+v", st)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no recovery after 20s: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	reqs := h.all()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if gap := reqs[1].at.Sub(reqs[0].at); gap < 240*time.Millisecond {
		t.Errorf("retry after the first failure came %s later, backoff base 300ms (-20%% jitter)", gap)
	}
	if gap := reqs[2].at.Sub(reqs[1].at); gap < time.Second-20*time.Millisecond {
		t.Errorf("retry after the 429 came %s later, Retry-After was 1s", gap)
	}
	if !sawBackoff {
		t.Error("never saw the state after the 429")
	}
}

// TestSourcesAPI drives a crawl through the HTTP API as `casebook crawl`
// does: the POST needs a token, progress is visible until done, and the
// source list shows the history.
func TestSourcesAPI(t *testing.T) {
	var base string
	mux := http.NewServeMux()
	mux.HandleFunc("/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		io.WriteString(w, feedXML(base, "/posts/en-queue-outage.html"))
	})
	mux.HandleFunc("/posts/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(postBody(t, r.PathValue("name")))
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	base = site.URL

	dir := t.TempDir()
	// Put the scheduled first run far off so only the API triggers crawls.
	st, err := sinks.Open(filepath.Join(dir, "casebook.db"), sinks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutSourceState(sinks.SourceState{Name: "blog", NextRun: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	svc, err := Start(context.Background(), ServeConfig{
		DataDir: dir, HTTPAddr: "127.0.0.1:0", NATSSync: 2 * time.Minute, Fetch: fetch.Config{AllowPrivateNetworks: true},
		Sources: []crawl.Source{{Name: "blog", Kind: crawl.KindFeed, URL: site.URL + "/feed.xml"}}, Politeness: crawl.Politeness{MinDelay: 10 * time.Millisecond},
		Log: quietLog(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	tok, _ := os.ReadFile(filepath.Join(dir, AdminTokenFile))
	c := &api.Client{BaseURL: "http://" + svc.Addr, Token: strings.TrimSpace(string(tok))}
	ctx := context.Background()

	anon := &api.Client{BaseURL: c.BaseURL}
	if _, err := anon.Do(ctx, "POST", "/api/v1/sources/blog/crawl", nil, nil); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("crawl without a token: %v", err)
	}
	if _, err := c.Do(ctx, "POST", "/api/v1/sources/nope/crawl", nil, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("crawl of an unknown source: %v", err)
	}
	var run sinks.CrawlRun
	if status, err := c.Do(ctx, "POST", "/api/v1/sources/blog/crawl", nil, &run); err != nil || status != http.StatusAccepted || run.ID == "" {
		t.Fatalf("crawl: %d %v %+v", status, err, run)
	}
	var p api.CrawlProgress
	deadline := time.Now().Add(60 * time.Second)
	for !p.Done {
		if time.Now().After(deadline) {
			t.Fatalf("crawl not done: %+v", p)
		}
		time.Sleep(50 * time.Millisecond)
		if _, err := anon.Do(ctx, "GET", "/api/v1/sources/blog/crawls/latest", nil, &p); err != nil {
			t.Fatal(err)
		}
	}
	if p.ID != run.ID || p.Found != 1 || p.New != 1 || p.Drafted != 1 || len(p.Items) != 1 || p.Items[0].DraftID == "" {
		t.Fatalf("progress %+v", p)
	}
	var srcs struct {
		Items []api.SourceView `json:"items"`
	}
	if _, err := anon.Do(ctx, "GET", "/api/v1/sources", nil, &srcs); err != nil {
		t.Fatal(err)
	}
	if len(srcs.Items) != 1 || srcs.Items[0].State.LastOutcome != "ok" || srcs.Items[0].State.LastRunID != run.ID ||
		srcs.Items[0].State.NextRun.Before(time.Now().Add(5*time.Hour)) {
		t.Fatalf("sources %+v", srcs.Items)
	}
	var runs struct {
		Items []sinks.CrawlRun `json:"items"`
	}
	if _, err := anon.Do(ctx, "GET", "/api/v1/sources/blog/crawls", nil, &runs); err != nil || len(runs.Items) != 1 {
		t.Fatalf("history %v %+v", err, runs)
	}
}

// TestCrawlHonoursFreshness: a feed that says it stays fresh for 12 hours
// (Cache-Control) or publishes a long <ttl> is not fetched again before
// then, even with a shorter interval; the cap bounds absurd values.
func TestCrawlHonoursFreshness(t *testing.T) {
	var header, ttl string
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		if header != "" {
			w.Header().Set("Cache-Control", header)
		}
		w.Header().Set("Content-Type", "application/rss+xml")
		io.WriteString(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>`+ttl+`</channel></rss>`)
	}))
	defer site.Close()
	env := startCrawlEnv(t, []crawl.Source{{Name: "f", Kind: crawl.KindFeed, URL: site.URL + "/feed.xml", Interval: time.Hour}},
		crawl.Politeness{MinDelay: 5 * time.Millisecond}, func(c *crawl.SchedulerConfig) { c.MaxFresh = 48 * time.Hour })
	cases := []struct {
		header, ttl string
		lo, hi      time.Duration
	}{
		{"", "", 54 * time.Minute, 66 * time.Minute},                                     // the interval, ±10% jitter
		{"max-age=43200", "", 12*time.Hour - time.Minute, 12 * time.Hour},                // Cache-Control wins
		{"", "<ttl>600</ttl>", 10*time.Hour - time.Minute, 10 * time.Hour},               // RSS ttl in minutes
		{"max-age=31536000", "", 48*time.Hour - time.Minute, 48*time.Hour + time.Second}, // capped
	}
	for _, tc := range cases {
		header, ttl = tc.header, tc.ttl
		// Change the body each time so the crawl is not "unchanged".
		ttl += fmt.Sprintf("<!-- %d -->", time.Now().UnixNano())
		run, err := env.sched.CrawlNow(context.Background(), "f")
		if err != nil || run.Outcome != "ok" {
			t.Fatalf("%+v: %v %+v", tc, err, run)
		}
		st, _ := env.svc.Store.GetSourceState("f")
		if d := time.Until(st.NextRun); d < tc.lo || d > tc.hi {
			t.Errorf("Cache-Control %q ttl %q: next run in %s, want %s..%s", tc.header, tc.ttl, d, tc.lo, tc.hi)
		}
	}
}
