package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const agent = "casebook/0.1 (+https://github.com/casebook/casebook)"

func TestRobotsMatching(t *testing.T) {
	robots := `# comment line
User-agent: *
Disallow: /private
Allow: /private/public-note
Disallow: /*.pdf$
Disallow: /tmp/
Allow: /tmp/ok$
Disallow: /search?*q=
Disallow:

User-agent: OtherBot
Disallow: /

user-agent: CASEBOOK
user-agent: friend
disallow: /drafts/
allow: /drafts/published
crawl-delay: 2.5

Sitemap: https://example.com/sitemap.xml
`
	r := ParseRobots([]byte(robots))
	tests := []struct {
		agent, path string
		allowed     bool
	}{
		// casebook has its own group: only its rules apply.
		{agent, "/private/x", true},
		{agent, "/drafts/x", false},
		{agent, "/drafts/published-2024", true},
		{agent, "/robots.txt", true},
		{"Casebook/2.0", "/drafts/a", false},
		{"friend", "/drafts/a", false},
		// others fall back to *.
		{"SomeBot/1.0", "/private", false},
		{"SomeBot/1.0", "/private/public-note", true},
		{"SomeBot/1.0", "/private/public-notes", true}, // longest match wins
		{"SomeBot/1.0", "/privately", false},
		{"SomeBot/1.0", "/doc/report.pdf", false},
		{"SomeBot/1.0", "/doc/report.pdf?x=1", true}, // $ anchors the end
		{"SomeBot/1.0", "/tmp/ok", true},
		{"SomeBot/1.0", "/tmp/ok2", false},
		{"SomeBot/1.0", "/search?lang=en&q=outage", false},
		{"SomeBot/1.0", "/search", true},
		{"SomeBot/1.0", "/", true},
		{"otherbot", "/anything", false},
		{"otherbot", "/robots.txt", true},
		{"SomeBot/1.0", "https://example.com/private/x?y", false},
	}
	for _, tt := range tests {
		if got := r.Allowed(tt.agent, tt.path); got != tt.allowed {
			t.Errorf("Allowed(%q, %q) = %v, want %v", tt.agent, tt.path, got, tt.allowed)
		}
	}
	if d := r.CrawlDelay(agent); d != 2500*time.Millisecond {
		t.Errorf("crawl delay %s", d)
	}
	if d := r.CrawlDelay("SomeBot"); d != 0 {
		t.Errorf("crawl delay for * %s", d)
	}
	if len(r.Sitemaps) != 1 || r.Sitemaps[0] != "https://example.com/sitemap.xml" {
		t.Errorf("sitemaps %q", r.Sitemaps)
	}
}

func TestRobotsRFCCases(t *testing.T) {
	tests := []struct {
		name, robots, path string
		allowed            bool
	}{
		{"allow wins a tie", "User-agent: *\nAllow: /page\nDisallow: /page\n", "/page", true},
		{"longer disallow wins", "User-agent: *\nAllow: /p\nDisallow: /page\n", "/page", false},
		{"longer allow wins", "User-agent: *\nDisallow: /\nAllow: /ok/\n", "/ok/x", true},
		{"empty file", "", "/x", true},
		{"rules before any group are ignored", "Disallow: /\nUser-agent: *\nAllow: /\n", "/x", true},
		{"no matching group allows", "User-agent: other\nDisallow: /\n", "/x", true},
		{"groups for the same agent merge", "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n", "/b", false},
		{"percent-encoded unreserved", "User-agent: *\nDisallow: /%7Ejoe/\n", "/~joe/index.html", false},
		{"non-ASCII pattern", "User-agent: *\nDisallow: /故障\n", "/%E6%95%85%E9%9A%9C/1", false},
		{"lower-case escape in path", "User-agent: *\nDisallow: /a%3Cb\n", "/a%3cb", false},
		{"star in the middle", "User-agent: *\nDisallow: /*/edit\n", "/posts/42/edit", false},
		{"$ mid-pattern is literal", "User-agent: *\nDisallow: /a$b\n", "/a$b", false},
		{"CRLF and comments", "User-agent: * # all\r\nDisallow: /x # no\r\n", "/x/y", false},
		{"BOM", "\xef\xbb\xbfUser-agent: *\nDisallow: /\n", "/x", false},
		{"key case", "USER-AGENT: *\nDISALLOW: /x\n", "/x", false},
		{"pattern without slash", "User-agent: *\nDisallow: x\n", "/x", false},
	}
	for _, tt := range tests {
		if got := ParseRobots([]byte(tt.robots)).Allowed(agent, tt.path); got != tt.allowed {
			t.Errorf("%s: Allowed(%q) = %v, want %v", tt.name, tt.path, got, tt.allowed)
		}
	}
}

func TestRobotsSizeLimit(t *testing.T) {
	// A disallow past the first 500 KiB is not read.
	body := "User-agent: *\nDisallow: /early\n" + strings.Repeat("# padding\n", RobotsMaxBytes/10) + "Disallow: /late\n"
	r := ParseRobots([]byte(body))
	if r.Allowed(agent, "/early") || !r.Allowed(agent, "/late") {
		t.Error("size limit not applied")
	}
}

func TestRobotsCrawlDelayBounds(t *testing.T) {
	r := ParseRobots([]byte("User-agent: *\nCrawl-delay: 1e9\n"))
	if d := r.CrawlDelay(agent); d != maxCrawlDelay {
		t.Errorf("huge delay → %s", d)
	}
	r = ParseRobots([]byte("User-agent: *\nCrawl-delay: soon\nCrawl-delay: 3\n"))
	if d := r.CrawlDelay(agent); d != 3*time.Second {
		t.Errorf("delay after a bad value → %s", d)
	}
}

// robotsServer serves robots.txt with a given status and body and counts
// fetches of it.
func robotsServer(t *testing.T, status *atomic.Int32, body string) (string, *atomic.Int32) {
	hits := &atomic.Int32{}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(int(status.Load()))
		fmt.Fprint(w, body)
	})
	return srv.URL, hits
}

func TestRobotsChecker(t *testing.T) {
	status := &atomic.Int32{}
	status.Store(200)
	base, hits := robotsServer(t, status, "User-agent: *\nDisallow: /private/\nCrawl-delay: 4\n")
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	r := NewRobots(localFetcher(t, nil), NewMemoryRobotsCache(), agent)
	r.Now = func() time.Time { return now }
	ctx := context.Background()

	d, err := r.Check(ctx, base+"/private/page")
	if err != nil {
		t.Fatal(err)
	}
	if d.Allowed || d.CrawlDelay != 4*time.Second {
		t.Errorf("private: %+v", d)
	}
	d, _ = r.Check(ctx, base+"/posts/1")
	if !d.Allowed || d.CrawlDelay != 4*time.Second {
		t.Errorf("public: %+v", d)
	}
	if hits.Load() != 1 {
		t.Errorf("robots.txt fetched %d times, want 1 (cached)", hits.Load())
	}
	if rules := r.Rules(ctx, base+"/x"); rules == nil {
		t.Error("Rules: nil")
	}
	// After 24 h the cache entry is stale and robots.txt is fetched again.
	now = now.Add(24*time.Hour + time.Second)
	r.Check(ctx, base+"/posts/1")
	if hits.Load() != 2 {
		t.Errorf("after 24h: %d fetches, want 2", hits.Load())
	}
	if _, err := r.Check(ctx, "ftp://example.com/"); err == nil {
		t.Error("bad URL accepted")
	}
}

func TestRobotsStatusRules(t *testing.T) {
	tests := []struct {
		status  int
		allowed bool
	}{
		{404, true},
		{410, true},
		{401, true},
		{403, true},
		{429, false},
		{500, false},
		{503, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			status := &atomic.Int32{}
			status.Store(int32(tt.status))
			base, hits := robotsServer(t, status, "User-agent: *\nAllow: /\n")
			now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
			r := NewRobots(localFetcher(t, nil), nil, agent)
			r.Now = func() time.Time { return now }
			d, err := r.Check(context.Background(), base+"/post")
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed != tt.allowed || d.Reason == "" {
				t.Errorf("HTTP %d: %+v", tt.status, d)
			}
			if !tt.allowed {
				// A failure disallows only for a while, then robots.txt is retried.
				status.Store(200)
				r.Check(context.Background(), base+"/post")
				if hits.Load() != 1 {
					t.Errorf("retried before FailureTTL")
				}
				now = now.Add(r.FailureTTL + time.Second)
				if d, _ := r.Check(context.Background(), base+"/post"); !d.Allowed || hits.Load() != 2 {
					t.Errorf("after FailureTTL: %+v, %d fetches", d, hits.Load())
				}
			}
		})
	}
}

func TestRobotsNetworkErrorDisallows(t *testing.T) {
	f, err := New(Config{}) // the guard refuses loopback: robots.txt is unreachable
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {})
	d, _ := NewRobots(f, nil, agent).Check(context.Background(), srv.URL+"/post")
	if d.Allowed || !strings.Contains(d.Reason, "unreachable") {
		t.Errorf("%+v", d)
	}
}

type failingCache struct{}

func (failingCache) GetRobots(context.Context, string) (*RobotsEntry, error) {
	return nil, errors.New("bucket down")
}
func (failingCache) PutRobots(context.Context, string, *RobotsEntry) error {
	return errors.New("bucket down")
}

func TestRobotsCacheFailureStillDecides(t *testing.T) {
	status := &atomic.Int32{}
	status.Store(200)
	base, _ := robotsServer(t, status, "User-agent: *\nDisallow: /x\n")
	r := NewRobots(localFetcher(t, nil), failingCache{}, agent)
	var cacheErrs int
	r.OnCacheError = func(error) { cacheErrs++ }
	d, err := r.Check(context.Background(), base+"/x")
	if err != nil || d.Allowed {
		t.Errorf("%+v %v", d, err)
	}
	if cacheErrs != 2 {
		t.Errorf("cache errors reported: %d", cacheErrs)
	}
}

func FuzzParseRobots(f *testing.F) {
	f.Add([]byte("User-agent: *\nDisallow: /a*b$\nAllow: /a\nCrawl-delay: 1\n"), "/a/x")
	f.Add([]byte("user-agent: casebook\ndisallow: /%E6%95%85\n"), "/故障")
	f.Add([]byte("User-agent:*\nDisallow:*\n"), "")
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		r := ParseRobots(body)
		_ = r.Allowed(agent, path)
		_ = r.CrawlDelay(agent)
		if !r.Allowed(agent, "/robots.txt") {
			t.Fatal("/robots.txt disallowed")
		}
		// A literal pattern matches itself, anchored or not, and any
		// extension of itself unless anchored.
		if !strings.ContainsAny(path, "*$") {
			p := normalizeRobotsPath(path)
			if !robotsMatch(p, p) || !robotsMatch(p+"$", p) || !robotsMatch(p, p+"x") || robotsMatch(p+"$", p+"x") {
				t.Fatalf("literal pattern %q mismatches", p)
			}
		}
	})
}

func TestOriginOf(t *testing.T) {
	for in, want := range map[string]string{
		"https://Example.com:443/x?y": "https://example.com",
		"http://example.com:80/":      "http://example.com",
		"http://example.com:8080/a":   "http://example.com:8080",
		"http://[::1]:8080/":          "http://[::1]:8080",
	} {
		u, _ := url.Parse(in)
		if got := originOf(u); got != want {
			t.Errorf("originOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRobotsShorterHTTPFreshness(t *testing.T) {
	for _, tt := range []struct {
		cacheControl string
		refetchAfter time.Duration
	}{
		{"max-age=3600", time.Hour},
		{"no-cache", time.Minute}, // floor: not a refetch per URL
	} {
		var hits atomic.Int32
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Cache-Control", tt.cacheControl)
			fmt.Fprint(w, "User-agent: *\nDisallow: /x\n")
		})
		now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
		f := localFetcher(t, func(c *Config) { c.Now = func() time.Time { return now } })
		r := NewRobots(f, nil, agent)
		r.Now = func() time.Time { return now }
		r.Check(context.Background(), srv.URL+"/a")
		now = now.Add(tt.refetchAfter - time.Second)
		r.Check(context.Background(), srv.URL+"/a")
		if hits.Load() != 1 {
			t.Errorf("%s: refetched early", tt.cacheControl)
		}
		now = now.Add(2 * time.Second)
		r.Check(context.Background(), srv.URL+"/a")
		if hits.Load() != 2 {
			t.Errorf("%s: not refetched after %s", tt.cacheControl, tt.refetchAfter)
		}
	}
}
