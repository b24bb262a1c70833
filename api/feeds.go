package api

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
)

// feedSize is how many newly published cases a feed carries.
const feedSize = 50

// feedParams are the list filters a feed takes: /api/v1/feed.atom?tag=kafka
// is the kafka topic's feed, ?language=ru the Russian cases'.
var feedParams = []string{"tag", "component", "category", "organization", "language", "year"}

// feedCase is one published case as the feeds show it.
type feedCase struct {
	c                  casebook.Case
	published, updated time.Time
}

// feedCases reads the newest published cases that match the request's
// filters, and the feed's canonical query (normalized filter values).
func (s *Server) feedCases(w http.ResponseWriter, r *http.Request) ([]feedCase, string, time.Time, bool) {
	if !onlyParams(w, r, feedParams...) {
		return nil, "", time.Time{}, false
	}
	f, ok := caseFilter(w, r)
	if !ok {
		return nil, "", time.Time{}, false
	}
	items, _, err := s.cfg.Store.ListCases(f, "", feedSize)
	if err != nil {
		s.storeError(w, err)
		return nil, "", time.Time{}, false
	}
	q := url.Values{}
	for k, v := range map[string]string{"tag": f.Tag, "component": f.Component, "category": f.Category, "organization": f.Organization, "language": f.Language} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Year != 0 {
		q.Set("year", r.URL.Query().Get("year"))
	}
	var newest time.Time
	out := make([]feedCase, 0, len(items))
	for _, c := range items {
		c.Normalize()
		fc := feedCase{c: c, published: parseTime(c.Review.DecidedAt, c.CreatedAt), updated: parseTime(c.UpdatedAt, c.Review.DecidedAt)}
		if fc.updated.Before(fc.published) {
			fc.updated = fc.published
		}
		if fc.updated.After(newest) {
			newest = fc.updated
		}
		out = append(out, fc)
	}
	if newest.IsZero() {
		newest = time.Unix(0, 0).UTC()
	}
	return out, q.Encode(), newest, true
}

// parseTime reads the first of the RFC 3339 times that parses.
func parseTime(vals ...string) time.Time {
	for _, v := range vals {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// content is the case's text for a feed reader: the summary and the root cause.
func (fc feedCase) content() string {
	var b strings.Builder
	b.WriteString(fc.c.Summary)
	if d := fc.c.RootCause.Description; d != "" {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("Root cause (" + fc.c.RootCause.Category + "): " + d)
	}
	return b.String()
}

func (fc feedCase) sourceURL() string {
	if len(fc.c.Sources) > 0 {
		return fc.c.Sources[0].URL
	}
	return ""
}

// serveCached answers body with a strong ETag (its hash) and Last-Modified,
// so a conditional GET (If-None-Match, If-Modified-Since) gets 304.
func serveCached(w http.ResponseWriter, r *http.Request, contentType string, modified time.Time, body []byte) {
	sum := sha256.Sum256(body)
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:12])+`"`)
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, "", modified, bytes.NewReader(body))
}

// Atom 1.0 (RFC 4287) shapes.
type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Title   string      `xml:"title"`
	ID      string      `xml:"id"`
	Updated string      `xml:"updated"`
	Author  atomAuthor  `xml:"author"`
	Links   []atomLink  `xml:"link"`
	Entries []atomEntry `xml:"entry"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomEntry struct {
	Lang      string      `xml:"http://www.w3.org/XML/1998/namespace lang,attr,omitempty"`
	Title     string      `xml:"title"`
	ID        string      `xml:"id"`
	Published string      `xml:"published"`
	Updated   string      `xml:"updated"`
	Links     []atomLink  `xml:"link"`
	Author    *atomAuthor `xml:"author"`
	Summary   atomText    `xml:"summary"`
	Content   atomText    `xml:"content"`
	Category  []atomCat   `xml:"category"`
}

type atomAuthor struct {
	Name string `xml:"name"`
	URI  string `xml:"uri,omitempty"`
}

type atomText struct {
	Type string `xml:"type,attr,omitempty"`
	Text string `xml:",chardata"`
}

type atomCat struct {
	Term   string `xml:"term,attr"`
	Scheme string `xml:"scheme,attr,omitempty"`
}

// feedTitle names a filtered feed by its filters.
func feedTitle(query string) string {
	t := "casebook: newly published incident cases"
	if query != "" {
		q, _ := url.ParseQuery(query)
		var parts []string
		for _, k := range feedParams {
			if v := q.Get(k); v != "" {
				parts = append(parts, k+" "+v)
			}
		}
		t += " (" + strings.Join(parts, ", ") + ")"
	}
	return t
}

func (s *Server) feed(w http.ResponseWriter, r *http.Request) {
	items, query, newest, ok := s.feedCases(w, r)
	if !ok {
		return
	}
	self := s.abs("/api/v1/feed.atom")
	if query != "" {
		self += "?" + query
	}
	f := atomFeed{
		Title: feedTitle(query), ID: self, Updated: newest.Format(time.RFC3339),
		Author: atomAuthor{Name: "casebook", URI: s.abs("/")},
		Links: []atomLink{{Rel: "self", Type: "application/atom+xml", Href: self}, {Rel: "alternate", Type: "text/html", Href: s.abs("/")},
			{Rel: "alternate", Type: "application/feed+json", Href: strings.Replace(self, "feed.atom", "feed.json", 1)}},
	}
	for _, fc := range items {
		c := fc.c
		page := s.abs("/cases/" + c.ID)
		e := atomEntry{
			Lang: c.Language, Title: c.Title, ID: page,
			Published: fc.published.Format(time.RFC3339), Updated: fc.updated.Format(time.RFC3339),
			Links: []atomLink{{Rel: "alternate", Type: "text/html", Href: page}, {Rel: "alternate", Type: "application/json", Href: s.abs("/api/v1/cases/" + c.ID)}},
			// The feed's author (casebook) stands in when the organization is unknown.
			Summary: atomText{Type: "text", Text: c.Summary},
			Content: atomText{Type: "text", Text: fc.content()},
		}
		if c.Organization != "" {
			e.Author = &atomAuthor{Name: c.Organization}
		}
		if src := fc.sourceURL(); src != "" {
			e.Links = append(e.Links, atomLink{Rel: "via", Type: "text/html", Href: src})
		}
		if c.RootCause.Category != "" {
			e.Category = append(e.Category, atomCat{Term: c.RootCause.Category, Scheme: s.abs("/api/v1/vocab#root_cause")})
		}
		for _, t := range c.Tags {
			e.Category = append(e.Category, atomCat{Term: t, Scheme: s.abs("/topics/")})
		}
		f.Entries = append(f.Entries, e)
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", " ")
	if err := enc.Encode(f); err != nil {
		s.storeError(w, err)
		return
	}
	serveCached(w, r, "application/atom+xml; charset=utf-8", newest, buf.Bytes())
}

// JSON Feed 1.1 (https://jsonfeed.org/version/1.1) shapes.
type jsonFeed struct {
	Version     string         `json:"version"`
	Title       string         `json:"title"`
	HomePageURL string         `json:"home_page_url"`
	FeedURL     string         `json:"feed_url"`
	Description string         `json:"description"`
	Authors     []jsonAuthor   `json:"authors"`
	Items       []jsonFeedItem `json:"items"`
}

type jsonAuthor struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

type jsonFeedItem struct {
	ID            string       `json:"id"`
	URL           string       `json:"url"`
	ExternalURL   string       `json:"external_url,omitempty"`
	Title         string       `json:"title"`
	ContentText   string       `json:"content_text"`
	Summary       string       `json:"summary"`
	DatePublished string       `json:"date_published"`
	DateModified  string       `json:"date_modified"`
	Authors       []jsonAuthor `json:"authors,omitempty"`
	Tags          []string     `json:"tags"`
	Language      string       `json:"language"`
}

func (s *Server) jsonFeed(w http.ResponseWriter, r *http.Request) {
	items, query, newest, ok := s.feedCases(w, r)
	if !ok {
		return
	}
	self := s.abs("/api/v1/feed.json")
	if query != "" {
		self += "?" + query
	}
	f := jsonFeed{Version: "https://jsonfeed.org/version/1.1", Title: feedTitle(query), HomePageURL: s.abs("/"), FeedURL: self,
		Description: "Reviewed incident cases from public postmortems, newest first.",
		Authors:     []jsonAuthor{{Name: "casebook", URL: s.abs("/")}}, Items: []jsonFeedItem{}}
	for _, fc := range items {
		c := fc.c
		it := jsonFeedItem{ID: s.abs("/cases/" + c.ID), URL: s.abs("/cases/" + c.ID), ExternalURL: fc.sourceURL(), Title: c.Title,
			ContentText: fc.content(), Summary: c.Summary, DatePublished: fc.published.Format(time.RFC3339),
			DateModified: fc.updated.Format(time.RFC3339), Tags: c.Tags, Language: c.Language}
		if c.Organization != "" {
			it.Authors = []jsonAuthor{{Name: c.Organization}}
		}
		f.Items = append(f.Items, it)
	}
	body, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		s.storeError(w, err)
		return
	}
	serveCached(w, r, "application/feed+json; charset=utf-8", newest, append(body, '\n'))
}

// CSVColumns are the columns of /api/v1/export.csv, in order (documented in
// the README and openapi.json). List fields are joined with "; ".
var CSVColumns = []string{"id", "url", "title", "organization", "published", "incident_date", "language",
	"root_cause_category", "root_cause", "trigger_kind", "detection_method", "severity", "duration",
	"components", "tags", "summary", "source_url", "created_at", "updated_at"}

func (s *Server) csvRow(c *casebook.Case) []string {
	src := ""
	if len(c.Sources) > 0 {
		src = c.Sources[0].URL
	}
	return []string{c.ID, s.abs("/cases/" + c.ID), c.Title, c.Organization, c.Published, c.IncidentDate, c.Language,
		c.RootCause.Category, c.RootCause.Description, c.Trigger.Kind, c.Detection.Method, c.Impact.Severity, c.Impact.Duration,
		strings.Join(c.Components, "; "), strings.Join(c.Tags, "; "), c.Summary, src, c.CreatedAt, c.UpdatedAt}
}

// exportCSV streams every published case as one RFC 4180 row (CRLF line
// ends, quoted where needed), newest first, a page per read transaction.
func (s *Server) exportCSV(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r) {
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8; header=present")
	w.Header().Set("Content-Disposition", `attachment; filename="casebook.csv"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	cw := csv.NewWriter(bw)
	cw.UseCRLF = true
	defer cw.Flush()
	if err := cw.Write(CSVColumns); err != nil {
		return
	}
	cursor := ""
	for {
		items, next, err := s.cfg.Store.ListCases(sinks.Filter{}, cursor, exportPage)
		if err != nil {
			s.cfg.Log.Error("export csv", "err", err)
			return
		}
		for i := range items {
			if err := cw.Write(s.csvRow(&items[i])); err != nil {
				return // the client went away
			}
		}
		if next == "" {
			return
		}
		cursor = next
	}
}
