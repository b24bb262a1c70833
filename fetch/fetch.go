// Package fetch is casebook's HTTP client: it fetches a page with the fetch
// guard (no private or special-purpose addresses, checked on the connected
// socket), bounded time and size, conditional GET and cache hints, and
// returns the body decoded to UTF-8. It also holds the crawler's helpers:
// URL canonicalisation, robots.txt, and feed, sitemap and listing discovery.
package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultUserAgent names casebook and where to reach its operators.
const DefaultUserAgent = "casebook/0.1 (+https://github.com/casebook/casebook)"

// Config configures a Fetcher. Zero values take the documented defaults.
type Config struct {
	UserAgent            string   // default DefaultUserAgent
	AllowPrivateNetworks bool     // allow every special-purpose address, on any port
	AllowAddrs           []string // IPs, CIDRs, ip:port allowed despite the guard (see ParseAllowAddrs)
	AllowPorts           []int    // ports allowed besides 80 and 443 on public addresses
	MaxBodyBytes         int64    // after decompression, default 10 MiB

	ConnectTimeout time.Duration // default 10s
	TLSTimeout     time.Duration // default 10s
	HeaderTimeout  time.Duration // time to response headers after the request is written, default 15s
	TotalTimeout   time.Duration // whole fetch including the body, default 60s
	// A body that arrives slower than MinRate bytes a second over any
	// StallAfter window is cut off as stalled (a slow-drip server), long
	// before TotalTimeout. Defaults 1024 B/s and 15 s; a negative MinRate
	// turns the check off.
	MinRate    int64
	StallAfter time.Duration

	MaxRedirects int // default 5; negative follows none

	// Resolver, when set, does DNS lookups (tests point it at a local server).
	Resolver *net.Resolver
	// TLSConfig, when set, is cloned for HTTPS (tests trust their own CA).
	TLSConfig *tls.Config
	// Now, when set, replaces time.Now (tests).
	Now func() time.Time
}

// Defaults applied by New.
const (
	DefaultMaxBodyBytes   = 10 << 20
	DefaultConnectTimeout = 10 * time.Second
	DefaultTLSTimeout     = 10 * time.Second
	DefaultHeaderTimeout  = 15 * time.Second
	DefaultTotalTimeout   = 60 * time.Second
	DefaultMinRate        = 1024
	DefaultStallAfter     = 15 * time.Second
	DefaultMaxRedirects   = 5
)

func (c Config) withDefaults() Config {
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.TLSTimeout <= 0 {
		c.TLSTimeout = DefaultTLSTimeout
	}
	if c.HeaderTimeout <= 0 {
		c.HeaderTimeout = DefaultHeaderTimeout
	}
	if c.MinRate == 0 {
		c.MinRate = DefaultMinRate
	}
	if c.StallAfter <= 0 {
		c.StallAfter = DefaultStallAfter
	}
	if c.TotalTimeout <= 0 {
		c.TotalTimeout = DefaultTotalTimeout
	}
	if c.MaxRedirects == 0 {
		c.MaxRedirects = DefaultMaxRedirects
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Fetcher fetches pages. It is safe for concurrent use.
type Fetcher struct {
	cfg    Config
	client *http.Client
}

// Request is one fetch. ETag and LastModified make it a conditional GET.
type Request struct {
	URL          string
	ETag         string
	LastModified string

	// MaxBytes overrides Config.MaxBodyBytes when positive.
	MaxBytes int64
	// Truncate keeps the first MaxBytes of a longer body instead of failing
	// with too_large (robots.txt: only the first 500 KiB are parsed).
	Truncate bool
	// AnyContentType accepts every media type (robots.txt is often
	// mislabelled); the body is still decoded as text.
	AnyContentType bool
}

// Page is a fetched page.
type Page struct {
	RequestURL, URL string // URL is the final one after redirects
	StatusCode      int    // 200 or 304
	NotModified     bool
	ContentType     string // media type, lower-case, no params
	Charset         string // what the body was decoded from
	Body            []byte // UTF-8 (empty on 304)
	RawSHA256       string // hex sha256 of the decoded body ("" on 304)
	Header          http.Header
	ETag            string
	LastModified    string
	Expires         time.Time // from Cache-Control max-age / Expires, zero if none
	FetchedAt       time.Time
}

// FreshUntil is when the page is worth fetching again: the later of the HTTP
// freshness and FetchedAt+ttl (a feed's own TTL; 0 if none).
func (p *Page) FreshUntil(ttl time.Duration) time.Time {
	t := p.Expires
	if ttl > 0 && p.FetchedAt.Add(ttl).After(t) {
		t = p.FetchedAt.Add(ttl)
	}
	return t
}

// New builds a Fetcher. The transport never uses an environment proxy: a
// proxy would make the connected address the proxy's, defeating the guard.
func New(cfg Config) (*Fetcher, error) {
	cfg = cfg.withDefaults()
	if strings.ContainsAny(cfg.UserAgent, "\r\n") {
		return nil, errors.New("fetch: user agent contains a line break")
	}
	g, err := newGuard(cfg)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	var tlsConf *tls.Config
	if cfg.TLSConfig != nil {
		tlsConf = cfg.TLSConfig.Clone()
	} else {
		tlsConf = &tls.Config{}
	}
	if tlsConf.MinVersion == 0 {
		tlsConf.MinVersion = tls.VersionTLS12
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            absoluteName(g.dialer(cfg).DialContext),
		TLSClientConfig:        tlsConf,
		TLSHandshakeTimeout:    cfg.TLSTimeout,
		ResponseHeaderTimeout:  cfg.HeaderTimeout,
		DisableCompression:     true, // we decompress ourselves, under the body limit
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
		ExpectContinueTimeout:  time.Second,
	}
	f := &Fetcher{cfg: cfg}
	f.client = &http.Client{Transport: tr, CheckRedirect: f.checkRedirect}
	return f, nil
}

// UserAgent is the User-Agent header the Fetcher sends.
func (f *Fetcher) UserAgent() string { return f.cfg.UserAgent }

// Close drops idle connections.
func (f *Fetcher) Close() { f.client.CloseIdleConnections() }

// checkRedirect caps redirects and applies the URL rules to every hop; the
// address rules apply again when the hop's connection is dialled.
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if f.cfg.MaxRedirects < 0 {
		return http.ErrUseLastResponse
	}
	first := via[0].URL.String()
	if len(via) > f.cfg.MaxRedirects {
		return newError(KindRedirects, first, true, nil, "too many redirects: stopped after %d", f.cfg.MaxRedirects)
	}
	if _, err := checkURL(req.URL.String()); err != nil {
		e := err.(*Error)
		e.msg = "redirect to " + e.msg
		return e
	}
	return nil
}

// checkURL applies the URL rules: absolute http or https, a host, no
// credentials.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, newError(KindBadURL, raw, true, err, "bad URL %q: %v", raw, unwrapURLError(err))
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, newError(KindBadURL, raw, true, nil, "bad URL %q: not absolute", raw)
	default:
		return nil, newError(KindBadURL, raw, true, nil, "bad URL %q: scheme %s not allowed (only http and https)", raw, u.Scheme)
	}
	if u.User != nil {
		return nil, newError(KindBadURL, raw, true, nil, "bad URL %q: credentials in URLs are not allowed", redactUser(u))
	}
	if u.Hostname() == "" {
		return nil, newError(KindBadURL, raw, true, nil, "bad URL %q: no host", raw)
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

func redactUser(u *url.URL) string {
	c := *u
	c.User = url.User("xxx")
	return c.String()
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// phases of a request, tracked with httptrace so a timeout names its stage.
const (
	phaseStart int32 = iota
	phaseDNS
	phaseConnect
	phaseTLS
	phaseHeaders
	phaseBody
)

type phaseTracker struct{ p atomic.Int32 }

func (t *phaseTracker) trace() *httptrace.ClientTrace {
	set := func(p int32) { t.p.Store(p) }
	return &httptrace.ClientTrace{
		DNSStart:             func(httptrace.DNSStartInfo) { set(phaseDNS) },
		ConnectStart:         func(string, string) { set(phaseConnect) },
		TLSHandshakeStart:    func() { set(phaseTLS) },
		WroteRequest:         func(httptrace.WroteRequestInfo) { set(phaseHeaders) },
		GotFirstResponseByte: func() { set(phaseBody) },
	}
}

// Fetch GETs req.URL under the rules in README.md: URL and address guard,
// timeouts, redirect cap, body limit after decompression, accepted content
// types, charset decoding. Errors are *Error (permanent ones wrapped in
// casebook.Permanent); an unsupported content type is also a
// casebook.SkipError.
func (f *Fetcher) Fetch(ctx context.Context, req Request) (*Page, error) {
	u, err := checkURL(req.URL)
	if err != nil {
		return nil, err.(*Error).result()
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, f.cfg.TotalTimeout)
	defer cancel()
	ctx, stall := context.WithCancelCause(ctx)
	defer stall(nil)
	tracker := &phaseTracker{}
	ctx = httptrace.WithClientTrace(ctx, tracker.trace())

	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, newError(KindBadURL, req.URL, true, err, "bad URL %q: %v", req.URL, err).result()
	}
	hreq.Header.Set("User-Agent", f.cfg.UserAgent)
	hreq.Header.Set("Accept", acceptHeader)
	hreq.Header.Set("Accept-Encoding", "gzip, deflate, br")
	if req.ETag != "" {
		hreq.Header.Set("If-None-Match", req.ETag)
	}
	if req.LastModified != "" {
		hreq.Header.Set("If-Modified-Since", req.LastModified)
	}

	resp, err := f.client.Do(hreq)
	if err != nil {
		return nil, f.classify(parent, ctx, req.URL, err, tracker)
	}
	defer resp.Body.Close()

	now := f.cfg.Now()
	page := &Page{
		RequestURL:   req.URL,
		URL:          resp.Request.URL.String(),
		StatusCode:   resp.StatusCode,
		Header:       resp.Header,
		ETag:         resp.Header.Get("ETag"),
		LastModified: resp.Header.Get("Last-Modified"),
		FetchedAt:    now,
	}
	page.Expires = freshness(resp.Header, now)

	switch {
	case resp.StatusCode == http.StatusNotModified:
		page.NotModified = true
		if page.ETag == "" {
			page.ETag = req.ETag
		}
		if page.LastModified == "" {
			page.LastModified = req.LastModified
		}
		return page, nil // no body: Body and RawSHA256 stay empty
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
	default:
		drain(resp.Body)
		var ra time.Duration
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			ra = ParseRetryAfter(resp.Header.Get("Retry-After"), now)
		}
		return nil, statusError(page.URL, resp.StatusCode, ra).result()
	}

	limit := f.cfg.MaxBodyBytes
	if req.MaxBytes > 0 {
		limit = req.MaxBytes
	}
	media, declaredCharset := parseContentType(resp.Header.Get("Content-Type"))
	// Refuse what we will never use before reading a byte of it; JSON is
	// read, as it is kept when it is a JSON Feed.
	if !req.AnyContentType && media != "" && !needsSniff(media) && !isGzipFile(media) && !acceptable(media) &&
		media != "application/json" {
		drain(resp.Body)
		return nil, unsupported(page.URL, media)
	}
	if resp.ContentLength > limit && !req.Truncate && len(contentEncodings(resp.Header)) == 0 {
		return nil, tooLarge(page.URL, limit).result()
	}

	watch := watchRate(ctx, resp.Body, f.cfg.MinRate, f.cfg.StallAfter, stall)
	raw, err := readBody(watch, contentEncodings(resp.Header), limit, req.Truncate)
	watch.stop()
	if err != nil {
		return nil, f.bodyError(parent, ctx, page.URL, limit, err)
	}
	if isGzipFile(media) || (needsSniff(media) && hasGzipMagic(raw)) {
		// A gzip file (sitemap.xml.gz) rather than a gzip transfer: unwrap
		// it under the same limit and judge what is inside.
		raw, err = readBody(bytes.NewReader(raw), []string{"gzip"}, limit, req.Truncate)
		if err != nil {
			return nil, f.bodyError(parent, ctx, page.URL, limit, err)
		}
		media = ""
	}
	if media == "" || needsSniff(media) {
		media = sniffType(raw, resp.Request.URL.Path)
	}
	if media == "application/json" && isJSONFeed(raw) {
		media = "application/feed+json"
	}
	if !req.AnyContentType && !acceptable(media) {
		return nil, unsupported(page.URL, media)
	}
	ct := media
	if declaredCharset != "" {
		ct += "; charset=" + declaredCharset
	}
	body, charset := Decode(raw, ct)
	if charset != "utf-8" && isXMLType(media) {
		body = rewriteXMLEncoding(body)
	}
	page.ContentType = media
	page.Charset = charset
	page.Body = body
	page.RawSHA256 = hexSHA256(body)
	return page, nil
}

const acceptHeader = "text/html,application/xhtml+xml,application/xml;q=0.9,application/rss+xml,application/atom+xml," +
	"application/feed+json,text/markdown;q=0.9,text/plain;q=0.8,*/*;q=0.1"

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// drain reads a little of an unwanted body so the connection can be reused.
func drain(r io.Reader) { _, _ = io.CopyN(io.Discard, r, 4<<10) }

func tooLarge(url string, limit int64) *Error {
	return newError(KindTooLarge, url, true, nil, "too large: body exceeds %d bytes", limit)
}

func unsupported(url, media string) error {
	if media == "" {
		media = "unknown"
	}
	return &Error{
		Kind: KindUnsupportedContentType, URL: url,
		Err: skipf("unsupported content type: %s", media),
		msg: "unsupported content type " + media,
	}
}

// bodyError classifies a failure while reading the body.
func (f *Fetcher) bodyError(parent, ctx context.Context, url string, limit int64, err error) error {
	var le *limitError
	if errors.As(err, &le) {
		return tooLarge(url, limit).result()
	}
	var de *decodeError
	if errors.As(err, &de) {
		return newError(KindEncoding, url, de.permanent, de.err, "cannot decode body: %v", de.err).result()
	}
	var se *stallError
	if errors.As(context.Cause(ctx), &se) {
		return newError(KindStalled, url, false, se, "transfer stalled: %v", se)
	}
	if e := f.deadline(parent, ctx, url); e != nil {
		return e
	}
	return newError(KindNetwork, url, false, err, "reading body of %s failed: %v", url, err)
}

// deadline reports the context-based outcomes: our total deadline (timeout)
// or the caller cancelling.
func (f *Fetcher) deadline(parent, ctx context.Context, url string) error {
	if parent.Err() != nil {
		if errors.Is(parent.Err(), context.DeadlineExceeded) {
			return newError(KindTimeout, url, false, parent.Err(), "timeout: caller deadline exceeded")
		}
		return fmt.Errorf("fetch %s: %w", url, parent.Err())
	}
	if ctx.Err() != nil {
		return newError(KindTimeout, url, false, ctx.Err(), "timeout after %s", secs(f.cfg.TotalTimeout))
	}
	return nil
}
