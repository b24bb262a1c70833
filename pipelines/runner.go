package pipelines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
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
	Attempt      int
	bus          *Bus
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
	iter, err := cons.Messages(jetstream.PullMaxMessages(r.cfg.Concurrency))
	if err != nil {
		return fmt.Errorf("%s messages: %w", r.stage, err)
	}
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			iter.Drain()
		case <-stopped:
			iter.Stop()
		}
	}()
	failures := 0
	for {
		// Take a handler slot first, so a message is never pulled only to
		// wait here while its ack timer runs.
		sem <- struct{}{}
		msg, err := iter.Next()
		if err != nil {
			<-sem
			if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			if failures++; failures > 20 {
				return fmt.Errorf("pull keeps failing: %w", err)
			}
			r.cfg.Log.Warn("pull failed", "stage", r.stage, "err", err)
			time.Sleep(200 * time.Millisecond)
			continue
		}
		failures = 0
		if ctx.Err() != nil {
			// Pulled but not started when the stop came: hand it back so
			// another worker (or the next start) takes it soon rather than
			// after the ack wait. Not at once: the draining pull can be
			// handed the same message again, and each round trip counts as
			// a delivery, so an immediate Nak could spend every attempt in a
			// loop during the stop (a fetch was dead-lettered after 24
			// deliveries across one restart).
			_ = msg.NakWithDelay(time.Second)
			<-sem
			continue
		}
		r.wg.Add(1)
		go func() {
			defer func() { <-sem; r.wg.Done() }()
			// Handlers get a context that outlives the stop signal, so an
			// in-flight message finishes and is acked instead of redelivered.
			r.handle(context.WithoutCancel(ctx), msg)
		}()
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
	m := &message{msg: msg, SubmissionID: msg.Headers().Get(HeaderSubmission), Attempt: int(meta.NumDelivered), bus: r.bus}
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
	var ex *exhaustedError
	if errors.As(err, &ex) {
		m.Attempt = ex.attempts
		r.deadLetter(ctx, m, ex.err)
		return "dead"
	}
	if skip, ok := casebook.AsSkip(err); ok {
		if e := r.bus.Emit(ctx, Event{SubmissionID: m.SubmissionID, Stage: r.stage, State: casebook.StateSkipped, Reason: skip.Reason, Score: skip.Score}); e != nil {
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
