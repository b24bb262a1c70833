package fetch

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/andybalholm/cascadia"
	"github.com/mmcdole/gofeed"
	ext "github.com/mmcdole/gofeed/extensions"
	"github.com/mmcdole/gofeed/rss"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Discovery turns a fetched feed, sitemap or listing page into the item
// URLs a crawl should consider. URLs come back absolute, http(s) only,
// without fragment, de-duplicated by CanonicalURL, in document order.

// Limits on what one document may yield (the sitemap protocol's own caps).
const (
	MaxItems        = 50000
	MaxSitemapBytes = 50 << 20 // uncompressed, per the sitemap protocol
	maxFeedTTL      = 7 * 24 * time.Hour
)

// Item is one discovered URL.
type Item struct {
	URL       string    `json:"url"`
	Title     string    `json:"title,omitempty"`
	Published time.Time `json:"published,omitzero"` // zero when unknown
	Updated   time.Time `json:"updated,omitzero"`   // zero when unknown
}

// Feed is a parsed RSS, Atom or JSON Feed.
type Feed struct {
	Title string `json:"title"`
	Link  string `json:"link"`
	Items []Item `json:"items"`
	// TTL is how long the feed says it stays fresh: RSS <ttl>, else the
	// syndication module's updatePeriod/updateFrequency; 0 when neither.
	TTL time.Duration `json:"ttl"`
}

// ParseFeed parses an RSS, Atom or JSON Feed body (UTF-8, as Fetch returns
// it; other bytes are decoded first) with gofeed. Relative item links
// resolve against the feed's base: baseURL, the feed's URL.
func ParseFeed(body []byte, baseURL string) (*Feed, error) {
	body = xmlAsUTF8(body)
	p := gofeed.NewParser()
	p.KeepOriginalFeed = true
	f, err := p.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("parse feed: %w", err)
	}
	base, _ := url.Parse(baseURL)
	out := &Feed{Title: strings.TrimSpace(f.Title), Link: f.Link, TTL: feedTTL(f)}
	seen := map[string]bool{}
	for _, it := range f.Items {
		if it == nil {
			continue
		}
		link := it.Link
		if link == "" && len(it.Links) > 0 {
			link = it.Links[0]
		}
		if link == "" && isAbsHTTP(it.GUID) {
			link = it.GUID // RSS guid isPermaLink
		}
		abs, ok := resolveItem(base, link, seen)
		if !ok {
			continue
		}
		item := Item{URL: abs, Title: collapseSpace(it.Title)}
		if it.PublishedParsed != nil {
			item.Published = it.PublishedParsed.UTC()
		}
		if it.UpdatedParsed != nil {
			item.Updated = it.UpdatedParsed.UTC()
		}
		out.Items = append(out.Items, item)
		if len(out.Items) >= MaxItems {
			break
		}
	}
	return out, nil
}

// feedTTL reads RSS <ttl> (minutes) or sy:updatePeriod/sy:updateFrequency.
func feedTTL(f *gofeed.Feed) time.Duration {
	var ttl time.Duration
	if rf, ok := f.OriginalFeed().(*rss.Feed); ok && rf != nil {
		if n, err := strconv.Atoi(strings.TrimSpace(rf.TTL)); err == nil && n > 0 {
			ttl = time.Duration(n) * time.Minute
		}
	}
	if ttl == 0 && f.Extensions != nil {
		if sy, ok := f.Extensions["sy"]; ok {
			period := map[string]time.Duration{
				"hourly": time.Hour, "daily": 24 * time.Hour, "weekly": 7 * 24 * time.Hour,
				"monthly": 30 * 24 * time.Hour, "yearly": 365 * 24 * time.Hour,
			}[strings.ToLower(extValue(sy, "updatePeriod"))]
			if period == 0 && extValue(sy, "updateFrequency") != "" {
				period = 24 * time.Hour // the module's default period
			}
			freq := 1
			if n, err := strconv.Atoi(extValue(sy, "updateFrequency")); err == nil && n > 0 {
				freq = n
			}
			if period > 0 {
				ttl = period / time.Duration(freq)
			}
		}
	}
	return min(ttl, maxFeedTTL)
}

func extValue(m map[string][]ext.Extension, name string) string {
	if v := m[name]; len(v) > 0 {
		return strings.TrimSpace(v[0].Value)
	}
	return ""
}

// xmlAsUTF8 makes an XML body UTF-8 with a declaration that says so, so the
// XML parser does not decode it a second time.
func xmlAsUTF8(body []byte) []byte {
	if !utf8.Valid(body) {
		body, _ = Decode(body, "application/xml")
	}
	return rewriteXMLEncoding(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
}

func isAbsHTTP(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// resolveItem makes link absolute against base, keeps http(s) only, drops
// the fragment and de-duplicates by canonical URL.
func resolveItem(base *url.URL, link string, seen map[string]bool) (string, bool) {
	link = strings.TrimSpace(link)
	if link == "" {
		return "", false
	}
	ref, err := url.Parse(link)
	if err != nil {
		return "", false
	}
	abs := ref
	if base != nil {
		abs = base.ResolveReference(ref)
	}
	if (abs.Scheme != "http" && abs.Scheme != "https") || abs.Host == "" || abs.User != nil {
		return "", false
	}
	abs.Fragment, abs.RawFragment = "", ""
	s := abs.String()
	key, err := CanonicalURL(s)
	if err != nil || seen[key] {
		return "", false
	}
	seen[key] = true
	return s, true
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// Sitemap is a parsed sitemap: a <urlset> gives Items, a <sitemapindex>
// gives Sitemaps (child sitemaps to fetch next).
type Sitemap struct {
	Items    []Item `json:"items"`
	Sitemaps []Item `json:"sitemaps"`
}

// ParseSitemap parses an XML sitemap or sitemap index, gzip-compressed or
// not, a plain-text sitemap (one URL a line), or an RSS/Atom feed (which the
// protocol accepts as a sitemap). News sitemaps give titles.
func ParseSitemap(body []byte, baseURL string) (*Sitemap, error) {
	if hasGzipMagic(body) {
		raw, err := readBody(bytes.NewReader(body), []string{"gzip"}, MaxSitemapBytes, false)
		if err != nil {
			return nil, fmt.Errorf("sitemap: gunzip: %w", err)
		}
		body = raw
	}
	base, _ := url.Parse(baseURL)
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), " \t\r\n")
	if !bytes.HasPrefix(trimmed, []byte("<")) {
		return parseTextSitemap(trimmed, base), nil
	}
	body = xmlAsUTF8(trimmed)
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }

	sm := &Sitemap{}
	seen := map[string]bool{}
	var (
		root    string
		inEntry bool
		cur     Item
		field   string
		text    strings.Builder
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if root == "" {
				return nil, fmt.Errorf("sitemap: %w", err)
			}
			break // keep what a truncated or broken sitemap gave so far
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			if root == "" {
				root = name
				switch root {
				case "urlset", "sitemapindex":
				case "rss", "feed", "rdf":
					f, err := ParseFeed(body, baseURL)
					if err != nil {
						return nil, fmt.Errorf("sitemap: %w", err)
					}
					return &Sitemap{Items: f.Items}, nil
				default:
					return nil, fmt.Errorf("sitemap: root element <%s> is not a sitemap", t.Name.Local)
				}
				continue
			}
			if (name == "url" && root == "urlset") || (name == "sitemap" && root == "sitemapindex") {
				inEntry, cur = true, Item{}
				continue
			}
			if inEntry {
				field = name
				text.Reset()
			}
		case xml.CharData:
			if inEntry && field != "" && text.Len() < 8192 {
				text.Write(t)
			}
		case xml.EndElement:
			name := strings.ToLower(t.Name.Local)
			if !inEntry {
				continue
			}
			if name == field {
				v := strings.TrimSpace(text.String())
				switch field {
				case "loc":
					if cur.URL == "" {
						cur.URL = v
					}
				case "lastmod":
					cur.Updated = parseW3CDate(v)
				case "publication_date": // news sitemaps
					cur.Published = parseW3CDate(v)
				case "title":
					if t.Name.Space != "" || cur.Title == "" {
						cur.Title = collapseSpace(v)
					}
				}
				field = ""
			}
			if name == "url" || name == "sitemap" {
				inEntry = false
				abs, ok := resolveItem(base, cur.URL, seen)
				if !ok {
					continue
				}
				cur.URL = abs
				if root == "urlset" {
					sm.Items = append(sm.Items, cur)
				} else {
					sm.Sitemaps = append(sm.Sitemaps, cur)
				}
				if len(sm.Items)+len(sm.Sitemaps) >= MaxItems {
					return sm, nil
				}
			}
		}
	}
	if root == "" {
		return nil, errors.New("sitemap: no root element")
	}
	return sm, nil
}

func parseTextSitemap(body []byte, base *url.URL) *Sitemap {
	sm := &Sitemap{}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		line = strings.TrimSpace(line)
		if !isAbsHTTP(line) {
			continue
		}
		if abs, ok := resolveItem(base, line, seen); ok {
			sm.Items = append(sm.Items, Item{URL: abs})
			if len(sm.Items) >= MaxItems {
				break
			}
		}
	}
	return sm
}

var w3cLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05", "2006-01-02 15:04:05",
	"2006-01-02", "2006-01", "2006",
}

// parseW3CDate reads the W3C datetime profile sitemaps use, and RFC 1123
// dates some generators emit; zero when unparsable.
func parseW3CDate(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, l := range w3cLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	for _, l := range []string{time.RFC1123Z, time.RFC1123} {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// ParseListing finds the post links on a listing page. link chooses them:
//
//   - "css:SELECTOR" or a bare CSS selector ("article h2 a", ".post-link"):
//     the matched elements, or the first link inside each;
//   - "re:REGEXP", or a pattern that looks like one (starts with '^' or '/',
//     or contains "://", ".*" or a backslash): every link whose absolute URL
//     matches;
//   - "": every link on the same host as the page, other than the page.
//
// Titles come from the link text (or its title, aria-label or image alt);
// dates from a <time datetime> in the link's enclosing item.
func ParseListing(page []byte, baseURL, link string) ([]Item, error) {
	base, err := url.Parse(baseURL)
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("listing: bad base URL %q", baseURL)
	}
	doc, err := html.Parse(bytes.NewReader(bytes.ToValidUTF8(page, []byte("\uFFFD"))))
	if err != nil {
		return nil, fmt.Errorf("listing: %w", err)
	}
	if b := findBase(doc); b != "" {
		if ref, err := url.Parse(b); err == nil {
			base = base.ResolveReference(ref)
		}
	}
	sel, re, err := parseLinkSpec(link)
	if err != nil {
		return nil, err
	}
	var anchors []*html.Node
	if sel != nil {
		for _, n := range sel.MatchAll(doc) {
			if a := anchorFor(n); a != nil {
				anchors = append(anchors, a)
			}
		}
	} else {
		anchors = cascadia.MustCompile("a[href]").MatchAll(doc)
	}
	self, _ := CanonicalURL(base.String())
	seen := map[string]bool{}
	if self != "" {
		seen[self] = true
	}
	var items []Item
	for _, a := range anchors {
		href := attr(a, "href")
		ref, err := url.Parse(strings.TrimSpace(href))
		if err != nil {
			continue
		}
		abs := base.ResolveReference(ref)
		abs.Fragment, abs.RawFragment = "", ""
		if re != nil && !re.MatchString(abs.String()) {
			continue
		}
		if sel == nil && re == nil && !strings.EqualFold(abs.Hostname(), base.Hostname()) {
			continue
		}
		s, ok := resolveItem(nil, abs.String(), seen)
		if !ok {
			continue
		}
		it := Item{URL: s, Title: linkTitle(a), Published: nearbyTime(a)}
		items = append(items, it)
		if len(items) >= MaxItems {
			break
		}
	}
	return items, nil
}

func parseLinkSpec(spec string) (cascadia.Selector, *regexp.Regexp, error) {
	spec = strings.TrimSpace(spec)
	switch {
	case spec == "":
		return nil, nil, nil
	case strings.HasPrefix(spec, "css:"):
		s, err := cascadia.Compile(strings.TrimSpace(spec[4:]))
		if err != nil {
			return nil, nil, fmt.Errorf("listing: selector %q: %w", spec[4:], err)
		}
		return s, nil, nil
	case strings.HasPrefix(spec, "re:"):
		re, err := regexp.Compile(spec[3:])
		if err != nil {
			return nil, nil, fmt.Errorf("listing: pattern %q: %w", spec[3:], err)
		}
		return nil, re, nil
	}
	looksRegexp := strings.HasPrefix(spec, "^") || strings.HasPrefix(spec, "/") ||
		strings.Contains(spec, "://") || strings.Contains(spec, ".*") || strings.Contains(spec, `\`)
	if !looksRegexp {
		if s, err := cascadia.Compile(spec); err == nil {
			return s, nil, nil
		}
	}
	re, err := regexp.Compile(spec)
	if err != nil {
		return nil, nil, fmt.Errorf("listing: %q is neither a CSS selector nor a URL pattern: %w", spec, err)
	}
	return nil, re, nil
}

// anchorFor is n itself when it is a link, else its first descendant link,
// else its nearest ancestor link.
func anchorFor(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == atom.A && hasAttr(n, "href") {
		return n
	}
	var found *html.Node
	var walk func(*html.Node)
	walk = func(c *html.Node) {
		for k := c.FirstChild; k != nil && found == nil; k = k.NextSibling {
			if k.Type == html.ElementNode && k.DataAtom == atom.A && hasAttr(k, "href") {
				found = k
				return
			}
			walk(k)
		}
	}
	walk(n)
	if found != nil {
		return found
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.DataAtom == atom.A && hasAttr(p, "href") {
			return p
		}
	}
	return nil
}

func findBase(doc *html.Node) string {
	if n := cascadia.Query(doc, cascadia.MustCompile("head base[href]")); n != nil {
		return attr(n, "href")
	}
	return ""
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
			b.WriteByte(' ')
		}
		for k := c.FirstChild; k != nil; k = k.NextSibling {
			walk(k)
		}
	}
	walk(n)
	return collapseSpace(b.String())
}

func linkTitle(a *html.Node) string {
	if t := textOf(a); t != "" {
		return t
	}
	for _, k := range []string{"title", "aria-label"} {
		if v := collapseSpace(attr(a, k)); v != "" {
			return v
		}
	}
	if img := cascadia.Query(a, cascadia.MustCompile("img[alt]")); img != nil {
		return collapseSpace(attr(img, "alt"))
	}
	return ""
}

// nearbyTime reads <time datetime> inside the link's item: the nearest
// enclosing article, li, tr or section, or failing those up to three
// ancestors up.
func nearbyTime(a *html.Node) time.Time {
	scope := a.Parent
	for p, depth := a.Parent, 0; p != nil && depth < 6; p, depth = p.Parent, depth+1 {
		if p.Type != html.ElementNode {
			continue
		}
		if depth < 3 {
			scope = p
		}
		switch p.DataAtom {
		case atom.Article, atom.Li, atom.Tr, atom.Section:
			scope = p
			depth = 99
		}
	}
	if scope == nil {
		return time.Time{}
	}
	for _, n := range cascadia.MustCompile("time").MatchAll(scope) {
		v := attr(n, "datetime")
		if v == "" {
			v = textOf(n)
		}
		if t := parseW3CDate(v); !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// URLFilter applies a source's include and exclude URL regular expressions:
// a URL passes when it matches some include (or there are none) and no
// exclude.
type URLFilter struct {
	include, exclude []*regexp.Regexp
}

// NewURLFilter compiles the patterns.
func NewURLFilter(include, exclude []string) (*URLFilter, error) {
	f := &URLFilter{}
	for _, p := range include {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("include %q: %w", p, err)
		}
		f.include = append(f.include, re)
	}
	for _, p := range exclude {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("exclude %q: %w", p, err)
		}
		f.exclude = append(f.exclude, re)
	}
	return f, nil
}

// Match reports whether u passes the filter.
func (f *URLFilter) Match(u string) bool {
	for _, re := range f.exclude {
		if re.MatchString(u) {
			return false
		}
	}
	if len(f.include) == 0 {
		return true
	}
	for _, re := range f.include {
		if re.MatchString(u) {
			return true
		}
	}
	return false
}

// Filter keeps the items whose URL passes.
func (f *URLFilter) Filter(items []Item) []Item {
	var out []Item
	for _, it := range items {
		if f.Match(it.URL) {
			out = append(out, it)
		}
	}
	return out
}
