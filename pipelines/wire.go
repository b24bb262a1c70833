package pipelines

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/extract"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines/crawl"
	"github.com/casebook/casebook/sinks"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// WireFetch consumes casebook.work.fetch: fetch, store the body in the object
// store, publish a PageRef to casebook.work.extract.
//
// Politeness waits never burn delivery attempts: a short wait for the host
// happens in the handler (the runner keeps the message alive with
// InProgress); a longer one re-publishes the task with a not-before time
// and acknowledges this copy, carrying the count of failed attempts along
// so a host that keeps answering 429 still ends the submission.
func WireFetch(bus *Bus, st Stage[FetchTask, *fetch.Page], cfg RunnerConfig) *Runner {
	cfg.defaults()
	waiter, _ := st.(interface {
		MaxPoliteWait(context.Context) time.Duration
	})
	return newRunner(bus, StageFetch, cfg, func(ctx context.Context, m *message) error {
		var task FetchTask
		if err := m.Decode(ctx, &task); err != nil {
			return err
		}
		h := m.msg.Headers()
		prior, _ := strconv.Atoi(h.Get(headerPriorAttempts))
		defers, _ := strconv.Atoi(h.Get(headerDefers))
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
				return requeueFetch(ctx, bus, m, nb, maxWait, failed, defers, h.Get(headerLastError))
			} else if err := sleepCtx(ctx, wait); err != nil {
				return err
			}
		}
		_ = bus.Emit(ctx, Event{SubmissionID: task.SubmissionID, Stage: StageFetch, State: casebook.StateFetching})
		tctx, timer := crawl.WithFetchTimer(ctx)
		page, err := st.Process(tctx, task)
		host := hostOf(task.URL)
		if timer.Done {
			cfg.Metrics.ObserveFetchTime(host, timer.D)
		}
		var de *crawl.DeferError
		if errors.As(err, &de) {
			cfg.Metrics.ObserveFetch(host, "deferred")
			return requeueFetch(ctx, bus, m, de.Until, maxWait, failed, defers, de.Error())
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
}

// Headers of a fetch task re-published to wait for its host.
const (
	headerNotBefore     = "Casebook-Not-Before" // RFC 3339 time the host is free again
	headerPriorAttempts = "Casebook-Prior-Attempts"
	headerDefers        = "Casebook-Defers"
	headerLastError     = "Casebook-Last-Error"
)

// requeueFetch publishes the task again to come back at notBefore; the
// caller's nil return then acknowledges this copy. It first parks the copy
// in-process for a quarter of the in-process wait (at least a second), so
// a long deferral re-publishes every few seconds instead of spinning, while
// handlers still turn over to other hosts' tasks. The Nats-Msg-Id counts
// the deferrals, so a redelivered copy re-publishing again is a no-op.
func requeueFetch(ctx context.Context, bus *Bus, m *message, notBefore time.Time, maxWait time.Duration, failed, defers int, lastErr string) error {
	if err := sleepCtx(ctx, min(time.Until(notBefore), max(maxWait/4, time.Second))); err != nil {
		return err
	}
	msg := nats.NewMsg(SubjectFetch)
	msg.Data = m.msg.Data()
	for _, k := range []string{HeaderSubmission, HeaderBlob} {
		if v := m.msg.Headers().Get(k); v != "" {
			msg.Header.Set(k, v)
		}
	}
	msg.Header.Set(headerNotBefore, notBefore.UTC().Format(time.RFC3339Nano))
	msg.Header.Set(headerPriorAttempts, strconv.Itoa(failed))
	msg.Header.Set(headerDefers, strconv.Itoa(defers+1))
	if len(lastErr) > 512 {
		lastErr = lastErr[:512]
	}
	if lastErr != "" {
		msg.Header.Set(headerLastError, strings.ToValidUTF8(strings.ReplaceAll(lastErr, "\n", " "), ""))
	}
	id := fmt.Sprintf("%s:fetch:defer:%d", m.SubmissionID, defers+1)
	if _, err := bus.JS.PublishMsg(ctx, msg, jetstream.WithMsgID(id)); err != nil {
		return fmt.Errorf("re-publish deferred fetch: %w", err)
	}
	return nil
}

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
		if ev.State == casebook.StateSkipped && ev.Score != 0 {
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
