package fetch

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// trackingParams are query parameters that identify a campaign or a click,
// never the content. Keys compare lower-cased; "utm_" is a prefix.
var trackingParams = map[string]bool{
	"fbclid": true, "gclid": true, "gclsrc": true, "dclid": true, "gbraid": true, "wbraid": true,
	"msclkid": true, "yclid": true, "twclid": true, "ttclid": true, "igshid": true, "li_fat_id": true,
	"mc_cid": true, "mc_eid": true, "mkt_tok": true, "_ga": true, "_gl": true,
	"_hsenc": true, "_hsmktg": true, "__hstc": true, "__hssc": true, "__hsfp": true, "hsctatracking": true,
	"oly_anon_id": true, "oly_enc_id": true, "vero_id": true, "vero_conv": true, "rb_clickid": true,
	"s_cid": true, "spm": true, "ref_src": true, "ref_url": true,
}

func isTracking(key string) bool {
	k := strings.ToLower(key)
	return strings.HasPrefix(k, "utm_") || trackingParams[k]
}

// CanonicalURL is the seen-set key of a URL: scheme and host lower-cased
// (IDNs in their ASCII form, trailing dot and default port dropped),
// credentials and fragment removed, dot segments resolved, percent-escapes
// normalised (unreserved characters decoded, hex upper-cased), tracking
// parameters (utm_*, fbclid, gclid, ...) removed and the remaining query
// parameters sorted by key. Only absolute http and https URLs are accepted.
// It is idempotent: CanonicalURL of its result returns the result.
func CanonicalURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("canonical URL: %w", err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("canonical URL %q: only absolute http and https URLs", raw)
	}
	host, err := canonicalHost(u.Hostname())
	if err != nil {
		return "", fmt.Errorf("canonical URL %q: %w", raw, err)
	}
	port := u.Port()
	port = strings.TrimLeft(port, "0")
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if u.Port() != "" {
		if n, err := strconv.Atoi(u.Port()); err != nil || n <= 0 || n > 65535 {
			return "", fmt.Errorf("canonical URL %q: bad port", raw)
		}
	}
	hostport := host
	if strings.Contains(host, ":") {
		hostport = "[" + host + "]"
	}
	if port != "" {
		hostport += ":" + port
	}

	p := u.EscapedPath()
	if u.Opaque != "" {
		return "", fmt.Errorf("canonical URL %q: opaque URL", raw)
	}
	p = normalizeEscapes(p)
	p = removeDotSegments(p)
	if p == "" {
		p = "/"
	}

	q := canonicalQuery(u.RawQuery)
	out := scheme + "://" + hostport + p
	if q != "" {
		out += "?" + q
	}
	return out, nil
}

var idnaProfile = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.Transitional(false))

func canonicalHost(h string) (string, error) {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" {
		return "", errors.New("no host")
	}
	if strings.Contains(h, ":") { // IPv6 literal, brackets already gone
		h, _, _ = strings.Cut(h, "%") // a zone means nothing off the host
		ip, err := netip.ParseAddr(h)
		if err != nil || !ip.Is6() {
			return "", fmt.Errorf("host %q: bad IPv6 literal", h)
		}
		return ip.String(), nil
	}
	if strings.ContainsAny(h, "%") {
		unesc, err := url.PathUnescape(h)
		if err != nil {
			return "", err
		}
		h = unesc
	}
	ascii, err := idnaProfile.ToASCII(h)
	if err != nil {
		// Hostnames with underscores and the like are real; keep them
		// lower-cased rather than refuse them, when they are plain ASCII.
		if isPlainHost(h) {
			return checkLabels(h)
		}
		return "", fmt.Errorf("host %q: %w", h, err)
	}
	return checkLabels(strings.TrimSuffix(strings.ToLower(ascii), "."))
}

// checkLabels refuses a host with an empty label ("a..b", ".a").
func checkLabels(h string) (string, error) {
	if h == "" {
		return "", errors.New("no host")
	}
	for _, l := range strings.Split(h, ".") {
		if l == "" {
			return "", fmt.Errorf("host %q: empty label", h)
		}
	}
	return h, nil
}

func isPlainHost(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return h != ""
}

func isUnreserved(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func ishex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

const upperhex = "0123456789ABCDEF"

// normalizeEscapes decodes escaped unreserved characters, upper-cases the
// hex of the other escapes, and escapes bytes that must not appear raw
// (space, non-ASCII, a stray '%'); '+' stays as is.
func normalizeEscapes(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperhex[v>>4])
				b.WriteByte(upperhex[v&15])
			}
			i += 2
		case c <= ' ' || c >= 0x7F || c == '%' || c == '"' || c == '<' || c == '>' || c == '\\' ||
			c == '^' || c == '`' || c == '{' || c == '|' || c == '}' || (c == '#'):
			b.WriteByte('%')
			b.WriteByte(upperhex[c>>4])
			b.WriteByte(upperhex[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// removeDotSegments is RFC 3986 §5.2.4, keeping a trailing slash.
func removeDotSegments(p string) string {
	if p == "" {
		return ""
	}
	if !strings.Contains(p, ".") {
		return p
	}
	trailing := strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..")
	var out []string
	for _, seg := range strings.Split(p, "/")[1:] {
		switch seg {
		case ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, seg)
		}
	}
	r := "/" + strings.Join(out, "/")
	if trailing && !strings.HasSuffix(r, "/") {
		r += "/"
	}
	return r
}

type qparam struct{ key, raw string }

// canonicalQuery drops tracking parameters and sorts the rest by decoded
// key, keeping each parameter's raw text (so "a+b" and "a%20b" stay what
// the site meant) apart from escape normalisation.
func canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	var ps []qparam
	for _, part := range strings.FieldsFunc(raw, func(r rune) bool { return r == '&' || r == ';' }) {
		k, _, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			key = k
		}
		if isTracking(key) {
			continue
		}
		ps = append(ps, qparam{key: key, raw: normalizeEscapes(part)})
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].key < ps[j].key })
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.raw
	}
	return strings.Join(parts, "&")
}

// CanonicalForPage returns the canonical URL of a fetched page: its
// rel=canonical (Link header, then <link rel=canonical> in an HTML head)
// when that points to the same site (same registrable domain), else the
// page's own final URL, both through CanonicalURL. The same-site rule stops
// a page from claiming another site's URL and so hiding it from the crawl.
func CanonicalForPage(p *Page) (string, error) {
	own, err := CanonicalURL(p.URL)
	if err != nil {
		return "", err
	}
	var cands []string
	if p.Header != nil {
		cands = append(cands, linkHeaderCanonical(p.Header.Values("Link"))...)
	}
	if p.ContentType == "text/html" || p.ContentType == "application/xhtml+xml" {
		if c := htmlCanonical(p.Body); c != "" {
			cands = append(cands, c)
		}
	}
	base, _ := url.Parse(p.URL)
	for _, c := range cands {
		ref, err := url.Parse(strings.TrimSpace(c))
		if err != nil {
			continue
		}
		abs := base.ResolveReference(ref).String()
		canon, err := CanonicalURL(abs)
		if err != nil {
			continue
		}
		if sameSite(own, canon) {
			return canon, nil
		}
	}
	return own, nil
}

// SourceURL decides which URL names a fetched page: the page's claimed
// canonical URL (rel=canonical, og:url, a Markdown front-matter url) when it
// is http(s) and on the same site as fetched (the final URL after the
// fetcher's redirects), else fetched itself. A claim that names another site
// comes back as rejected, so a reviewer can be told about it; a claim that is
// not http(s) (javascript:, data:, mailto:) is dropped without a trace.
// Both results are canonical (CanonicalURL). With no fetched URL (a local
// file), an http(s) claim is all there is and is taken.
func SourceURL(fetched, claimed string) (source, rejected string) {
	own, err := CanonicalURL(fetched)
	if err != nil {
		own = ""
	}
	claimed = strings.TrimSpace(claimed)
	if claimed == "" {
		return ownOr(own, fetched), ""
	}
	ref, err := url.Parse(claimed)
	if err != nil {
		return ownOr(own, fetched), ""
	}
	if own != "" {
		base, _ := url.Parse(own)
		ref = base.ResolveReference(ref)
	}
	canon, err := CanonicalURL(ref.String())
	if err != nil {
		return ownOr(own, fetched), ""
	}
	if own == "" || sameSite(own, canon) {
		return canon, ""
	}
	return own, canon
}

func ownOr(own, fetched string) string {
	if own != "" {
		return own
	}
	return fetched
}

// SameSite reports whether two absolute URLs are on the same site: the same
// host, or the same registrable domain (public suffix plus one label).
func SameSite(a, b string) bool { return sameSite(a, b) }

func sameSite(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return false
	}
	ha, hb := ua.Hostname(), ub.Hostname()
	if ha == hb {
		return true
	}
	ea, err1 := publicsuffix.EffectiveTLDPlusOne(ha)
	eb, err2 := publicsuffix.EffectiveTLDPlusOne(hb)
	return err1 == nil && err2 == nil && ea == eb
}

// linkHeaderCanonical reads `Link: <url>; rel="canonical"` values.
func linkHeaderCanonical(values []string) []string {
	var out []string
	for _, v := range values {
		for _, link := range strings.Split(v, ",") {
			link = strings.TrimSpace(link)
			if !strings.HasPrefix(link, "<") {
				continue
			}
			end := strings.Index(link, ">")
			if end < 0 {
				continue
			}
			target := link[1:end]
			for _, param := range strings.Split(link[end+1:], ";") {
				k, v, _ := strings.Cut(strings.TrimSpace(param), "=")
				if strings.EqualFold(strings.TrimSpace(k), "rel") {
					for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(v), `"`)) {
						if strings.EqualFold(rel, "canonical") {
							out = append(out, target)
						}
					}
				}
			}
		}
	}
	return out
}

// htmlCanonical finds <link rel="canonical" href> before <body>.
func htmlCanonical(body []byte) string {
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "body":
				return ""
			case "link":
				if !hasAttr {
					continue
				}
				var rel, href string
				for {
					k, v, more := z.TagAttr()
					switch string(k) {
					case "rel":
						rel = string(v)
					case "href":
						href = string(v)
					}
					if !more {
						break
					}
				}
				for _, r := range strings.Fields(rel) {
					if strings.EqualFold(r, "canonical") && href != "" {
						return href
					}
				}
			}
		}
	}
}
