package pipelines

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/sinks"
	"github.com/nats-io/nats.go/jetstream"
)

// Submitter turns a URL into a queued submission. The submission is written
// to bbolt first, then the fetch task is published and the record marked
// enqueued; Replay re-publishes what a crash left unmarked, so a submission
// once answered with 202 is never lost.
type Submitter struct {
	Store *sinks.Store
	Bus   *Bus
	Log   *slog.Logger

	// While Run is running, the enqueued marks are coalesced and flushed in
	// one transaction every 100 ms instead of one commit per submission: a
	// mark lost to a crash only means Replay publishes again, which the
	// Nats-Msg-Id makes a no-op.
	mu      sync.Mutex
	running bool
	pending []string
}

// Run flushes coalesced enqueued marks until ctx is cancelled.
func (s *Submitter) Run(ctx context.Context) {
	s.mu.Lock()
	s.running = true
	s.mu.Unlock()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			s.mu.Lock()
			s.running = false
			s.mu.Unlock()
			s.flush()
			return
		case <-t.C:
			s.flush()
		}
	}
}

func (s *Submitter) flush() {
	s.mu.Lock()
	ids := s.pending
	s.pending = nil
	s.mu.Unlock()
	if err := s.Store.MarkEnqueuedMany(ids); err != nil {
		s.Log.Warn("enqueued marks not recorded; Replay will publish again", "err", err, "count", len(ids))
	}
}

func (s *Submitter) markEnqueued(id string) error {
	s.mu.Lock()
	if s.running {
		s.pending = append(s.pending, id)
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	return s.Store.MarkEnqueued(id)
}

// Submit records and enqueues url. existing is true when the same canonical
// URL was already submitted; that submission is returned instead.
func (s *Submitter) Submit(ctx context.Context, rawURL, origin, source string) (sinks.SubmissionRecord, bool, error) {
	canonical, err := fetch.CanonicalURL(rawURL)
	if err != nil {
		return sinks.SubmissionRecord{}, false, casebook.Permanent(fmt.Errorf("bad url: %w", err))
	}
	if origin == "" {
		origin = "manual"
	}
	rec, existing, err := s.Store.CreateSubmission(rawURL, canonical, origin, source)
	if err != nil || existing {
		return rec, existing, err
	}
	if err := s.enqueue(ctx, rec); err != nil {
		// Recorded but not yet enqueued: Replay will publish it.
		s.Log.Warn("submission recorded, publish deferred", "submission", rec.ID, "err", err)
	}
	return rec, false, nil
}

// Redraft puts a skipped crawled post back through the pipeline as a
// reviewer's request (by), so it is drafted, flagged when the gate is unsure,
// instead of skipped again.
func (s *Submitter) Redraft(ctx context.Context, id, by string) (sinks.SubmissionRecord, error) {
	rec, err := s.Store.RedraftSkipped(id, by)
	if err != nil {
		return rec, err
	}
	if err := s.enqueue(ctx, rec); err != nil {
		s.Log.Warn("redraft recorded, publish deferred", "submission", rec.ID, "err", err)
	}
	return rec, nil
}

func (s *Submitter) enqueue(ctx context.Context, rec sinks.SubmissionRecord) error {
	task := FetchTask{SubmissionID: rec.ID, URL: rec.URL, Origin: rec.Origin}
	msgID := rec.ID + ":fetch"
	if rec.Origin == sinks.OriginReview {
		// A second trip through the pipeline: its own Nats-Msg-Id, or
		// JetStream would drop it as a repeat of the first fetch task.
		msgID += ":redraft:" + rec.UpdatedAt
	}
	if err := s.Bus.Publish(ctx, SubjectFetch, msgID, rec.ID, task); err != nil {
		return err
	}
	return s.markEnqueued(rec.ID)
}

// Reconcile re-publishes the fetch task of every submission that has not
// moved since before cutoff. bbolt (fsynced on every commit) is the record of
// what was asked; JetStream is the transport, and with an fsync interval a
// power loss can take its last writes. The stages are idempotent, so a
// re-published task at worst repeats work. The Nats-Msg-Id names the
// submission's last update, so two sweeps of the same stale state publish once.
func (s *Submitter) Reconcile(ctx context.Context, cutoff time.Time) (int, error) {
	stale, err := s.Store.Stale(cutoff)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, rec := range stale {
		task := FetchTask{SubmissionID: rec.ID, URL: rec.URL, Origin: rec.Origin}
		if err := s.Bus.Publish(ctx, SubjectFetch, rec.ID+":fetch:reconcile:"+rec.UpdatedAt, rec.ID, task); err != nil {
			return n, err
		}
		if err := s.Store.Touch(rec.ID); err != nil {
			return n, err
		}
		s.Log.Warn("re-published a stalled submission", "submission", rec.ID, "state", rec.State, "since", rec.UpdatedAt)
		n++
	}
	return n, nil
}

// Replay publishes every recorded submission whose fetch task JetStream never
// acknowledged. Run at start and periodically.
func (s *Submitter) Replay(ctx context.Context) (int, error) {
	pending, err := s.Store.Unenqueued()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, rec := range pending {
		if err := s.enqueue(ctx, rec); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// maxInFlightScan bounds the start-up scan of the work stream; past it the
// periodic Reconcile is left to catch what was lost.
const maxInFlightScan = 100_000

// InFlight names the submissions that have a message in the work stream
// (queued, held by a worker, or deferred for politeness), reading only the
// stream's live messages one by one; ok is false when there were too many
// to look at.
func (b *Bus) InFlight(ctx context.Context) (ids map[string]bool, ok bool, err error) {
	st, err := b.JS.Stream(ctx, StreamWork)
	if err != nil {
		return nil, false, err
	}
	info, err := st.Info(ctx)
	if err != nil {
		return nil, false, err
	}
	ids = map[string]bool{}
	if info.State.Msgs == 0 {
		return ids, true, nil
	}
	if info.State.Msgs > maxInFlightScan {
		return nil, false, nil
	}
	seq := info.State.FirstSeq
	for n := uint64(0); n <= info.State.Msgs; n++ {
		m, err := st.GetMsg(ctx, seq, jetstream.WithGetMsgSubject("casebook.work.>"))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return nil, false, fmt.Errorf("scan %s at %d: %w", StreamWork, seq, err)
		}
		if id := m.Header.Get(HeaderSubmission); id != "" {
			ids[id] = true
		}
		seq = m.Sequence + 1
	}
	return ids, true, nil
}

// ReconcileLost re-publishes at once every unfinished submission that has no
// message in the work stream: what losing the JetStream directory (or a
// power loss inside its fsync interval) leaves behind. Run at start, before
// any worker of this process takes a message; a submission whose message is
// only being handed between stages always has one in the stream (a worker
// publishes its output before it acks its input).
func (s *Submitter) ReconcileLost(ctx context.Context) (int, error) {
	open, err := s.Store.Stale(time.Now().Add(time.Hour))
	if err != nil || len(open) == 0 {
		return 0, err
	}
	live, ok, err := s.Bus.InFlight(ctx)
	if err != nil || !ok {
		return 0, err
	}
	n := 0
	for _, rec := range open {
		if live[rec.ID] {
			continue
		}
		task := FetchTask{SubmissionID: rec.ID, URL: rec.URL, Origin: rec.Origin}
		if err := s.Bus.Publish(ctx, SubjectFetch, rec.ID+":fetch:lost:"+rec.UpdatedAt, rec.ID, task); err != nil {
			return n, err
		}
		if err := s.Store.Touch(rec.ID); err != nil {
			return n, err
		}
		n++
	}
	if n > 0 {
		s.Log.Warn("re-published unfinished submissions the work stream had lost", "count", n, "unfinished", len(open))
	}
	return n, nil
}
