package pipelines

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines/crawl"
)

// TestPolitenessAcrossProcesses builds casebook and runs two
// `casebook worker --stage fetch` processes against one NATS server: the
// site sees its requests spaced by the minimum delay and never two at
// once, and a 429 with Retry-After holds off both processes.
func TestPolitenessAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs worker processes")
	}
	bin := filepath.Join(t.TempDir(), "casebook")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/casebook").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ns, err := StartEmbedded(EmbeddedConfig{StoreDir: t.TempDir(), Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	ctx := context.Background()
	bus, err := Connect(ctx, BusConfig{URL: ns.ClientURL(), Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	const delay = 250 * time.Millisecond
	if err := crawl.PublishPoliteness(ctx, bus.JS, crawl.Politeness{Concurrency: 1, MinDelay: delay}); err != nil {
		t.Fatal(err)
	}

	var h hits
	var inFlight, peak atomic.Int32
	var busyHits atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.add(r)
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(40 * time.Millisecond) // long enough for an overlap to show
		if r.URL.Path == "/busy" && busyHits.Add(1) == 1 {
			w.Header().Set("Retry-After", "2")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<html><body><article><h1>%s</h1><p>page</p></article></body></html>", r.URL.Path)
	}))
	defer site.Close()

	wctx, stop := context.WithCancel(ctx)
	var logs [2]bytes.Buffer
	var procs []*exec.Cmd
	for i, ua := range []string{"casebook-test-a/1.0", "casebook-test-b/1.0"} {
		cmd := exec.CommandContext(wctx, bin, "worker", "--stage", "fetch", "--nats", ns.ClientURL(),
			"--allow-private-networks", "--concurrency", "4", "--user-agent", ua+" (+https://example.invalid/contact)")
		cmd.Stdout, cmd.Stderr = &logs[i], &logs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	defer func() {
		stop()
		for _, p := range procs {
			_ = p.Wait()
		}
		if t.Failed() {
			for i := range logs {
				t.Logf("worker %d log:\n%s", i, logs[i].String())
			}
		}
	}()

	publish := func(id, path string) {
		task := FetchTask{SubmissionID: id, URL: site.URL + path, Origin: "manual"}
		if err := bus.Publish(ctx, SubjectFetch, id+":fetch", id, task); err != nil {
			t.Fatal(err)
		}
	}
	waitFor := func(n int, match func(string) bool) []hit {
		deadline := time.Now().Add(60 * time.Second)
		for {
			var got []hit
			for _, r := range h.all() {
				if match(r.path) {
					got = append(got, r)
				}
			}
			if len(got) >= n {
				return got
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d requests after 60s", len(got), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	const pages = 12
	for i := 0; i < pages; i++ {
		publish(fmt.Sprintf("sub-p%02d", i), fmt.Sprintf("/p/%d", i))
	}
	waitFor(pages, func(p string) bool { return strings.HasPrefix(p, "/p/") })
	reqs := h.all()
	agents := map[string]int{}
	minGap := time.Hour
	for i, r := range reqs {
		agents[strings.Fields(r.agent)[0]]++
		if i > 0 {
			minGap = min(minGap, r.at.Sub(reqs[i-1].at))
		}
	}
	t.Logf("%d requests from %v; smallest gap %s (min delay %s); peak in flight %d", len(reqs), agents, minGap, delay, peak.Load())
	// The limiter spaces the starts of requests (its lease times); the
	// server sees arrivals, which carry the scheduling delay of two loaded
	// processes on one machine. A fifth of the delay is well above that
	// jitter and far below what a broken limiter gives (two workers at once
	// arrive microseconds apart).
	if minGap < delay-delay/5 {
		t.Errorf("two requests only %s apart, min delay %s", minGap, delay)
	}
	if p := peak.Load(); p > 1 {
		t.Errorf("%d requests in flight at once, limit 1", p)
	}
	if len(agents) != 2 {
		t.Errorf("requests came from %v, want both worker processes", agents)
	}

	// 429 + Retry-After: 2 on /busy; both processes leave the host alone.
	publish("sub-busy", "/busy")
	busy := waitFor(1, func(p string) bool { return p == "/busy" })
	for i := 0; i < 4; i++ {
		publish(fmt.Sprintf("sub-q%02d", i), fmt.Sprintf("/q/%d", i))
	}
	busy = waitFor(2, func(p string) bool { return p == "/busy" })
	waitFor(4, func(p string) bool { return strings.HasPrefix(p, "/q/") })
	first := busy[0].at
	for _, r := range h.all() {
		if r.at.After(first) && r.at.Before(first.Add(2*time.Second-20*time.Millisecond)) {
			t.Errorf("%s requested %s after the 429, Retry-After was 2s", r.path, r.at.Sub(first))
		}
	}
	t.Logf("retry of /busy came %s after the 429", busy[1].at.Sub(first))
}

// TestDeferredFetchKeepsAttempts: a host held off for longer than the
// in-process wait makes the fetch stage hand the message back to come again
// near its turn, each such delivery counted as a deferral and not as an
// attempt, so even with a single allowed attempt the page is fetched once
// the host is free, never dead-lettered, and the task is never re-published
// (which would put it at the back of the queue).
func TestDeferredFetchKeepsAttempts(t *testing.T) {
	bus := testBus(t)
	ctx := context.Background()
	if err := crawl.PublishPoliteness(ctx, bus.JS, crawl.Politeness{MinDelay: 10 * time.Millisecond, MaxWait: 300 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	var h hits
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.add(r)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><article><p>ok</p></article></body></html>")
	}))
	defer site.Close()
	f, err := fetch.New(fetch.Config{AllowPrivateNetworks: true})
	if err != nil {
		t.Fatal(err)
	}
	st, err := newFetchStage(bus, f)
	if err != nil {
		t.Fatal(err)
	}
	until := time.Now().Add(1500 * time.Millisecond)
	if err := st.Polite.Limiter.Defer(ctx, "127.0.0.1", until, "HTTP 429, retry after 1.5s"); err != nil {
		t.Fatal(err)
	}
	cfg := fastConfig()
	cfg.MaxAttempts = 1
	stop := runFor(t, WireFetch(bus, st, cfg))
	defer stop()
	task := FetchTask{SubmissionID: "sub-1", URL: site.URL + "/post", Origin: "manual"}
	if err := bus.Publish(ctx, SubjectFetch, "sub-1:fetch", "sub-1", task); err != nil {
		t.Fatal(err)
	}
	work, err := bus.JS.Stream(ctx, StreamWork)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := work.GetLastMsgForSubject(ctx, SubjectExtract); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no page reference published after 20s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	reqs := h.all()
	if len(reqs) != 1 || reqs[0].at.Before(until) {
		t.Fatalf("requests %+v, want one after %s", reqs, until)
	}
	// The task and the page reference, nothing re-published.
	if si, err := work.Info(ctx); err != nil {
		t.Error(err)
	} else if si.State.LastSeq != 2 {
		t.Errorf("work stream took %d messages, want 2: a deferral re-published the task", si.State.LastSeq)
	}
	// The fetch went through, so its deferral count is gone (after the
	// ack, which follows the publish: give it a moment).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		keys, err := bus.Deferrals.ListKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var left []string
		for k := range keys.Keys() {
			left = append(left, k)
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deferral counts left after the fetch: %v", left)
		}
	}
	if info, err := bus.JS.Stream(ctx, StreamDead); err == nil {
		if si, _ := info.Info(ctx); si != nil && si.State.Msgs != 0 {
			t.Fatalf("%d dead letters", si.State.Msgs)
		}
	}
}
