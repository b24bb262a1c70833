package pipelines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/casebook/casebook"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// MaxInline is the largest payload sent inside a message; larger ones go to
// the object store and travel by reference (NATS's default limit is 1 MB).
const MaxInline = 512 << 10

// RunnerConfig tunes how a stage consumes.
type RunnerConfig struct {
	Concurrency int // handlers running at once; default 4
	MaxAttempts int // deliveries before a message is dead-lettered; default 5
	// Backoff gives the redelivery delay after a transient failure.
	Backoff func(attempt int) time.Duration
	Log     *slog.Logger
	Metrics *Metrics
}

func (c *RunnerConfig) defaults() {
	if c.Concurrency <= 0 {
		c.Concurrency = 4
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 5
	}
	if c.Backoff == nil {
		c.Backoff = func(attempt int) time.Duration {
			return min(time.Duration(1<<min(attempt, 10))*500*time.Millisecond, 2*time.Minute)
		}
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
}

// handler processes one decoded message. It returns nil once its output is
// durable; a SkipError or PermanentError ends the submission; anything else
// is transient and redelivered.
type handler func(ctx context.Context, m *message) error

// message is what a handler sees: the raw message plus helpers.
type message struct {
	msg          jetstream.Msg
	SubmissionID string
	// Attempt counts deliveries, less those spent waiting for politeness.
	Attempt int
	Seq     uint64 // work-stream sequence: the same on every delivery
	// Deferrals is how many earlier deliveries were politeness deferrals.
	Deferrals int
	bus       *Bus
}

// Decode reads the payload into v, fetching it from the object store when it
// travelled by reference.
func (m *message) Decode(ctx context.Context, v any) error {
	data := m.msg.Data()
	if key := m.msg.Headers().Get(HeaderBlob); key != "" {
		var err error
		if data, err = m.bus.Pages.GetBytes(ctx, key); err != nil {
			return fmt.Errorf("load payload %s: %w", key, err)
		}
	}
	if err := json.Unmarshal(data, v); err != nil {
		return casebook.Permanent(fmt.Errorf("decode %s payload: %w", m.msg.Subject(), err))
	}
	return nil
}

// Publish sends v to subject with a Nats-Msg-Id so retries are no-ops, and
// waits for JetStream's acknowledgement.
func (b *Bus) Publish(ctx context.Context, subject, msgID, submissionID string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", subject, err)
	}
	msg := nats.NewMsg(subject)
	msg.Header.Set(HeaderSubmission, submissionID)
	if len(data) > MaxInline {
		key := "blob/" + msgID
		if _, err := b.Pages.PutBytes(ctx, key, data); err != nil {
			return fmt.Errorf("store payload %s: %w", key, err)
		}
		msg.Header.Set(HeaderBlob, key)
		data = nil
	}
	msg.Data = data
	if _, err := b.JS.PublishMsg(ctx, msg, jetstream.WithMsgID(msgID)); err != nil {
		return fmt.Errorf("publish %s: %w", subject, err)
	}
	return nil
}

// Emit publishes a progress event. Terminal events are awaited; progress
// ones are fire-and-forget since losing one only delays what the status shows.
func (b *Bus) Emit(ctx context.Context, ev Event) error {
	ev.At = time.Now().UTC()
	subject := fmt.Sprintf("casebook.event.%s.%s", ev.SubmissionID, ev.State)
	msgID := ev.SubmissionID + ":" + ev.Stage + ":" + ev.State
	switch ev.State {
	case casebook.StateSkipped, casebook.StateFailed, casebook.StateDrafted:
		return b.Publish(ctx, subject, msgID, ev.SubmissionID, ev)
	}
	// Progress (fetching, extracting, classifying) is cosmetic: it goes over
	// core NATS, not JetStream, so it costs no stream write or fsync. A lost
	// one only delays what the status shows until the next state arrives.
	data, _ := json.Marshal(ev)
	return b.NC.Publish(fmt.Sprintf("%s%s.%s", SubjectProgress, ev.SubmissionID, ev.State), data)
}

// Runner consumes one stage's durable consumer.
type Runner struct {
	bus   *Bus
	stage string
	cfg   RunnerConfig
	h     handler
	wg    sync.WaitGroup
	// countDeferrals: the handler may return a *deferredError, and such
	// deliveries are not attempts (the fetch stage).
	countDeferrals bool
}

func newRunner(bus *Bus, stage string, cfg RunnerConfig, h handler) *Runner {
	cfg.defaults()
	return &Runner{bus: bus, stage: stage, cfg: cfg, h: h}
}

// Run consumes until ctx is cancelled, then waits for in-flight handlers:
// they finish and ack, so a graceful stop loses and repeats nothing. If the
// subscription breaks (a NATS server restarted, a consumer leader moved), it
// subscribes again rather than letting the worker go idle.
func (r *Runner) Run(ctx context.Context) error {
	defer r.wg.Wait()
	sem := make(chan struct{}, r.cfg.Concurrency)
	for ctx.Err() == nil {
		if err := r.consume(ctx, sem); err != nil {
			r.cfg.Log.Warn("consumer subscription ended; subscribing again", "stage", r.stage, "err", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
	return nil
}

// pullWait bounds one pull request: an idle stage asks again this often,
// and a stopping runner waits at most this long for its last pull to end.
const pullWait = time.Second

// consume pulls exactly as many messages as there are free handlers, each
// pull a Fetch of its own with a bounded expiry, so nothing is ever held in
// a client-side buffer. The Messages iterator it replaces kept a channel of
// PullMaxMessages for messages and status replies alike and asked for more
// whenever it ran below half, free handlers or not: messages waited there
// with their ack timers running, and when heartbeats, a reconnect's second
// pull or redeliveries overflowed the channel, nats.go dropped them ("slow
// consumer, messages dropped"), to come back only after the ack wait.
func (r *Runner) consume(ctx context.Context, sem chan struct{}) error {
	stream := StreamWork
	if r.stage == ConsumerEvent {
		stream = StreamEvents
	}
	var cons jetstream.Consumer
	err := retry(ctx, func() error {
		var err error
		cons, err = r.bus.JS.Consumer(ctx, stream, r.stage)
		return err
	})
	if err != nil {
		return fmt.Errorf("%s consumer: %w", r.stage, err)
	}
	// Pulls end on their own (filled or expired); a stop waits for them and
	// handles what they bring rather than leaving it to the ack wait.
	var pulls sync.WaitGroup
	defer pulls.Wait()
	var failures atomic.Int32
	// lastErr holds the latest failed pull's error, boxed: atomic.Value
	// panics when one Store's concrete type differs from the first's, and
	// pull errors come in several types.
	var lastErr atomic.Value
	for {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		n := 1
	more:
		for n < r.cfg.Concurrency {
			select {
			case sem <- struct{}{}:
				n++
			default:
				break more
			}
		}
		if ctx.Err() != nil {
			release(sem, n)
			return nil
		}
		batch, err := cons.Fetch(n, jetstream.FetchMaxWait(pullWait))
		if err == nil {
			failures.Store(0)
			pulls.Add(1)
			// The batch is read in its own goroutine so that handlers
			// freed meanwhile start pulls of their own at once.
			go func() {
				defer pulls.Done()
				got := 0
				for msg := range batch.Messages() {
					got++
					r.wg.Add(1)
					go func() {
						defer func() { <-sem; r.wg.Done() }()
						// Handlers get a context that outlives the stop signal, so an
						// in-flight message finishes and is acked instead of redelivered.
						r.handle(context.WithoutCancel(ctx), msg)
					}()
				}
				release(sem, n-got)
				if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.Canceled) {
					failures.Add(1)
					lastErr.Store(pullError{err})
					r.cfg.Log.Warn("pull ended with an error", "stage", r.stage, "err", err)
				}
			}()
		} else {
			release(sem, n)
			failures.Add(1)
			lastErr.Store(pullError{err})
			r.cfg.Log.Warn("pull failed", "stage", r.stage, "err", err)
		}
		if f := failures.Load(); f > 20 {
			box, _ := lastErr.Load().(pullError)
			err := box.err
			return fmt.Errorf("pull keeps failing: %w", err)
		} else if f > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
}

// release frees n handler slots.
func release(sem chan struct{}, n int) {
	for range n {
		<-sem
	}
}

func (r *Runner) handle(ctx context.Context, msg jetstream.Msg) {
	start := time.Now()
	meta, err := msg.Metadata()
	if err != nil {
		r.cfg.Log.Error("message without metadata", "stage", r.stage, "err", err)
		_ = msg.Term()
		return
	}
	m := &message{msg: msg, SubmissionID: msg.Headers().Get(HeaderSubmission), Attempt: int(meta.NumDelivered),
		Seq: meta.Sequence.Stream, bus: r.bus}
	if r.countDeferrals && m.Attempt > 1 {
		n, err := r.bus.deferrals(ctx, m)
		if err != nil {
			// Without the count every wait would pass for a failure.
			r.cfg.Log.Warn("deferral count unreadable; trying again shortly", "stage", r.stage, "submission", m.SubmissionID, "err", err)
			_ = msg.NakWithDelay(time.Second)
			return
		}
		m.Deferrals = n
		m.Attempt = max(m.Attempt-n, 1)
	}
	if m.Attempt > r.cfg.MaxAttempts {
		// Every earlier attempt crashed or timed out without an answer: do not
		// run it again (it may be what crashes the worker), dead-letter it.
		r.deadLetter(ctx, m, fmt.Errorf("gave up after %d deliveries without an answer (worker crashed or timed out)", m.Attempt-1))
		return
	}
	stop := r.keepAlive(msg)
	err = r.safeHandle(ctx, m)
	stop()
	outcome := r.settle(ctx, m, err)
	if m.Deferrals > 0 && outcome != "deferred" && outcome != "retry" {
		r.bus.forgetDeferrals(m)
	}
	r.cfg.Metrics.observe(r.stage, outcome, time.Since(start))
}

// keepAlive tells JetStream the message is still being worked on, so a long
// fetch is not redelivered to another worker meanwhile.
func (r *Runner) keepAlive(msg jetstream.Msg) func() {
	done := make(chan struct{})
	go func() {
		every := ackWait[r.stage] / 3
		if every <= 0 {
			every = 10 * time.Second
		}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	}()
	return func() { close(done) }
}

// safeHandle turns a panic into an error: a poison page must not take the
// worker down with it.
func (r *Runner) safeHandle(ctx context.Context, m *message) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.cfg.Log.Error("stage panicked", "stage", r.stage, "submission", m.SubmissionID, "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic in %s stage: %v", r.stage, p)
		}
	}()
	return r.h(ctx, m)
}

func (r *Runner) settle(ctx context.Context, m *message, err error) string {
	log := r.cfg.Log.With("stage", r.stage, "submission", m.SubmissionID, "attempt", m.Attempt)
	if err == nil {
		r.ack(m)
		return "ok"
	}
	var de *deferredError
	if errors.As(err, &de) {
		// Waiting for the host is no failure: the delivery is counted as a
		// deferral first, then the message goes back to come again shortly
		// before its turn, keeping its place in the stream and the host's queue.
		if e := r.bus.countDeferral(ctx, m); e != nil {
			log.Warn("deferral not counted; it will count as an attempt", "err", e)
		}
		_ = m.msg.NakWithDelay(de.delay())
		return "deferred"
	}
	var ex *exhaustedError
	if errors.As(err, &ex) {
		m.Attempt = ex.attempts
		r.deadLetter(ctx, m, ex.err)
		return "dead"
	}
	if skip, ok := casebook.AsSkip(err); ok {
		if e := r.bus.Emit(ctx, Event{SubmissionID: m.SubmissionID, Stage: r.stage, State: casebook.StateSkipped, Reason: skip.Reason, Score: skip.Score, Scored: skip.Scored}); e != nil {
			log.Warn("skip event not published; will retry", "err", e)
			_ = m.msg.NakWithDelay(time.Second)
			return "retry"
		}
		log.Info("skipped", "reason", skip.Reason)
		r.ack(m)
		return "skipped"
	}
	if casebook.IsPermanent(err) {
		if e := r.bus.Emit(ctx, Event{SubmissionID: m.SubmissionID, Stage: r.stage, State: casebook.StateFailed, Error: err.Error()}); e != nil {
			log.Warn("failure event not published; will retry", "err", e)
			_ = m.msg.NakWithDelay(time.Second)
			return "retry"
		}
		log.Info("failed", "err", err)
		r.ack(m)
		return "failed"
	}
	if m.Attempt >= r.cfg.MaxAttempts {
		r.deadLetter(ctx, m, err)
		return "dead"
	}
	delay := r.cfg.Backoff(m.Attempt)
	log.Warn("transient error; redelivering", "err", err, "delay", delay)
	if st := stageState[r.stage]; st != "" {
		// Shown on the submission while it is retried (best effort, core NATS).
		_ = r.bus.Emit(ctx, Event{SubmissionID: m.SubmissionID, Stage: r.stage, State: st, Error: err.Error(), Attempt: m.Attempt})
	}
	_ = m.msg.NakWithDelay(delay)
	return "retry"
}

// stageState is the submission state a stage's work shows as.
var stageState = map[string]string{
	StageFetch: casebook.StateFetching, StageExtract: casebook.StateExtracting, StageClassify: casebook.StateClassifying,
}

// deferredError is a handler's verdict that the message must wait until
// until (its host's turn); it comes back lead before it and waits the rest
// in the handler.
type deferredError struct {
	until time.Time
	lead  time.Duration
	cause error
}

func (e *deferredError) Error() string { return "deferred: " + e.cause.Error() }
func (e *deferredError) Unwrap() error { return e.cause }

func (e *deferredError) delay() time.Duration {
	return max(time.Until(e.until)-e.lead, 50*time.Millisecond)
}

// deferralRecord is a message's entry in DeferralsBucket.
type deferralRecord struct {
	SubmissionID string `json:"submission_id"`
	N            int    `json:"n"`
}

func deferralKey(seq uint64) string { return fmt.Sprintf("m%d", seq) }

// deferrals reads how many of m's deliveries were deferrals. An entry of
// another submission (a work stream recreated, its sequences reused) is
// not m's.
func (b *Bus) deferrals(ctx context.Context, m *message) (int, error) {
	e, err := b.Deferrals.Get(ctx, deferralKey(m.Seq))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("deferrals of %s: %w", m.SubmissionID, err)
	}
	var rec deferralRecord
	if json.Unmarshal(e.Value(), &rec) != nil || rec.SubmissionID != m.SubmissionID {
		return 0, nil
	}
	return rec.N, nil
}

func (b *Bus) countDeferral(ctx context.Context, m *message) error {
	raw, _ := json.Marshal(deferralRecord{SubmissionID: m.SubmissionID, N: m.Deferrals + 1})
	if _, err := b.Deferrals.Put(ctx, deferralKey(m.Seq), raw); err != nil {
		return fmt.Errorf("count deferral of %s: %w", m.SubmissionID, err)
	}
	return nil
}

// forgetDeferrals drops a finished message's count (the bucket's TTL
// catches any missed).
func (b *Bus) forgetDeferrals(m *message) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.Deferrals.Delete(ctx, deferralKey(m.Seq))
}

// exhaustedError is a handler's verdict that a message has used up its
// attempts across re-published copies (a deferred fetch starts a new
// delivery count); it is dead-lettered like one that ran out of deliveries.
type exhaustedError struct {
	err      error
	attempts int
}

func (e *exhaustedError) Error() string { return e.err.Error() }
func (e *exhaustedError) Unwrap() error { return e.err }

func (r *Runner) ack(m *message) {
	// DoubleAck waits for the server to confirm, so a lost ack does not
	// silently turn into a redelivery we did not expect.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.msg.DoubleAck(ctx); err != nil {
		r.cfg.Log.Warn("ack failed; message will be redelivered and replayed idempotently", "stage", r.stage, "err", err)
	}
}

func (r *Runner) deadLetter(ctx context.Context, m *message, cause error) {
	dl := DeadLetter{
		Stage: r.stage, Subject: m.msg.Subject(), SubmissionID: m.SubmissionID,
		Error: cause.Error(), Attempts: m.Attempt, Payload: m.msg.Data(),
		Blob: m.msg.Headers().Get(HeaderBlob), At: time.Now().UTC(),
	}
	meta, _ := m.msg.Metadata()
	id := fmt.Sprintf("%s:dead:%s", m.SubmissionID, r.stage)
	if meta != nil {
		id = fmt.Sprintf("%s:dead:%s:%d", m.SubmissionID, r.stage, meta.Sequence.Stream)
	}
	if err := r.bus.Publish(ctx, SubjectDead+r.stage, id, m.SubmissionID, dl); err != nil {
		r.cfg.Log.Error("dead letter not published; redelivering", "stage", r.stage, "err", err)
		_ = m.msg.NakWithDelay(5 * time.Second)
		return
	}
	if m.SubmissionID != "" && r.stage != ConsumerEvent {
		_ = r.bus.Emit(ctx, Event{SubmissionID: m.SubmissionID, Stage: r.stage, State: casebook.StateFailed,
			Error: fmt.Sprintf("dead-lettered by %s after %d attempts: %v", r.stage, m.Attempt, cause)})
	}
	r.cfg.Log.Error("dead-lettered", "stage", r.stage, "submission", m.SubmissionID, "attempts", m.Attempt, "err", cause)
	_ = m.msg.Term()
}

// pullError boxes a pull's error so that every Store into an atomic.Value
// has one concrete type.
type pullError struct{ err error }
