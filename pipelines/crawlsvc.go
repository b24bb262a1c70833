package pipelines

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/casebook/casebook/api"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/sinks"
	"github.com/nats-io/nats.go"
)

// startCrawl runs the store process's share of crawling: it publishes the
// politeness policy for every worker, answers seen-set claims from fetch
// workers, and runs the scheduler when there are sources.
func (s *Service) startCrawl(ctx context.Context) error {
	if err := PublishPoliteness(ctx, s.Bus.JS, s.cfg.Politeness); err != nil {
		return err
	}
	if _, err := ServeSeen(s.Bus.NC, s.Store); err != nil {
		return err
	}
	if len(s.cfg.Sources) == 0 {
		return nil
	}
	f, err := fetch.New(s.cfg.Fetch)
	if err != nil {
		return err
	}
	pf, err := NewPoliteFetcher(ctx, s.Bus, f)
	if err != nil {
		return err
	}
	sched, err := NewScheduler(SchedulerConfig{Metrics: s.Metrics, Sources: s.cfg.Sources, Store: s.Store,
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

// ServeSeen answers casebook.seen.claim requests from fetch workers with the
// bbolt seen-set. Only the store process runs it.
// Claims are answered concurrently (up to 64 at once) so bbolt's Batch
// coalesces them into few transactions; one at a time, each would wait
// out the batch delay alone.
func ServeSeen(nc *nats.Conn, store *sinks.Store) (*nats.Subscription, error) {
	sem := make(chan struct{}, 64)
	sub, err := nc.QueueSubscribe(SubjectSeenClaim, "seen", func(m *nats.Msg) {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			var c SeenClaim
			if err := json.Unmarshal(m.Data, &c); err != nil {
				c.Error = "bad claim: " + err.Error()
			} else if dup, err := store.ClaimContent(c.SHA256, c.URL, c.Source, c.SubmissionID); err != nil {
				c.Error = err.Error()
			} else if dup != nil {
				c.Duplicate = dup.URL
			}
			raw, _ := json.Marshal(c)
			_ = m.Respond(raw)
		}()
	})
	if err != nil {
		return nil, fmt.Errorf("subscribe %s: %w", SubjectSeenClaim, err)
	}
	return sub, nil
}
