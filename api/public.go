package api

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
)

// relatedCount is how many related cases a served case carries.
const relatedCount = 5

//go:embed openapi.json
var openapiDoc []byte

var slugRe = regexp.MustCompile(`^[a-z0-9][a-z0-9+.-]{0,63}$`)

// onlyParams answers 400 when the query has a parameter not in allowed, so
// a typo ("?tags=") is an error instead of an unfiltered answer.
func onlyParams(w http.ResponseWriter, r *http.Request, allowed ...string) bool {
	for k := range r.URL.Query() {
		if !slices.Contains(allowed, k) {
			writeError(w, http.StatusBadRequest, "bad_parameter", "unknown parameter "+strconv.Quote(k)+"; this endpoint takes "+strings.Join(allowed, ", "))
			return false
		}
	}
	return true
}

// filterParams are the listing filters, which search takes too.
var filterParams = []string{"tag", "component", "category", "organization", "language", "year"}

// caseFilter reads and validates the listing filters; the query may hold
// only those and the endpoint's other parameters.
func caseFilter(w http.ResponseWriter, r *http.Request, other ...string) (sinks.Filter, bool) {
	if !onlyParams(w, r, append(slices.Clone(filterParams), other...)...) {
		return sinks.Filter{}, false
	}
	f, err := parseFilter(r.URL.Query())
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad_parameter", err.Error())
		return sinks.Filter{}, false
	}
	return f, true
}

// parseFilter reads the listing filters of a query (API and web UI alike).
func parseFilter(q url.Values) (sinks.Filter, error) {
	f := sinks.Filter{Organization: strings.TrimSpace(q.Get("organization"))}
	bad := func(msg string) (sinks.Filter, error) { return sinks.Filter{}, errors.New(msg) }
	if t := q.Get("tag"); t != "" {
		if slug, ok := casebook.NormalizeTag(t); ok {
			f.Tag = slug
		} else if t = strings.ToLower(strings.TrimSpace(t)); slugRe.MatchString(t) {
			f.Tag = t
		} else {
			return bad("tag must be a slug such as kubernetes")
		}
	}
	if c := q.Get("component"); c != "" {
		if !casebook.ValidComponent(c) {
			return bad("component " + strconv.Quote(c) + " is not in the vocabulary (see /api/v1/vocab)")
		}
		f.Component = c
	}
	if c := q.Get("category"); c != "" {
		if !casebook.ValidRootCause(c) {
			return bad("category " + strconv.Quote(c) + " is not a root-cause category (see /api/v1/vocab)")
		}
		f.Category = c
	}
	if l := q.Get("language"); l != "" {
		if l != "und" && !slices.Contains(casebook.Languages, l) {
			return bad("language must be en, ru, zh or und")
		}
		f.Language = l
	}
	if y := q.Get("year"); y != "" {
		n, err := strconv.Atoi(y)
		if err != nil || n < 1900 || n > 2200 {
			return bad("year must be a four-digit year")
		}
		f.Year = n
	}
	if len(f.Organization) > 200 {
		return bad("organization is longer than 200 bytes")
	}
	return f, nil
}

func limitParam(w http.ResponseWriter, r *http.Request, def, max int) (int, bool) {
	l := r.URL.Query().Get("limit")
	if l == "" {
		return def, true
	}
	n, err := strconv.Atoi(l)
	if err != nil || n < 1 || n > max {
		writeError(w, http.StatusBadRequest, "bad_parameter", "limit must be 1.."+strconv.Itoa(max))
		return 0, false
	}
	return n, true
}

func (s *Server) similar(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r, "limit") {
		return
	}
	limit, ok := limitParam(w, r, 10, 50)
	if !ok {
		return
	}
	id := r.PathValue("id")
	if _, resolved, err := s.cfg.Store.GetPublished(id, 0); err != nil {
		s.storeError(w, err)
		return
	} else if resolved != id {
		http.Redirect(w, r, "/api/v1/cases/"+resolved+"/similar", http.StatusMovedPermanently)
		return
	}
	items, err := s.cfg.Store.SimilarTo(id, limit)
	if err != nil {
		s.storeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, list[sinks.Similar]{Items: items})
}

// sortParam reads sort= against the orders an endpoint offers (the first
// is the default).
func sortParam(w http.ResponseWriter, r *http.Request, orders ...string) (string, bool) {
	v := r.URL.Query().Get("sort")
	if v == "" {
		return orders[0], true
	}
	if !slices.Contains(orders, v) {
		writeError(w, http.StatusBadRequest, "bad_parameter", "sort must be one of "+strings.Join(orders, ", "))
		return "", false
	}
	return v, true
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	f, ok := caseFilter(w, r, "q", "cursor", "limit", "sort")
	if !ok {
		return
	}
	order, ok := sortParam(w, r, sinks.SortRelevance, sinks.SortNewest, sinks.SortOldest)
	if !ok {
		return
	}
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if q == "" {
		writeError(w, http.StatusBadRequest, "bad_parameter", "q is required")
		return
	}
	if len(q) > 500 {
		writeError(w, http.StatusBadRequest, "bad_parameter", "q is longer than 500 bytes")
		return
	}
	limit, ok := limitParam(w, r, 20, 100)
	if !ok {
		return
	}
	res, err := s.cfg.Store.SearchWith(q, sinks.SearchOptions{Filter: f, Sort: order, Raw: true}, r.URL.Query().Get("cursor"), limit)
	if err != nil {
		s.storeError(w, err)
		return
	}
	// The small fields go through encoding/json; the cases are the store's
	// JSON as is (encoding/json would re-validate every RawMessage).
	head := struct {
		Query      string    `json:"query"`
		Terms      []string  `json:"terms"`
		Total      int       `json:"total"`
		Scores     []float64 `json:"scores"`
		NextCursor string    `json:"next_cursor"`
	}{q, res.Terms, res.Total, res.Scores, res.NextCursor}
	if head.Terms == nil {
		head.Terms = []string{}
	}
	if head.Scores == nil {
		head.Scores = []float64{}
	}
	hb, err := json.Marshal(head)
	if err != nil {
		s.storeError(w, err)
		return
	}
	n := len(hb) + 16
	for _, it := range res.Raw {
		n += len(it) + 1
	}
	buf := make([]byte, 0, n)
	buf = append(buf, hb[:len(hb)-1]...)
	buf = append(buf, `,"items":[`...)
	for i, it := range res.Raw {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, it...)
	}
	buf = append(buf, "]}"...)
	writeRaw(w, buf)
}

// writeRaw answers with JSON the store already holds, valid by construction.
func writeRaw(w http.ResponseWriter, raw []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Length", strconv.Itoa(len(raw)+1))
	_, _ = w.Write(raw)
	_, _ = w.Write([]byte{'\n'})
}

// writeRawList writes {"items":[...],"next_cursor":"..."} from stored JSON
// without re-validating each item, as encoding/json would.
func writeRawList(w http.ResponseWriter, items []json.RawMessage, next string) {
	n := 64
	for _, it := range items {
		n += len(it) + 1
	}
	buf := make([]byte, 0, n)
	buf = append(buf, `{"items":[`...)
	for i, it := range items {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, it...)
	}
	buf = append(buf, `],"next_cursor":`...)
	buf = strconv.AppendQuote(buf, next)
	buf = append(buf, '}')
	writeRaw(w, buf)
}

// topicAnswer describes one tag: its aliases and the cases carrying it.
type topicAnswer struct {
	Tag        string          `json:"tag"`
	Aliases    []string        `json:"aliases"`
	Count      int             `json:"count"`
	Items      []casebook.Case `json:"items"`
	NextCursor string          `json:"next_cursor"`
}

func (s *Server) topicOf(tag, cursor string, limit int) (topicAnswer, bool, error) {
	slug, known := casebook.NormalizeTag(tag)
	if !known {
		slug = strings.ToLower(strings.TrimSpace(tag))
	}
	n := s.cfg.Store.Count("tag", slug)
	if !known && n == 0 {
		return topicAnswer{}, false, nil
	}
	items, next, err := s.cfg.Store.ListCases(sinks.Filter{Tag: slug}, cursor, limit)
	if err != nil {
		return topicAnswer{}, true, err
	}
	aliases := []string{}
	for _, a := range casebook.TagAliases[slug] {
		aliases = append(aliases, strings.TrimPrefix(a, "="))
	}
	return topicAnswer{Tag: slug, Aliases: aliases, Count: n, Items: items, NextCursor: next}, true, nil
}

func (s *Server) topic(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r, "cursor", "limit") {
		return
	}
	cursor, limit, ok := pageParams(w, r)
	if !ok {
		return
	}
	tag := r.PathValue("tag")
	t, found, err := s.topicOf(tag, cursor, limit)
	if err != nil {
		s.storeError(w, err)
		return
	}
	if !found {
		writeError(w, http.StatusNotFound, "not_found", "topic "+strconv.Quote(tag)+" is neither in the tag vocabulary nor on any case")
		return
	}
	writeJSON(w, http.StatusOK, t)
}

type vocabTerm struct {
	Slug    string `json:"slug"`
	Meaning string `json:"meaning,omitempty"`
	Count   int    `json:"count"`
}

type vocabTag struct {
	Slug    string   `json:"slug"`
	Aliases []string `json:"aliases"`
	Count   int      `json:"count"`
}

type vocabAnswer struct {
	RootCause  []vocabTerm `json:"root_cause"`
	Trigger    []vocabTerm `json:"trigger"`
	Detection  []vocabTerm `json:"detection"`
	Components []vocabTerm `json:"components"`
	Tags       []vocabTag  `json:"tags"`
	Languages  []string    `json:"languages"`
}

func (s *Server) vocabulary() vocabAnswer {
	terms := func(field string, slugs []string) []vocabTerm {
		out := make([]vocabTerm, 0, len(slugs))
		for _, sl := range slugs {
			n := 0
			if field != "" {
				n = s.cfg.Store.Count(field, sl)
			}
			out = append(out, vocabTerm{Slug: sl, Meaning: casebook.SlugMeaning[sl], Count: n})
		}
		return out
	}
	v := vocabAnswer{
		RootCause: terms("category", casebook.RootCauseCategories), Trigger: terms("", casebook.TriggerKinds),
		Detection: terms("", casebook.DetectionMethods), Components: terms("component", casebook.Components),
		Languages: append(slices.Clone(casebook.Languages), "und"),
	}
	for _, slug := range casebook.TagSlugs() {
		al := []string{}
		for _, a := range casebook.TagAliases[slug] {
			al = append(al, strings.TrimPrefix(a, "="))
		}
		v.Tags = append(v.Tags, vocabTag{Slug: slug, Aliases: al, Count: s.cfg.Store.Count("tag", slug)})
	}
	return v
}

func (s *Server) vocab(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r) {
		return
	}
	writeJSON(w, http.StatusOK, s.vocabulary())
}

// abs is the absolute URL of a path on this site (Config.PublicURL).
func (s *Server) abs(path string) string { return s.cfg.PublicURL + path }

// ParsePublicURL checks a --public-url value: absolute http(s), no query or
// fragment. The trailing slash is dropped.
func ParsePublicURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("public URL %q: %w", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("public URL %q: want http(s)://HOST[:PORT][/PREFIX] without query, fragment or credentials", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// DefaultPublicURL is http://ADDR for a listen address; an unspecified
// host (":8080", "0.0.0.0:8080") becomes localhost.
func DefaultPublicURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// exportPage is how many cases one read transaction of the export covers:
// a slow client must not hold a bbolt read transaction open (it would stall
// the writer when the file grows).
const exportPage = 500

// export streams every published case as one JSON object a line, newest
// first, a page per read transaction, without holding them all in memory.
func (s *Server) export(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r) {
		return
	}
	w.Header().Set("Content-Type", "application/jsonl; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="casebook.jsonl"`)
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	cursor := ""
	for {
		items, next, err := s.cfg.Store.ListCasesJSON(sinks.Filter{}, cursor, exportPage)
		if err != nil {
			s.cfg.Log.Error("export", "err", err)
			return
		}
		for _, it := range items {
			if _, err := bw.Write(append(it, '\n')); err != nil {
				return // the client went away
			}
		}
		if next == "" {
			return
		}
		cursor = next
	}
}

func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r) {
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(openapiDoc)
}
