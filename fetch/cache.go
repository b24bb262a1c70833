package fetch

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfter bounds a server's Retry-After so a hostile value cannot park
// a source for ever.
const maxRetryAfter = 7 * 24 * time.Hour

// ParseRetryAfter reads a Retry-After value, delta-seconds or an HTTP date,
// relative to now. It returns 0 when absent or unparsable.
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		if n > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter
		}
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	} else {
		return 0
	}
	if d < 0 {
		return 0
	}
	return min(d, maxRetryAfter)
}

// freshness computes when a response goes stale (RFC 9111 §4.2.1):
// Cache-Control max-age (less Age), else Expires corrected by Date for clock
// skew. no-store/no-cache mean stale at once; zero means no information.
func freshness(h http.Header, now time.Time) time.Time {
	cc := parseCacheControl(h.Values("Cache-Control"))
	if _, ok := cc["no-store"]; ok {
		return now
	}
	if _, ok := cc["no-cache"]; ok {
		return now
	}
	if v, ok := cc["max-age"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return now
		}
		n = min(n, int64(365*24*time.Hour/time.Second))
		age, _ := strconv.ParseInt(strings.TrimSpace(h.Get("Age")), 10, 64)
		if age < 0 {
			age = 0
		}
		if age >= n {
			return now
		}
		return now.Add(time.Duration(n-age) * time.Second)
	}
	if v := h.Get("Expires"); v != "" {
		exp, err := http.ParseTime(v)
		if err != nil {
			return now // an invalid Expires means already expired
		}
		base := now
		if d, err := http.ParseTime(h.Get("Date")); err == nil {
			base = d
		}
		if !exp.After(base) {
			return now
		}
		return now.Add(exp.Sub(base))
	}
	return time.Time{}
}

func parseCacheControl(values []string) map[string]string {
	out := map[string]string{}
	for _, v := range values {
		for _, d := range strings.Split(v, ",") {
			d = strings.TrimSpace(d)
			if d == "" {
				continue
			}
			k, val, _ := strings.Cut(d, "=")
			out[strings.ToLower(strings.TrimSpace(k))] = strings.Trim(strings.TrimSpace(val), `"`)
		}
	}
	return out
}
