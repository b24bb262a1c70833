package pipelines

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/casebook/casebook/sinks"
	"github.com/nats-io/nats.go"
)

// ProgressRecorder subscribes to the core-NATS progress events and writes
// them to the store coalesced: the latest state per submission, flushed in one
// transaction every interval, so progress costs one fsync per interval, not
// one per event.
type ProgressRecorder struct {
	bus      *Bus
	store    *sinks.Store
	log      *slog.Logger
	interval time.Duration

	mu      sync.Mutex
	pending map[string]string
	retries map[string]sinks.Retry // failed tries to show, newest per submission
}

// NewProgressRecorder builds a recorder flushing every interval (default 200 ms).
func NewProgressRecorder(bus *Bus, store *sinks.Store, log *slog.Logger, interval time.Duration) *ProgressRecorder {
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	return &ProgressRecorder{bus: bus, store: store, log: log, interval: interval, pending: map[string]string{}, retries: map[string]sinks.Retry{}}
}

// Run records until ctx is cancelled, then flushes what it holds.
func (p *ProgressRecorder) Run(ctx context.Context) error {
	sub, err := p.bus.NC.Subscribe(SubjectProgress+">", func(m *nats.Msg) {
		var ev Event
		if json.Unmarshal(m.Data, &ev) != nil || ev.SubmissionID == "" {
			return
		}
		p.mu.Lock()
		if ev.Attempt > 0 {
			p.retries[ev.SubmissionID] = sinks.Retry{State: ev.State, Attempts: ev.Attempt, Error: ev.Error}
		} else if stateRank(ev.State) > stateRank(p.pending[ev.SubmissionID]) {
			p.pending[ev.SubmissionID] = ev.State
		}
		p.mu.Unlock()
	})
	if err != nil {
		return err
	}
	_ = sub.SetPendingLimits(1<<20, 256<<20)
	defer sub.Unsubscribe()
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			p.flush()
			return nil
		case <-t.C:
			p.flush()
		}
	}
}

func (p *ProgressRecorder) flush() {
	p.mu.Lock()
	batch, retries := p.pending, p.retries
	p.pending, p.retries = map[string]string{}, map[string]sinks.Retry{}
	p.mu.Unlock()
	if err := p.store.ProgressMany(batch); err != nil {
		p.log.Warn("progress not recorded", "err", err, "count", len(batch))
	}
	if err := p.store.RecordRetries(retries); err != nil {
		p.log.Warn("retries not recorded", "err", err, "count", len(retries))
	}
}

var progressOrder = map[string]int{"fetching": 1, "extracting": 2, "classifying": 3}

func stateRank(s string) int { return progressOrder[s] }
