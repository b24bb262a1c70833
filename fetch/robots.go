package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RobotsMaxBytes is how much of a robots.txt is parsed (RFC 9309 §2.5).
const RobotsMaxBytes = 500 << 10

// maxCrawlDelay bounds a Crawl-delay so a hostile value cannot stall a host
// for ever.
const maxCrawlDelay = time.Hour

// RobotsRules is a parsed robots.txt.
type RobotsRules struct {
	groups   []robotsGroup
	Sitemaps []string // Sitemap: lines, in order
}

type robotsGroup struct {
	agents     []string // lower-cased product tokens, "*" for any
	rules      []robotsRule
	crawlDelay time.Duration
	hasDelay   bool
}

type robotsRule struct {
	allow   bool
	pattern string // normalised
}

// ParseRobots parses a robots.txt per RFC 9309. Only the first
// RobotsMaxBytes are read; lines it does not understand are ignored.
func ParseRobots(body []byte) *RobotsRules {
	if len(body) > RobotsMaxBytes {
		body = body[:RobotsMaxBytes]
	}
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	r := &RobotsRules{}
	var cur *robotsGroup
	inAgents := false // the last record was a user-agent line
	for _, line := range splitLines(string(body)) {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key := strings.ToLower(strings.TrimSpace(k))
		val := strings.TrimSpace(v)
		switch key {
		case "user-agent", "useragent", "user agent":
			if !inAgents {
				r.groups = append(r.groups, robotsGroup{})
				cur = &r.groups[len(r.groups)-1]
			}
			cur.agents = append(cur.agents, agentToken(val))
			inAgents = true
		case "allow", "disallow":
			inAgents = false
			if cur == nil || val == "" { // an empty rule matches nothing
				continue
			}
			cur.rules = append(cur.rules, robotsRule{allow: key == "allow", pattern: normalizeRobotsPath(val)})
		case "crawl-delay":
			inAgents = false
			if cur == nil || cur.hasDelay {
				continue
			}
			if s, err := strconv.ParseFloat(val, 64); err == nil && s >= 0 {
				d := time.Duration(s * float64(time.Second))
				if s > maxCrawlDelay.Seconds() {
					d = maxCrawlDelay
				}
				cur.crawlDelay, cur.hasDelay = d, true
			}
		case "sitemap":
			// Sitemap lines stand outside groups and do not end one.
			if val != "" {
				r.Sitemaps = append(r.Sitemaps, val)
			}
		default:
			// Other records neither start nor end a group.
		}
	}
	return r
}

func splitLines(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
}

// agentToken lower-cases the product token of a user-agent value:
// "Casebook/1.0" and "casebook" both give "casebook".
func agentToken(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "*" {
		return "*"
	}
	end := 0
	for end < len(v) && (v[end] >= 'a' && v[end] <= 'z' || v[end] == '_' || v[end] == '-') {
		end++
	}
	return v[:end]
}

// normalizeRobotsPath brings a pattern or a URL path to the form RFC 9309
// §2.2.2 compares: non-ASCII and unsafe bytes percent-encoded, escaped
// unreserved characters decoded, hex upper-cased. '*' and '$' are kept.
func normalizeRobotsPath(p string) string {
	if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "*") {
		p = "/" + p
	}
	return normalizeEscapes(p)
}

// rulesFor merges the groups naming agent, or else the "*" groups.
func (r *RobotsRules) rulesFor(agent string) ([]robotsRule, time.Duration) {
	token := agentToken(agent)
	var rules []robotsRule
	var delay time.Duration
	hasDelay := false
	collect := func(want string) bool {
		found := false
		for _, g := range r.groups {
			for _, a := range g.agents {
				if a != "" && a == want {
					found = true
					rules = append(rules, g.rules...)
					if g.hasDelay && !hasDelay {
						delay, hasDelay = g.crawlDelay, true
					}
					break
				}
			}
		}
		return found
	}
	if token == "" || !collect(token) {
		collect("*")
	}
	return rules, delay
}

// Allowed reports whether agent may fetch target, a URL or a path with
// optional query. The longest matching pattern wins; on a tie allow wins;
// no match allows. /robots.txt is always allowed.
func (r *RobotsRules) Allowed(agent, target string) bool {
	p := robotsTarget(target)
	if p == "/robots.txt" {
		return true
	}
	rules, _ := r.rulesFor(agent)
	best, allowed := -1, true
	for _, rule := range rules {
		if !robotsMatch(rule.pattern, p) {
			continue
		}
		n := len(rule.pattern)
		if n > best || (n == best && rule.allow) {
			best, allowed = n, rule.allow
		}
	}
	return allowed
}

// CrawlDelay is the Crawl-delay of the group that applies to agent, 0 if none.
func (r *RobotsRules) CrawlDelay(agent string) time.Duration {
	_, d := r.rulesFor(agent)
	return d
}

func robotsTarget(target string) string {
	if u, err := url.Parse(target); err == nil && (u.Scheme != "" || strings.HasPrefix(target, "/")) {
		p := u.EscapedPath()
		if u.RawQuery != "" {
			p += "?" + u.RawQuery
		}
		if p == "" {
			p = "/"
		}
		return normalizeRobotsPath(p)
	}
	return normalizeRobotsPath(target)
}

// robotsMatch matches a pattern with '*' (any run of characters) and a
// final '$' (end of the path) against a path. Greedy leftmost matching of
// the literal pieces is exact for this pattern language and linear.
func robotsMatch(pattern, p string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(p, parts[0]) {
		return false
	}
	pos := len(parts[0])
	if len(parts) == 1 {
		return !anchored || pos == len(p)
	}
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(p[pos:], part)
		if i < 0 {
			return false
		}
		pos += i + len(part)
	}
	last := parts[len(parts)-1]
	if anchored {
		return len(p)-pos >= len(last) && strings.HasSuffix(p, last)
	}
	return strings.Contains(p[pos:], last)
}

// Robots states.
const (
	RobotsRulesFound = "rules"        // a robots.txt was fetched; Body holds it
	RobotsAllowAll   = "allow_all"    // 4xx: no robots.txt, everything allowed
	RobotsDisallow   = "disallow_all" // 5xx or network failure: nothing allowed for now
)

// RobotsEntry is what RobotsCache stores per origin; it encodes to JSON for
// a key-value bucket.
type RobotsEntry struct {
	State     string    `json:"state"`
	Body      []byte    `json:"body,omitempty"`
	Reason    string    `json:"reason,omitempty"`
	FetchedAt time.Time `json:"fetched_at"`
	Expires   time.Time `json:"expires"`
}

// RobotsCache stores robots.txt outcomes by origin ("https://example.com").
// Get returns (nil, nil) when there is no entry.
type RobotsCache interface {
	GetRobots(ctx context.Context, origin string) (*RobotsEntry, error)
	PutRobots(ctx context.Context, origin string, e *RobotsEntry) error
}

// MemoryRobotsCache is an in-process RobotsCache (tests, all-in-one).
type MemoryRobotsCache struct {
	mu sync.Mutex
	m  map[string]*RobotsEntry
}

// NewMemoryRobotsCache returns an empty cache.
func NewMemoryRobotsCache() *MemoryRobotsCache {
	return &MemoryRobotsCache{m: map[string]*RobotsEntry{}}
}

// GetRobots implements RobotsCache.
func (c *MemoryRobotsCache) GetRobots(_ context.Context, origin string) (*RobotsEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[origin]
	if e == nil {
		return nil, nil
	}
	cp := *e
	return &cp, nil
}

// PutRobots implements RobotsCache.
func (c *MemoryRobotsCache) PutRobots(_ context.Context, origin string, e *RobotsEntry) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	cp := *e
	c.m[origin] = &cp
	return nil
}

// Getter is what Robots needs from a Fetcher.
type Getter interface {
	Fetch(ctx context.Context, req Request) (*Page, error)
}

// Robots decides whether a crawl may fetch a URL, per RFC 9309: robots.txt
// cached at most MaxAge (24 h), 4xx allows everything, 5xx and network
// failures disallow everything until FailureTTL has passed, at most
// RobotsMaxBytes parsed, Crawl-delay reported.
type Robots struct {
	fetch      Getter
	cache      RobotsCache
	agent      string
	MaxAge     time.Duration    // default 24h, the RFC's ceiling
	FailureTTL time.Duration    // how long a failure disallows, default 10m
	Now        func() time.Time // default time.Now
	// OnCacheError, when set, hears cache failures; Check carries on as
	// if the entry were missing.
	OnCacheError func(error)

	mu     sync.Mutex
	parsed map[string]parsedRobots
}

type parsedRobots struct {
	fetchedAt time.Time
	rules     *RobotsRules
}

// NewRobots builds a checker that fetches with f, caches in cache and
// matches groups by the product token of userAgent ("casebook").
func NewRobots(f Getter, cache RobotsCache, userAgent string) *Robots {
	if cache == nil {
		cache = NewMemoryRobotsCache()
	}
	return &Robots{fetch: f, cache: cache, agent: userAgent, MaxAge: 24 * time.Hour,
		FailureTTL: 10 * time.Minute, Now: time.Now, parsed: map[string]parsedRobots{}}
}

// RobotsDecision is the verdict for one URL.
type RobotsDecision struct {
	Allowed    bool
	CrawlDelay time.Duration
	Reason     string // why, for the crawl log
}

// Check decides for rawURL. The error is non-nil only for a URL that is not
// absolute http(s).
func (r *Robots) Check(ctx context.Context, rawURL string) (RobotsDecision, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return RobotsDecision{}, fmt.Errorf("robots: bad URL %q", rawURL)
	}
	e := r.entry(ctx, originOf(u))
	switch e.State {
	case RobotsAllowAll:
		return RobotsDecision{Allowed: true, Reason: e.Reason}, nil
	case RobotsRulesFound:
		rules := r.rules(originOf(u), e)
		ok := rules.Allowed(r.agent, rawURL)
		d := RobotsDecision{Allowed: ok, CrawlDelay: rules.CrawlDelay(r.agent), Reason: "allowed by robots.txt"}
		if !ok {
			d.Reason = "disallowed by robots.txt"
		}
		return d, nil
	}
	return RobotsDecision{Allowed: false, Reason: e.Reason}, nil
}

// Rules returns the parsed robots.txt of rawURL's origin, nil when it has
// none (allow-all or failure); the scheduler reads Sitemaps from it.
func (r *Robots) Rules(ctx context.Context, rawURL string) *RobotsRules {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil
	}
	origin := originOf(u)
	e := r.entry(ctx, origin)
	if e.State != RobotsRulesFound {
		return nil
	}
	return r.rules(origin, e)
}

// originOf is the robots.txt cache key: scheme://host[:port], lower-cased,
// default port dropped (robots.txt applies per origin, RFC 9309 §2.3).
func originOf(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

func (r *Robots) entry(ctx context.Context, origin string) *RobotsEntry {
	now := r.Now()
	e, err := r.cache.GetRobots(ctx, origin)
	if err != nil {
		r.cacheError(err)
	}
	if e != nil && now.Before(e.Expires) && !e.FetchedAt.After(now.Add(time.Minute)) {
		return e
	}
	e = r.load(ctx, origin, now)
	if err := r.cache.PutRobots(ctx, origin, e); err != nil {
		r.cacheError(err)
	}
	return e
}

func (r *Robots) cacheError(err error) {
	if r.OnCacheError != nil {
		r.OnCacheError(err)
	}
}

func (r *Robots) load(ctx context.Context, origin string, now time.Time) *RobotsEntry {
	maxAge := r.MaxAge
	if maxAge <= 0 || maxAge > 24*time.Hour {
		maxAge = 24 * time.Hour
	}
	p, err := r.fetch.Fetch(ctx, Request{URL: origin + "/robots.txt", MaxBytes: RobotsMaxBytes, Truncate: true, AnyContentType: true})
	if err != nil {
		var fe *Error
		if errors.As(err, &fe) && fe.Kind == KindHTTPStatus && fe.Status >= 400 && fe.Status < 500 &&
			fe.Status != 429 { // 429 asks us to slow down, not to crawl freely
			return &RobotsEntry{State: RobotsAllowAll, Reason: fmt.Sprintf("robots.txt: HTTP %d, all allowed", fe.Status),
				FetchedAt: now, Expires: now.Add(maxAge)}
		}
		return &RobotsEntry{State: RobotsDisallow, Reason: "robots.txt unreachable, disallowed for now: " + err.Error(),
			FetchedAt: now, Expires: now.Add(r.failureTTL())}
	}
	exp := now.Add(maxAge)
	// A shorter HTTP freshness is respected, but not below a minute, lest
	// every URL of a crawl refetch robots.txt.
	if !p.Expires.IsZero() && p.Expires.Before(exp) {
		exp = maxTime(p.Expires, now.Add(time.Minute))
	}
	return &RobotsEntry{State: RobotsRulesFound, Body: p.Body, FetchedAt: now, Expires: exp}
}

func (r *Robots) failureTTL() time.Duration {
	if r.FailureTTL > 0 {
		return r.FailureTTL
	}
	return 10 * time.Minute
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// rules parses an entry once per fetch.
func (r *Robots) rules(origin string, e *RobotsEntry) *RobotsRules {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.parsed[origin]; ok && p.fetchedAt.Equal(e.FetchedAt) {
		return p.rules
	}
	if len(r.parsed) >= 1024 {
		clear(r.parsed)
	}
	rules := ParseRobots(e.Body)
	r.parsed[origin] = parsedRobots{fetchedAt: e.FetchedAt, rules: rules}
	return rules
}
