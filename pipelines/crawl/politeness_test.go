package crawl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/casebook/casebook/fetch"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// testJS is a JetStream on an in-process nats-server of its own: the
// politeness buckets are real, nothing of the pipeline is needed.
func testJS(t *testing.T) jetstream.JetStream {
	t.Helper()
	ns, err := server.NewServer(&server.Options{JetStream: true, StoreDir: t.TempDir(), DontListen: true, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(30 * time.Second) {
		t.Fatal("nats-server not ready after 30s")
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect("", nats.InProcessServer(ns))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func TestHostKey(t *testing.T) {
	for in, want := range map[string]string{
		"Example.COM": "h_example.com", "127.0.0.1": "h_127.0.0.1", "::1": "h__3a_3a1", "xn--80ak6aa92e.com": "h_xn--80ak6aa92e.com",
		"localhost.": "h_localhost", "Example.com.": "h_example.com", "a..b": "h_a._2eb", ".a": "h__2ea", "a..": "h_a_2e",
	} {
		if got := HostKey("h_", in); got != want {
			t.Errorf("HostKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHostLimiter checks the limiter on one bucket from many goroutines:
// starts are spaced by the delay, at most Concurrency run at once, a
// crashed holder's slot frees itself when its lease expires, and a wait
// longer than maxWait is handed back as a DeferError.
func TestHostLimiter(t *testing.T) {
	js := testJS(t)
	ctx := context.Background()
	if err := PublishPoliteness(ctx, js, Politeness{Concurrency: 2, MinDelay: 40 * time.Millisecond, LeaseTTL: 300 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	// Two limiters stand for two processes: nothing is shared but the bucket.
	var lims [2]*HostLimiter
	for i := range lims {
		l, err := NewHostLimiter(ctx, js, Politeness{})
		if err != nil {
			t.Fatal(err)
		}
		lims[i] = l
	}
	var mu sync.Mutex
	var starts []time.Time
	var inFlight, peak atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			le, err := lims[i%2].Acquire(ctx, "example.org", 0, 10*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			// The lease's own start (the time its compare-and-set took the
			// turn), not when this goroutine next ran: under -race and a
			// loaded machine that can lag the grant by tens of ms. Wall
			// clock only, the clock the limiter keeps gaps in (it can run
			// off the monotonic one on a VM).
			mu.Lock()
			starts = append(starts, le.Start.Round(0))
			mu.Unlock()
			n := inFlight.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(100 * time.Millisecond)
			inFlight.Add(-1)
			le.Release()
		}()
	}
	wg.Wait()
	slices.SortFunc(starts, time.Time.Compare)
	if p := peak.Load(); p > 2 {
		t.Errorf("%d requests in flight at once, limit 2", p)
	}
	for i := 1; i < len(starts); i++ {
		if gap := starts[i].Sub(starts[i-1]); gap < 35*time.Millisecond {
			t.Errorf("starts %d and %d only %s apart, delay 40ms", i-1, i, gap)
		}
	}

	// A holder that never releases (a crashed worker) blocks only until its lease expires.
	a, _ := lims[0].Acquire(ctx, "crash.example", 0, time.Second)
	b, _ := lims[0].Acquire(ctx, "crash.example", 0, time.Second)
	if a == nil || b == nil {
		t.Fatal("could not take both slots")
	}
	t0 := time.Now()
	c, err := lims[1].Acquire(ctx, "crash.example", 0, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(t0); waited < 200*time.Millisecond {
		t.Errorf("third slot taken after %s while two leases of 300ms were held", waited)
	}
	c.Release()

	// A Retry-After longer than maxWait is a DeferError, not a wait.
	until := time.Now().Add(3 * time.Second)
	if err := lims[0].Defer(ctx, "busy.example", until, "HTTP 429"); err != nil {
		t.Fatal(err)
	}
	// Until (3 s) is past maxWait (2 s): the answer is a DeferError at once,
	// well before maxWait would have run out.
	t0 = time.Now()
	_, err = lims[1].Acquire(ctx, "busy.example", 0, 2*time.Second)
	de, ok := err.(*DeferError)
	if !ok || de.Until.Before(until.Add(-time.Millisecond)) || time.Since(t0) > 1500*time.Millisecond {
		t.Fatalf("Acquire on a deferred host: %v after %s", err, time.Since(t0))
	}
}

// TestBackoffStatusesHoldHost: 429 and 503 push the host's next-allowed
// time out for every worker, by Retry-After (seconds or a date) or, when
// the server gives none, by DefaultBackoff429; other errors do not.
// testPoliteFetcher is a PoliteFetcher on a test bus with policy pol, for
// loopback servers.
func testPoliteFetcher(t *testing.T, pol Politeness) *PoliteFetcher {
	t.Helper()
	js := testJS(t)
	ctx := context.Background()
	if err := PublishPoliteness(ctx, js, pol); err != nil {
		t.Fatal(err)
	}
	f, err := fetch.New(fetch.Config{AllowPrivateNetworks: true})
	if err != nil {
		t.Fatal(err)
	}
	pf, err := NewPoliteFetcher(ctx, js, f)
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

func TestBackoffStatusesHoldHost(t *testing.T) {
	ctx := context.Background()
	pf := testPoliteFetcher(t, Politeness{MinDelay: time.Millisecond})
	cases := []struct {
		status     int
		retryAfter string
		hold       time.Duration // 0: the host is not held
	}{
		{http.StatusTooManyRequests, "3", 3 * time.Second},
		{http.StatusServiceUnavailable, "5", 5 * time.Second},
		{http.StatusServiceUnavailable, "", DefaultBackoff429},
		{http.StatusTooManyRequests, time.Now().Add(8 * time.Second).UTC().Format(http.TimeFormat), 7 * time.Second},
		{http.StatusInternalServerError, "60", 0},
		{http.StatusNotFound, "", 0},
	}
	for i, tc := range cases {
		// A host of its own per case: 127.0.0.1 is shared by every server here.
		host := fmt.Sprintf("127.0.1.%d", i+1)
		l, err := net.Listen("tcp", host+":0")
		if err != nil {
			t.Skipf("loopback %s: %v", host, err)
		}
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tc.retryAfter != "" {
				w.Header().Set("Retry-After", tc.retryAfter)
			}
			w.WriteHeader(tc.status)
		}))
		srv.Listener.Close()
		srv.Listener = l
		srv.Start()
		u := srv.URL
		start := time.Now()
		if _, err := pf.Fetch(ctx, fetch.Request{URL: u + "/x"}, false, time.Second); err == nil {
			t.Fatalf("status %d: no error", tc.status)
		}
		next, err := pf.Limiter.NextAllowed(ctx, host)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		held := next.Sub(start)
		if tc.hold == 0 && held > time.Second {
			t.Errorf("status %d: host held for %s", tc.status, held)
		}
		if tc.hold > 0 && (held < tc.hold-time.Second || held > tc.hold+2*time.Second) {
			t.Errorf("status %d Retry-After %q: host held for %s, want about %s", tc.status, tc.retryAfter, held, tc.hold)
		}
	}
}

// TestFetchTimeExcludesPoliteness: the second fetch of a host waits out the
// host's delay, and that wait is not fetch latency.
func TestFetchTimeExcludesPoliteness(t *testing.T) {
	ctx := context.Background()
	const delay = 400 * time.Millisecond
	pf := testPoliteFetcher(t, Politeness{MinDelay: delay, Concurrency: 1})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body><p>ok</p></body></html>"))
	}))
	defer srv.Close()
	for i := 0; i < 2; i++ {
		tctx, timer := WithFetchTimer(ctx)
		start := time.Now()
		if _, err := pf.Fetch(tctx, fetch.Request{URL: srv.URL + "/p"}, false, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		total := time.Since(start)
		if !timer.Done {
			t.Fatalf("fetch %d: not timed", i)
		}
		if i == 1 && (total < delay*3/4 || timer.D > delay/2) {
			t.Errorf("second fetch: %s in all, %s timed; want the %s wait outside the timed part", total, timer.D, delay)
		}
	}
}

// TestHostQueueOldestFirst: requests that must wait for a host book turns
// in the order of their tickets, whatever order they arrive in; a ticket
// that comes back finds its turn, a Retry-After moves the queue back whole,
// and a request without a ticket queues at the back.
func TestHostQueueOldestFirst(t *testing.T) {
	js := testJS(t)
	ctx := context.Background()
	const delay = 200 * time.Millisecond
	if err := PublishPoliteness(ctx, js, Politeness{Concurrency: 1, MinDelay: delay}); err != nil {
		t.Fatal(err)
	}
	lim, err := NewHostLimiter(ctx, js, Politeness{})
	if err != nil {
		t.Fatal(err)
	}
	const host = "queue.example"
	first, err := lim.Acquire(WithTicket(ctx, "m1", 1), host, 0, 0)
	if err != nil {
		t.Fatalf("an idle host: %v", err)
	}
	first.Release()
	// Arriving youngest first: each is deferred (no in-process wait) and
	// its turn is the place of its ticket.
	until := map[uint64]time.Time{}
	acquire := func(order uint64) time.Time {
		t.Helper()
		_, err := lim.Acquire(WithTicket(ctx, fmt.Sprintf("m%d", order), order), host, 0, 0)
		var de *DeferError
		if !errors.As(err, &de) {
			t.Fatalf("ticket %d: %v, want a DeferError", order, err)
		}
		return de.Until
	}
	for _, order := range []uint64{9, 7, 8, 6} {
		acquire(order)
	}
	// Asked again (as each would on coming back), the turns are in order.
	for order := uint64(6); order <= 9; order++ {
		until[order] = acquire(order)
	}
	for order := uint64(6); order < 9; order++ {
		if gap := until[order+1].Sub(until[order]); gap < delay*9/10 {
			t.Errorf("ticket %d's turn %s after ticket %d's, want a delay (%s) later", order+1, gap, order, delay)
		}
	}
	// Coming back: the same turn, not a new one at the back.
	if again := acquire(7); again.Sub(until[7]).Abs() > delay/2 {
		t.Errorf("ticket 7 back: turn moved by %s", again.Sub(until[7]))
	}
	// No ticket: behind all of them.
	_, err = lim.Acquire(ctx, host, 0, 0)
	var de *DeferError
	if !errors.As(err, &de) || !de.Until.After(until[9]) {
		t.Errorf("a request without a ticket: %v, want a turn after ticket 9's (%s)", err, until[9])
	}
	// A Retry-After moves the queue back whole, in order.
	hold := time.Now().Add(3 * time.Second)
	if err := lim.Defer(ctx, host, hold, "HTTP 429"); err != nil {
		t.Fatal(err)
	}
	prev := hold.Add(-time.Millisecond)
	for order := uint64(6); order <= 9; order++ {
		u := acquire(order)
		if u.Before(prev) {
			t.Errorf("after a Retry-After ticket %d's turn is %s, before %s", order, u.Format(time.StampMilli), prev.Format(time.StampMilli))
		}
		prev = u
	}
}
