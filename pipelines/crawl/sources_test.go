package crawl

import (
	"strings"
	"testing"
	"time"
)

func TestDefaultSources(t *testing.T) {
	srcs := DefaultSources()
	if len(srcs) < 30 {
		t.Fatalf("%d built-in sources, want at least 30", len(srcs))
	}
	perLang := map[string]int{}
	for _, s := range srcs {
		perLang[s.Language]++
		if s.Interval < MinInterval {
			t.Errorf("%s: interval %s", s.Name, s.Interval)
		}
	}
	for _, l := range []string{"en", "ru", "zh"} {
		if perLang[l] < 5 {
			t.Errorf("%d %s sources, want at least 5", perLang[l], l)
		}
	}
}

func TestParseSources(t *testing.T) {
	good := `
sources:
  - name: blog
    kind: feed
    url: https://example.com/feed.xml
  - name: list
    kind: page
    url: https://example.com/incidents/
    interval: 90m
    organization: Example
    language: ru
    include: ['/incidents/\d+']
    exclude: '\?page='
    link: 'css:article h2 a'
`
	srcs, err := ParseSources([]byte(good), "good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 2 || srcs[0].Interval != DefaultInterval || srcs[1].Interval != 90*time.Minute ||
		len(srcs[1].Exclude) != 1 || srcs[1].Link != "css:article h2 a" {
		t.Fatalf("parsed %+v", srcs)
	}
	if !srcs[1].Match("https://example.com/incidents/12") || srcs[1].Match("https://example.com/incidents/12?page=2") ||
		srcs[1].Match("https://example.com/about") {
		t.Error("include/exclude not applied")
	}

	bad := []struct {
		name, yaml string
		want       []string // every fragment must appear
	}{
		{"not yaml", "sources: [", []string{"bad.yaml"}},
		{"no list", "feeds: []\n", []string{`bad.yaml:1: unknown top-level key "feeds"`, "no \"sources:\" list"}},
		{"unknown kind and field", "sources:\n  - name: a\n    kind: atom\n    url: https://x.org/\n    colour: red\n",
			[]string{`bad.yaml:5: sources[0]: unknown field "colour"`, `bad.yaml:2: sources[0]: kind "atom"`}},
		{"bad url and interval", "sources:\n  - name: a\n    kind: feed\n    url: ftp://x.org/\n    interval: 10s\n",
			[]string{"bad.yaml:5: sources[0]: interval 10s is below", "url \"ftp://x.org/\""}},
		{"duplicate names", "sources:\n  - {name: a, kind: feed, url: 'https://x.org/'}\n  - {name: a, kind: feed, url: 'https://y.org/'}\n",
			[]string{`bad.yaml:3: sources[1]: name "a" already used by sources[0]`}},
		{"bad regexp", "sources:\n  - {name: a, kind: feed, url: 'https://x.org/', include: ['(']}\n", []string{"bad.yaml:2", "include"}},
		{"link on a feed", "sources:\n  - {name: a, kind: feed, url: 'https://x.org/', link: 'a'}\n", []string{"link applies to kind page only"}},
		{"bad name", "sources:\n  - {name: 'My Blog', kind: feed, url: 'https://x.org/'}\n", []string{`name "My Blog"`}},
		{"bad language", "sources:\n  - {name: a, kind: feed, url: 'https://x.org/', language: de}\n", []string{`language "de"`}},
	}
	for _, tc := range bad {
		_, err := ParseSources([]byte(tc.yaml), "bad.yaml")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
	}
}

func TestFeedLink(t *testing.T) {
	page := `<html><head><base href="/blog/"><link rel="stylesheet" href="/s.css">
<link rel="alternate" type="application/atom+xml" href="atom.xml"></head><body><link rel="alternate" type="application/rss+xml" href="/late.xml"></body></html>`
	if got := FeedLink([]byte(page), "https://example.com/"); got != "https://example.com/blog/atom.xml" {
		t.Fatalf("FeedLink = %q", got)
	}
	if got := FeedLink([]byte(`<html><body>nothing</body></html>`), "https://example.com/"); got != "" {
		t.Fatalf("FeedLink = %q, want none", got)
	}
}

// FuzzParseSources: any input yields sources or an error, never a panic,
// and every source it accepts is valid.
func FuzzParseSources(f *testing.F) {
	f.Add([]byte("sources:\n  - {name: a, kind: feed, url: 'https://x.org/'}\n"))
	f.Add([]byte("sources:\n  - name: l\n    kind: page\n    url: https://x.org/\n    link: 'css:a'\n    include: ['x']\n"))
	f.Add([]byte("sources: {a: b}"))
	f.Add([]byte("- a\n- b"))
	f.Add(defaultSourcesYAML)
	f.Fuzz(func(t *testing.T, data []byte) {
		srcs, err := ParseSources(data, "fuzz.yaml")
		if err != nil {
			return
		}
		for _, s := range srcs {
			if err := s.validate(); err != nil || s.Interval < MinInterval {
				t.Fatalf("accepted an invalid source %+v: %v", s, err)
			}
		}
	})
}

func FuzzFeedLink(f *testing.F) {
	f.Add([]byte(`<link rel="alternate" type="application/rss+xml" href="/feed">`), "https://example.com/a/")
	f.Add([]byte(`<base href="javascript:x"><link rel=alternate type=application/atom+xml href=x>`), "http://h/")
	f.Fuzz(func(t *testing.T, page []byte, base string) {
		got := FeedLink(page, base)
		if got != "" && !strings.HasPrefix(got, "http://") && !strings.HasPrefix(got, "https://") {
			t.Fatalf("FeedLink returned %q", got)
		}
	})
}
