package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
)

// Crawler is the crawl scheduler as the API sees it; crawl.Scheduler (pipelines/crawl)
// implements it.
type Crawler interface {
	Sources(ctx context.Context) ([]SourceView, error)
	// Crawl starts a crawl now, or returns the one already running.
	Crawl(ctx context.Context, name string) (*sinks.CrawlRun, error)
}

// SourceView is one source with its crawl history summary.
type SourceView struct {
	Name         string            `json:"name"`
	Kind         string            `json:"kind"`
	URL          string            `json:"url"`
	Interval     string            `json:"interval"`
	Organization string            `json:"organization,omitempty"`
	Language     string            `json:"language,omitempty"`
	Running      bool              `json:"running"`
	State        sinks.SourceState `json:"state"`
}

// CrawlProgress is a run with the live state of its submissions.
type CrawlProgress struct {
	sinks.CrawlRun
	// Done is true once discovery finished and every submission of the run
	// reached drafted, skipped or failed.
	Done    bool `json:"done"`
	Fetched int  `json:"fetched"` // downloaded (extracting, classifying, drafted, or skipped after download)
	Skipped int  `json:"skipped"`
	Failed  int  `json:"failed"`
	Drafted int  `json:"drafted"`
	Pending int  `json:"pending"` // not yet terminal
	// Items lists the run's submissions; a skipped crawled post carries its
	// reason, with the relevance score when the classifier skipped it.
	Items []CrawlItem `json:"items"`
}

// CrawlItem is one submission of a run.
type CrawlItem struct {
	SubmissionID string `json:"submission_id"`
	URL          string `json:"url"`
	State        string `json:"state"`
	Reason       string `json:"reason,omitempty"`
	Error        string `json:"error,omitempty"`
	DraftID      string `json:"draft_id,omitempty"`
}

func (s *Server) sourceRoutes() {
	m := s.mux
	m.HandleFunc("GET /api/v1/sources", s.listSources)
	m.HandleFunc("POST /api/v1/sources/{name}/crawl", s.auth(s.crawlSource))
	m.HandleFunc("GET /api/v1/sources/{name}/crawls", s.listCrawls)
	m.HandleFunc("GET /api/v1/sources/{name}/crawls/latest", s.latestCrawl)
}

func (s *Server) listSources(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r) {
		return
	}
	items := []SourceView{}
	if s.cfg.Crawler != nil {
		var err error
		if items, err = s.cfg.Crawler.Sources(r.Context()); err != nil {
			s.storeError(w, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, list[SourceView]{Items: items})
}

func (s *Server) crawlSource(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Crawler == nil {
		writeError(w, http.StatusNotFound, "not_found", "this server crawls no sources (serve --sources none)")
		return
	}
	run, err := s.cfg.Crawler.Crawl(r.Context(), r.PathValue("name"))
	if err != nil {
		s.storeError(w, err)
		return
	}
	w.Header().Set("Location", "/api/v1/sources/"+run.Source+"/crawls/latest")
	s.cfg.Log.Info("crawl requested", "source", run.Source, "run", run.ID, "by", reviewerOf(r).Name)
	writeJSON(w, http.StatusAccepted, run)
}

func (s *Server) knownSource(w http.ResponseWriter, r *http.Request) bool {
	name := r.PathValue("name")
	if s.cfg.Crawler != nil {
		srcs, err := s.cfg.Crawler.Sources(r.Context())
		if err != nil {
			s.storeError(w, err)
			return false
		}
		for _, v := range srcs {
			if v.Name == name {
				return true
			}
		}
	}
	writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no source named %q", name))
	return false
}

func (s *Server) listCrawls(w http.ResponseWriter, r *http.Request) {
	if !s.knownSource(w, r) {
		return
	}
	runs, err := s.cfg.Store.Runs(r.PathValue("name"), sinks.MaxRunsKept)
	if err != nil {
		s.storeError(w, err)
		return
	}
	if runs == nil {
		runs = []sinks.CrawlRun{}
	}
	writeJSON(w, http.StatusOK, list[sinks.CrawlRun]{Items: runs})
}

func (s *Server) latestCrawl(w http.ResponseWriter, r *http.Request) {
	if !s.knownSource(w, r) {
		return
	}
	run, err := s.cfg.Store.LatestRun(r.PathValue("name"))
	if err != nil {
		s.storeError(w, err)
		return
	}
	p, err := Progress(s.cfg.Store, run)
	if err != nil {
		s.storeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// Progress joins a run with the current state of its submissions.
func Progress(store *sinks.Store, run *sinks.CrawlRun) (*CrawlProgress, error) {
	p := &CrawlProgress{CrawlRun: *run, Items: []CrawlItem{}}
	for _, id := range run.Submissions {
		rec, err := store.GetSubmission(id)
		if errors.Is(err, sinks.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		it := CrawlItem{SubmissionID: id, URL: rec.URL, State: rec.State, Reason: rec.Reason, Error: rec.Error, DraftID: rec.DraftID}
		p.Items = append(p.Items, it)
		switch rec.State {
		case casebook.StateExtracting, casebook.StateClassifying:
			p.Fetched++
			p.Pending++
		case casebook.StateDrafted:
			p.Fetched++
			p.Drafted++
		case casebook.StateSkipped:
			p.Skipped++
			if !strings.Contains(rec.Reason, "robots.txt") { // a robots skip never downloaded the page
				p.Fetched++
			}
		case casebook.StateFailed:
			p.Failed++
		default:
			p.Pending++
		}
	}
	p.Done = run.Outcome != "running" && p.Pending == 0
	return p, nil
}
