package fetch

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestCanonicalURL(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"HTTP://Example.COM/Post", "http://example.com/Post"},
		{"https://example.com", "https://example.com/"},
		{"https://example.com:443/a", "https://example.com/a"},
		{"http://example.com:80/a", "http://example.com/a"},
		{"http://example.com:8080/a", "http://example.com:8080/a"},
		{"https://example.com:80/a", "https://example.com:80/a"},
		{"https://example.com./a", "https://example.com/a"},
		{"https://user:pw@example.com/a", "https://example.com/a"},
		{"https://example.com/a#section-2", "https://example.com/a"},
		{"https://example.com/a/./b/../c", "https://example.com/a/c"},
		{"https://example.com/a/b/..", "https://example.com/a/"},
		{"https://example.com/../a", "https://example.com/a"},
		{"https://example.com/%7Euser/%2e%2E/x", "https://example.com/x"},
		{"https://example.com/a%2fb", "https://example.com/a%2Fb"},
		{"https://example.com/caf%c3%a9", "https://example.com/caf%C3%A9"},
		{"https://example.com/café", "https://example.com/caf%C3%A9"},
		{"https://example.com/a b", "https://example.com/a%20b"},
		{"https://example.com/post?utm_source=x&utm_medium=y&id=5", "https://example.com/post?id=5"},
		{"https://example.com/post?UTM_Campaign=x", "https://example.com/post"},
		{"https://example.com/post?fbclid=abc&gclid=def&b=2&a=1", "https://example.com/post?a=1&b=2"},
		{"https://example.com/post?b=2&a=1&a=0", "https://example.com/post?a=1&a=0&b=2"},
		{"https://example.com/search?q=a+b", "https://example.com/search?q=a+b"},
		{"https://example.com/search?q=%e4%b8%ad", "https://example.com/search?q=%E4%B8%AD"},
		{"https://example.com/?", "https://example.com/"},
		{"https://Пример.РФ/статья", "https://xn--e1afmkfd.xn--p1ai/%D1%81%D1%82%D0%B0%D1%82%D1%8C%D1%8F"},
		{"https://例子.中国/故障", "https://xn--fsqu00a.xn--fiqs8s/%E6%95%85%E9%9A%9C"},
		{"https://[2001:DB8::1]:443/x", "https://[2001:db8::1]/x"},
		{"https://my_host.example.com/", "https://my_host.example.com/"},
		{"  https://example.com/trim  ", "https://example.com/trim"},
	}
	for _, tt := range tests {
		got, err := CanonicalURL(tt.in)
		if err != nil {
			t.Errorf("CanonicalURL(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("CanonicalURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
		again, err := CanonicalURL(got)
		if err != nil || again != got {
			t.Errorf("not idempotent: %q -> %q (%v)", got, again, err)
		}
	}
	for _, bad := range []string{"", "/relative", "ftp://example.com/", "mailto:a@example.com", "http://", "https://example.com:0/", "https://example.com:99999/", "http://%zz/"} {
		if got, err := CanonicalURL(bad); err == nil {
			t.Errorf("CanonicalURL(%q) = %q, want error", bad, got)
		}
	}
}

func TestCanonicalForPage(t *testing.T) {
	page := func(u, body string, h http.Header) *Page {
		return &Page{URL: u, ContentType: "text/html", Body: []byte(body), Header: h}
	}
	tests := []struct {
		name string
		p    *Page
		want string
	}{
		{"no canonical", page("https://blog.example.com/p?utm_source=x", "<html><head></head><body></body></html>", nil),
			"https://blog.example.com/p"},
		{"relative canonical", page("https://blog.example.com/p?page=2",
			`<html><head><link rel="canonical" href="/posts/outage"></head></html>`, nil),
			"https://blog.example.com/posts/outage"},
		{"same site, other host", page("https://blog.example.com/amp/p",
			`<head><link rel="alternate canonical" href="https://www.example.com/p#x"></head>`, nil),
			"https://www.example.com/p"},
		{"other site ignored", page("https://blog.example.com/p",
			`<head><link rel="canonical" href="https://victim.example.org/p"></head>`, nil),
			"https://blog.example.com/p"},
		{"shared suffix is not a site", page("https://alice.github.io/p",
			`<head><link rel="canonical" href="https://bob.github.io/p"></head>`, nil),
			"https://alice.github.io/p"},
		{"link header first", page("https://example.com/p?x=1", "",
			http.Header{"Link": {`<https://example.com/p>; rel="canonical"`}}),
			"https://example.com/p"},
		{"canonical in body ignored", page("https://example.com/p",
			`<html><head></head><body><link rel="canonical" href="https://example.com/other"></body></html>`, nil),
			"https://example.com/p"},
		{"bad canonical ignored", page("https://example.com/p",
			`<head><link rel="canonical" href="javascript:void(0)"></head>`, nil),
			"https://example.com/p"},
	}
	for _, tt := range tests {
		got, err := CanonicalForPage(tt.p)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func FuzzCanonicalURL(f *testing.F) {
	for _, s := range []string{
		"https://Example.com:443/a/../b/./c?utm_source=x&b=2&a=1#frag",
		"http://user:pw@[::1]:80/%7e/%41?q=a+b&q=%2f",
		"https://例子.中国/故障?spm=1.2",
		"http://example.com/a%2",
		"https://example.com/;p?x;y=1",
		"HTTPS://EXAMPLE.COM./",
		"http://xn--e1afmkfd.xn--p1ai/",
		"http://[fe80::1%25eth0]/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := CanonicalURL(s)
		if err != nil {
			return
		}
		u, err := url.Parse(c)
		if err != nil {
			t.Fatalf("%q -> %q does not parse: %v", s, c, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("%q -> scheme %q", s, u.Scheme)
		}
		if u.Fragment != "" || u.User != nil || strings.Contains(c, "#") {
			t.Fatalf("%q -> %q keeps fragment or credentials", s, c)
		}
		if u.Host != strings.ToLower(u.Host) {
			t.Fatalf("%q -> host %q not lower-case", s, u.Host)
		}
		for k := range u.Query() {
			if isTracking(k) {
				t.Fatalf("%q -> %q keeps tracking parameter %q", s, c, k)
			}
		}
		again, err := CanonicalURL(c)
		if err != nil {
			t.Fatalf("%q -> %q, which is rejected: %v", s, c, err)
		}
		if again != c {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, c, again)
		}
	})
}

func TestSourceURL(t *testing.T) {
	tests := []struct {
		name, fetched, claimed string
		source, rejected       string
	}{
		{"no claim", "https://blog.example.com/p?utm_source=x", "", "https://blog.example.com/p", ""},
		{"same host", "https://blog.example.com/p?id=2", "https://blog.example.com/posts/outage", "https://blog.example.com/posts/outage", ""},
		{"relative", "https://blog.example.com/amp/p", "/p", "https://blog.example.com/p", ""},
		{"same registrable domain", "https://blog.example.co.uk/p", "https://www.example.co.uk/p", "https://www.example.co.uk/p", ""},
		{"other site", "https://blog.example.com/p", "https://victim.example.org/p", "https://blog.example.com/p", "https://victim.example.org/p"},
		{"shared public suffix", "https://alice.github.io/p", "https://bob.github.io/p", "https://alice.github.io/p", "https://bob.github.io/p"},
		{"other port on an IP", "http://127.0.0.1:8000/p", "http://127.0.0.2:8000/p", "http://127.0.0.1:8000/p", "http://127.0.0.2:8000/p"},
		{"javascript dropped", "https://blog.example.com/p", "javascript:alert(1)", "https://blog.example.com/p", ""},
		{"data dropped", "https://blog.example.com/p", "data:text/html,hi", "https://blog.example.com/p", ""},
		{"scheme-relative other site", "https://blog.example.com/p", "//victim.example.org/p", "https://blog.example.com/p", "https://victim.example.org/p"},
		{"local file takes an http claim", "", "https://blog.example.com/p", "https://blog.example.com/p", ""},
		{"local file drops javascript", "", "javascript:alert(1)", "", ""},
	}
	for _, tt := range tests {
		src, rej := SourceURL(tt.fetched, tt.claimed)
		if src != tt.source || rej != tt.rejected {
			t.Errorf("%s: SourceURL(%q, %q) = %q, %q; want %q, %q", tt.name, tt.fetched, tt.claimed, src, rej, tt.source, tt.rejected)
		}
	}
}
