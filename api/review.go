package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
)

// parseAge reads "36h", "90m" or "7d".
func parseAge(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad age %q", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad age %q", s)
	}
	return d, nil
}

// queueFilter reads the review queue's filters from a query.
func queueFilter(q map[string][]string) (sinks.QueueFilter, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return strings.TrimSpace(v[0])
		}
		return ""
	}
	var f sinks.QueueFilter
	if l := get("language"); l != "" {
		if l != "und" && !slices.Contains(casebook.Languages, l) {
			return f, fmt.Errorf("language must be en, ru, zh or und")
		}
		f.Language = l
	}
	f.Source = get("source")
	for _, p := range []struct {
		k string
		v *float64
	}{{"min_relevance", &f.MinRelevance}, {"max_relevance", &f.MaxRelevance}} {
		if s := get(p.k); s != "" {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || x < 0 || x > 1 {
				return f, fmt.Errorf("%s must be a number in 0..1", p.k)
			}
			*p.v = x
		}
	}
	for _, p := range []struct {
		k string
		v *time.Duration
	}{{"older_than", &f.OlderThan}, {"newer_than", &f.NewerThan}} {
		if s := get(p.k); s != "" {
			d, err := parseAge(s)
			if err != nil {
				return f, fmt.Errorf("%s must be a duration such as 36h or 7d", p.k)
			}
			*p.v = d
		}
	}
	switch get("flagged") {
	case "":
	case "true", "1", "yes":
		t := true
		f.Flagged = &t
	case "false", "0", "no":
		t := false
		f.Flagged = &t
	default:
		return f, fmt.Errorf("flagged must be true or false")
	}
	switch get("sort") {
	case "", "newest":
	case "relevance":
		f.ByRelevance = true
	default:
		return f, fmt.Errorf("sort must be newest or relevance")
	}
	return f, nil
}

// queueAnswer is a page of the review queue with its counts.
type queueAnswer struct {
	Items      []casebook.Case   `json:"items"`
	NextCursor string            `json:"next_cursor"`
	Counts     sinks.QueueCounts `json:"counts"`
}

func (s *Server) listDrafts(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r, "language", "source", "min_relevance", "max_relevance", "older_than", "newer_than", "flagged", "sort", "cursor", "limit") {
		return
	}
	f, err := queueFilter(r.URL.Query())
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad_parameter", err.Error())
		return
	}
	cursor, limit, ok := pageParamsFor(w, r, func(c string) bool { return sinks.ValidQueueCursor(c, f.ByRelevance) })
	if !ok {
		return
	}
	items, next, counts, err := s.cfg.Store.ListQueue(f, cursor, limit)
	if err != nil {
		s.storeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, queueAnswer{Items: items, NextCursor: next, Counts: counts})
}

// draftExtras are the review view's extensions of the case record.
type draftExtras struct {
	SubmissionID string            `json:"submission_id"`
	Duplicates   []sinks.Duplicate `json:"duplicates"`
	Similar      []sinks.Similar   `json:"similar"`
	SourceText   string            `json:"source_text"`
}

func (s *Server) draftView(id string) (*casebook.Case, draftExtras, error) {
	c, resolved, err := s.cfg.Store.GetCase(id)
	if err != nil {
		return nil, draftExtras{}, err
	}
	ex := draftExtras{SubmissionID: s.cfg.Store.SubmissionOf(resolved), SourceText: s.cfg.Store.SourceText(resolved)}
	if ex.Duplicates, err = s.cfg.Store.Duplicates(resolved); err != nil {
		return nil, ex, err
	}
	if ex.Similar, err = s.cfg.Store.SimilarTo(resolved, 5); err != nil {
		return nil, ex, err
	}
	if ex.Similar == nil {
		ex.Similar = []sinks.Similar{}
	}
	return c, ex, nil
}

func (s *Server) getDraft(w http.ResponseWriter, r *http.Request) {
	c, ex, err := s.draftView(r.PathValue("id"))
	if err != nil {
		s.storeError(w, err)
		return
	}
	raw, err := spliceJSON(c, ex)
	if err != nil {
		s.storeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(raw)
}

// spliceJSON adds the fields of extra to the JSON object of c. Case has its
// own MarshalJSON, so embedding it in a struct would drop the extra fields.
func spliceJSON(c *casebook.Case, extra any) ([]byte, error) {
	a, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(extra)
	if err != nil {
		return nil, err
	}
	if len(b) <= 2 {
		return append(a, '\n'), nil
	}
	out := append(a[:len(a)-1:len(a)-1], ',')
	out = append(out, b[1:]...)
	return append(out, '\n'), nil
}

type editRequest struct {
	Note string      `json:"note"`
	Case *editedCase `json:"case"`
}

// editedCase is a case as a reviewer sends it back. The read-only fields
// that GET /review/drafts/{id} and the edit's own answer add to the record
// are accepted and ignored, so a fetched draft can be edited and sent back
// as it is; any other unknown field is still refused.
type editedCase struct {
	casebook.Case
	SubmissionID json.RawMessage `json:"submission_id,omitempty"`
	Duplicates   json.RawMessage `json:"duplicates,omitempty"`
	Similar      json.RawMessage `json:"similar,omitempty"`
	SourceText   json.RawMessage `json:"source_text,omitempty"`
	Changed      json.RawMessage `json:"changed,omitempty"`
}

// edit is the case inside, nil when none was sent.
func (e *editedCase) edit() *casebook.Case {
	if e == nil {
		return nil
	}
	return &e.Case
}

func (s *Server) editCase(w http.ResponseWriter, r *http.Request) {
	var req editRequest
	if !decodeBody(w, r, &req, false) {
		return
	}
	if req.Case == nil {
		writeError(w, http.StatusBadRequest, "bad_json", "case is required: the whole case as the reviewer wants it")
		return
	}
	e := req.Case.edit()
	if err := checkEdit(e, req.Note); err != nil {
		s.storeError(w, err)
		return
	}
	c, changed, err := s.cfg.Store.EditCase(r.PathValue("id"), reviewerOf(r).Name, req.Note, func(c *casebook.Case) error { return applyEdit(c, e) })
	if err != nil {
		s.storeError(w, err)
		return
	}
	if changed == nil {
		changed = []string{}
	}
	raw, err := spliceJSON(c, map[string]any{"changed": changed})
	if err != nil {
		s.storeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(raw)
}

type mergeRequest struct {
	Into string `json:"into"`
	Note string `json:"note"`
}

func (s *Server) merge(w http.ResponseWriter, r *http.Request) {
	var req mergeRequest
	if !decodeBody(w, r, &req, false) {
		return
	}
	if strings.TrimSpace(req.Into) == "" {
		writeError(w, http.StatusBadRequest, "bad_json", "into is required: the id of the published case that absorbs the draft")
		return
	}
	if err := checkEdit(nil, req.Note); err != nil {
		s.storeError(w, err)
		return
	}
	c, err := s.cfg.Store.Merge(r.PathValue("id"), strings.TrimSpace(req.Into), reviewerOf(r).Name, req.Note)
	if err != nil {
		s.storeError(w, err)
		return
	}
	s.cfg.Log.Info("merged", "draft", r.PathValue("id"), "into", c.ID, "by", reviewerOf(r).Name)
	writeJSON(w, http.StatusOK, c)
}
