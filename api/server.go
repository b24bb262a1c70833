// Package api serves the store over HTTP: the JSON API under /api/v1
// (documented by openapi.json), the server-rendered web UI, the MCP server at
// /mcp, feeds, health and metrics. Public reads need no token; everything
// under /api/v1/review/ needs a reviewer's bearer token, and the UI's review
// pages a session made by logging in with one.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
	"github.com/prometheus/client_golang/prometheus"
)

// Submitter queues a URL; pipelines.Submitter implements it.
type Submitter interface {
	Submit(ctx context.Context, rawURL, origin, source string) (sinks.SubmissionRecord, bool, error)
	// Redraft sends a skipped crawled post through the pipeline again as a
	// reviewer's request, so it is drafted instead of skipped.
	Redraft(ctx context.Context, id, by string) (sinks.SubmissionRecord, error)
}

// Config wires a Server.
type Config struct {
	Store     *sinks.Store
	Submitter Submitter
	// Metrics gathers the pipeline's metrics (pipelines.Metrics); the
	// server adds its own (HTTP, store) beside them on /metrics.
	Metrics prometheus.Gatherer
	Log     *slog.Logger
	// Ready reports whether the pipeline is connected, for /healthz.
	Ready func() error
	// Crawler serves /api/v1/sources; nil when no sources are crawled.
	Crawler Crawler
	// Dead lists and retries dead letters; nil disables those endpoints.
	Dead DeadLetters
	// SubmitRate and SubmitBurst bound public submissions per client IP
	// (token bucket); zero means 1 every 2 s with a burst of 30.
	SubmitRate  float64
	SubmitBurst int
	// AuthFailures failed token checks (bearer or login) per client IP are
	// allowed per AuthFailWindow, refilling evenly; past them, token checks
	// from that address get 429 with Retry-After. Zero means 10 per 5 min.
	AuthFailures   int
	AuthFailWindow time.Duration
	// SessionTTL is how long a UI login lasts; zero means 12 hours.
	SessionTTL time.Duration
	// PublicURL is the site's external base URL (scheme, host, optional
	// path prefix) for the absolute links in feeds, exports and MCP
	// results. The request's Host header is never used: any client can
	// send any Host, and a cached feed would carry it to every reader.
	// "" means http://localhost.
	PublicURL string
}

// Server is the HTTP front of casebook.
type Server struct {
	cfg     Config
	mux     *http.ServeMux
	limiter *ipLimiter
	// authFails is each client's allowance of failed token checks.
	authFails   *ipLimiter
	pages       *pages
	httpMetrics *httpMetrics
}

// New builds the server and its routes.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.SubmitRate == 0 {
		cfg.SubmitRate = 0.5
	}
	if cfg.SubmitBurst == 0 {
		cfg.SubmitBurst = 30
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://localhost"
	}
	if cfg.SessionTTL == 0 {
		cfg.SessionTTL = 12 * time.Hour
	}
	if cfg.AuthFailures == 0 {
		cfg.AuthFailures = 10
	}
	if cfg.AuthFailWindow == 0 {
		cfg.AuthFailWindow = 5 * time.Minute
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), limiter: newIPLimiter(cfg.SubmitRate, cfg.SubmitBurst),
		authFails: newIPLimiter(float64(cfg.AuthFailures)/cfg.AuthFailWindow.Seconds(), cfg.AuthFailures)}
	s.pages = mustPages()
	s.httpMetrics = newHTTPMetrics(cfg.Store)
	s.routes()
	return s
}

// ServeHTTP implements http.Handler. Every answer says nosniff; one that
// may carry a token or a session (anything a token or a session cookie
// asked for, the login and review pages, the review API) says no-store, so
// no shared or browser cache keeps it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if mayCarryToken(r) {
		h.Set("Cache-Control", "no-store")
	}
	s.serveMeasured(w, r)
}

func mayCarryToken(r *http.Request) bool {
	if r.Header.Get("Authorization") != "" {
		return true
	}
	if _, err := r.Cookie(sessionCookie); err == nil {
		return true
	}
	p := r.URL.Path
	return p == "/login" || p == "/logout" || p == "/review" || strings.HasPrefix(p, "/review/") || strings.HasPrefix(p, "/api/v1/review/")
}

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /healthz", s.healthz)
	m.HandleFunc("GET /metrics", s.metrics)

	m.HandleFunc("POST /api/v1/submissions", s.rateLimited(s.submit))
	m.HandleFunc("GET /api/v1/submissions/{id}", s.getSubmission)

	m.HandleFunc("GET /api/v1/cases", s.listCases)
	m.HandleFunc("GET /api/v1/cases/{id}", s.getCase)
	m.HandleFunc("GET /api/v1/cases/{id}/similar", s.similar)
	m.HandleFunc("GET /api/v1/search", s.search)
	m.HandleFunc("GET /api/v1/topics/{tag}", s.topic)
	m.HandleFunc("GET /api/v1/vocab", s.vocab)
	m.HandleFunc("GET /api/v1/feed.atom", s.feed)
	m.HandleFunc("GET /api/v1/feed.json", s.jsonFeed)
	m.HandleFunc("GET /api/v1/export.jsonl", s.export)
	m.HandleFunc("GET /api/v1/export.csv", s.exportCSV)
	m.HandleFunc("GET /api/v1/openapi.json", s.openapi)

	m.HandleFunc("GET /api/v1/review/drafts", s.auth(s.listDrafts))
	m.HandleFunc("GET /api/v1/review/drafts/{id}", s.auth(s.getDraft))
	m.HandleFunc("POST /api/v1/review/drafts/{id}/approve", s.auth(s.approve))
	m.HandleFunc("POST /api/v1/review/drafts/{id}/reject", s.auth(s.reject))
	m.HandleFunc("POST /api/v1/review/drafts/{id}/merge", s.auth(s.merge))
	m.HandleFunc("PUT /api/v1/review/cases/{id}", s.auth(s.editCase))
	m.HandleFunc("GET /api/v1/review/cases/{id}/history", s.auth(s.history))
	m.HandleFunc("GET /api/v1/review/submissions", s.auth(s.listSubmissions))
	m.HandleFunc("GET /api/v1/review/skipped", s.auth(s.listSkipped))
	m.HandleFunc("POST /api/v1/review/skipped/{id}/draft", s.auth(s.draftSkipped))
	m.HandleFunc("POST /api/v1/review/reviewers", s.admin(s.addReviewer))
	m.HandleFunc("GET /api/v1/review/reviewers", s.admin(s.listReviewers))
	m.HandleFunc("DELETE /api/v1/review/reviewers/{id}", s.admin(s.revokeReviewer))
	s.sourceRoutes()

	s.opsRoutes()

	m.Handle("/mcp", s.mcpHandler())
	s.webRoutes()

	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.Method+" "+r.URL.Path)
	})
}

// --- helpers ---

type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Field names the request field at fault (a JSON path such as
	// "impact.duration"), when there is one.
	Field string `json:"field,omitempty"`
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]apiError{"error": {Code: code, Message: msg}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// storeError maps store errors to HTTP answers.
func (s *Server) storeError(w http.ResponseWriter, err error) {
	var fe *casebook.FieldError
	switch {
	case errors.Is(err, sinks.ErrNotFound):
		writeError(w, http.StatusNotFound, "not_found", err.Error())
	case errors.Is(err, sinks.ErrConflict):
		writeError(w, http.StatusConflict, "conflict", err.Error())
	case errors.As(err, &fe):
		writeJSON(w, http.StatusBadRequest, map[string]apiError{"error": {Code: "invalid_field", Message: fe.Error(), Field: fe.Field}})
	case errors.Is(err, sinks.ErrInvalid):
		writeError(w, http.StatusBadRequest, "invalid", err.Error())
	default:
		s.cfg.Log.Error("store error", "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "internal error")
	}
}

// maxBodyBytes bounds every JSON request body.
const maxBodyBytes = 1 << 20

// readBody reads a bounded request body and answers the failure itself: a
// body over the bound is 413, one the client sent too slowly for the
// server's read timeout is 408 (not "too large": nothing says it was).
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		status, code, msg := bodyError(err, limit)
		writeError(w, status, code, msg)
		return nil, false
	}
	return body, true
}

// bodyError classifies an error reading a request body.
func bodyError(err error, limit int64) (status int, code, msg string) {
	var tooLarge *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("request body over %d bytes", limit)
	case errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return http.StatusRequestTimeout, "timeout", "the request body did not arrive within the server's read timeout"
	default:
		return http.StatusBadRequest, "bad_body", "reading the request body: " + err.Error()
	}
}

// isJSON reports whether a Content-Type names JSON (parameters such as
// charset allowed).
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// decodeBody reads a bounded JSON body into v: Content-Type must be
// application/json (415 otherwise), the body valid UTF-8 and exactly one
// JSON value with no unknown fields and nothing after it (400 otherwise).
func decodeBody(w http.ResponseWriter, r *http.Request, v any, optional bool) bool {
	body, ok := readBody(w, r, maxBodyBytes)
	if !ok {
		return false
	}
	if optional && len(bytes.TrimSpace(body)) == 0 {
		return true
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "the request body must be JSON sent as Content-Type: application/json")
		return false
	}
	// encoding/json would quietly turn invalid UTF-8 into U+FFFD.
	if !utf8.Valid(body) {
		writeError(w, http.StatusBadRequest, "bad_json", "request body is not valid UTF-8")
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "bad_json", "request body: "+err.Error())
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		writeError(w, http.StatusBadRequest, "bad_json", "request body: data after the JSON value")
		return false
	}
	return true
}

type list[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"next_cursor"`
}

func pageParams(w http.ResponseWriter, r *http.Request) (cursor string, limit int, ok bool) {
	return pageParamsFor(w, r, func(c string) bool { _, err := strconv.ParseUint(c, 10, 64); return err == nil })
}

// pageParamsFor is pageParams for a list whose cursors valid recognises.
func pageParamsFor(w http.ResponseWriter, r *http.Request, valid func(string) bool) (cursor string, limit int, ok bool) {
	limit = 20
	if l := r.URL.Query().Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 200 {
			writeError(w, http.StatusBadRequest, "bad_parameter", "limit must be 1..200")
			return "", 0, false
		}
		limit = n
	}
	cursor = r.URL.Query().Get("cursor")
	if cursor != "" && !valid(cursor) {
		writeError(w, http.StatusBadRequest, "bad_parameter", "cursor is not one this server gave out")
		return "", 0, false
	}
	return cursor, limit, true
}

// --- auth ---

type ctxKey struct{}

func reviewerOf(r *http.Request) sinks.Reviewer {
	rv, _ := r.Context().Value(ctxKey{}).(sinks.Reviewer)
	return rv
}

func (s *Server) authenticate(r *http.Request) (sinks.Reviewer, bool) {
	h := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		return sinks.Reviewer{}, false
	}
	return s.cfg.Store.Authenticate(strings.TrimSpace(tok))
}

func (s *Server) auth(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.authThrottled(w, r, false) {
			return
		}
		rv, ok := s.authenticate(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="casebook"`)
			if r.Header.Get("Authorization") == "" {
				writeError(w, http.StatusUnauthorized, "unauthorized", "a reviewer token is required (Authorization: Bearer …)")
			} else {
				s.authFailed(r)
				writeError(w, http.StatusUnauthorized, "unauthorized", "the token is not valid or was revoked")
			}
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, rv)))
	}
}

func (s *Server) admin(next http.HandlerFunc) http.HandlerFunc {
	return s.auth(func(w http.ResponseWriter, r *http.Request) {
		if reviewerOf(r).Role != sinks.RoleAdmin {
			writeError(w, http.StatusForbidden, "forbidden", "this needs an admin token")
			return
		}
		next(w, r)
	})
}

// --- handlers ---

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r) {
		return
	}
	if s.cfg.Ready != nil {
		if err := s.cfg.Ready(); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": err.Error()})
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

type submitRequest struct {
	URL string `json:"url"`
}

func (s *Server) submit(w http.ResponseWriter, r *http.Request) {
	var req submitRequest
	if !decodeBody(w, r, &req, false) {
		return
	}
	req.URL = strings.TrimSpace(req.URL)
	if err := checkSubmitURL(req.URL); err != nil {
		writeError(w, http.StatusBadRequest, "bad_url", err.Error())
		return
	}
	rec, existing, err := s.cfg.Submitter.Submit(r.Context(), req.URL, "manual", "")
	if err != nil {
		if casebook.IsPermanent(err) {
			writeError(w, http.StatusBadRequest, "bad_url", err.Error())
			return
		}
		s.storeError(w, err)
		return
	}
	w.Header().Set("Location", "/api/v1/submissions/"+rec.ID)
	if existing {
		writeJSON(w, http.StatusOK, rec.Submission)
		return
	}
	writeJSON(w, http.StatusAccepted, rec.Submission)
}

// maxURLBytes bounds a submitted URL.
const maxURLBytes = 4096

// checkSubmitURL refuses, before anything is stored, a submitted URL that is
// empty, too long, not valid UTF-8, carries control characters or names
// credentials (user:pass@host): submissions are public, so a password in one
// would be shown to everyone. The message never repeats the URL.
func checkSubmitURL(raw string) error {
	switch {
	case raw == "":
		return errors.New("url is required")
	case len(raw) > maxURLBytes:
		return fmt.Errorf("url is longer than %d bytes", maxURLBytes)
	case !utf8.ValidString(raw):
		return errors.New("url is not valid UTF-8")
	case strings.ContainsFunc(raw, unicode.IsControl):
		return errors.New("url contains control characters")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("url is not a valid URL")
	}
	if u.User != nil {
		return errors.New("url carries credentials (user:password@); submit the address without them")
	}
	return nil
}

func (s *Server) getSubmission(w http.ResponseWriter, r *http.Request) {
	rec, err := s.cfg.Store.GetSubmission(r.PathValue("id"))
	if err != nil {
		s.storeError(w, fmt.Errorf("submission %s: %w", r.PathValue("id"), err))
		return
	}
	writeJSON(w, http.StatusOK, rec.Submission)
}

// submissionPage reads the paging of a list of submissions (and the other
// parameters it allows). The cursor is a submission id, not a case sequence:
// pageParams's numeric check would refuse the next_cursor these lists give out.
func submissionPage(w http.ResponseWriter, r *http.Request, more ...string) (cursor string, limit int, ok bool) {
	if !onlyParams(w, r, append([]string{"cursor", "limit"}, more...)...) {
		return "", 0, false
	}
	if limit, ok = limitParam(w, r, 20, 200); !ok {
		return "", 0, false
	}
	cursor = r.URL.Query().Get("cursor")
	if cursor != "" && !sinks.ValidSubmissionCursor(cursor) {
		writeError(w, http.StatusBadRequest, "bad_parameter", "cursor is not one this server gave out")
		return "", 0, false
	}
	return cursor, limit, true
}

func (s *Server) listSubmissions(w http.ResponseWriter, r *http.Request) {
	cursor, limit, ok := submissionPage(w, r)
	if !ok {
		return
	}
	items, next, err := s.cfg.Store.ListSubmissions(cursor, limit)
	if err != nil {
		s.storeError(w, err)
		return
	}
	if items == nil {
		items = []casebook.Submission{}
	}
	writeJSON(w, http.StatusOK, list[casebook.Submission]{Items: items, NextCursor: next})
}

// skippedPost is a skipped crawled post as the skipped list shows it.
type skippedPost struct {
	casebook.Submission
	Source string  `json:"source"`
	Score  float64 `json:"score"`
	Scored bool    `json:"scored"` // the gate skipped it with Score; false for a skip before the gate
}

func (s *Server) listSkipped(w http.ResponseWriter, r *http.Request) {
	cursor, limit, ok := submissionPage(w, r, "source")
	if !ok {
		return
	}
	recs, next, err := s.cfg.Store.ListSkipped(strings.TrimSpace(r.URL.Query().Get("source")), cursor, limit)
	if err != nil {
		s.storeError(w, err)
		return
	}
	source := strings.TrimSpace(r.URL.Query().Get("source"))
	counts, err := s.cfg.Store.CountSkipped(source)
	if err != nil {
		s.storeError(w, err)
		return
	}
	out := skippedList{Items: make([]skippedPost, 0, len(recs)), NextCursor: next, Total: counts.Total}
	if source != "" {
		out.SourceTotal = &counts.Source
	}
	for _, rec := range recs {
		out.Items = append(out.Items, skippedPost{Submission: rec.Submission, Source: rec.Source, Score: rec.Score, Scored: rec.GateScored()})
	}
	writeJSON(w, http.StatusOK, out)
}

// skippedList is a page of the skipped list with its counts (kept by the
// store, so no scan): all skipped crawled posts, and those of the source
// filtered on.
type skippedList struct {
	Items       []skippedPost `json:"items"`
	NextCursor  string        `json:"next_cursor"`
	Total       int           `json:"total"`
	SourceTotal *int          `json:"source_total,omitempty"`
}

func (s *Server) draftSkipped(w http.ResponseWriter, r *http.Request) {
	rec, err := s.cfg.Submitter.Redraft(r.Context(), r.PathValue("id"), reviewerOf(r).Name)
	if err != nil {
		s.storeError(w, err)
		return
	}
	s.cfg.Log.Info("skipped post sent to be drafted", "submission", rec.ID, "by", reviewerOf(r).Name)
	writeJSON(w, http.StatusAccepted, rec.Submission)
}

func (s *Server) listCases(w http.ResponseWriter, r *http.Request) {
	cursor, limit, ok := pageParams(w, r)
	if !ok {
		return
	}
	f, ok := caseFilter(w, r, "cursor", "limit", "sort")
	if !ok {
		return
	}
	order, ok := sortParam(w, r, sinks.SortNewest, sinks.SortOldest)
	if !ok {
		return
	}
	items, next, err := s.cfg.Store.ListCasesJSONWith(f, sinks.ListOptions{Sort: order}, cursor, limit)
	if err != nil {
		s.storeError(w, err)
		return
	}
	writeRawList(w, items, next)
}

func (s *Server) getCase(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	// Drafts and rejected cases are the reviewers' business: not found here.
	raw, resolved, err := s.cfg.Store.GetPublishedJSON(id, relatedCount)
	if err != nil {
		s.storeError(w, err)
		return
	}
	if resolved != id {
		http.Redirect(w, r, "/api/v1/cases/"+resolved, http.StatusMovedPermanently)
		return
	}
	writeRaw(w, raw)
}

type approveRequest struct {
	Note string      `json:"note"`
	Case *editedCase `json:"case"` // optional edited fields: the whole case as the reviewer wants it
}

func (s *Server) approve(w http.ResponseWriter, r *http.Request) {
	var req approveRequest
	if !decodeBody(w, r, &req, true) {
		return
	}
	e := req.Case.edit()
	if err := checkEdit(e, req.Note); err != nil {
		s.storeError(w, err)
		return
	}
	var edit func(*casebook.Case) error
	if e != nil {
		edit = func(c *casebook.Case) error { return applyEdit(c, e) }
	}
	c, err := s.cfg.Store.Approve(r.PathValue("id"), reviewerOf(r).Name, req.Note, edit)
	if err != nil {
		s.storeError(w, err)
		return
	}
	s.cfg.Log.Info("approved", "draft", r.PathValue("id"), "case", c.ID, "by", reviewerOf(r).Name)
	writeJSON(w, http.StatusOK, c)
}

// checkEdit validates a reviewer's edit and note against the schema, the
// vocabulary and the documented limits. Handlers call it before the store,
// so a refused edit never waits for or holds the store's only writer.
func checkEdit(e *casebook.Case, note string) error {
	if e != nil {
		if err := casebook.ValidateEdit(e); err != nil {
			return fmt.Errorf("%w: %w", err, sinks.ErrInvalid)
		}
	}
	if err := casebook.ValidateNote("note", note); err != nil {
		return fmt.Errorf("%w: %w", err, sinks.ErrInvalid)
	}
	return nil
}

// applyEdit copies the reviewer-editable fields of e onto c, validating them.
func applyEdit(c, e *casebook.Case) error {
	if err := checkEdit(e, ""); err != nil {
		return err
	}
	// Tags are stored as slugs: an alias a reviewer typed ("k8s") becomes
	// its slug, a new slug is kept (an open vocabulary), free text is refused.
	tags := make([]string, 0, len(e.Tags))
	for _, t := range e.Tags {
		slug, ok := casebook.TagSlug(t)
		if !ok {
			return fmt.Errorf("tag %q is not a slug: %w", t, sinks.ErrInvalid)
		}
		if !slices.Contains(tags, slug) {
			tags = append(tags, slug)
		}
	}
	e.Tags = tags
	comps := make([]string, 0, len(e.Components))
	for _, comp := range e.Components {
		if !slices.Contains(comps, comp) {
			comps = append(comps, comp)
		}
	}
	e.Components = comps
	keep := *c
	*c = *e
	c.ID, c.Status, c.Sources, c.Extraction, c.Relevance = keep.ID, keep.Status, keep.Sources, keep.Extraction, keep.Relevance
	c.CreatedAt, c.Review = keep.CreatedAt, keep.Review
	c.Related = nil // computed when served, never stored
	c.Normalize()
	return nil
}

type rejectRequest struct {
	Reason string `json:"reason"`
}

func (s *Server) reject(w http.ResponseWriter, r *http.Request) {
	var req rejectRequest
	if !decodeBody(w, r, &req, false) {
		return
	}
	if err := casebook.ValidateNote("reason", req.Reason); err != nil {
		s.storeError(w, fmt.Errorf("%w: %w", err, sinks.ErrInvalid))
		return
	}
	c, err := s.cfg.Store.Reject(r.PathValue("id"), reviewerOf(r).Name, req.Reason)
	if err != nil {
		s.storeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	h, err := s.cfg.Store.History(r.PathValue("id"))
	if err != nil {
		s.storeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": h})
}

type reviewerRequest struct {
	Name string `json:"name"`
	Role string `json:"role"`
}

func (s *Server) addReviewer(w http.ResponseWriter, r *http.Request) {
	var req reviewerRequest
	if !decodeBody(w, r, &req, false) {
		return
	}
	if req.Role == "" {
		req.Role = sinks.RoleReviewer
	}
	req.Name = strings.TrimSpace(req.Name)
	if err := casebook.ValidateLine("name", req.Name, 100); err != nil {
		s.storeError(w, fmt.Errorf("%w: %w", err, sinks.ErrInvalid))
		return
	}
	tok, rv, err := s.cfg.Store.AddToken(req.Name, req.Role)
	if err != nil {
		s.storeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"token": tok, "reviewer": rv})
}

func (s *Server) listReviewers(w http.ResponseWriter, r *http.Request) {
	items, err := s.cfg.Store.ListTokens()
	if err != nil {
		s.storeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, list[sinks.Reviewer]{Items: items})
}

func (s *Server) revokeReviewer(w http.ResponseWriter, r *http.Request) {
	if err := s.cfg.Store.RevokeToken(r.PathValue("id")); err != nil {
		s.storeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// Timeouts for the HTTP server: a slow client cannot hold a connection forever.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 30 * time.Second
	WriteTimeout      = 60 * time.Second
	IdleTimeout       = 2 * time.Minute
)
