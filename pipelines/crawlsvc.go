package pipelines

import (
	"context"

	"github.com/casebook/casebook/api"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines/crawl"
)

// startCrawl runs the store process's share of crawling: it publishes the
// politeness policy for every worker, answers seen-set claims from fetch
// workers, and runs the scheduler when there are sources.
func (s *Service) startCrawl(ctx context.Context) error {
	if err := crawl.PublishPoliteness(ctx, s.Bus.JS, s.cfg.Politeness); err != nil {
		return err
	}
	if _, err := crawl.ServeSeen(s.Bus.NC, s.Store); err != nil {
		return err
	}
	if len(s.cfg.Sources) == 0 {
		return nil
	}
	f, err := fetch.New(s.cfg.Fetch)
	if err != nil {
		return err
	}
	pf, err := crawl.NewPoliteFetcher(ctx, s.Bus.JS, f)
	if err != nil {
		return err
	}
	sched, err := crawl.NewScheduler(crawl.SchedulerConfig{Metrics: s.Metrics, Sources: s.cfg.Sources, Store: s.Store,
		Submitter: s.Submitter, Fetch: pf, Log: s.cfg.Log})
	if err != nil {
		return err
	}
	s.Scheduler = sched
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = sched.Run(ctx)
	}()
	s.cfg.Log.Info("crawl scheduler running", "sources", len(s.cfg.Sources))
	return nil
}

// crawler is the scheduler for the API, nil (not a nil pointer in an
// interface) when there is none.
func (s *Service) crawler() api.Crawler {
	if s.Scheduler == nil {
		return nil
	}
	return s.Scheduler
}
