package pipelines

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/casebook/casebook/fetch"
)

// WorkerConfig is a stateless stage process: all it keeps is in NATS.
type WorkerConfig struct {
	NATSURL string
	Stages  []string
	Fetch   fetch.Config
	Runner  RunnerConfig
	Log     *slog.Logger
}

// RunWorker runs stage workers until ctx is cancelled, then drains.
func RunWorker(ctx context.Context, cfg WorkerConfig) error {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	bus, err := Connect(ctx, BusConfig{URL: cfg.NATSURL, Name: fmt.Sprintf("casebook-worker-%v", cfg.Stages), Log: cfg.Log})
	if err != nil {
		return err
	}
	defer bus.Close()
	runners, err := BuildRunners(bus, cfg.Stages, nil, cfg.Fetch, cfg.Runner)
	if err != nil {
		return err
	}
	cfg.Log.Info("worker running", "stages", cfg.Stages, "nats", cfg.NATSURL)
	var wg sync.WaitGroup
	errs := make(chan error, len(runners))
	for _, r := range runners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.Run(ctx); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}
