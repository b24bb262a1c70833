package fetch

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/andybalholm/brotli"
)

// limitError: more than the limit, before or after decompression.
type limitError struct{ limit int64 }

func (e *limitError) Error() string { return fmt.Sprintf("body exceeds %d bytes", e.limit) }

// decodeError: the Content-Encoding is unknown (permanent) or the
// compressed stream is corrupt.
type decodeError struct {
	err       error
	permanent bool
}

func (e *decodeError) Error() string { return e.err.Error() }
func (e *decodeError) Unwrap() error { return e.err }

// wireReader counts what comes off the connection, stops at a limit (a
// stream of empty gzip members must not run on for ever) and remembers
// whether an error came from the network rather than a decompressor.
type wireReader struct {
	r       io.Reader
	left    int64
	limit   int64
	netErr  error
	hitWall bool
}

func (w *wireReader) Read(p []byte) (int, error) {
	if w.left <= 0 {
		w.hitWall = true
		return 0, &limitError{w.limit}
	}
	if int64(len(p)) > w.left {
		p = p[:w.left]
	}
	n, err := w.r.Read(p)
	w.left -= int64(n)
	if err != nil && err != io.EOF {
		w.netErr = err
	}
	return n, err
}

// contentEncodings lists the codings in the order they were applied.
func contentEncodings(h http.Header) []string {
	var out []string
	for _, v := range h.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c != "" && c != "identity" {
				out = append(out, c)
			}
		}
	}
	return out
}

// readBody decodes the content codings and reads at most limit bytes of the
// result: memory stays bounded by the limit whatever the compression ratio.
// With truncate, a longer body is cut at limit instead of failing.
func readBody(body io.Reader, encodings []string, limit int64, truncate bool) ([]byte, error) {
	if len(encodings) > 3 {
		return nil, &decodeError{err: fmt.Errorf("%d content codings stacked", len(encodings)), permanent: true}
	}
	// The wire is capped at the same limit: compressed data is never larger
	// than what it decodes to, except in a hostile stream.
	wire := &wireReader{r: body, left: limit + 1, limit: limit}
	var r io.Reader = wire
	for i := len(encodings) - 1; i >= 0; i-- {
		var err error
		switch encodings[i] {
		case "gzip", "x-gzip":
			var zr *gzip.Reader
			zr, err = gzip.NewReader(r)
			r = zr
		case "deflate":
			r, err = newDeflateReader(r)
		case "br":
			r = brotli.NewReader(r)
		default:
			return nil, &decodeError{err: fmt.Errorf("unsupported content encoding %q", encodings[i]), permanent: true}
		}
		if err != nil {
			return nil, wrapDecode(wire, err)
		}
	}
	b, err := readCapped(r, limit)
	if err != nil {
		if truncate && wire.hitWall {
			return trim(b, limit), nil
		}
		return nil, wrapDecode(wire, err)
	}
	if int64(len(b)) > limit {
		if truncate {
			return trim(b, limit), nil
		}
		return nil, &limitError{limit}
	}
	return b, nil
}

// readCapped reads up to limit+1 bytes, growing its buffer by doubling but
// never past limit+1, so the peak is about twice the limit at worst.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	max := limit + 1
	buf := make([]byte, 0, min(max, 32<<10))
	for {
		if int64(len(buf)) == max {
			return buf, nil
		}
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(max, int64(cap(buf))*2))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func trim(b []byte, limit int64) []byte {
	if int64(len(b)) > limit {
		return b[:limit]
	}
	return b
}

func wrapDecode(wire *wireReader, err error) error {
	var le *limitError
	if errors.As(err, &le) {
		return err
	}
	if wire.netErr != nil {
		return wire.netErr
	}
	return &decodeError{err: err}
}

// newDeflateReader accepts both zlib-wrapped deflate (what the RFC says)
// and raw deflate (what some servers send).
func newDeflateReader(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	h, err := br.Peek(2)
	if err != nil {
		return nil, err
	}
	if h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}

func hasGzipMagic(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// Media types casebook extracts from; everything else is skipped.
var acceptedTypes = map[string]bool{
	"text/html":             true,
	"application/xhtml+xml": true,
	"text/plain":            true,
	"text/markdown":         true,
	"text/x-markdown":       true,
	"application/rss+xml":   true,
	"application/atom+xml":  true,
	"application/rdf+xml":   true,
	"application/feed+json": true,
	"application/xml":       true, // feeds and sitemaps are often served so
	"text/xml":              true,
}

func acceptable(media string) bool { return acceptedTypes[media] }

// needsSniff: declared types that say nothing about the content.
func needsSniff(media string) bool {
	switch media {
	case "", "application/octet-stream", "binary/octet-stream", "application/unknown", "unknown/unknown":
		return true
	}
	return false
}

func isGzipFile(media string) bool {
	switch media {
	case "application/gzip", "application/x-gzip", "application/x-gunzip", "application/gzip-compressed":
		return true
	}
	return false
}

func isXMLType(media string) bool {
	return media == "application/xml" || media == "text/xml" || strings.HasSuffix(media, "+xml")
}

func isJSONFeed(b []byte) bool {
	head := b
	if len(head) > 4096 {
		head = head[:4096]
	}
	return bytes.Contains(head, []byte("jsonfeed.org/version"))
}

// sniffType guesses a media type from the content and the URL path.
func sniffType(b []byte, urlPath string) string {
	head := b
	if len(head) > 2048 {
		head = head[:2048]
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	lower := bytes.ToLower(trimmed)
	if bytes.HasPrefix(lower, []byte("<?xml")) || bytes.HasPrefix(lower, []byte("<rss")) ||
		bytes.HasPrefix(lower, []byte("<feed")) || bytes.HasPrefix(lower, []byte("<urlset")) ||
		bytes.HasPrefix(lower, []byte("<sitemapindex")) || bytes.HasPrefix(lower, []byte("<rdf:rdf")) {
		switch {
		case bytes.Contains(lower, []byte("<rss")), bytes.Contains(lower, []byte("<rdf:rdf")):
			return "application/rss+xml"
		case bytes.Contains(lower, []byte("<feed")):
			return "application/atom+xml"
		case bytes.Contains(lower, []byte("<html")):
			return "application/xhtml+xml"
		}
		return "application/xml"
	}
	if bytes.HasPrefix(trimmed, []byte("{")) && isJSONFeed(b) {
		return "application/feed+json"
	}
	dt := http.DetectContentType(b)
	media := strings.ToLower(strings.TrimSpace(strings.SplitN(dt, ";", 2)[0]))
	if media == "text/plain" {
		switch strings.ToLower(path.Ext(strings.TrimSuffix(urlPath, ".gz"))) {
		case ".md", ".markdown", ".mdown":
			return "text/markdown"
		}
	}
	return media
}

// stallError is the cause a rate watch cancels a fetch with.
type stallError struct {
	got      int64
	window   time.Duration
	minRate  int64
	received int64
}

func (e *stallError) Error() string {
	return fmt.Sprintf("%d bytes in %s, under the minimum of %d B/s (%d bytes received in all)", e.got, e.window, e.minRate, e.received)
}

// rateWatch counts a body's bytes and cancels the fetch when a window of
// `window` brings fewer than minRate bytes a second: a server that drips a
// byte now and then never hits a read timeout, so the rate is what counts.
type rateWatch struct {
	r    io.Reader
	n    atomic.Int64
	done chan struct{}
	once sync.Once
}

func watchRate(ctx context.Context, r io.Reader, minRate int64, window time.Duration, cancel context.CancelCauseFunc) *rateWatch {
	w := &rateWatch{r: r, done: make(chan struct{})}
	if minRate <= 0 || window <= 0 {
		return w
	}
	go func() {
		t := time.NewTicker(window)
		defer t.Stop()
		var last int64
		for {
			select {
			case <-w.done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				cur := w.n.Load()
				if got := cur - last; float64(got) < float64(minRate)*window.Seconds() {
					cancel(&stallError{got: got, window: window, minRate: minRate, received: cur})
					return
				}
				last = cur
			}
		}
	}()
	return w
}

func (w *rateWatch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	w.n.Add(int64(n))
	return n, err
}

func (w *rateWatch) stop() { w.once.Do(func() { close(w.done) }) }
