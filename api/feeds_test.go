package api

import (
	"encoding/csv"
	"encoding/xml"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/casebook/casebook"
	"github.com/mmcdole/gofeed"
)

const testPublicURL = "https://cases.example.org/casebook"

// getWithHost sends a GET whose Host header claims another site.
func getWithHost(t *testing.T, u, host string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

func TestAtomFeed(t *testing.T) {
	f := newFixture(t, Config{PublicURL: testPublicURL + "/"})
	f.seedCases()
	// A hostile Host header must not reach the links (issue #12): a cache
	// in front would serve them to everyone.
	resp, body := getWithHost(t, f.srv.URL+"/api/v1/feed.atom", "evil.example")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/atom+xml") {
		t.Fatalf("feed: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if strings.Contains(body, "evil.example") || strings.Contains(body, "127.0.0.1") {
		t.Errorf("feed carries the request's host:\n%s", body)
	}
	feed, err := gofeed.NewParser().ParseString(body)
	if err != nil || feed.FeedType != "atom" || len(feed.Items) != 3 {
		t.Fatalf("gofeed: %v %+v", err, feed)
	}
	if feed.FeedLink != testPublicURL+"/api/v1/feed.atom" {
		t.Errorf("self link %q", feed.FeedLink)
	}
	byLang := map[string]*gofeed.Item{}
	for _, it := range feed.Items {
		if !strings.HasPrefix(it.Link, testPublicURL+"/cases/CB-") || it.PublishedParsed == nil || it.UpdatedParsed == nil {
			t.Errorf("entry %q: link %q published %v updated %v", it.Title, it.Link, it.Published, it.Updated)
		}
		if !strings.Contains(it.Content, "Root cause (") || !strings.HasPrefix(it.Content, it.Description) {
			t.Errorf("entry %q: content %q, want the summary then the root cause", it.Title, it.Content)
		}
		if len(it.Authors) != 1 || it.Authors[0].Name == "casebook" {
			t.Errorf("entry %q: authors %+v, want the organization", it.Title, it.Authors)
		}
		byLang[it.Categories[0]+"/"+it.Title] = it
	}
	// xml:lang on each entry (gofeed does not expose it).
	var raw struct {
		Entries []struct {
			Lang string `xml:"http://www.w3.org/XML/1998/namespace lang,attr"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal([]byte(body), &raw); err != nil {
		t.Fatal(err)
	}
	var langs []string
	for _, e := range raw.Entries {
		langs = append(langs, e.Lang)
	}
	if strings.Join(langs, ",") != "zh,ru,en" {
		t.Errorf("entry languages %v, want zh,ru,en (newest first)", langs)
	}

	tests := []struct {
		query string
		want  int
		code  int
	}{
		{"?language=ru", 1, 200},
		{"?tag=k8s", 2, 200}, // through the alias
		{"?tag=kubernetes&language=en", 1, 200},
		{"?language=xx", 0, 400},
		{"?cursor=1", 0, 400},
	}
	for _, tc := range tests {
		resp, body := do(t, "GET", f.srv.URL+"/api/v1/feed.atom"+tc.query, "", nil)
		if resp.StatusCode != tc.code {
			t.Errorf("%s: %d, want %d", tc.query, resp.StatusCode, tc.code)
			continue
		}
		if tc.code != 200 {
			continue
		}
		feed, err := gofeed.NewParser().ParseString(body)
		if err != nil || len(feed.Items) != tc.want {
			t.Errorf("%s: %v, %d entries, want %d", tc.query, err, len(feed.Items), tc.want)
			continue
		}
		if !strings.Contains(feed.FeedLink, "?") || feed.Title == "casebook: newly published incident cases" {
			t.Errorf("%s: self %q title %q, want the filter in both", tc.query, feed.FeedLink, feed.Title)
		}
	}
}

func TestFeedConditionalGet(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedCases()
	for _, path := range []string{"/api/v1/feed.atom", "/api/v1/feed.json", "/api/v1/feed.atom?language=en"} {
		resp, _ := do(t, "GET", f.srv.URL+path, "", nil)
		etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
		if resp.StatusCode != 200 || etag == "" || lm == "" {
			t.Fatalf("%s: %d etag %q last-modified %q", path, resp.StatusCode, etag, lm)
		}
		if resp, body := do(t, "GET", f.srv.URL+path, "", nil, "If-None-Match", etag); resp.StatusCode != 304 || body != "" {
			t.Errorf("%s If-None-Match: %d %q, want 304", path, resp.StatusCode, body)
		}
		if resp, _ := do(t, "GET", f.srv.URL+path, "", nil, "If-Modified-Since", lm); resp.StatusCode != 304 {
			t.Errorf("%s If-Modified-Since: %d, want 304", path, resp.StatusCode)
		}
		if resp, _ := do(t, "GET", f.srv.URL+path, "", nil, "If-None-Match", `"stale"`); resp.StatusCode != 200 {
			t.Errorf("%s stale ETag: %d, want 200", path, resp.StatusCode)
		}
	}
	// A newly published case changes the feed: the old ETag no longer matches.
	resp, _ := do(t, "GET", f.srv.URL+"/api/v1/feed.atom", "", nil)
	etag := resp.Header.Get("ETag")
	if _, err := f.store.Import([]*casebook.Case{pub("Cache stampede after deploy", "Acme", "en", "capacity", 2024, nil, nil, "A cold cache overloaded the database.")}, "seed"); err != nil {
		t.Fatal(err)
	}
	if resp, _ := do(t, "GET", f.srv.URL+"/api/v1/feed.atom", "", nil, "If-None-Match", etag); resp.StatusCode != 200 {
		t.Errorf("after a new case: %d, want 200", resp.StatusCode)
	}
}

func TestJSONFeed(t *testing.T) {
	f := newFixture(t, Config{PublicURL: testPublicURL})
	f.seedCases()
	resp, body := getWithHost(t, f.srv.URL+"/api/v1/feed.json?language=zh", "evil.example")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/feed+json") {
		t.Fatalf("json feed: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if strings.Contains(body, "evil.example") || !strings.Contains(body, `"version": "https://jsonfeed.org/version/1.1"`) {
		t.Errorf("json feed:\n%s", body)
	}
	feed, err := gofeed.NewParser().ParseString(body)
	if err != nil || feed.FeedType != "json" || len(feed.Items) != 1 {
		t.Fatalf("gofeed: %v %+v", err, feed)
	}
	it := feed.Items[0]
	if it.Link != testPublicURL+"/cases/"+strings.TrimPrefix(it.GUID, testPublicURL+"/cases/") || it.PublishedParsed == nil || len(it.Authors) != 1 || it.Authors[0].Name != "美团" {
		t.Errorf("item %+v", it)
	}
	if !strings.Contains(it.Content, "Root cause (network)") {
		t.Errorf("content %q", it.Content)
	}
}

func TestCSVExport(t *testing.T) {
	f := newFixture(t, Config{PublicURL: testPublicURL})
	f.seedCases()
	tricky := pub("Quotes \"and\", commas", "Acme, Inc.", "en", "capacity", 2024, []string{"database", "storage"}, []string{"postgresql"}, "Line one,\r\nline \"two\".")
	if _, err := f.store.Import([]*casebook.Case{tricky}, "seed"); err != nil {
		t.Fatal(err)
	}
	resp, body := getWithHost(t, f.srv.URL+"/api/v1/export.csv", "evil.example")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("csv: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if !strings.HasPrefix(body, strings.Join(CSVColumns, ",")+"\r\n") || strings.Contains(body, "evil.example") {
		t.Fatalf("csv header or host:\n%.300s", body)
	}
	r := csv.NewReader(strings.NewReader(body))
	rows, err := r.ReadAll()
	if err != nil || len(rows) != 5 {
		t.Fatalf("csv: %v, %d rows, want header + 4", err, len(rows))
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	first := rows[1] // newest first
	if first[col["title"]] != tricky.Title || first[col["organization"]] != "Acme, Inc." || first[col["summary"]] != "Line one,\nline \"two\"." ||
		first[col["components"]] != "database; storage" || !strings.HasPrefix(first[col["url"]], testPublicURL+"/cases/CB-") ||
		first[col["source_url"]] != tricky.Sources[0].URL {
		t.Errorf("row %q", first)
	}
	if resp, _ := do(t, "GET", f.srv.URL+"/api/v1/export.csv?language=en", "", nil); resp.StatusCode != 400 {
		t.Errorf("unknown parameter: %d, want 400", resp.StatusCode)
	}
}

func TestPublicURL(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"127.0.0.1:8080", "http://127.0.0.1:8080"},
		{":8080", "http://localhost:8080"},
		{"0.0.0.0:80", "http://localhost:80"},
		{"[::]:8080", "http://localhost:8080"},
		{"[::1]:8080", "http://[::1]:8080"},
	} {
		if got := DefaultPublicURL(tc.addr); got != tc.want {
			t.Errorf("DefaultPublicURL(%q) = %q, want %q", tc.addr, got, tc.want)
		}
	}
	for _, tc := range []struct{ raw, want string }{
		{"https://cases.example.org/", "https://cases.example.org"},
		{"http://127.0.0.1:8080/casebook/", "http://127.0.0.1:8080/casebook"},
		{"cases.example.org", ""},
		{"ftp://cases.example.org", ""},
		{"https://cases.example.org/?x=1", ""},
		{"https://user:pw@cases.example.org", ""},
	} {
		got, err := ParsePublicURL(tc.raw)
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("ParsePublicURL(%q) = %q, %v; want %q", tc.raw, got, err, tc.want)
		}
	}
}
