package pipelines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/casebook/casebook"
	"github.com/nats-io/nats.go/jetstream"
)

func testBus(t *testing.T) *Bus {
	t.Helper()
	ns, err := StartEmbedded(EmbeddedConfig{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	bus, err := Connect(context.Background(), BusConfig{Embedded: ns, Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bus.Close)
	return bus
}

// nextEvent reads the next event for a submission from the events stream.
func readStream(t *testing.T, bus *Bus, stream, subject string, n int) []jetstream.Msg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cons, err := bus.JS.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subject}})
	if err != nil {
		t.Fatal(err)
	}
	var out []jetstream.Msg
	for len(out) < n {
		msg, err := cons.Next(jetstream.FetchMaxWait(15 * time.Second))
		if err != nil {
			t.Fatalf("waiting for %d messages on %s, got %d: %v", n, subject, len(out), err)
		}
		out = append(out, msg)
	}
	return out
}

func runFor(t *testing.T, r *Runner) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = r.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func fastConfig() RunnerConfig {
	return RunnerConfig{Concurrency: 2, MaxAttempts: 3, Backoff: func(int) time.Duration { return 50 * time.Millisecond },
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func TestRunnerOutcomes(t *testing.T) {
	bus := testBus(t)
	ctx := context.Background()
	var calls atomic.Int32
	r := newRunner(bus, StageExtract, fastConfig(), func(ctx context.Context, m *message) error {
		calls.Add(1)
		var ref PageRef
		if err := m.Decode(ctx, &ref); err != nil {
			return err
		}
		switch ref.URL {
		case "skip":
			return casebook.Skip("not an incident write-up")
		case "permanent":
			return casebook.Permanentf("HTTP 404 Not Found")
		case "transient":
			return errors.New("connection reset")
		case "panic":
			panic("poison page")
		}
		return nil
	})
	stop := runFor(t, r)
	defer stop()
	for _, u := range []string{"skip", "permanent", "transient", "panic", "ok"} {
		if err := bus.Publish(ctx, SubjectExtract, "s-"+u+":extract", "s-"+u, PageRef{SubmissionID: "s-" + u, URL: u}); err != nil {
			t.Fatal(err)
		}
	}
	// skip -> skipped, permanent -> failed, transient and panic -> dead after 3 attempts (+failed event)
	dead := readStream(t, bus, StreamDead, "casebook.dead.>", 2)
	got := map[string]DeadLetter{}
	for _, m := range dead {
		var dl DeadLetter
		if err := json.Unmarshal(m.Data(), &dl); err != nil {
			t.Fatal(err)
		}
		got[dl.SubmissionID] = dl
	}
	if dl := got["s-transient"]; dl.Attempts != 3 || dl.Error != "connection reset" || dl.Stage != StageExtract {
		t.Errorf("transient dead letter = %+v", dl)
	}
	if dl := got["s-panic"]; dl.Attempts != 3 || dl.Error == "" {
		t.Errorf("panic dead letter = %+v", dl)
	}
	events := readStream(t, bus, StreamEvents, "casebook.event.>", 4)
	states := map[string]Event{}
	for _, m := range events {
		var ev Event
		_ = json.Unmarshal(m.Data(), &ev)
		states[ev.SubmissionID] = ev
	}
	if ev := states["s-skip"]; ev.State != casebook.StateSkipped || ev.Reason != "not an incident write-up" {
		t.Errorf("skip event %+v", ev)
	}
	if ev := states["s-permanent"]; ev.State != casebook.StateFailed || ev.Error != "HTTP 404 Not Found" {
		t.Errorf("permanent event %+v", ev)
	}
	if ev := states["s-transient"]; ev.State != casebook.StateFailed {
		t.Errorf("dead-letter event %+v", ev)
	}
	// 1 skip + 1 permanent + 3 transient + 3 panic + 1 ok: the worker survived the panics.
	deadline := time.Now().Add(5 * time.Second)
	for calls.Load() < 9 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := calls.Load(); n != 9 {
		t.Errorf("handler calls = %d, want 9", n)
	}
}

// A message whose handler never answers (the worker died each time) is
// dead-lettered without running it again once it exceeds the attempts.
func TestRunnerDeadLettersCrashLoops(t *testing.T) {
	bus := testBus(t)
	ctx := context.Background()
	var calls atomic.Int32
	cfg := fastConfig()
	r := newRunner(bus, StageExtract, cfg, func(ctx context.Context, m *message) error {
		calls.Add(1)
		return nil
	})
	if err := bus.Publish(ctx, SubjectExtract, "crash:extract", "crash", PageRef{SubmissionID: "crash"}); err != nil {
		t.Fatal(err)
	}
	// Simulate three deliveries that crashed: take the message and never ack.
	cons, err := bus.JS.Consumer(ctx, StreamWork, StageExtract)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < cfg.MaxAttempts; i++ {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			_ = m.Nak() // as good as a crash for the delivery count, without waiting AckWait
		}
	}
	stop := runFor(t, r)
	defer stop()
	dead := readStream(t, bus, StreamDead, "casebook.dead.extract", 1)
	var dl DeadLetter
	_ = json.Unmarshal(dead[0].Data(), &dl)
	if dl.SubmissionID != "crash" || dl.Attempts != cfg.MaxAttempts+1 {
		t.Fatalf("dead letter = %+v", dl)
	}
	if calls.Load() != 0 {
		t.Fatalf("the crash-looping message ran again (%d calls)", calls.Load())
	}
}

func TestLargePayloadTravelsByReference(t *testing.T) {
	bus := testBus(t)
	ctx := context.Background()
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = 'a' + byte(i%26)
	}
	got := make(chan string, 1)
	r := newRunner(bus, StageExtract, fastConfig(), func(ctx context.Context, m *message) error {
		var ref PageRef
		if err := m.Decode(ctx, &ref); err != nil {
			return err
		}
		got <- ref.URL
		return nil
	})
	stop := runFor(t, r)
	defer stop()
	if err := bus.Publish(ctx, SubjectExtract, "big:extract", "big", PageRef{SubmissionID: "big", URL: string(big)}); err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-got:
		if len(u) != len(big) {
			t.Fatalf("payload length %d, want %d", len(u), len(big))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("large payload never arrived")
	}
}

func TestBodiesSmallInKVLargeInObjectStore(t *testing.T) {
	bus := testBus(t)
	ctx := context.Background()
	small := []byte("<p>small page</p>")
	large := make([]byte, MaxKVBody+1)
	for i := range large {
		large[i] = byte('a' + i%26)
	}
	for name, body := range map[string][]byte{"page/small": small, "page/large": large} {
		if err := bus.PutBody(ctx, name, body); err != nil {
			t.Fatalf("put %s: %v", name, err)
		}
		got, err := bus.GetBody(ctx, name)
		if err != nil || len(got) != len(body) {
			t.Fatalf("get %s: %d bytes, %v", name, len(got), err)
		}
	}
	if _, err := bus.Bodies.Get(ctx, "page.small"); err != nil {
		t.Errorf("small body not in the KV bucket: %v", err)
	}
	if _, err := bus.Pages.GetInfo(ctx, "page/large"); err != nil {
		t.Errorf("large body not in the object store: %v", err)
	}
	if _, err := bus.GetBody(ctx, "page/missing"); !errors.Is(err, jetstream.ErrObjectNotFound) {
		t.Errorf("missing body: %v, want ErrObjectNotFound", err)
	}
}

// TestRunnerPullsOnlyForFreeHandlers: a worker whose handlers are all busy
// holds no further messages. A message pulled ahead into a client-side
// buffer waits there with its ack timer running and no keep-alive, so under
// load it is redelivered (using up an attempt) or, when the buffer overflows,
// dropped as a "slow consumer" until its ack wait ends.
func TestRunnerPullsOnlyForFreeHandlers(t *testing.T) {
	bus := testBus(t)
	ctx := context.Background()
	release := make(chan struct{})
	var started, done atomic.Int32
	var redelivered atomic.Int32
	cfg := fastConfig() // two handlers
	r := newRunner(bus, StageExtract, cfg, func(ctx context.Context, m *message) error {
		started.Add(1)
		if m.Attempt > 1 {
			redelivered.Add(1)
		}
		<-release
		done.Add(1)
		return nil
	})
	const n = 8
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("sub-free-%d", i)
		if err := bus.Publish(ctx, StageSubject[StageExtract], id, id, PageRef{URL: id}); err != nil {
			t.Fatal(err)
		}
	}
	stop := runFor(t, r)
	defer stop()
	deadline := time.Now().Add(20 * time.Second)
	for started.Load() < int32(cfg.Concurrency) {
		if time.Now().After(deadline) {
			t.Fatalf("%d handlers started", started.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // room for any pull-ahead to arrive
	cons, err := bus.JS.Consumer(ctx, StreamWork, StageExtract)
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.NumAckPending > cfg.Concurrency {
		t.Errorf("%d messages delivered to a worker with %d busy handlers; want at most %d", info.NumAckPending, cfg.Concurrency, cfg.Concurrency)
	}
	close(release)
	for done.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d handled", done.Load(), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if redelivered.Load() != 0 {
		t.Errorf("%d messages redelivered", redelivered.Load())
	}
}
