package fetch

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/casebook/casebook"
)

// ErrorKind names a class of fetch failure; the pipeline records it and the
// API shows it next to the submission.
type ErrorKind string

// Fetch failure kinds.
const (
	KindDNS                    ErrorKind = "dns"
	KindConnect                ErrorKind = "connect"
	KindRefusedAddress         ErrorKind = "refused_address"
	KindBadURL                 ErrorKind = "bad_url"
	KindHTTPStatus             ErrorKind = "http_status"
	KindTimeout                ErrorKind = "timeout"
	KindTooLarge               ErrorKind = "too_large"
	KindUnsupportedContentType ErrorKind = "unsupported_content_type"
	KindTLS                    ErrorKind = "tls"
	KindRedirects              ErrorKind = "redirects"
	// KindEncoding is a body whose Content-Encoding is unknown or corrupt.
	KindEncoding ErrorKind = "encoding"
	// KindNetwork is any other transport failure (connection reset mid-body...).
	KindNetwork ErrorKind = "network"
	// KindStalled is a body arriving below the minimum rate (Config.MinRate).
	KindStalled ErrorKind = "stalled"
)

// Error is a failed fetch. It is returned wrapped in casebook.Permanent when
// retrying cannot help; errors.As(err, new(*fetch.Error)) finds it either way.
type Error struct {
	Kind       ErrorKind
	URL        string
	Status     int           // HTTP status for KindHTTPStatus
	RetryAfter time.Duration // from Retry-After on 429/503, 0 if none
	Err        error

	// msg is the human message; built where the facts are known.
	msg       string
	permanent bool
}

func (e *Error) Error() string {
	if e.msg != "" {
		return e.msg
	}
	if e.Kind == KindHTTPStatus {
		return statusMessage(e.Status)
	}
	if e.Err != nil {
		return string(e.Kind) + ": " + e.Err.Error()
	}
	return string(e.Kind)
}

func (e *Error) Unwrap() error { return e.Err }

// Permanent reports whether retrying the same request cannot help.
func (e *Error) Permanent() bool { return e.permanent }

func statusMessage(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("HTTP %d %s", code, t)
	}
	return fmt.Sprintf("HTTP %d", code)
}

// result wraps e so casebook.IsPermanent sees the permanent kinds.
func (e *Error) result() error {
	if e.permanent {
		return casebook.Permanent(e)
	}
	return e
}

func newError(kind ErrorKind, url string, permanent bool, err error, format string, args ...any) *Error {
	return &Error{Kind: kind, URL: url, Err: err, msg: fmt.Sprintf(format, args...), permanent: permanent}
}

// statusError classifies an HTTP status: 4xx are permanent except 408 and
// 429, which (like 5xx) are worth retrying, after RetryAfter when given.
func statusError(url string, code int, retryAfter time.Duration) *Error {
	permanent := code < 500 && code != http.StatusRequestTimeout && code != http.StatusTooManyRequests
	e := &Error{Kind: KindHTTPStatus, URL: url, Status: code, RetryAfter: retryAfter, permanent: permanent}
	e.msg = statusMessage(code)
	if retryAfter > 0 {
		e.msg += fmt.Sprintf(" (retry after %s)", secs(retryAfter))
	}
	return e
}

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

func skipf(format string, args ...any) error { return casebook.Skip(format, args...) }

// secs formats whole seconds as "60s" rather than Go's "1m0s".
func secs(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}
