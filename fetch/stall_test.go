package fetch

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/casebook/casebook"
)

// dripServer sends chunk bytes every gap, n times, flushing each.
func dripServer(t *testing.T, chunk, n int, gap time.Duration) string {
	return newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fl := w.(http.Flusher)
		for i := 0; i < n; i++ {
			if _, err := w.Write([]byte(strings.Repeat("a", chunk))); err != nil {
				return
			}
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(gap):
			}
		}
	}).URL
}

// A body that drips in below the minimum rate is cut off as stalled within
// about one window, long before the total timeout; a slow body above the
// rate is read whole.
func TestSlowDripIsCutOff(t *testing.T) {
	f := localFetcher(t, func(c *Config) { c.MinRate = 1000; c.StallAfter = 300 * time.Millisecond })
	start := time.Now()
	_, err := f.Fetch(context.Background(), Request{URL: dripServer(t, 10, 200, 50*time.Millisecond)})
	e := mustKind(t, err, KindStalled)
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("stall noticed after %s", took)
	}
	if e.Permanent() || casebook.IsPermanent(err) || !strings.Contains(err.Error(), "under the minimum of 1000 B/s") {
		t.Fatalf("stall error %q (permanent %v): want a transient stall naming the rate", err, e.Permanent())
	}
	// 2 KB every 100 ms is 20 KB/s: slow, but above the rate.
	page, err := f.Fetch(context.Background(), Request{URL: dripServer(t, 2000, 8, 100*time.Millisecond)})
	if err != nil || len(page.Body) != 16000 {
		t.Fatalf("a slow but steady body: %v", err)
	}
}
