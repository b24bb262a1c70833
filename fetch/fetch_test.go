package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/casebook/casebook"
	"golang.org/x/net/dns/dnsmessage"
)

// countingListener counts accepted connections, to prove the guard refused
// an address before any connection reached it.
type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

func newCountingServer(t *testing.T, h http.Handler) (*httptest.Server, *countingListener) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	cl := &countingListener{Listener: srv.Listener}
	srv.Listener = cl
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, cl
}

func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// localFetcher may reach the loopback test servers.
func localFetcher(t *testing.T, mod func(*Config)) *Fetcher {
	t.Helper()
	cfg := Config{AllowPrivateNetworks: true}
	if mod != nil {
		mod(&cfg)
	}
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func mustKind(t *testing.T, err error, kind ErrorKind) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s error, got nil", kind)
	}
	fe, ok := AsError(err)
	if !ok {
		t.Fatalf("want *fetch.Error of kind %s, got %T: %v", kind, err, err)
	}
	if fe.Kind != kind {
		t.Fatalf("kind = %s, want %s (%v)", fe.Kind, kind, err)
	}
	return fe
}

func TestFetchHTML(t *testing.T) {
	var gotUA, gotAE string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		gotUA, gotAE = r.UserAgent(), r.Header.Get("Accept-Encoding")
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Tue, 01 Dec 2026 06:00:00 GMT")
		w.Header().Set("Cache-Control", "public, max-age=600")
		fmt.Fprint(w, "<html><head><title>Разбор</title></head><body><p>故障</p></body></html>")
	})
	f := localFetcher(t, nil)
	p, err := f.Fetch(context.Background(), Request{URL: srv.URL + "/post#frag"})
	if err != nil {
		t.Fatal(err)
	}
	if gotUA != DefaultUserAgent || gotAE != "gzip, deflate, br" {
		t.Errorf("UA %q, Accept-Encoding %q", gotUA, gotAE)
	}
	if p.StatusCode != 200 || p.NotModified || p.ContentType != "text/html" || p.Charset != "utf-8" {
		t.Errorf("page = %d %v %q %q", p.StatusCode, p.NotModified, p.ContentType, p.Charset)
	}
	if p.URL != srv.URL+"/post" || p.RequestURL != srv.URL+"/post#frag" {
		t.Errorf("URLs %q %q", p.URL, p.RequestURL)
	}
	if p.ETag != `"v1"` || p.LastModified == "" {
		t.Errorf("validators %q %q", p.ETag, p.LastModified)
	}
	if d := p.Expires.Sub(p.FetchedAt); d != 600*time.Second {
		t.Errorf("Expires - FetchedAt = %s, want 10m", d)
	}
	if p.RawSHA256 != hexSHA256(p.Body) || !bytes.Contains(p.Body, []byte("Разбор")) {
		t.Errorf("body/sha mismatch")
	}
}

func TestConditionalGet304(t *testing.T) {
	const etag = `"abc123"`
	const lm = "Mon, 30 Nov 2026 10:00:00 GMT"
	var hits, notModified atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("If-None-Match") == etag && r.Header.Get("If-Modified-Since") == lm {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", lm)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "first version")
	})
	f := localFetcher(t, nil)
	p1, err := f.Fetch(context.Background(), Request{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if p1.NotModified || string(p1.Body) != "first version" {
		t.Fatalf("first fetch: %+v", p1)
	}
	p2, err := f.Fetch(context.Background(), Request{URL: srv.URL, ETag: p1.ETag, LastModified: p1.LastModified})
	if err != nil {
		t.Fatal(err)
	}
	if !p2.NotModified || p2.StatusCode != 304 || len(p2.Body) != 0 {
		t.Fatalf("second fetch: status %d notModified %v body %q", p2.StatusCode, p2.NotModified, p2.Body)
	}
	if p2.ETag != etag || p2.LastModified != lm {
		t.Errorf("validators not carried: %q %q", p2.ETag, p2.LastModified)
	}
	if hits.Load() != 2 || notModified.Load() != 1 {
		t.Errorf("hits %d, 304s %d", hits.Load(), notModified.Load())
	}
}

func TestStatusErrors(t *testing.T) {
	now := time.Now()
	tests := []struct {
		code       int
		retryAfter string
		permanent  bool
		wantRA     time.Duration
		msg        string
	}{
		{404, "", true, 0, "HTTP 404 Not Found"},
		{410, "", true, 0, "HTTP 410 Gone"},
		{403, "", true, 0, "HTTP 403 Forbidden"},
		{400, "", true, 0, "HTTP 400 Bad Request"},
		{408, "", false, 0, "HTTP 408 Request Timeout"},
		{429, "120", false, 120 * time.Second, "HTTP 429 Too Many Requests (retry after 120s)"},
		{503, now.Add(90 * time.Second).UTC().Format(http.TimeFormat), false, 90 * time.Second, ""},
		{500, "", false, 0, "HTTP 500 Internal Server Error"},
		{502, "", false, 0, "HTTP 502 Bad Gateway"},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.code), func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				w.WriteHeader(tt.code)
			})
			f := localFetcher(t, nil)
			_, err := f.Fetch(context.Background(), Request{URL: srv.URL})
			fe := mustKind(t, err, KindHTTPStatus)
			if fe.Status != tt.code {
				t.Errorf("status %d", fe.Status)
			}
			if casebook.IsPermanent(err) != tt.permanent {
				t.Errorf("permanent = %v, want %v", casebook.IsPermanent(err), tt.permanent)
			}
			// HTTP dates have one-second resolution.
			if d := fe.RetryAfter - tt.wantRA; d < -2*time.Second || d > time.Second {
				t.Errorf("RetryAfter = %s, want %s", fe.RetryAfter, tt.wantRA)
			}
			if tt.msg != "" && err.Error() != tt.msg {
				t.Errorf("message %q, want %q", err.Error(), tt.msg)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"-5", 0},
		{"30", 30 * time.Second},
		{" 3600 ", time.Hour},
		{"99999999999", maxRetryAfter},
		{"Tue, 01 Dec 2026 08:05:00 GMT", 5 * time.Minute},
		{"Tue, 01 Dec 2026 07:00:00 GMT", 0}, // in the past
		{"soon", 0},
	}
	for _, tt := range tests {
		if got := ParseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("ParseRetryAfter(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestFreshness(t *testing.T) {
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		h    map[string]string
		want time.Time
	}{
		{"none", nil, time.Time{}},
		{"max-age", map[string]string{"Cache-Control": "max-age=300"}, now.Add(5 * time.Minute)},
		{"max-age minus age", map[string]string{"Cache-Control": "max-age=300", "Age": "100"}, now.Add(200 * time.Second)},
		{"no-cache", map[string]string{"Cache-Control": "no-cache, max-age=300"}, now},
		{"no-store", map[string]string{"Cache-Control": "no-store"}, now},
		{"expires with skewed date", map[string]string{
			"Date": "Tue, 01 Dec 2026 09:00:00 GMT", "Expires": "Tue, 01 Dec 2026 10:00:00 GMT"}, now.Add(time.Hour)},
		{"max-age beats expires", map[string]string{"Cache-Control": "max-age=60", "Expires": "Tue, 01 Dec 2026 10:00:00 GMT"}, now.Add(time.Minute)},
		{"invalid expires", map[string]string{"Expires": "0"}, now},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.h {
			h.Set(k, v)
		}
		if got := freshness(h, now); !got.Equal(tt.want) {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
	p := &Page{FetchedAt: now, Expires: now.Add(time.Minute)}
	if got := p.FreshUntil(time.Hour); !got.Equal(now.Add(time.Hour)) {
		t.Errorf("FreshUntil with a longer feed TTL = %s", got)
	}
	if got := p.FreshUntil(0); !got.Equal(now.Add(time.Minute)) {
		t.Errorf("FreshUntil without TTL = %s", got)
	}
}

func TestBadURL(t *testing.T) {
	f := localFetcher(t, nil)
	for _, u := range []string{
		"ftp://example.com/file", "file:///etc/passwd", "/relative/path", "http://", "http://user:secret@example.com/",
		"http://[::1", "javascript:alert(1)", "gopher://example.com",
	} {
		_, err := f.Fetch(context.Background(), Request{URL: u})
		mustKind(t, err, KindBadURL)
		if !casebook.IsPermanent(err) {
			t.Errorf("%q: bad_url not permanent", u)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: message leaks the password: %v", u, err)
		}
	}
}

func TestGuardRefusesLoopbackByDefault(t *testing.T) {
	srv, cl := newCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "should not be reached")
	}))
	f, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	for _, u := range []string{
		srv.URL,
		fmt.Sprintf("http://localhost:%d/", port),
		fmt.Sprintf("http://127.1:%d/", port),
		fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/", port),
		"http://169.254.169.254/latest/meta-data/",
		"http://10.0.0.1/",
		"http://[fd00::1]/",
		"http://100.64.0.1/",
		"http://0.0.0.0/",
	} {
		_, err := f.Fetch(context.Background(), Request{URL: u})
		if err == nil {
			t.Errorf("%s: fetched", u)
			continue
		}
		fe, ok := AsError(err)
		if !ok || fe.Kind != KindRefusedAddress {
			// "127.1" may not resolve on every platform; anything but a
			// connection is acceptable, a refusal is what we expect.
			if !strings.Contains(u, "127.1:") {
				t.Errorf("%s: %v", u, err)
			}
			continue
		}
		if !casebook.IsPermanent(err) {
			t.Errorf("%s: refusal not permanent", u)
		}
	}
	if n := cl.n.Load(); n != 0 {
		t.Fatalf("%d connections reached the loopback listener", n)
	}
}

func TestGuardAllowAddrPort(t *testing.T) {
	srv, cl := newCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "ok")
	}))
	other, otherCL := newCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "no")
	}))
	allowed := strings.TrimPrefix(srv.URL, "http://")
	f, err := New(Config{AllowAddrs: []string{allowed}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Fetch(context.Background(), Request{URL: srv.URL}); err != nil {
		t.Fatalf("allowed ip:port refused: %v", err)
	}
	_, err = f.Fetch(context.Background(), Request{URL: other.URL})
	mustKind(t, err, KindRefusedAddress)
	if cl.n.Load() == 0 || otherCL.n.Load() != 0 {
		t.Fatalf("connections: allowed %d, other %d", cl.n.Load(), otherCL.n.Load())
	}
	// A bare IP (or CIDR) allows every port.
	f2, err := New(Config{AllowAddrs: []string{"127.0.0.0/8"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f2.Fetch(context.Background(), Request{URL: other.URL}); err != nil {
		t.Fatalf("CIDR allow: %v", err)
	}
}

func TestRedirectToRefusedAddressNeverConnects(t *testing.T) {
	target, targetCL := newCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "secret internal page")
	}))
	for _, dest := range []string{target.URL + "/admin", "http://169.254.169.254/latest/meta-data/"} {
		entry, _ := newCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, dest, http.StatusFound)
		}))
		// Only the entry server's exact ip:port is allowed.
		f, err := New(Config{AllowAddrs: []string{strings.TrimPrefix(entry.URL, "http://")}})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err = f.Fetch(context.Background(), Request{URL: entry.URL})
		fe := mustKind(t, err, KindRefusedAddress)
		if !strings.Contains(fe.Error(), "refused address") {
			t.Errorf("message %q", fe.Error())
		}
		// The connect timeout is 10 s and 169.254.169.254 is unroutable here:
		// an answer well inside it means no connection was attempted.
		if time.Since(start) > 5*time.Second {
			t.Errorf("refusal took %s: a connection was attempted", time.Since(start))
		}
	}
	if n := targetCL.n.Load(); n != 0 {
		t.Fatalf("%d connections reached the redirect target", n)
	}
}

func TestRedirects(t *testing.T) {
	var srv *httptest.Server
	srv = newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/loop":
			http.Redirect(w, r, "/loop?"+r.URL.RawQuery+"x", http.StatusFound)
		case r.URL.Path == "/two":
			http.Redirect(w, r, "/one", http.StatusMovedPermanently)
		case r.URL.Path == "/one":
			http.Redirect(w, r, "/final", http.StatusFound)
		case r.URL.Path == "/ftp":
			http.Redirect(w, r, "ftp://example.com/x", http.StatusFound)
		case r.URL.Path == "/creds":
			http.Redirect(w, r, "http://u:p@"+strings.TrimPrefix(srv.URL, "http://")+"/final", http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "final")
		}
	})
	f := localFetcher(t, nil)
	p, err := f.Fetch(context.Background(), Request{URL: srv.URL + "/two"})
	if err != nil {
		t.Fatal(err)
	}
	if p.URL != srv.URL+"/final" || p.RequestURL != srv.URL+"/two" {
		t.Errorf("final URL %q", p.URL)
	}
	_, err = f.Fetch(context.Background(), Request{URL: srv.URL + "/loop"})
	mustKind(t, err, KindRedirects)
	if !casebook.IsPermanent(err) {
		t.Error("redirect loop not permanent")
	}
	_, err = f.Fetch(context.Background(), Request{URL: srv.URL + "/ftp"})
	mustKind(t, err, KindBadURL)
	_, err = f.Fetch(context.Background(), Request{URL: srv.URL + "/creds"})
	mustKind(t, err, KindBadURL)
}

// gzipMember is 1 MiB of zeros as one gzip member; a gzip stream may hold
// any number of members, so repeating it streams a bomb of any size from a
// few KiB of memory.
func gzipMember(t testing.TB) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	return buf.Bytes()
}

func TestGzipBombBoundedMemory(t *testing.T) {
	member := gzipMember(t)
	var sent atomic.Int64
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(len(member)*1024))
		for range 1024 { // 1 GiB once decompressed
			n, err := w.Write(member)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	f := localFetcher(t, nil)

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > peak.Load() {
					peak.Store(ms.HeapAlloc)
				}
			}
		}
	}()
	_, err := f.Fetch(context.Background(), Request{URL: srv.URL})
	close(done)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	fe := mustKind(t, err, KindTooLarge)
	if !casebook.IsPermanent(err) {
		t.Error("too_large not permanent")
	}
	if want := "too large: body exceeds 10485760 bytes"; fe.Error() != want {
		t.Errorf("message %q, want %q", fe.Error(), want)
	}
	growth := int64(peak.Load()) - int64(before.HeapAlloc)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("1 GiB gzip bomb: peak heap growth %.1f MiB, total allocated %.1f MiB, compressed bytes sent %d",
		float64(growth)/(1<<20), float64(allocated)/(1<<20), sent.Load())
	if growth > 64<<20 {
		t.Errorf("peak heap grew by %d bytes", growth)
	}
	// Reading the whole bomb would allocate far more than the limit.
	if allocated > 128<<20 {
		t.Errorf("allocated %d bytes in total", allocated)
	}
}

// zeroBomb streams size bytes of zeros through a compressor until the
// client goes away.
func zeroBomb(encoding string, size int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", encoding)
		var zw io.WriteCloser
		switch encoding {
		case "br":
			zw = brotli.NewWriterLevel(w, 1)
		case "deflate":
			zw, _ = zlib.NewWriterLevel(w, zlib.BestSpeed)
		}
		chunk := make([]byte, 64<<10)
		for sent := int64(0); sent < size; sent += int64(len(chunk)) {
			if _, err := zw.Write(chunk); err != nil || r.Context().Err() != nil {
				return
			}
		}
		zw.Close()
	}
}

func TestBrotliAndDeflateBombs(t *testing.T) {
	for _, enc := range []string{"br", "deflate"} {
		t.Run(enc, func(t *testing.T) {
			srv := newServer(t, zeroBomb(enc, 1<<30))
			f := localFetcher(t, func(c *Config) { c.MaxBodyBytes = 1 << 20 })
			_, err := f.Fetch(context.Background(), Request{URL: srv.URL})
			mustKind(t, err, KindTooLarge)
		})
	}
}

func TestDecompression(t *testing.T) {
	text := strings.Repeat("Инцидент: таймаут базы данных. 数据库超时。 ", 200)
	encode := map[string]func([]byte) []byte{
		"gzip": func(b []byte) []byte {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(b)
			zw.Close()
			return buf.Bytes()
		},
		"deflate": func(b []byte) []byte { // zlib-wrapped, as RFC 9110 says
			var buf bytes.Buffer
			zw := zlib.NewWriter(&buf)
			zw.Write(b)
			zw.Close()
			return buf.Bytes()
		},
		"raw-deflate": func(b []byte) []byte { // what some servers send instead
			var buf bytes.Buffer
			zw, _ := flate.NewWriter(&buf, flate.DefaultCompression)
			zw.Write(b)
			zw.Close()
			return buf.Bytes()
		},
		"br": func(b []byte) []byte {
			var buf bytes.Buffer
			zw := brotli.NewWriter(&buf)
			zw.Write(b)
			zw.Close()
			return buf.Bytes()
		},
	}
	for name, enc := range encode {
		t.Run(name, func(t *testing.T) {
			header := name
			if name == "raw-deflate" {
				header = "deflate"
			}
			body := enc([]byte(text))
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.Header().Set("Content-Encoding", header)
				w.Write(body)
			})
			p, err := localFetcher(t, nil).Fetch(context.Background(), Request{URL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			if string(p.Body) != text {
				t.Fatalf("body differs: %d bytes vs %d", len(p.Body), len(text))
			}
		})
	}
	t.Run("unknown coding", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Encoding", "compress")
			w.Write([]byte("xxxx"))
		})
		_, err := localFetcher(t, nil).Fetch(context.Background(), Request{URL: srv.URL})
		mustKind(t, err, KindEncoding)
	})
	t.Run("corrupt gzip", func(t *testing.T) {
		srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Encoding", "gzip")
			w.Write([]byte("\x1f\x8b\x08\x00garbage-garbage-garbage"))
		})
		_, err := localFetcher(t, nil).Fetch(context.Background(), Request{URL: srv.URL})
		mustKind(t, err, KindEncoding)
	})
}

func TestTooLargePlain(t *testing.T) {
	big := bytes.Repeat([]byte("a"), 2<<20)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		if r.URL.Path == "/chunked" {
			w.(http.Flusher).Flush() // no Content-Length
		}
		w.Write(big)
	})
	f := localFetcher(t, func(c *Config) { c.MaxBodyBytes = 1 << 20 })
	for _, path := range []string{"/declared", "/chunked"} {
		_, err := f.Fetch(context.Background(), Request{URL: srv.URL + path})
		fe := mustKind(t, err, KindTooLarge)
		if fe.Error() != "too large: body exceeds 1048576 bytes" {
			t.Errorf("%s: %q", path, fe.Error())
		}
	}
	// Truncate keeps the head instead (robots.txt).
	p, err := f.Fetch(context.Background(), Request{URL: srv.URL + "/chunked", MaxBytes: 1000, Truncate: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Body) != 1000 {
		t.Errorf("truncated body is %d bytes", len(p.Body))
	}
}

func TestSlowDripCutOff(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fl := w.(http.Flusher)
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	f := localFetcher(t, func(c *Config) { c.TotalTimeout = 500 * time.Millisecond })
	_, err := f.Fetch(context.Background(), Request{URL: srv.URL})
	fe := mustKind(t, err, KindTimeout)
	if casebook.IsPermanent(err) {
		t.Error("timeout is permanent")
	}
	if fe.Error() != "timeout after 500ms" {
		t.Errorf("message %q", fe.Error())
	}
}

func TestHeaderTimeout(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	})
	f := localFetcher(t, func(c *Config) { c.HeaderTimeout = 200 * time.Millisecond })
	_, err := f.Fetch(context.Background(), Request{URL: srv.URL})
	fe := mustKind(t, err, KindTimeout)
	if !strings.Contains(fe.Error(), "timeout after 200ms waiting for response headers") {
		t.Errorf("message %q", fe.Error())
	}
}

func TestCallerCancel(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	_, err := localFetcher(t, nil).Fetch(ctx, Request{URL: srv.URL})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

func TestContentTypes(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	tests := []struct {
		name, ctype string
		body        []byte
		want        string // media type, "" when skipped
	}{
		{"html", "text/html", []byte("<p>x</p>"), "text/html"},
		{"xhtml", "application/xhtml+xml", []byte(`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"/>`), "application/xhtml+xml"},
		{"markdown", "text/markdown; charset=utf-8", []byte("# Title"), "text/markdown"},
		{"plain", "TEXT/PLAIN", []byte("hello"), "text/plain"},
		{"rss", "application/rss+xml", []byte(`<rss version="2.0"><channel/></rss>`), "application/rss+xml"},
		{"atom", "application/atom+xml", []byte(`<feed xmlns="http://www.w3.org/2005/Atom"/>`), "application/atom+xml"},
		{"json feed", "application/json", []byte(`{"version":"https://jsonfeed.org/version/1.1","items":[]}`), "application/feed+json"},
		{"other json", "application/json", []byte(`{"a":1}`), ""},
		{"png", "image/png", png, ""},
		{"pdf", "application/pdf", []byte("%PDF-1.7"), ""},
		{"sniffed html", "application/octet-stream", []byte("<!DOCTYPE html><html><body>x</body></html>"), "text/html"},
		{"sniffed png", "", png, ""},
		{"sniffed rss", "", []byte(`<?xml version="1.0"?><rss version="2.0"><channel/></rss>`), "application/rss+xml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = []string{tt.ctype}
				w.Write(tt.body)
			})
			p, err := localFetcher(t, nil).Fetch(context.Background(), Request{URL: srv.URL})
			if tt.want == "" {
				mustKind(t, err, KindUnsupportedContentType)
				skip, ok := casebook.AsSkip(err)
				if !ok || !strings.HasPrefix(skip.Reason, "unsupported content type: ") {
					t.Fatalf("not a skip: %v", err)
				}
				if casebook.IsPermanent(err) {
					t.Error("a skip must not read as a failure")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.ContentType != tt.want {
				t.Errorf("content type %q, want %q", p.ContentType, tt.want)
			}
		})
	}
}

func TestGzipFileSitemap(t *testing.T) {
	xmlBody := `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/a</loc></url></urlset>`
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(xmlBody))
	zw.Close()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-gzip")
		w.Write(buf.Bytes())
	})
	p, err := localFetcher(t, nil).Fetch(context.Background(), Request{URL: srv.URL + "/sitemap.xml.gz"})
	if err != nil {
		t.Fatal(err)
	}
	if p.ContentType != "application/xml" || string(p.Body) != xmlBody {
		t.Fatalf("got %q %q", p.ContentType, p.Body)
	}
	sm, err := ParseSitemap(p.Body, p.URL)
	if err != nil || len(sm.Items) != 1 {
		t.Fatalf("sitemap: %v %+v", err, sm)
	}
}

// fakeDNS answers A queries for the names in hosts and NXDOMAIN for the
// rest.
func fakeDNS(t *testing.T, hosts map[string][4]byte) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, addr, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			ip, found := hosts[strings.TrimSuffix(q.Name.String(), ".")]
			rcode := dnsmessage.RCodeSuccess
			if !found {
				rcode = dnsmessage.RCodeNameError
			}
			b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true,
				RecursionDesired: h.RecursionDesired, RecursionAvailable: true, RCode: rcode})
			b.StartQuestions()
			b.Question(q)
			if found && q.Type == dnsmessage.TypeA {
				b.StartAnswers()
				b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 0}, dnsmessage.AResource{A: ip})
			}
			out, err := b.Finish()
			if err == nil {
				pc.WriteTo(out, addr)
			}
		}
	}()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
}

// A public-looking name that resolves to loopback (DNS rebinding, or a
// hostile record) is refused on the resolved address, before connecting.
func TestGuardChecksResolvedAddress(t *testing.T) {
	srv, cl := newCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "internal")
	}))
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	res := fakeDNS(t, map[string][4]byte{"rebind.example.com": {127, 0, 0, 1}})
	f, err := New(Config{Resolver: res, AllowPorts: []int{port}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Fetch(context.Background(), Request{URL: fmt.Sprintf("http://rebind.example.com:%d/", port)})
	fe := mustKind(t, err, KindRefusedAddress)
	if !strings.Contains(fe.Error(), "127.0.0.1") || !strings.Contains(fe.Error(), "loopback") {
		t.Errorf("message %q", fe.Error())
	}
	if cl.n.Load() != 0 {
		t.Fatal("connection reached the listener")
	}
	// The same name with private networks allowed connects.
	f2, _ := New(Config{Resolver: res, AllowPrivateNetworks: true})
	p, err := f2.Fetch(context.Background(), Request{URL: fmt.Sprintf("http://rebind.example.com:%d/", port)})
	if err != nil || string(p.Body) != "internal" || cl.n.Load() == 0 {
		t.Fatalf("allowed fetch: %v", err)
	}
}

// An environment proxy is never used: through a proxy the guard would see
// only the proxy's address.
func TestNoEnvironmentProxy(t *testing.T) {
	proxy, proxyCL := newCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "via proxy")
	}))
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	t.Setenv("HTTPS_PROXY", proxy.URL)
	target := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "direct")
	})
	// Refused target: refused, not relayed by the proxy.
	f, _ := New(Config{})
	_, err := f.Fetch(context.Background(), Request{URL: target.URL})
	mustKind(t, err, KindRefusedAddress)
	p, err := localFetcher(t, nil).Fetch(context.Background(), Request{URL: target.URL})
	if err != nil || string(p.Body) != "direct" {
		t.Fatalf("%v %q", err, p.Body)
	}
	if proxyCL.n.Load() != 0 {
		t.Fatalf("%d connections to the proxy", proxyCL.n.Load())
	}
}

func TestDNSFailure(t *testing.T) {
	f, err := New(Config{Resolver: fakeDNS(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Fetch(context.Background(), Request{URL: "http://example.invalid/post"})
	fe := mustKind(t, err, KindDNS)
	if want := "DNS lookup failed for example.invalid: no such host"; fe.Error() != want {
		t.Errorf("message %q, want %q", fe.Error(), want)
	}
	if !casebook.IsPermanent(err) {
		t.Error("NXDOMAIN not permanent")
	}
}

func TestConnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = localFetcher(t, nil).Fetch(context.Background(), Request{URL: "http://" + addr + "/"})
	fe := mustKind(t, err, KindConnect)
	if casebook.IsPermanent(err) {
		t.Error("connection refused is permanent")
	}
	if !strings.Contains(fe.Error(), "connection refused") {
		t.Errorf("message %q", fe.Error())
	}
}

func TestTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "secure")
	}))
	t.Cleanup(srv.Close)
	_, err := localFetcher(t, nil).Fetch(context.Background(), Request{URL: srv.URL})
	mustKind(t, err, KindTLS)
	if !casebook.IsPermanent(err) {
		t.Error("untrusted certificate not permanent")
	}
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	tlsConf := srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	tlsConf.RootCAs = pool
	p, err := localFetcher(t, func(c *Config) { c.TLSConfig = tlsConf }).Fetch(context.Background(), Request{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if string(p.Body) != "secure" {
		t.Errorf("body %q", p.Body)
	}
}

func TestNewValidates(t *testing.T) {
	for _, cfg := range []Config{
		{AllowAddrs: []string{"not-an-ip"}},
		{AllowPorts: []int{0}},
		{AllowPorts: []int{70000}},
		{UserAgent: "bad\r\nX-Injected: 1"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

func TestTLSHandshakeTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() { // accept, then never answer the ClientHello
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	f := localFetcher(t, func(c *Config) { c.TLSTimeout = 200 * time.Millisecond })
	_, err = f.Fetch(context.Background(), Request{URL: "https://" + ln.Addr().String() + "/"})
	fe := mustKind(t, err, KindTimeout)
	if !strings.Contains(fe.Error(), "timeout after 200ms in the TLS handshake") {
		t.Errorf("message %q", fe.Error())
	}
}
