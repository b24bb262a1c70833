package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/url"
	"syscall"
)

// classify turns a transport error from http.Client.Do into an *Error (or
// the caller's context error), wrapped as permanent where that holds.
func (f *Fetcher) classify(parent, ctx context.Context, raw string, err error, tr *phaseTracker) error {
	target := raw
	var ue *url.Error
	if errors.As(err, &ue) && ue.URL != "" {
		target = ue.URL
	}
	host := hostOf(target)

	// Our own verdicts (redirect rules) come back wrapped in *url.Error.
	var fe *Error
	if errors.As(err, &fe) {
		return fe.result()
	}
	var re *refusedError
	if errors.As(err, &re) {
		return newError(KindRefusedAddress, target, true, re, "%s", re.Error()).result()
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		reason := dnsErr.Err
		if dnsErr.IsNotFound {
			reason = "no such host"
		}
		if dnsErr.IsTimeout {
			reason = "timeout"
		}
		// Only a definite "no such host" is permanent; a resolver that is
		// down or slow may answer next time.
		return newError(KindDNS, target, dnsErr.IsNotFound, dnsErr, "DNS lookup failed for %s: %s", host, reason).result()
	}
	if e := f.deadline(parent, ctx, target); e != nil {
		return e
	}
	if tlsErr := tlsFailure(err); tlsErr != nil {
		permanent := isCertError(err)
		return newError(KindTLS, target, permanent, err, "TLS with %s failed: %v", host, tlsErr).result()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		switch tr.p.Load() {
		case phaseDNS:
			return newError(KindDNS, target, false, err, "DNS lookup failed for %s: timeout", host)
		case phaseConnect:
			return newError(KindTimeout, target, false, err, "timeout after %s connecting to %s", secs(f.cfg.ConnectTimeout), host)
		case phaseTLS:
			return newError(KindTimeout, target, false, err, "timeout after %s in the TLS handshake with %s", secs(f.cfg.TLSTimeout), host)
		case phaseHeaders:
			return newError(KindTimeout, target, false, err, "timeout after %s waiting for response headers from %s", secs(f.cfg.HeaderTimeout), host)
		}
		return newError(KindTimeout, target, false, err, "timeout fetching %s", target)
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		reason := "connection failed"
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			reason = "connection refused"
		case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
			reason = "host unreachable"
		case oe.Err != nil:
			reason = oe.Err.Error()
		}
		return newError(KindConnect, target, false, err, "connect to %s failed: %s", host, reason)
	}
	return newError(KindNetwork, target, false, err, "fetching %s failed: %v", target, unwrapURLError(err))
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}

// tlsFailure returns the TLS-layer error in err's chain, if any.
func tlsFailure(err error) error {
	var (
		cv  *tls.CertificateVerificationError
		rh  tls.RecordHeaderError
		al  tls.AlertError
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
		ech *tls.ECHRejectionError
	)
	switch {
	case errors.As(err, &cv):
		return cv.Err
	case errors.As(err, &ua):
		return ua
	case errors.As(err, &he):
		return he
	case errors.As(err, &ci):
		return ci
	case errors.As(err, &rh):
		return rh
	case errors.As(err, &al):
		return al
	case errors.As(err, &ech):
		return ech
	}
	return nil
}

// isCertError: a certificate that does not verify will not verify on retry.
func isCertError(err error) bool {
	var (
		cv *tls.CertificateVerificationError
		ua x509.UnknownAuthorityError
		he x509.HostnameError
		ci x509.CertificateInvalidError
	)
	return errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci)
}
