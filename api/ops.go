package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// DeadEntry is one dead letter as the API shows it.
type DeadEntry struct {
	ID           uint64    `json:"id"` // the dead-letter stream sequence
	Stage        string    `json:"stage"`
	SubmissionID string    `json:"submission_id"`
	Error        string    `json:"error"`
	Attempts     int       `json:"attempts"`
	At           time.Time `json:"at"`
}

// DeadLetters is the dead-letter stream; pipelines implements it.
type DeadLetters interface {
	ListDead(ctx context.Context, limit int) ([]DeadEntry, error)
	RetryDead(ctx context.Context, id uint64) (DeadEntry, error)
}

// opsRoutes are the operator endpoints: dead letters and backups.
func (s *Server) opsRoutes() {
	s.mux.HandleFunc("GET /api/v1/review/dead", s.auth(s.listDead))
	s.mux.HandleFunc("POST /api/v1/review/dead/{id}/retry", s.auth(s.retryDead))
	s.mux.HandleFunc("GET /api/v1/review/backup", s.admin(s.backup))
}

func (s *Server) listDead(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Dead == nil {
		writeError(w, http.StatusNotImplemented, "unavailable", "dead letters are not available in this process")
		return
	}
	_, limit, ok := pageParams(w, r)
	if !ok {
		return
	}
	items, err := s.cfg.Dead.ListDead(r.Context(), limit)
	if err != nil {
		s.cfg.Log.Error("list dead letters", "err", err)
		writeError(w, http.StatusBadGateway, "nats", err.Error())
		return
	}
	if items == nil {
		items = []DeadEntry{}
	}
	writeJSON(w, http.StatusOK, list[DeadEntry]{Items: items})
}

func (s *Server) retryDead(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Dead == nil {
		writeError(w, http.StatusNotImplemented, "unavailable", "dead letters are not available in this process")
		return
	}
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad_parameter", "dead-letter id must be a number")
		return
	}
	e, err := s.cfg.Dead.RetryDead(r.Context(), id)
	if err != nil {
		s.storeError(w, err)
		return
	}
	s.cfg.Log.Info("dead letter retried", "id", id, "submission", e.SubmissionID, "by", reviewerOf(r).Name)
	writeJSON(w, http.StatusAccepted, e)
}

// backup streams a consistent copy of the bbolt file (one read transaction:
// writers go on meanwhile).
func (s *Server) backup(w http.ResponseWriter, r *http.Request) {
	// A large store takes longer than the server's write timeout to stream.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="casebook.db"`)
	if _, err := s.cfg.Store.Backup(w, func(size int64) {
		w.Header().Set("X-Casebook-Store-Size", fmt.Sprint(size))
		w.Header().Set("Content-Length", fmt.Sprint(size))
	}); err != nil {
		s.cfg.Log.Error("backup failed midway", "err", err)
	}
}
