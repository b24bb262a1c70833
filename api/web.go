package api

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
)

//go:embed web
var webFS embed.FS

const (
	sessionCookie    = "casebook_session"
	loginCSRFCookie  = "casebook_login_csrf"
	maxFormBytes     = 1 << 20
	queuePageSize    = 50
	browsePageSize   = 20
	evidenceMaxBytes = 256 << 10
)

// evidenceFields are the case fields whose evidence the draft page shows,
// in display order; each has its own highlight colour in style.css.
var evidenceFields = []string{"summary", "symptoms", "impact", "root_cause", "trigger", "detection", "remediation", "action_items", "lessons", "tags", "title"}

// pages holds one template set per page (layout + page), parsed once.
type pages struct {
	t      map[string]*template.Template
	static http.Handler
}

var funcs = template.FuncMap{
	"join": strings.Join,
	"year": func(c casebook.Case) int { return c.Year() },
	"host": func(c casebook.Case) string { return sinks.SourceHost(&c) },
	"pct":  func(f float64) string { return strconv.Itoa(int(f*100+0.5)) + "%" },
	"lines": func(s []string) string {
		return strings.Join(s, "\n")
	},
	"meaning": func(s string) string { return casebook.SlugMeaning[s] },
	"dict": func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[fmt.Sprint(kv[i])] = kv[i+1]
		}
		return m
	},
	"has": func(list []string, s string) bool { return slices.Contains(list, s) },
	"add": func(a, b int) int { return a + b },
	// ogLocale is OpenGraph's language_TERRITORY form of a case language.
	"ogLocale": func(lang string) string {
		switch lang {
		case "ru":
			return "ru_RU"
		case "zh":
			return "zh_CN"
		}
		return "en_US"
	},
	"short": func(ts string) string {
		if t, err := time.Parse(time.RFC3339, ts); err == nil {
			return t.UTC().Format("2006-01-02 15:04")
		}
		return ts
	},
	"query": queryURL,
}

// queryURL is "?k=v&…" of the pairs with a value ("" when none has one).
func queryURL(kv ...string) template.URL {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			v.Set(kv[i], kv[i+1])
		}
	}
	if len(v) == 0 {
		return ""
	}
	return template.URL("?" + v.Encode())
}

func mustPages() *pages {
	p := &pages{t: map[string]*template.Template{}}
	names, err := fs.Glob(webFS, "web/pages/*.html")
	if err != nil || len(names) == 0 {
		panic(fmt.Sprintf("web templates missing: %v", err))
	}
	for _, n := range names {
		t := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(webFS, "web/layout.html", n))
		p.t[strings.TrimSuffix(strings.TrimPrefix(n, "web/pages/"), ".html")] = t
	}
	sub, _ := fs.Sub(webFS, "web/static")
	p.static = http.StripPrefix("/static/", http.FileServer(http.FS(sub)))
	return p
}

// view is what every page template gets.
type view struct {
	Title    string
	Reviewer *sinks.Reviewer
	CSRF     string
	// SessionCSRF is the session's token, for the logout form.
	SessionCSRF string
	Error       string
	Notice      string
	Path        string
	// Base is the site's absolute address (Config.PublicURL), for links
	// read off the page (OpenGraph, canonical).
	Base string
	Data any
}

func securityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, status int, v view) {
	if sess, _, ok := s.session(r); ok && v.Reviewer == nil {
		rv := sess.Reviewer
		// The page's own forms keep their token (login and submit carry a
		// double-submit one); the header's logout form takes the session's.
		v.Reviewer, v.SessionCSRF = &rv, sess.CSRF
		if v.CSRF == "" {
			v.CSRF = sess.CSRF
		}
	}
	v.Path, v.Base = r.URL.Path, s.cfg.PublicURL
	t := s.pages.t[name]
	securityHeaders(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	// Rendered whole before any byte is sent: a template error is then a
	// 500 with a page, not a page cut off half-way under a 200.
	var buf bytes.Buffer
	if err := t.Execute(&buf, v); err != nil {
		s.cfg.Log.Error("render", "page", name, "err", err)
		buf.Reset()
		status = http.StatusInternalServerError
		if err := s.pages.t["error"].Execute(&buf, view{Title: http.StatusText(status), Error: "this page could not be shown", Path: v.Path}); err != nil {
			http.Error(w, "internal error", status)
			return
		}
	}
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func (s *Server) pageError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	s.render(w, r, "error", status, view{Title: http.StatusText(status), Error: msg})
}

// pageStoreError maps a store error to an error page.
func (s *Server) pageStoreError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, sinks.ErrNotFound):
		s.pageError(w, r, http.StatusNotFound, err.Error())
	case errors.Is(err, sinks.ErrConflict):
		s.pageError(w, r, http.StatusConflict, err.Error())
	case errors.Is(err, sinks.ErrInvalid):
		s.pageError(w, r, http.StatusBadRequest, err.Error())
	default:
		s.cfg.Log.Error("store error", "err", err)
		s.pageError(w, r, http.StatusInternalServerError, "internal error")
	}
}

func (s *Server) webRoutes() {
	m := s.mux
	m.Handle("GET /static/", s.pages.static)
	m.HandleFunc("GET /{$}", s.pageHome)
	m.HandleFunc("GET /cases/{id}", s.pageCase)
	m.HandleFunc("GET /topics/{tag}", s.pageTopic)
	m.HandleFunc("GET /submit", s.pageSubmit)
	m.HandleFunc("POST /submit", s.rateLimited(s.doSubmit))
	m.HandleFunc("GET /submissions/{id}", s.pageSubmission)
	m.HandleFunc("GET /login", s.pageLogin)
	m.HandleFunc("POST /login", s.doLogin)
	m.HandleFunc("POST /logout", s.reviewPage(s.doLogout))
	m.HandleFunc("GET /review", s.reviewPage(s.pageQueue))
	m.HandleFunc("GET /review/skipped", s.reviewPage(s.pageSkipped))
	m.HandleFunc("POST /review/skipped/{id}/draft", s.reviewPage(s.doDraftSkipped))
	m.HandleFunc("GET /review/drafts/{id}", s.reviewPage(s.pageDraft))
	m.HandleFunc("POST /review/drafts/{id}", s.reviewPage(s.doEdit))
	m.HandleFunc("POST /review/drafts/{id}/reject", s.reviewPage(s.doReject))
	m.HandleFunc("POST /review/drafts/{id}/merge", s.reviewPage(s.doMerge))
	m.HandleFunc("GET /review/cases/{id}/history", s.reviewPage(s.pageHistory))
	m.HandleFunc("GET /review/tokens", s.reviewPage(s.adminPage(s.pageTokens)))
	m.HandleFunc("POST /review/tokens", s.reviewPage(s.adminPage(s.doAddToken)))
	m.HandleFunc("POST /review/tokens/{id}/revoke", s.reviewPage(s.adminPage(s.doRevoke)))
}

// --- sessions and CSRF ---

func (s *Server) session(r *http.Request) (sinks.Session, string, bool) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || ck.Value == "" {
		return sinks.Session{}, "", false
	}
	sess, ok := s.cfg.Store.GetSession(ck.Value)
	return sess, ck.Value, ok
}

type sessKey struct{}

// reviewPage requires a live session; a POST must also carry the session's
// CSRF token and, when the browser sends one, a same-origin Origin header.
func (s *Server) reviewPage(next func(http.ResponseWriter, *http.Request, sinks.Session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess, _, ok := s.session(r)
		if !ok {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			if r.URL.Path == "/logout" {
				http.Redirect(w, r, "/", http.StatusSeeOther) // logged out already
				return
			}
			// A form sent after the session ended (expired, or logged out
			// in another tab): the login form, returning to the form's page.
			s.loginPage(w, r, http.StatusUnauthorized, formPage(r.URL.Path),
				"Your session has ended, so the form was not sent: log in again, then send it again.")
			return
		}
		if r.Method == http.MethodPost {
			if !s.parseForm(w, r, maxFormBytes) {
				return
			}
			if !sameOrigin(r) || subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(sess.CSRF)) != 1 {
				s.pageError(w, r, http.StatusForbidden, "the form's CSRF token is missing or wrong; reload the page and try again")
				return
			}
		}
		next(w, r, sess)
	}
}

// parseForm reads a bounded URL-encoded form and answers the failure
// itself: another content type is 415, a body over limit 413, one cut off
// by the read timeout 408, a malformed one 400.
func (s *Server) parseForm(w http.ResponseWriter, r *http.Request, limit int64) bool {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/x-www-form-urlencoded" {
		s.pageError(w, r, http.StatusUnsupportedMediaType, "the form must be sent as application/x-www-form-urlencoded")
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if err := r.ParseForm(); err != nil {
		status, _, msg := bodyError(err, limit)
		s.pageError(w, r, status, "bad form: "+msg)
		return false
	}
	return true
}

func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return o == "" // "null" is an opaque origin: never ours
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

func (s *Server) adminPage(next func(http.ResponseWriter, *http.Request, sinks.Session)) func(http.ResponseWriter, *http.Request, sinks.Session) {
	return func(w http.ResponseWriter, r *http.Request, sess sinks.Session) {
		if sess.Reviewer.Role != sinks.RoleAdmin {
			s.pageError(w, r, http.StatusForbidden, "this page needs an admin token")
			return
		}
		next(w, r, sess)
	}
}

func newCSRF() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// safeNext keeps a post-login destination only when it is a path on this
// site. Browsers drop tabs and newlines from a Location and read a
// backslash as a slash, so "/\t/evil.example" or "/\\evil.example" would
// leave the site: anything but printable ASCII without backslashes is
// refused, and the parsed result must have neither scheme nor host.
func safeNext(next string) string {
	const fallback = "/review"
	if len(next) < 1 || len(next) > 2048 || next[0] != '/' || strings.HasPrefix(next, "//") {
		return fallback
	}
	for i := 0; i < len(next); i++ {
		if c := next[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return fallback
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return fallback
	}
	return next
}

func (s *Server) pageLogin(w http.ResponseWriter, r *http.Request) {
	s.loginPage(w, r, http.StatusOK, r.URL.Query().Get("next"), "")
}

// loginPage renders the login form, going on to next once logged in.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request, status int, next, errMsg string) {
	// Login CSRF: a double-submit token, as there is no session yet.
	tok := newCSRF()
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Value: tok, Path: "/login", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: 3600})
	s.render(w, r, "login", status, view{Title: "Log in", CSRF: tok, Error: errMsg, Data: safeNext(next)})
}

// formPage is the page a review form posted to path is on: a draft's
// for its edit, reject and merge, the list's for "draft it" and tokens.
func formPage(path string) string {
	switch {
	case strings.HasPrefix(path, "/review/drafts/"):
		id, _, _ := strings.Cut(strings.TrimPrefix(path, "/review/drafts/"), "/")
		return "/review/drafts/" + id
	case strings.HasPrefix(path, "/review/skipped/"):
		return "/review/skipped"
	case strings.HasPrefix(path, "/review/tokens"):
		return "/review/tokens"
	}
	return "/review"
}

func (s *Server) doLogin(w http.ResponseWriter, r *http.Request) {
	if !s.parseForm(w, r, 16<<10) {
		return
	}
	next := safeNext(r.PostFormValue("next"))
	ck, err := r.Cookie(loginCSRFCookie)
	if err != nil || !sameOrigin(r) || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(r.PostFormValue("csrf"))) != 1 {
		s.pageError(w, r, http.StatusForbidden, "the login form expired; reload it and try again")
		return
	}
	if s.authThrottled(w, r, true) {
		return
	}
	id, sess, err := s.cfg.Store.CreateSession(strings.TrimSpace(r.PostFormValue("token")), s.cfg.SessionTTL)
	if errors.Is(err, sinks.ErrNotFound) {
		s.authFailed(r)
	}
	if err != nil {
		s.loginPage(w, r, http.StatusUnauthorized, next, "That token is not valid or was revoked.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil, MaxAge: int(s.cfg.SessionTTL.Seconds())})
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Value: "", Path: "/login", MaxAge: -1})
	s.cfg.Log.Info("ui login", "reviewer", sess.Reviewer.Name)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (s *Server) doLogout(w http.ResponseWriter, r *http.Request, sess sinks.Session) {
	if _, id, ok := s.session(r); ok {
		_ = s.cfg.Store.DeleteSession(id)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// --- public submission ---

const submitCSRFCookie = "casebook_submit_csrf"

func (s *Server) pageSubmit(w http.ResponseWriter, r *http.Request) {
	tok := newCSRF()
	http.SetCookie(w, &http.Cookie{Name: submitCSRFCookie, Value: tok, Path: "/submit", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: 3600})
	s.render(w, r, "submit", http.StatusOK, view{Title: "Submit a write-up", CSRF: tok})
}

func (s *Server) doSubmit(w http.ResponseWriter, r *http.Request) {
	if !s.parseForm(w, r, 16<<10) {
		return
	}
	// Double-submit token: another site cannot make a visitor submit URLs.
	ck, err := r.Cookie(submitCSRFCookie)
	if err != nil || !sameOrigin(r) || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(r.PostFormValue("csrf"))) != 1 {
		s.pageError(w, r, http.StatusForbidden, "the form expired; reload it and try again")
		return
	}
	if s.cfg.Submitter == nil {
		s.pageError(w, r, http.StatusServiceUnavailable, "submissions are not accepted by this server")
		return
	}
	u := strings.TrimSpace(r.PostFormValue("url"))
	if err := checkSubmitURL(u); err != nil {
		s.render(w, r, "submit", http.StatusBadRequest, view{Title: "Submit a write-up", CSRF: ck.Value, Error: "Give the address of a post: " + err.Error() + "."})
		return
	}
	rec, _, err := s.cfg.Submitter.Submit(r.Context(), u, "manual", "")
	if err != nil {
		if casebook.IsPermanent(err) {
			s.render(w, r, "submit", http.StatusBadRequest, view{Title: "Submit a write-up", CSRF: ck.Value, Error: err.Error()})
			return
		}
		s.pageStoreError(w, r, err)
		return
	}
	http.Redirect(w, r, "/submissions/"+rec.ID, http.StatusSeeOther)
}

func (s *Server) pageSubmission(w http.ResponseWriter, r *http.Request) {
	rec, err := s.cfg.Store.GetSubmission(r.PathValue("id"))
	if err != nil {
		s.pageStoreError(w, r, fmt.Errorf("submission %s: %w", r.PathValue("id"), err))
		return
	}
	s.render(w, r, "submission", http.StatusOK, view{Title: "Submission " + rec.ID, Data: &rec.Submission})
}

// --- public pages ---

type homeData struct {
	Q          string
	Filter     sinks.Filter
	YearText   string
	Sort       string
	Sorts      []string
	Items      []casebook.Case
	Total      int
	Partial    bool // facet counts (and a search's total) are bounded
	Page       int
	HasNext    bool
	Searching  bool
	Filtering  bool
	Facets     sinks.ResultFacets
	Categories []string
	Components []string
	params     url.Values
}

// Link is the current page's query with the given pairs set (an empty
// value removes the parameter), back on page 1 unless "page" is given.
func (d homeData) Link(kv ...string) template.URL {
	v := url.Values{}
	for k, vs := range d.params {
		v[k] = slices.Clone(vs)
	}
	v.Del("page")
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" || kv[i] == "page" && kv[i+1] == "1" {
			v.Del(kv[i])
		} else {
			v.Set(kv[i], kv[i+1])
		}
	}
	if len(v) == 0 {
		return "/"
	}
	return template.URL("/?" + v.Encode())
}

// PageLink is Link to another page of the same result.
func (d homeData) PageLink(n int) template.URL { return d.Link("page", strconv.Itoa(n)) }

// maxBrowsePage bounds page numbers: a page is found by skipping matches.
const maxBrowsePage = 500

func (s *Server) pageHome(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := homeData{Q: strings.TrimSpace(q.Get("q")), Categories: casebook.RootCauseCategories, Components: casebook.Components, Page: 1, params: url.Values{}}
	for _, k := range append(slices.Clone(filterParams), "q", "sort") {
		if v := strings.TrimSpace(q.Get(k)); v != "" {
			d.params.Set(k, v)
		}
	}
	f, err := parseFilter(q)
	if err != nil {
		s.pageError(w, r, http.StatusBadRequest, err.Error())
		return
	}
	d.Filter, d.YearText, d.Searching, d.Filtering = f, q.Get("year"), d.Q != "", !f.Empty()
	if d.Filter.Tag != "" {
		d.params.Set("tag", d.Filter.Tag)
	}
	if len(d.Q) > 500 {
		s.pageError(w, r, http.StatusBadRequest, "the search is longer than 500 bytes")
		return
	}
	d.Sorts = []string{sinks.SortNewest, sinks.SortOldest}
	if d.Searching {
		d.Sorts = []string{sinks.SortRelevance, sinks.SortNewest, sinks.SortOldest}
	}
	d.Sort = q.Get("sort")
	if d.Sort == "" {
		d.Sort = d.Sorts[0]
	} else if !slices.Contains(d.Sorts, d.Sort) {
		s.pageError(w, r, http.StatusBadRequest, "sort must be one of "+strings.Join(d.Sorts, ", "))
		return
	}
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > maxBrowsePage {
			s.pageError(w, r, http.StatusBadRequest, "page must be 1.."+strconv.Itoa(maxBrowsePage))
			return
		}
		d.Page = n
	}
	skip := (d.Page - 1) * browsePageSize
	if d.Searching {
		res, err := s.cfg.Store.SearchWith(d.Q, sinks.SearchOptions{Filter: f, Sort: d.Sort}, strconv.Itoa(skip), browsePageSize)
		if err != nil {
			s.pageStoreError(w, r, err)
			return
		}
		d.Items, d.HasNext = res.Items, res.NextCursor != ""
	} else {
		items, next, err := s.cfg.Store.ListCasesWith(f, sinks.ListOptions{Sort: d.Sort, Skip: skip}, "", browsePageSize)
		if err != nil {
			s.pageStoreError(w, r, err)
			return
		}
		d.Items, d.HasNext = items, next != ""
	}
	if d.Facets, err = s.cfg.Store.FacetsOf(d.Q, sinks.SearchOptions{Filter: f}); err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	d.Total, d.Partial = d.Facets.Total, d.Facets.Partial
	d.Facets.Tags = d.Facets.Tags[:min(len(d.Facets.Tags), 30)]
	d.Facets.Organizations = d.Facets.Organizations[:min(len(d.Facets.Organizations), 15)]
	title := "Incident cases"
	if d.Searching {
		title = "Search: " + d.Q
	}
	s.render(w, r, "home", http.StatusOK, view{Title: title, Data: d})
}

func (s *Server) pageCase(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	c, resolved, err := s.cfg.Store.GetPublished(id, relatedCount)
	if err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	if resolved != id {
		http.Redirect(w, r, "/cases/"+resolved, http.StatusMovedPermanently)
		return
	}
	c.Normalize()
	s.render(w, r, "case", http.StatusOK, view{Title: c.ID + ": " + c.Title, Data: c})
}

func (s *Server) pageTopic(w http.ResponseWriter, r *http.Request) {
	t, found, err := s.topicOf(r.PathValue("tag"), r.URL.Query().Get("cursor"), browsePageSize)
	if err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	if !found {
		s.pageError(w, r, http.StatusNotFound, "no such topic")
		return
	}
	s.render(w, r, "topic", http.StatusOK, view{Title: "Topic: " + t.Tag, Data: t})
}

// --- review pages ---

type queueRow struct {
	Case       casebook.Case
	Host       string
	Duplicates int
}

type queueData struct {
	// BadFilter is set when the filters could not be read: the page
	// shows why and the form, no rows.
	BadFilter  bool
	Rows       []queueRow
	Counts     sinks.QueueCounts
	Skipped    int // skipped crawled posts, for the skipped tab
	Q          url.Values
	NextCursor string
	Languages  []string
}

func (s *Server) pageQueue(w http.ResponseWriter, r *http.Request, sess sinks.Session) {
	q := r.URL.Query()
	// The queue shows relevance in percent: "45%" and "0,45" are read as
	// 0.45, as a reviewer would type them off the page.
	if v := strings.TrimSpace(q.Get("min_relevance")); v != "" {
		v = strings.Replace(v, ",", ".", 1)
		if p, ok := strings.CutSuffix(v, "%"); ok {
			if x, err := strconv.ParseFloat(strings.TrimSpace(p), 64); err == nil {
				v = strconv.FormatFloat(x/100, 'f', -1, 64)
			}
		}
		q.Set("min_relevance", v)
	}
	status, errMsg := http.StatusOK, ""
	f, err := queueFilter(q)
	if err != nil {
		// The queue again with the form as typed and why, not a bare error page.
		msg := strings.NewReplacer("min_relevance", "the minimum relevance", "max_relevance", "the maximum relevance", "older_than", "the age", "newer_than", "the age",
			"a number in 0..1", "a number in 0..1 or a percentage such as 45%").Replace(err.Error())
		status, errMsg, f = http.StatusBadRequest, sentence(msg)+": change the filter and press Filter.", sinks.QueueFilter{}
	}
	items, next, counts, err := s.cfg.Store.ListQueue(f, q.Get("cursor"), queuePageSize)
	if err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	skipped, err := s.cfg.Store.CountSkipped("")
	if err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	d := queueData{BadFilter: errMsg != "", Counts: counts, Skipped: skipped.Total, Q: q, NextCursor: next, Languages: casebook.Languages}
	if d.BadFilter {
		items, d.NextCursor = nil, ""
	}
	for _, c := range items {
		dups, _ := s.cfg.Store.Duplicates(c.ID)
		d.Rows = append(d.Rows, queueRow{Case: c, Host: sinks.SourceHost(&c), Duplicates: len(dups)})
	}
	s.render(w, r, "queue", status, view{Title: "Review queue", Error: errMsg, Notice: q.Get("notice"), Data: d})
}

type skippedData struct {
	Source string
	// Sources are the configured crawl sources, offered as the filter's
	// choices (the field takes any name: a source may be gone from the
	// configuration while its skipped posts stay).
	Sources    []string
	Cursor     string
	Rows       []skippedPost
	NextCursor string
	// Counts: all skipped crawled posts, and those of Source when set.
	Counts sinks.SkippedCounts
}

func (s *Server) pageSkipped(w http.ResponseWriter, r *http.Request, sess sinks.Session) {
	q := r.URL.Query()
	s.skippedPage(w, r, http.StatusOK, strings.TrimSpace(q.Get("source")), q.Get("cursor"), "", q.Get("notice"))
}

// skippedPage renders a page of the skipped list; a failed "draft it" shows
// its error above the list it was pressed on, not on a bare error page.
func (s *Server) skippedPage(w http.ResponseWriter, r *http.Request, status int, source, cursor, errMsg, notice string) {
	if cursor != "" && !sinks.ValidSubmissionCursor(cursor) {
		s.pageError(w, r, http.StatusBadRequest, "cursor is not one this server gave out")
		return
	}
	d := skippedData{Source: source, Cursor: cursor}
	recs, next, err := s.cfg.Store.ListSkipped(d.Source, cursor, queuePageSize)
	if err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	d.NextCursor = next
	if d.Counts, err = s.cfg.Store.CountSkipped(d.Source); err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	for _, rec := range recs {
		d.Rows = append(d.Rows, skippedPost{Submission: rec.Submission, Source: rec.Source, Score: rec.Score, Scored: rec.GateScored()})
	}
	if s.cfg.Crawler != nil {
		if srcs, err := s.cfg.Crawler.Sources(r.Context()); err == nil {
			for _, v := range srcs {
				d.Sources = append(d.Sources, v.Name)
			}
		}
	}
	s.render(w, r, "skipped", status, view{Title: "Skipped posts", Error: errMsg, Notice: notice, Data: d})
}

func (s *Server) doDraftSkipped(w http.ResponseWriter, r *http.Request, sess sinks.Session) {
	id := r.PathValue("id")
	source := strings.TrimSpace(r.PostFormValue("source"))
	rec, err := s.cfg.Submitter.Redraft(r.Context(), id, sess.Reviewer.Name)
	if err != nil {
		status, msg := http.StatusInternalServerError, id+" could not be sent to be drafted; try again"
		switch {
		case errors.Is(err, sinks.ErrNotFound):
			status, msg = http.StatusNotFound, "There is no submission "+id+"."
		case errors.Is(err, sinks.ErrConflict):
			status, msg = http.StatusConflict, id+" is not a skipped crawled post any more"
			if cur, gerr := s.cfg.Store.GetSubmission(id); gerr == nil {
				msg += " (it is " + cur.State + ": another reviewer may have drafted it)"
			}
			msg += "."
		default:
			s.cfg.Log.Error("draft a skipped post", "submission", id, "err", err)
		}
		s.skippedPage(w, r, status, source, "", msg, "")
		return
	}
	notice := rec.ID + " sent to be drafted: it appears in the queue when the pipeline is done"
	http.Redirect(w, r, "/review/skipped"+string(queryURL("source", source, "notice", notice)), http.StatusSeeOther)
}

// segment is a run of source text and the fields whose evidence covers it.
type segment struct {
	Text   string
	Fields []string
	Class  string
	Anchor string
	Title  string
}

// evidenceSegments cuts text at every evidence boundary (byte offsets,
// moved to rune starts) so each run can be highlighted for its fields.
func evidenceSegments(text string, ev map[string][]casebook.Span) []segment {
	if len(text) > evidenceMaxBytes {
		text = text[:evidenceMaxBytes]
	}
	fix := func(n int) int {
		n = max(0, min(n, len(text)))
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		return n
	}
	cuts := []int{0, len(text)}
	for _, spans := range ev {
		for _, sp := range spans {
			cuts = append(cuts, fix(sp.Start), fix(sp.End))
		}
	}
	sort.Ints(cuts)
	cuts = slices.Compact(cuts)
	anchored := map[string]bool{}
	var out []segment
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		if a >= b {
			continue
		}
		seg := segment{Text: text[a:b]}
		for _, f := range orderedFields(ev) {
			for _, sp := range ev[f] {
				if fix(sp.Start) <= a && b <= fix(sp.End) {
					seg.Fields = append(seg.Fields, f)
					if !anchored[f] {
						anchored[f] = true
						seg.Anchor = "ev-" + f
					}
					break
				}
			}
		}
		if len(seg.Fields) > 0 {
			seg.Class = "ev f-" + seg.Fields[0]
			seg.Title = strings.Join(seg.Fields, ", ")
		}
		out = append(out, seg)
	}
	return out
}

func orderedFields(ev map[string][]casebook.Span) []string {
	var out []string
	for _, f := range evidenceFields {
		if len(ev[f]) > 0 {
			out = append(out, f)
		}
	}
	var rest []string
	for f := range ev {
		if !slices.Contains(evidenceFields, f) && len(ev[f]) > 0 {
			rest = append(rest, f)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

type draftData struct {
	Case       *casebook.Case
	Extras     draftExtras
	Segments   []segment
	Evidence   []string // fields with evidence, in display order
	IsDraft    bool
	Vocab      vocabAnswer
	Submission *casebook.Submission
	// Typed is what the reviewer wrote in a reject or merge form that
	// failed, shown again so nothing has to be typed twice.
	Typed decisionForm
	// Lane is "flagged" when the reviewer came from the flagged lane: the
	// page links back to it and a reject returns to it.
	Lane string
}

// laneOf is the queue lane a review page was opened from ("flagged" or "").
func laneOf(r *http.Request) string {
	if r.FormValue("lane") == "flagged" {
		return "flagged"
	}
	return ""
}

// laneQueue is the queue page of a lane, with a notice.
func laneQueue(lane, notice string) string {
	flagged := ""
	if lane == "flagged" {
		flagged = "true"
	}
	return "/review" + string(queryURL("flagged", flagged, "notice", notice))
}

// decisionForm is a reject or merge form's input.
type decisionForm struct{ Reason, Into, Note string }

func (s *Server) draftPage(w http.ResponseWriter, r *http.Request, status int, c *casebook.Case, ex draftExtras, errMsg, notice string) {
	d := s.draftDataOf(c, ex)
	d.Lane = laneOf(r)
	s.render(w, r, "draft", status, view{Title: "Review " + c.ID, Error: errMsg, Notice: notice, Data: d})
}

func (s *Server) draftDataOf(c *casebook.Case, ex draftExtras) draftData {
	d := draftData{Case: c, Extras: ex, IsDraft: c.Status == casebook.StatusDraft, Vocab: s.vocabulary()}
	if ex.SourceText != "" {
		d.Segments = evidenceSegments(ex.SourceText, c.Extraction.Evidence)
	}
	d.Evidence = orderedFields(c.Extraction.Evidence)
	if ex.SubmissionID != "" {
		if rec, err := s.cfg.Store.GetSubmission(ex.SubmissionID); err == nil {
			d.Submission = &rec.Submission
		}
	}
	return d
}

func (s *Server) pageDraft(w http.ResponseWriter, r *http.Request, sess sinks.Session) {
	id := r.PathValue("id")
	c, ex, err := s.draftView(id)
	if err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	if c.ID != id {
		http.Redirect(w, r, "/review/drafts/"+c.ID, http.StatusSeeOther)
		return
	}
	s.draftPage(w, r, http.StatusOK, c, ex, "", r.URL.Query().Get("notice"))
}

func splitList(s string, sep func(rune) bool) []string {
	out := []string{}
	for _, p := range strings.FieldsFunc(s, sep) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func byLine(r rune) bool  { return r == '\n' || r == '\r' }
func byComma(r rune) bool { return r == ',' || r == '\n' || r == ';' }

// formCase builds the case a reviewer's form describes, on top of c.
func formCase(c *casebook.Case, f url.Values) *casebook.Case {
	e := *c
	e.Title = strings.TrimSpace(f.Get("title"))
	e.Organization = strings.TrimSpace(f.Get("organization"))
	e.Published = strings.TrimSpace(f.Get("published"))
	e.IncidentDate = strings.TrimSpace(f.Get("incident_date"))
	e.Language = f.Get("language")
	e.Summary = strings.TrimSpace(f.Get("summary"))
	e.Tags = splitList(f.Get("tags"), byComma)
	e.Components = f["components"]
	e.Impact = casebook.Impact{Severity: f.Get("impact.severity"), Scope: f.Get("impact.scope"), UsersAffected: f.Get("impact.users_affected"),
		Region: f.Get("impact.region"), Duration: f.Get("impact.duration"), TimeToDetect: f.Get("impact.time_to_detect"), TimeToResolve: f.Get("impact.time_to_resolve")}
	e.Symptoms = strings.TrimSpace(f.Get("symptoms"))
	e.RootCause = casebook.RootCause{Category: f.Get("root_cause.category"), Description: strings.TrimSpace(f.Get("root_cause.description"))}
	e.Trigger = casebook.Trigger{Kind: f.Get("trigger.kind"), Description: strings.TrimSpace(f.Get("trigger.description"))}
	e.Detection = casebook.Detection{Method: f.Get("detection.method"), Description: strings.TrimSpace(f.Get("detection.description"))}
	e.Remediation = splitList(f.Get("remediation"), byLine)
	e.ActionItems = splitList(f.Get("action_items"), byLine)
	e.Lessons = splitList(f.Get("lessons"), byLine)
	return &e
}

func (s *Server) doEdit(w http.ResponseWriter, r *http.Request, sess sinks.Session) {
	id := r.PathValue("id")
	c, ex, err := s.draftView(id)
	if err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	e := formCase(c, r.PostForm)
	note := strings.TrimSpace(r.PostFormValue("note"))
	if err := checkEdit(e, note); err != nil {
		s.editFailed(w, r, e, ex, err)
		return
	}
	by := sess.Reviewer.Name
	switch r.PostFormValue("action") {
	case "approve":
		pub, err := s.cfg.Store.Approve(id, by, note, func(c *casebook.Case) error { return applyEdit(c, e) })
		if err != nil {
			s.editFailed(w, r, e, ex, err)
			return
		}
		s.cfg.Log.Info("approved", "draft", id, "case", pub.ID, "by", by)
		http.Redirect(w, r, "/cases/"+pub.ID, http.StatusSeeOther)
	case "save", "":
		_, changed, err := s.cfg.Store.EditCase(id, by, note, func(c *casebook.Case) error { return applyEdit(c, e) })
		if err != nil {
			s.editFailed(w, r, e, ex, err)
			return
		}
		msg := "Nothing changed."
		if len(changed) > 0 {
			msg = "Saved: " + strings.Join(changed, ", ") + "."
		}
		http.Redirect(w, r, "/review/drafts/"+c.ID+string(queryURL("lane", laneOf(r), "notice", msg)), http.StatusSeeOther)
	default:
		s.pageError(w, r, http.StatusBadRequest, "unknown action")
	}
}

// editFailed shows the form again with the reviewer's values and the reason.
func (s *Server) editFailed(w http.ResponseWriter, r *http.Request, e *casebook.Case, ex draftExtras, err error) {
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, sinks.ErrInvalid):
		status = http.StatusBadRequest
	case errors.Is(err, sinks.ErrConflict):
		status = http.StatusConflict
	case errors.Is(err, sinks.ErrNotFound):
		status = http.StatusNotFound
	default:
		s.cfg.Log.Error("edit", "err", err)
	}
	s.draftPage(w, r, status, e, ex, err.Error(), "")
}

func (s *Server) doReject(w http.ResponseWriter, r *http.Request, sess sinks.Session) {
	id := r.PathValue("id")
	typed := decisionForm{Reason: strings.TrimSpace(r.PostFormValue("reason"))}
	if typed.Reason == "" {
		s.decisionFailed(w, r, id, http.StatusBadRequest, "A reject needs a reason: the submission's status shows it to whoever sent the post.", typed)
		return
	}
	if err := casebook.ValidateNote("reason", typed.Reason); err != nil {
		s.decisionFailed(w, r, id, http.StatusBadRequest, humanError(err), typed)
		return
	}
	if _, err := s.cfg.Store.Reject(id, sess.Reviewer.Name, typed.Reason); err != nil {
		s.decisionFailed(w, r, id, storeStatus(err), "Not rejected: "+humanError(err), typed)
		return
	}
	http.Redirect(w, r, laneQueue(laneOf(r), id+" rejected"), http.StatusSeeOther)
}

func (s *Server) doMerge(w http.ResponseWriter, r *http.Request, sess sinks.Session) {
	id := r.PathValue("id")
	typed := decisionForm{Into: strings.TrimSpace(r.PostFormValue("into")), Note: strings.TrimSpace(r.PostFormValue("note"))}
	if typed.Into == "" {
		s.decisionFailed(w, r, id, http.StatusBadRequest, "Name the published case to merge into, such as CB-0001.", typed)
		return
	}
	if err := casebook.ValidateNote("note", typed.Note); err != nil {
		s.decisionFailed(w, r, id, http.StatusBadRequest, humanError(err), typed)
		return
	}
	c, err := s.cfg.Store.Merge(id, typed.Into, sess.Reviewer.Name, typed.Note)
	if err != nil {
		s.decisionFailed(w, r, id, storeStatus(err), "Not merged: "+humanError(err), typed)
		return
	}
	http.Redirect(w, r, "/cases/"+c.ID, http.StatusSeeOther)
}

// decisionFailed shows the draft again with why a reject or merge failed
// above it and the reviewer's input kept; a draft that is gone (or another
// reviewer decided on meanwhile) shows as it is now.
func (s *Server) decisionFailed(w http.ResponseWriter, r *http.Request, id string, status int, msg string, typed decisionForm) {
	c, ex, err := s.draftView(id)
	if err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	if status == http.StatusInternalServerError {
		msg = "Something went wrong on the server; nothing was changed. Try again."
	}
	d := s.draftDataOf(c, ex)
	d.Typed, d.Lane = typed, laneOf(r)
	s.render(w, r, "draft", status, view{Title: "Review " + c.ID, Error: sentence(msg), Data: d})
}

// storeStatus is the HTTP status of a store error.
func storeStatus(err error) int {
	switch {
	case errors.Is(err, sinks.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, sinks.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, sinks.ErrInvalid):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// humanError is an error as words for a page: the store's sentinel suffix
// (": not found", ": conflict", ": invalid") said in words or dropped
// where the message already says why, ending in a full stop.
func humanError(err error) string {
	msg := err.Error()
	for suffix, say := range map[string]string{": " + sinks.ErrNotFound.Error(): " does not exist", ": " + sinks.ErrConflict.Error(): "", ": " + sinks.ErrInvalid.Error(): ""} {
		if m, ok := strings.CutSuffix(msg, suffix); ok {
			msg = m + say
		}
	}
	if msg != "" && !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// sentence starts msg with a capital letter.
func sentence(msg string) string {
	r, n := utf8.DecodeRuneInString(msg)
	return string(unicode.ToUpper(r)) + msg[n:]
}

func (s *Server) pageHistory(w http.ResponseWriter, r *http.Request, sess sinks.Session) {
	id := r.PathValue("id")
	c, _, err := s.cfg.Store.GetCase(id)
	if err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	h, err := s.cfg.Store.History(id)
	if err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	s.render(w, r, "history", http.StatusOK, view{Title: "History of " + c.ID, Data: map[string]any{"Case": c, "Changes": h}})
}

type tokensData struct {
	Reviewers []sinks.Reviewer
	NewToken  string
	NewName   string
}

func (s *Server) pageTokens(w http.ResponseWriter, r *http.Request, sess sinks.Session) {
	s.tokensPage(w, r, http.StatusOK, tokensData{}, "")
}

func (s *Server) tokensPage(w http.ResponseWriter, r *http.Request, status int, d tokensData, errMsg string) {
	var err error
	if d.Reviewers, err = s.cfg.Store.ListTokens(); err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	s.render(w, r, "tokens", status, view{Title: "Reviewer tokens", Error: errMsg, Notice: r.URL.Query().Get("notice"), Data: d})
}

func (s *Server) doAddToken(w http.ResponseWriter, r *http.Request, sess sinks.Session) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	if err := casebook.ValidateLine("name", name, 100); err != nil {
		s.tokensPage(w, r, http.StatusBadRequest, tokensData{}, err.Error())
		return
	}
	tok, rv, err := s.cfg.Store.AddToken(name, r.PostFormValue("role"))
	if err != nil {
		s.tokensPage(w, r, http.StatusBadRequest, tokensData{}, err.Error())
		return
	}
	// Shown once, on this answer only: the store keeps the hash.
	s.tokensPage(w, r, http.StatusOK, tokensData{NewToken: tok, NewName: rv.Name}, "")
}

func (s *Server) doRevoke(w http.ResponseWriter, r *http.Request, sess sinks.Session) {
	if err := s.cfg.Store.RevokeToken(r.PathValue("id")); err != nil {
		s.pageStoreError(w, r, err)
		return
	}
	http.Redirect(w, r, "/review/tokens?notice="+url.QueryEscape("token "+r.PathValue("id")+" revoked"), http.StatusSeeOther)
}
