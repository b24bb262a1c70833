package crawl

import (
	"testing"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/fetch"
)

func TestBackoffGrowsToCap(t *testing.T) {
	s := &Scheduler{cfg: SchedulerConfig{RetryBase: time.Second, MaxBackoff: time.Minute}}
	prev := time.Duration(0)
	for n := 1; n <= 8; n++ {
		want := min(time.Second<<(n-1), time.Minute)
		got := s.backoff(n, nil)
		if got < want*8/10 || got > want*12/10 {
			t.Errorf("backoff(%d) = %s, want %s ±20%%", n, got, want)
		}
		if n <= 6 && got < prev/2 {
			t.Errorf("backoff(%d) = %s shrank from %s", n, got, prev)
		}
		prev = got
	}
	if got := s.backoff(100, nil); got > 72*time.Second {
		t.Errorf("backoff(100) = %s beyond the cap", got)
	}
	ra := casebook.Permanent(&fetch.Error{Kind: fetch.KindHTTPStatus, Status: 429, RetryAfter: 10 * time.Minute})
	if got := s.backoff(1, ra); got != 10*time.Minute {
		t.Errorf("backoff with Retry-After 10m = %s", got)
	}
}
