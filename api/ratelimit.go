package api

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// ipLimiter is a token bucket per client IP. Idle buckets are dropped so a
// stream of one-off clients cannot grow the map without bound.
type ipLimiter struct {
	mu      sync.Mutex
	rate    rate.Limit
	burst   int
	clients map[string]*ipBucket
	swept   time.Time
}

type ipBucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newIPLimiter(perSecond float64, burst int) *ipLimiter {
	return &ipLimiter{rate: rate.Limit(perSecond), burst: burst, clients: map[string]*ipBucket{}}
}

// bucket is ip's bucket, made full when ip is new.
func (l *ipLimiter) bucket(ip string, now time.Time) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > time.Minute {
		// A bucket idle long enough to be full again carries no state.
		full := time.Duration(float64(l.burst)/float64(l.rate)*float64(time.Second)) + time.Minute
		for k, b := range l.clients {
			if now.Sub(b.seen) > full {
				delete(l.clients, k)
			}
		}
		l.swept = now
	}
	b := l.clients[ip]
	if b == nil {
		b = &ipBucket{lim: rate.NewLimiter(l.rate, l.burst)}
		l.clients[ip] = b
	}
	b.seen = now
	return b.lim
}

// allow takes a token for ip, or says how long until one is free.
func (l *ipLimiter) allow(ip string, now time.Time) (bool, time.Duration) {
	lim := l.bucket(ip, now)
	res := lim.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return false, d
	}
	return true, 0
}

// empty says how long until ip's bucket holds a token again, without
// taking one; zero when it holds one now.
func (l *ipLimiter) empty(ip string, now time.Time) time.Duration {
	l.mu.Lock()
	b := l.clients[ip]
	l.mu.Unlock()
	if b == nil {
		return 0
	}
	tokens := b.lim.TokensAt(now)
	if tokens >= 1 {
		return 0
	}
	return time.Duration((1 - tokens) / float64(l.rate) * float64(time.Second))
}

// take spends one of ip's tokens if it has one.
func (l *ipLimiter) take(ip string, now time.Time) { l.bucket(ip, now).AllowN(now, 1) }

// clientIP is the connection's address: a forwarded-for header is any
// client's to forge, so it is not trusted.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// rateLimited bounds anonymous submissions per client IP. A valid reviewer
// token lifts the limit: a reviewer importing a list of known postmortems is
// trusted, and a revoked or wrong token counts as anonymous.
func (s *Server) rateLimited(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			if _, ok := s.authenticate(r); ok {
				next(w, r)
				return
			}
		}
		ok, wait := s.limiter.allow(clientIP(r), time.Now())
		if !ok {
			secs := int(math.Ceil(wait.Seconds()))
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			writeError(w, http.StatusTooManyRequests, "rate_limited", "too many submissions from this address; retry in "+strconv.Itoa(secs)+" s")
			return
		}
		next(w, r)
	}
}

// authThrottled answers 429 when the client has used up its allowance of
// failed token checks (Config.AuthFailures per Config.AuthFailWindow). It is
// asked before the token is looked at, so a client past the limit learns
// nothing from a guess; requests with a valid token never spend allowance.
func (s *Server) authThrottled(w http.ResponseWriter, r *http.Request, page bool) bool {
	wait := s.authFails.empty(clientIP(r), time.Now())
	if wait <= 0 {
		return false
	}
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	msg := "too many failed token checks from this address; retry in " + strconv.Itoa(secs) + " s"
	if page {
		s.pageError(w, r, http.StatusTooManyRequests, msg)
	} else {
		writeError(w, http.StatusTooManyRequests, "rate_limited", msg)
	}
	return true
}

// authFailed spends one of the client's allowance of failed token checks.
func (s *Server) authFailed(r *http.Request) { s.authFails.take(clientIP(r), time.Now()) }
