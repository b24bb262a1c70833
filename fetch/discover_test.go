package fetch

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/discover")

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "discover", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// golden compares v, as indented JSON, with testdata/discover/<name>.golden.json.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "discover", name+".golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden:\n%s", name, got)
	}
}

func urls(items []Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.URL)
	}
	return out
}

func TestParseFeeds(t *testing.T) {
	tests := []struct {
		file, base string
		ttl        time.Duration
		urls       []string
	}{
		{"rss.xml", "https://ops.example.com/feed.xml", 90 * time.Minute, []string{
			"https://ops.example.com/posts/queue-backlog?utm_source=rss&utm_medium=feed",
			"https://ops.example.com/posts/cert-expiry",
			"https://ops.example.com/posts/cache-avalanche",
		}},
		{"rdf-sy.xml", "https://sre.example.org/index.rdf", 30 * time.Minute, []string{
			"https://sre.example.org/2026/dns-outage",
		}},
		{"atom.xml", "https://blog.example.net/atom.xml", 0, []string{
			"https://blog.example.net/incidents/db-failover",
			"https://blog.example.net/incidents/packet-loss",
		}},
		{"feed.json", "https://status.example.io/feed.json", 0, []string{
			"https://status.example.io/stories/login-errors",
			"https://status.example.io/stories/slow-builds",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := ParseFeed(fixture(t, tt.file), tt.base)
			if err != nil {
				t.Fatal(err)
			}
			if f.TTL != tt.ttl {
				t.Errorf("TTL %s, want %s", f.TTL, tt.ttl)
			}
			if got := urls(f.Items); strings.Join(got, "\n") != strings.Join(tt.urls, "\n") {
				t.Errorf("urls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.urls, "\n"))
			}
			golden(t, "feed-"+strings.TrimSuffix(tt.file, filepath.Ext(tt.file)), f)
		})
	}
	f, _ := ParseFeed(fixture(t, "rss.xml"), "https://ops.example.com/feed.xml")
	if f.Items[1].Title != "Разбор: истёк сертификат внутреннего API" {
		t.Errorf("title not cleaned: %q", f.Items[1].Title)
	}
	if want := time.Date(2026, 11, 2, 15, 0, 0, 0, time.UTC); !f.Items[1].Published.Equal(want) {
		t.Errorf("published %s, want %s", f.Items[1].Published, want)
	}
	if _, err := ParseFeed([]byte("<html><body>not a feed</body></html>"), ""); err == nil {
		t.Error("HTML parsed as a feed")
	}
}

func TestParseFeedLegacyCharset(t *testing.T) {
	// A windows-1251 RSS feed as it arrives raw, and after Fetch decoded it
	// (declaration rewritten to UTF-8): both read the same.
	src := `<?xml version="1.0" encoding="windows-1251"?><rss version="2.0"><channel><title>Сбои</title>` +
		`<item><title>Отказ диска в хранилище</title><link>https://ru.example.com/disk</link></item></channel></rss>`
	raw, err := charmap.Windows1251.NewEncoder().Bytes([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	decoded, cs := Decode(raw, "application/rss+xml")
	if cs != "windows-1251" {
		t.Fatalf("charset %s", cs)
	}
	for name, body := range map[string][]byte{"raw": raw, "decoded": rewriteXMLEncoding(decoded), "decoded, old declaration": decoded} {
		f, err := ParseFeed(body, "https://ru.example.com/rss")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if f.Title != "Сбои" || len(f.Items) != 1 || f.Items[0].Title != "Отказ диска в хранилище" {
			t.Errorf("%s: %+v", name, f)
		}
	}
}

func TestParseSitemaps(t *testing.T) {
	sm, err := ParseSitemap(fixture(t, "sitemap.xml"), "https://eng.example.com/sitemap.xml")
	if err != nil {
		t.Fatal(err)
	}
	if len(sm.Items) != 2 || len(sm.Sitemaps) != 0 {
		t.Fatalf("items %q", urls(sm.Items))
	}
	if sm.Items[1].Title != "Network partition between two zones" {
		t.Errorf("news title %q", sm.Items[1].Title)
	}
	if want := time.Date(2026, 9, 30, 19, 15, 0, 0, time.UTC); !sm.Items[1].Updated.Equal(want) {
		t.Errorf("lastmod %s", sm.Items[1].Updated)
	}
	golden(t, "sitemap", sm)

	idx, err := ParseSitemap(fixture(t, "sitemap-index.xml"), "https://eng.example.com/sitemap.xml")
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Sitemaps) != 2 || len(idx.Items) != 0 {
		t.Fatalf("index: %+v", idx)
	}
	golden(t, "sitemap-index", idx)

	// gzip-compressed: same result as the plain file.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(fixture(t, "sitemap.xml"))
	zw.Close()
	gz, err := ParseSitemap(buf.Bytes(), "https://eng.example.com/sitemap.xml.gz")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(urls(gz.Items), " ") != strings.Join(urls(sm.Items), " ") {
		t.Errorf("gzip sitemap: %q", urls(gz.Items))
	}

	txt, err := ParseSitemap(fixture(t, "sitemap.txt"), "https://docs.example.com/sitemap.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := urls(txt.Items); len(got) != 2 || got[1] != "https://docs.example.com/incidents/two" {
		t.Errorf("text sitemap: %q", got)
	}

	// A feed is a valid sitemap.
	fs, err := ParseSitemap(fixture(t, "atom.xml"), "https://blog.example.net/atom.xml")
	if err != nil || len(fs.Items) != 2 {
		t.Errorf("feed as sitemap: %v %+v", err, fs)
	}
	if _, err := ParseSitemap([]byte("<html><body/></html>"), ""); err == nil {
		t.Error("HTML parsed as a sitemap")
	}
	// A gzip bomb stops at MaxSitemapBytes.
	var bomb bytes.Buffer
	zw = gzip.NewWriter(&bomb)
	zw.Write([]byte("<urlset>"))
	zero := make([]byte, 1<<20)
	for range (MaxSitemapBytes >> 20) + 2 {
		zw.Write(zero)
	}
	zw.Close()
	if _, err := ParseSitemap(bomb.Bytes(), ""); err == nil {
		t.Error("sitemap bomb accepted")
	}
}

func TestParseListing(t *testing.T) {
	page := fixture(t, "listing.html")
	base := "https://example-cloud.example/blog/"
	tests := []struct {
		name, spec string
		want       []string
	}{
		{"css selector", "a.post-link", []string{
			"https://example-cloud.example/blog/2026/11/api-latency",
			"https://example-cloud.example/blog/2026/10/object-storage?ref_src=list",
			"https://example-cloud.example/blog/2026/09/dns",
		}},
		{"css container", "css:li.post h2", []string{
			"https://example-cloud.example/blog/2026/11/api-latency",
			"https://example-cloud.example/blog/2026/10/object-storage?ref_src=list",
			"https://example-cloud.example/blog/2026/09/dns",
		}},
		{"url pattern", `/blog/\d{4}/\d{2}/`, []string{
			"https://example-cloud.example/blog/2026/11/api-latency",
			"https://example-cloud.example/blog/2026/10/object-storage?ref_src=list",
			"https://example-cloud.example/blog/2026/09/dns",
		}},
		{"explicit regexp", `re:page/\d+$`, []string{"https://example-cloud.example/blog/page/2"}},
		{"empty: same-host links", "", []string{
			"https://example-cloud.example/",
			"https://example-cloud.example/pricing",
			"https://example-cloud.example/blog/2026/11/api-latency",
			"https://example-cloud.example/blog/2026/10/object-storage?ref_src=list",
			"https://example-cloud.example/blog/2026/09/dns",
			"https://example-cloud.example/blog/page/2",
			"https://example-cloud.example/privacy",
		}},
	}
	for _, tt := range tests {
		items, err := ParseListing(page, base, tt.spec)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := urls(items); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
	items, _ := ParseListing(page, base, "a.post-link")
	if items[0].Title != "Elevated API latency in us-east" || !items[0].Published.Equal(time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("first item %+v", items[0])
	}
	if items[2].Title != "DNS resolution failures" || !items[2].Published.IsZero() {
		t.Errorf("image link %+v", items[2])
	}
	golden(t, "listing", items)
	if _, err := ParseListing(page, base, "re:("); err == nil {
		t.Error("bad pattern accepted")
	}
	if _, err := ParseListing(page, "not a url", ""); err == nil {
		t.Error("bad base accepted")
	}
}

func TestURLFilter(t *testing.T) {
	f, err := NewURLFilter([]string{`/postmortems?/`, `/incidents/`}, []string{`\?page=`, `/drafts/`})
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]bool{
		"https://e.com/postmortem/a":        true,
		"https://e.com/incidents/b":         true,
		"https://e.com/incidents/b?page=2":  false,
		"https://e.com/postmortems/drafts/": false,
		"https://e.com/about":               false,
	}
	for u, want := range tests {
		if f.Match(u) != want {
			t.Errorf("Match(%q) = %v", u, !want)
		}
	}
	all, _ := NewURLFilter(nil, nil)
	if !all.Match("https://e.com/anything") {
		t.Error("empty filter rejects")
	}
	if len(f.Filter([]Item{{URL: "https://e.com/incidents/x"}, {URL: "https://e.com/x"}})) != 1 {
		t.Error("Filter")
	}
	if _, err := NewURLFilter([]string{"("}, nil); err == nil {
		t.Error("bad include accepted")
	}
}

func FuzzParseSitemap(f *testing.F) {
	f.Add([]byte(`<urlset><url><loc>https://a.example/x</loc><lastmod>2026-01-02</lastmod></url></urlset>`))
	f.Add([]byte(`<sitemapindex><sitemap><loc>/s.xml</loc></sitemap></sitemapindex>`))
	f.Add([]byte("https://a.example/1\nhttps://a.example/2\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		sm, err := ParseSitemap(body, "https://a.example/sitemap.xml")
		if err != nil {
			return
		}
		for _, it := range append(sm.Items, sm.Sitemaps...) {
			if !isAbsHTTP(it.URL) || strings.Contains(it.URL, "#") {
				t.Fatalf("bad item URL %q", it.URL)
			}
		}
	})
}

func checkItems(t *testing.T, items []Item) {
	t.Helper()
	seen := map[string]bool{}
	for _, it := range items {
		if !isAbsHTTP(it.URL) || strings.Contains(it.URL, "#") {
			t.Fatalf("bad item URL %q", it.URL)
		}
		c, err := CanonicalURL(it.URL)
		if err != nil || seen[c] {
			t.Fatalf("item %q: canonical %q err %v duplicate %v", it.URL, c, err, seen[c])
		}
		seen[c] = true
	}
}

func FuzzParseFeed(f *testing.F) {
	f.Add([]byte(`<rss version="2.0"><channel><ttl>5</ttl><item><link>/a</link></item></channel></rss>`))
	f.Add([]byte(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="b#c"/></entry></feed>`))
	f.Add([]byte(`{"version":"https://jsonfeed.org/version/1.1","items":[{"url":"c"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		feed, err := ParseFeed(body, "https://a.example/feed")
		if err != nil {
			return
		}
		if feed.TTL < 0 || feed.TTL > maxFeedTTL {
			t.Fatalf("TTL %s", feed.TTL)
		}
		checkItems(t, feed.Items)
	})
}

func FuzzParseListing(f *testing.F) {
	f.Add([]byte(`<ul><li><a href="/p/1">One</a><time datetime="2026-01-01">x</time></li></ul>`), "li a")
	f.Add([]byte(`<base href="/x/"><a href="y#z">y</a><a href="mailto:q">m</a>`), "")
	f.Add([]byte(`<a href="https://a.example/2026/01/post">p</a>`), `/\d{4}/`)
	f.Fuzz(func(t *testing.T, page []byte, spec string) {
		items, err := ParseListing(page, "https://a.example/blog/", spec)
		if err != nil {
			return
		}
		checkItems(t, items)
	})
}
