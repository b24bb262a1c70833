package pipelines

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/extract"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines/crawl"
	"github.com/casebook/casebook/sinks"
	"github.com/nats-io/nats.go/jetstream"
)

// WireFetch consumes casebook.work.fetch: fetch, store the body in the object
// store, publish a PageRef to casebook.work.extract.
//
// Politeness waits never burn delivery attempts: a short wait for the host
// happens in the handler (the runner keeps the message alive with
// InProgress); a longer one hands the message back (Nak with a delay) to
// come again just before its host's turn, and the runner counts that
// delivery as a deferral, not an attempt. The message keeps its place: its
// stream sequence is its ticket in the host's queue (crawl.WithTicket), so
// the host serves its fetches oldest first across every worker.
func WireFetch(bus *Bus, st Stage[FetchTask, *fetch.Page], cfg RunnerConfig) *Runner {
	cfg.defaults()
	waiter, _ := st.(interface {
		MaxPoliteWait(context.Context) time.Duration
	})
	r := newRunner(bus, StageFetch, cfg, func(ctx context.Context, m *message) error {
		var task FetchTask
		if err := m.Decode(ctx, &task); err != nil {
			return err
		}
		// A copy re-published by an earlier casebook to wait for its host
		// carries its attempts so far and its not-before time.
		h := m.msg.Headers()
		prior, _ := strconv.Atoi(h.Get(headerPriorAttempts))
		failed := prior + m.Attempt - 1 // failed deliveries of every copy so far
		if prior > 0 && failed >= cfg.MaxAttempts {
			return &exhaustedError{err: fmt.Errorf("gave up after %d attempts: %s", failed, h.Get(headerLastError)), attempts: failed}
		}
		maxWait := crawl.DefaultMaxWait
		if waiter != nil {
			maxWait = waiter.MaxPoliteWait(ctx)
		}
		if nb, err := time.Parse(time.RFC3339Nano, h.Get(headerNotBefore)); err == nil {
			if wait := time.Until(nb); wait > maxWait {
				return &deferredError{until: nb, lead: maxWait / 2, cause: fmt.Errorf("not before %s", nb.UTC().Format(time.RFC3339Nano))}
			} else if err := sleepCtx(ctx, wait); err != nil {
				return err
			}
		}
		_ = bus.Emit(ctx, Event{SubmissionID: task.SubmissionID, Stage: StageFetch, State: casebook.StateFetching})
		tctx, timer := crawl.WithFetchTimer(crawl.WithTicket(ctx, fmt.Sprintf("m%d", m.Seq), m.Seq))
		page, err := st.Process(tctx, task)
		host := hostOf(task.URL)
		if timer.Done {
			cfg.Metrics.ObserveFetchTime(host, timer.D)
		}
		var de *crawl.DeferError
		if errors.As(err, &de) {
			cfg.Metrics.ObserveFetch(host, "deferred")
			return &deferredError{until: de.Until, lead: maxWait / 2, cause: de}
		}
		if err != nil {
			cfg.Metrics.ObserveFetch(host, fetchOutcome(err))
			var fe *fetch.Error
			if errors.As(err, &fe) && fe.Kind == fetch.KindStalled && failed >= 1 {
				// A server that stalls again is not going to get faster:
				// stop instead of holding a worker for the other attempts.
				return casebook.Permanent(fmt.Errorf("stalled again on attempt %d: %w", failed+1, err))
			}
			return err
		}
		cfg.Metrics.ObserveFetch(host, "ok")
		key := "page/" + page.RawSHA256
		if err := bus.PutBody(ctx, key, page.Body); err != nil {
			return fmt.Errorf("store page body: %w", err)
		}
		ref := PageRef{
			SubmissionID: task.SubmissionID, Origin: task.Origin, RequestURL: task.URL, URL: page.URL,
			ContentType: page.ContentType, Charset: page.Charset, SHA256: page.RawSHA256, Key: key,
			Size: len(page.Body), FetchedAt: page.FetchedAt,
		}
		return bus.Publish(ctx, SubjectExtract, stageMsgID(task.SubmissionID, "extract", task.Origin), task.SubmissionID, ref)
	})
	r.countDeferrals = true
	return r
}

// Headers of a fetch task re-published by an earlier casebook to wait for
// its host; still read so such copies keep their attempts.
const (
	headerNotBefore     = "Casebook-Not-Before" // RFC 3339 time the host is free again
	headerPriorAttempts = "Casebook-Prior-Attempts"
	headerLastError     = "Casebook-Last-Error"
)

func fetchOutcome(err error) string {
	if _, ok := casebook.AsSkip(err); ok {
		return "skipped"
	}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return string(fe.Kind)
	}
	return "error"
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// WireExtract consumes casebook.work.extract: load the body, extract the
// document, publish a DocTask to casebook.work.classify.
func WireExtract(bus *Bus, st Stage[ExtractInput, *extract.Document], cfg RunnerConfig) *Runner {
	return newRunner(bus, StageExtract, cfg, func(ctx context.Context, m *message) error {
		var ref PageRef
		if err := m.Decode(ctx, &ref); err != nil {
			return err
		}
		_ = bus.Emit(ctx, Event{SubmissionID: ref.SubmissionID, Stage: StageExtract, State: casebook.StateExtracting})
		body, err := bus.GetBody(ctx, ref.Key)
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			// On a cluster the object store may be read from a replica that
			// has not caught up with the fetch worker's write yet: retry a few
			// times before concluding the body is gone (expired after 7 days).
			if m.Attempt < 3 {
				return fmt.Errorf("page body %s not visible yet: %w", ref.Key, err)
			}
			return casebook.Permanent(fmt.Errorf("page body %s is not in the object store (expired?): %w", ref.Key, err))
		}
		if err != nil {
			return fmt.Errorf("load page body: %w", err)
		}
		doc, err := st.Process(ctx, ExtractInput{Page: ref, Body: body})
		if err != nil {
			return err
		}
		return bus.Publish(ctx, SubjectClassify, stageMsgID(ref.SubmissionID, "classify", ref.Origin), ref.SubmissionID, DocTask{Page: ref, Doc: doc})
	})
}

// WireClassify consumes casebook.work.classify and publishes SinkTasks.
func WireClassify(bus *Bus, st Stage[DocTask, *SinkTask], cfg RunnerConfig) *Runner {
	return newRunner(bus, StageClassify, cfg, func(ctx context.Context, m *message) error {
		var task DocTask
		if err := m.Decode(ctx, &task); err != nil {
			return err
		}
		_ = bus.Emit(ctx, Event{SubmissionID: task.Page.SubmissionID, Stage: StageClassify, State: casebook.StateClassifying})
		out, err := st.Process(ctx, task)
		if err != nil {
			return err
		}
		return bus.Publish(ctx, SubjectSink, stageMsgID(task.Page.SubmissionID, "sink", task.Page.Origin), task.Page.SubmissionID, out)
	})
}

// WireSink consumes casebook.work.sink in the store process. The message is
// acked only after the bbolt transaction committed.
func WireSink(bus *Bus, st Stage[SinkTask, sinks.DraftResult], cfg RunnerConfig) *Runner {
	return newRunner(bus, StageSink, cfg, func(ctx context.Context, m *message) error {
		var task SinkTask
		if err := m.Decode(ctx, &task); err != nil {
			return err
		}
		_, err := st.Process(ctx, task)
		return err
	})
}

// WireRecorder consumes progress events in the store process and records
// them on the submissions.
func WireRecorder(bus *Bus, store *sinks.Store, cfg RunnerConfig) *Runner {
	return newRunner(bus, ConsumerEvent, cfg, func(ctx context.Context, m *message) error {
		var ev Event
		if err := m.Decode(ctx, &ev); err != nil {
			return err
		}
		var err error
		if ev.State == casebook.StateSkipped && (ev.Scored || ev.Score != 0) {
			err = store.ProgressSkipped(ev.SubmissionID, ev.Reason, ev.Score)
		} else {
			err = store.Progress(ev.SubmissionID, ev.State, ev.Reason, ev.Error, "")
		}
		if errors.Is(err, sinks.ErrNotFound) {
			// An event for a submission this store never had (another
			// deployment's stream, or a wiped store): nothing to record.
			return nil
		}
		return err
	})
}

// stageMsgID is the Nats-Msg-Id of a submission's task for the next stage.
// A post a reviewer drafts from the skipped list makes a second trip, which
// JetStream would drop as a repeat of the first within its duplicate window.
func stageMsgID(submissionID, stage, origin string) string {
	id := submissionID + ":" + stage
	if origin == sinks.OriginReview {
		id += ":" + sinks.OriginReview
	}
	return id
}
