// Package api serves the store over HTTP: the JSON API under /api/v1
// (documented by openapi.json), the server-rendered web UI, the MCP server at
// /mcp, feeds, health and metrics. Public reads need no token; everything
// under /api/v1/review/ needs a reviewer's bearer token, and the UI's review
// pages a session made by logging in with one.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
)

// Submitter queues a URL; pipelines.Submitter implements it.
type Submitter interface {
	Submit(ctx context.Context, rawURL, origin, source string) (sinks.SubmissionRecord, bool, error)
}

// MetricsWriter writes Prometheus text; pipelines.Metrics implements it.
type MetricsWriter interface {
	WriteTo(w io.Writer) (int64, error)
}

// Config wires a Server.
type Config struct {
	Store     *sinks.Store
	Submitter Submitter
	Metrics   MetricsWriter
	Log       *slog.Logger
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
	pages   *pages
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
	s := &Server{cfg: cfg, mux: http.NewServeMux(), limiter: newIPLimiter(cfg.SubmitRate, cfg.SubmitBurst)}
	s.pages = mustPages()
	s.routes()
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

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
	switch {
	case errors.Is(err, sinks.ErrNotFound):
		writeError(w, http.StatusNotFound, "not_found", err.Error())
	case errors.Is(err, sinks.ErrConflict):
		writeError(w, http.StatusConflict, "conflict", err.Error())
	case errors.Is(err, sinks.ErrInvalid):
		writeError(w, http.StatusBadRequest, "invalid", err.Error())
	default:
		s.cfg.Log.Error("store error", "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "internal error")
	}
}

// decodeBody reads a bounded JSON body into v.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, optional bool) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", "request body over 1 MiB")
		return false
	}
	if optional && len(strings.TrimSpace(string(body))) == 0 {
		return true
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "bad_json", "request body: "+err.Error())
		return false
	}
	return true
}

type list[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"next_cursor"`
}

func pageParams(w http.ResponseWriter, r *http.Request) (cursor string, limit int, ok bool) {
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
	if cursor != "" {
		if _, err := strconv.ParseUint(cursor, 10, 64); err != nil {
			writeError(w, http.StatusBadRequest, "bad_parameter", "cursor is not one this server gave out")
			return "", 0, false
		}
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
		rv, ok := s.authenticate(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="casebook"`)
			if r.Header.Get("Authorization") == "" {
				writeError(w, http.StatusUnauthorized, "unauthorized", "a reviewer token is required (Authorization: Bearer …)")
			} else {
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

func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r) {
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	if s.cfg.Metrics != nil {
		_, _ = s.cfg.Metrics.WriteTo(w)
	}
	fmt.Fprintf(w, "# HELP casebook_store_bytes Size of the bbolt file.\n# TYPE casebook_store_bytes gauge\ncasebook_store_bytes %d\n", s.cfg.Store.Size())
	if counts, err := s.cfg.Store.CountCases(); err == nil {
		fmt.Fprintf(w, "# HELP casebook_cases Cases by status.\n# TYPE casebook_cases gauge\n")
		for _, st := range []string{casebook.StatusDraft, casebook.StatusPublished, casebook.StatusRejected, casebook.StatusMerged} {
			fmt.Fprintf(w, "casebook_cases{status=%q} %d\n", st, counts[st])
		}
	}
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
	if req.URL == "" {
		writeError(w, http.StatusBadRequest, "bad_url", "url is required")
		return
	}
	if len(req.URL) > 4096 {
		writeError(w, http.StatusBadRequest, "bad_url", "url is longer than 4096 bytes")
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

func (s *Server) getSubmission(w http.ResponseWriter, r *http.Request) {
	rec, err := s.cfg.Store.GetSubmission(r.PathValue("id"))
	if err != nil {
		s.storeError(w, fmt.Errorf("submission %s: %w", r.PathValue("id"), err))
		return
	}
	writeJSON(w, http.StatusOK, rec.Submission)
}

func (s *Server) listSubmissions(w http.ResponseWriter, r *http.Request) {
	cursor, limit, ok := pageParams(w, r)
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

func (s *Server) listCases(w http.ResponseWriter, r *http.Request) {
	cursor, limit, ok := pageParams(w, r)
	if !ok {
		return
	}
	f, ok := caseFilter(w, r)
	if !ok {
		return
	}
	items, next, err := s.cfg.Store.ListCasesJSON(f, cursor, limit)
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
	Note string         `json:"note"`
	Case *casebook.Case `json:"case"` // optional edited fields: the whole case as the reviewer wants it
}

func (s *Server) approve(w http.ResponseWriter, r *http.Request) {
	var req approveRequest
	if !decodeBody(w, r, &req, true) {
		return
	}
	var edit func(*casebook.Case) error
	if req.Case != nil {
		edit = func(c *casebook.Case) error { return applyEdit(c, req.Case) }
	}
	c, err := s.cfg.Store.Approve(r.PathValue("id"), reviewerOf(r).Name, req.Note, edit)
	if err != nil {
		s.storeError(w, err)
		return
	}
	s.cfg.Log.Info("approved", "draft", r.PathValue("id"), "case", c.ID, "by", reviewerOf(r).Name)
	writeJSON(w, http.StatusOK, c)
}

// applyEdit copies the reviewer-editable fields of e onto c, validating labels.
func applyEdit(c, e *casebook.Case) error {
	if e.RootCause.Category != "" && !casebook.ValidRootCause(e.RootCause.Category) {
		return fmt.Errorf("root_cause.category %q is not in the vocabulary: %w", e.RootCause.Category, sinks.ErrInvalid)
	}
	if e.Trigger.Kind != "" && !casebook.ValidTrigger(e.Trigger.Kind) {
		return fmt.Errorf("trigger.kind %q is not in the vocabulary: %w", e.Trigger.Kind, sinks.ErrInvalid)
	}
	if e.Detection.Method != "" && !casebook.ValidDetection(e.Detection.Method) {
		return fmt.Errorf("detection.method %q is not in the vocabulary: %w", e.Detection.Method, sinks.ErrInvalid)
	}
	for _, comp := range e.Components {
		if !casebook.ValidComponent(comp) {
			return fmt.Errorf("component %q is not in the vocabulary: %w", comp, sinks.ErrInvalid)
		}
	}
	if e.Language != "" && e.Language != "und" && !slices.Contains(casebook.Languages, e.Language) {
		return fmt.Errorf("language %q is not en, ru, zh or und: %w", e.Language, sinks.ErrInvalid)
	}
	if strings.TrimSpace(e.Title) == "" {
		return fmt.Errorf("title must not be empty: %w", sinks.ErrInvalid)
	}
	// Tags are stored as slugs: an alias a reviewer typed ("k8s") becomes
	// its slug, an unknown tag is refused.
	tags := make([]string, 0, len(e.Tags))
	for _, t := range e.Tags {
		slug, ok := casebook.NormalizeTag(t)
		if !ok {
			return fmt.Errorf("tag %q is not in the tag vocabulary: %w", t, sinks.ErrInvalid)
		}
		if !slices.Contains(tags, slug) {
			tags = append(tags, slug)
		}
	}
	e.Tags = tags
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
