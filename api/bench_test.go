package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
)

// The loopback benchmark: 100,000 stored cases, real HTTP on 127.0.0.1,
// concurrent keep-alive clients, p50/p99 latency and requests per second for
// GET /cases/{id}, GET /cases?tag= and GET /search, beside a plain
// http.FileServer serving a case-sized static file in the same run.
//
//	go test ./api -run '^$' -bench Loopback -benchtime 1x
//
// The store is built once through the store API (Import, 1000 cases a
// transaction) in the temp dir and reused by later runs (the first build of
// 100,000 takes minutes and about 1.5 GB); CASEBOOK_BENCH_CASES or -short
// (10,000) changes the size.

const benchGenVersion = 3

func benchCases() int {
	if n, err := strconv.Atoi(os.Getenv("CASEBOOK_BENCH_CASES")); err == nil && n > 0 {
		return n
	}
	if testing.Short() {
		return 10_000
	}
	return 100_000
}

// synthetic text: a Zipf-like vocabulary per language, so posting lists
// have the long head and tail real text has.
type corpusGen struct {
	r    *rand.Rand
	en   []string
	ru   []string
	zh   []rune
	orgs []string
	tags []string
	zipf *rand.Zipf
}

func newCorpusGen(seed uint64) *corpusGen {
	r := rand.New(rand.NewPCG(seed, 7))
	g := &corpusGen{r: r, tags: casebook.TagSlugs()}
	syll := []string{"ka", "ro", "mi", "ten", "sar", "lo", "vin", "de", "qu", "nor", "pel", "tra", "ble", "xo", "fi", "gan"}
	rsyll := []string{"ка", "ро", "ми", "тен", "сар", "ло", "вин", "де", "ну", "пел", "тра", "бле", "жо", "фи", "ган", "ост"}
	for i := 0; i < 4000; i++ {
		var a, b strings.Builder
		for j := 0; j < 2+i%3; j++ {
			k := (i*7 + j*13 + i/16) % len(syll)
			a.WriteString(syll[k])
			b.WriteString(rsyll[k])
		}
		g.en = append(g.en, a.String()+strconv.Itoa(i%10))
		g.ru = append(g.ru, b.String()+"ами")
	}
	for c := rune(0x4e00); c < 0x4e00+2500; c++ {
		g.zh = append(g.zh, c)
	}
	for i := 0; i < 3000; i++ {
		g.orgs = append(g.orgs, fmt.Sprintf("Org %d", i))
	}
	g.zipf = rand.NewZipf(r, 1.1, 4, 2499)
	return g
}

func (g *corpusGen) words(lang string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		k := int(g.zipf.Uint64())
		switch lang {
		case "zh":
			b.WriteRune(g.zh[k])
			b.WriteRune(g.zh[(k*31+i)%len(g.zh)])
			if i%6 == 5 {
				b.WriteString("，")
			}
		case "ru":
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(g.ru[k])
		default:
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(g.en[k])
		}
	}
	return b.String()
}

func pick[T any](r *rand.Rand, from []T, n int) []T {
	out := make([]T, 0, n)
	for len(out) < n {
		v := from[r.IntN(len(from))]
		if !slices.ContainsFunc(out, func(x T) bool { return any(x) == any(v) }) {
			out = append(out, v)
		}
	}
	return out
}

func (g *corpusGen) next(i int) *casebook.Case {
	r := g.r
	lang := "en"
	switch x := r.IntN(100); {
	case x < 25:
		lang = "ru"
	case x < 40:
		lang = "zh"
	}
	c := &casebook.Case{
		Title: g.words(lang, 6), Organization: g.orgs[r.IntN(len(g.orgs))], Language: lang,
		Published: fmt.Sprintf("%d-%02d-%02d", 2010+r.IntN(16), 1+r.IntN(12), 1+r.IntN(28)),
		Summary:   g.words(lang, 30), Symptoms: g.words(lang, 15),
		Tags: pick(r, g.tags, 1+r.IntN(3)), Components: pick(r, casebook.Components, 1+r.IntN(3)),
		RootCause:   casebook.RootCause{Category: casebook.RootCauseCategories[r.IntN(len(casebook.RootCauseCategories))], Description: g.words(lang, 15)},
		Remediation: []string{g.words(lang, 8), g.words(lang, 8)},
		Relevance:   casebook.Relevance{IsPostmortem: true, Score: 0.9},
		Sources:     []casebook.Source{{URL: fmt.Sprintf("https://bench.example/%d", i), Site: "bench", Language: lang, SHA256: fmt.Sprintf("%064x", i)}},
	}
	return c
}

// benchStore returns a store holding n generated cases, built once.
func benchStore(b *testing.B, n int) (*sinks.Store, *corpusGen) {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("casebook-bench-v%d-%d.db", benchGenVersion, n))
	g := newCorpusGen(1)
	if _, err := os.Stat(path); err == nil {
		st, err := sinks.Open(path, sinks.Options{})
		if err == nil && st.Count("all", "") == n {
			return st, g
		}
		if st != nil {
			st.Close()
		}
		os.Remove(path)
	}
	tmp := path + ".building"
	os.Remove(tmp)
	st, err := sinks.Open(tmp, sinks.Options{})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	const batch = 1000
	for i := 0; i < n; i += batch {
		cs := make([]*casebook.Case, 0, batch)
		for j := i; j < min(i+batch, n); j++ {
			cs = append(cs, g.next(j))
		}
		if _, err := st.Import(cs, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("built %d cases in %v (%d MiB)", n, time.Since(start).Round(time.Second), st.Size()>>20)
	st.Close()
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	st, err = sinks.Open(path, sinks.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return st, g
}

type loadResult struct {
	n             int
	p50, p99, max time.Duration
	rps           float64
	errors        int
}

// load sends total GETs from conc keep-alive clients; next gives each path.
func load(base string, conc, total int, next func(i int) string) loadResult {
	tr := &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc, DisableCompression: true}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	lat := make([]time.Duration, total)
	var errs int
	var mu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan int, conc)
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				t0 := time.Now()
				resp, err := hc.Get(base + next(i))
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				lat[i] = time.Since(t0)
				if err != nil || resp.StatusCode != 200 {
					mu.Lock()
					errs++
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < total; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	el := time.Since(start)
	slices.Sort(lat)
	return loadResult{n: total, p50: lat[total/2], p99: lat[total*99/100], max: lat[total-1], rps: float64(total) / el.Seconds(), errors: errs}
}

func serve(b *testing.B, h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Shutdown(context.Background()) })
	return "http://" + ln.Addr().String()
}

func BenchmarkLoopback(b *testing.B) {
	n := benchCases()
	st, g := benchStore(b, n)
	defer st.Close()
	api := serve(b, New(Config{Store: st, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))

	// The baseline: a static file the size of a served case.
	dir := b.TempDir()
	sample, err := http.Get(api + "/api/v1/cases/CB-0042")
	if err != nil {
		b.Fatal(err)
	}
	body, _ := io.ReadAll(sample.Body)
	sample.Body.Close()
	if sample.StatusCode != 200 {
		b.Fatalf("sample case: %d %s", sample.StatusCode, body)
	}
	if err := os.WriteFile(filepath.Join(dir, "case.json"), body, 0o644); err != nil {
		b.Fatal(err)
	}
	static := serve(b, http.FileServer(http.Dir(dir)))

	r := rand.New(rand.NewPCG(2, 3))
	ids := make([]string, 50_000)
	for i := range ids {
		ids[i] = fmt.Sprintf("/api/v1/cases/CB-%04d", 1+r.IntN(n))
	}
	tags := casebook.TagSlugs()
	tagPaths := make([]string, 10_000)
	for i := range tagPaths {
		tagPaths[i] = "/api/v1/cases?tag=" + tags[r.IntN(len(tags))]
	}
	// Queries of one to three words drawn like the text, in all three
	// languages; Chinese queries are unspaced character runs.
	queries := make([]string, 5_000)
	for i := range queries {
		lang := []string{"en", "en", "ru", "zh"}[r.IntN(4)]
		queries[i] = "/api/v1/search?q=" + url.QueryEscape(g.words(lang, 1+r.IntN(3)))
	}
	// The same queries narrowed by a list filter, some ordered by date and
	// some with an excluded word (the paths search gained for issue #13).
	filtered := make([]string, 5_000)
	for i := range filtered {
		lang := []string{"en", "en", "ru", "zh"}[r.IntN(4)]
		words := g.words(lang, 1+r.IntN(3))
		if r.IntN(4) == 0 {
			words += " -" + g.words(lang, 1)
		}
		q := "/api/v1/search?q=" + url.QueryEscape(words)
		switch r.IntN(3) {
		case 0:
			q += "&language=" + []string{"en", "ru", "zh"}[r.IntN(3)]
		case 1:
			q += "&tag=" + tags[r.IntN(len(tags))]
		default:
			q += "&year=" + strconv.Itoa(2015+r.IntN(10))
		}
		if r.IntN(2) == 0 {
			q += "&sort=newest"
		}
		filtered[i] = q
	}
	const conc = 4
	cases := []struct {
		name  string
		base  string
		total int
		path  func(i int) string
	}{
		{"fileserver", static, 20_000, func(int) string { return "/case.json" }},
		{"get", api, 20_000, func(i int) string { return ids[i%len(ids)] }},
		{"list-tag", api, 5_000, func(i int) string { return tagPaths[i%len(tagPaths)] }},
		{"search", api, 5_000, func(i int) string { return queries[i%len(queries)] }},
		{"search-filt", api, 5_000, func(i int) string { return filtered[i%len(filtered)] }},
	}
	var base loadResult
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			load(c.base, conc, 500, c.path) // warm the caches and connections
			res := load(c.base, conc, c.total, c.path)
			if res.errors > 0 {
				b.Fatalf("%s: %d of %d requests failed", c.name, res.errors, res.n)
			}
			b.ReportMetric(float64(res.p50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(res.p99.Microseconds())/1000, "p99-ms")
			b.ReportMetric(res.rps, "req/s")
			b.ReportMetric(0, "ns/op")
			if c.name == "fileserver" {
				base = res
			}
			fmt.Printf("loopback %-10s cases=%d conc=%d n=%d p50=%v p99=%v max=%v rps=%.0f (p50 %.1fx, p99 %.1fx, rps %.2fx of fileserver)\n",
				c.name, n, conc, res.n, res.p50.Round(time.Microsecond), res.p99.Round(time.Microsecond), res.max.Round(time.Microsecond), res.rps,
				float64(res.p50)/float64(base.p50), float64(res.p99)/float64(base.p99), res.rps/base.rps)
		})
	}
}
