package fetch

import (
	"bytes"
	"mime"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
)

// Decode converts a body to UTF-8 and names the charset it was read as. The
// order follows the HTML standard's encoding sniffing: byte order mark, the
// Content-Type charset, then the document's own declaration (<meta> for
// HTML, the XML declaration for XML), then detection (detectCharset).
// Labels map through the WHATWG index, so "iso-8859-1" reads as
// windows-1252 and "gb2312" as GBK, as browsers do. The result is always
// valid UTF-8; undecodable bytes become U+FFFD.
func Decode(body []byte, contentType string) ([]byte, string) {
	if enc, name, n := bomEncoding(body); enc != nil {
		return decodeWith(enc, body[n:]), name
	}
	media, declared := parseContentType(contentType)
	if enc, name := lookupCharset(declared); enc != nil {
		return decodeWith(enc, body), name
	}
	if media == "text/html" || media == "application/xhtml+xml" || media == "" {
		if enc, name := lookupCharset(metaCharset(body)); enc != nil {
			return decodeWith(enc, body), name
		}
	}
	if media == "application/xhtml+xml" || media == "" || isXMLType(media) {
		if enc, name := lookupCharset(xmlDeclEncoding(body)); enc != nil {
			return decodeWith(enc, body), name
		}
	}
	name := detectCharset(body)
	enc, _ := htmlindex.Get(name)
	return decodeWith(enc, body), name
}

// parseContentType returns the lower-cased media type and the charset
// parameter, tolerating the malformed values servers send
// ("text/html;charset", "text/html; charset=utf-8; charset=utf-8").
func parseContentType(v string) (media, charset string) {
	if m, params, err := mime.ParseMediaType(v); err == nil && strings.Contains(m, "/") {
		return strings.ToLower(m), params["charset"]
	}
	parts := strings.Split(v, ";")
	media = strings.ToLower(strings.TrimSpace(parts[0]))
	if !strings.Contains(media, "/") {
		media = ""
	}
	for _, p := range parts[1:] {
		k, val, ok := strings.Cut(p, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "charset") && charset == "" {
			charset = strings.Trim(strings.TrimSpace(val), `"'`)
		}
	}
	return media, charset
}

func bomEncoding(b []byte) (encoding.Encoding, string, int) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return unicode.UTF8, "utf-8", 3
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), "utf-16be", 2
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), "utf-16le", 2
	}
	return nil, "", 0
}

// lookupCharset resolves a label through the WHATWG index. A declared
// UTF-16 without a BOM is read as UTF-8, as the HTML standard says for
// <meta>: an ASCII-compatible declaration cannot be UTF-16.
func lookupCharset(label string) (encoding.Encoding, string) {
	label = strings.ToLower(strings.Trim(strings.TrimSpace(label), `"'`))
	if label == "" {
		return nil, ""
	}
	enc, err := htmlindex.Get(label)
	if err != nil {
		return nil, ""
	}
	name, err := htmlindex.Name(enc)
	if err != nil {
		return nil, ""
	}
	switch name {
	case "utf-16be", "utf-16le":
		return unicode.UTF8, "utf-8"
	case "replacement":
		return nil, ""
	}
	return enc, name
}

func decodeWith(enc encoding.Encoding, b []byte) []byte {
	if enc == nil {
		enc = unicode.UTF8
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		out = b
	}
	if !utf8.Valid(out) {
		out = bytes.ToValidUTF8(out, []byte("\uFFFD"))
	}
	return out
}

// metaScanBytes is how far into a page <meta charset> is looked for; the
// standard says 1024, real pages put a long <head> first.
const metaScanBytes = 4096

// metaCharset finds <meta charset> or <meta http-equiv=Content-Type> near
// the start of an HTML document.
func metaCharset(b []byte) string {
	if len(b) > metaScanBytes {
		b = b[:metaScanBytes]
	}
	z := html.NewTokenizer(bytes.NewReader(b))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) == "body" {
				return ""
			}
			if string(name) != "meta" || !hasAttr {
				continue
			}
			var charset, httpEquiv, content string
			for {
				k, v, more := z.TagAttr()
				switch strings.ToLower(string(k)) {
				case "charset":
					charset = string(v)
				case "http-equiv":
					httpEquiv = strings.ToLower(string(v))
				case "content":
					content = string(v)
				}
				if !more {
					break
				}
			}
			if charset != "" {
				return charset
			}
			if httpEquiv == "content-type" {
				if _, params, err := mime.ParseMediaType(content); err == nil && params["charset"] != "" {
					return params["charset"]
				}
				if i := strings.Index(strings.ToLower(content), "charset="); i >= 0 {
					return strings.Trim(strings.Fields(content[i+8:] + " ")[0], `"';`)
				}
			}
		}
	}
}

var xmlDeclRE = regexp.MustCompile(`^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']`)

func xmlDeclEncoding(b []byte) string {
	if len(b) > 256 {
		b = b[:256]
	}
	if m := xmlDeclRE.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}

var xmlDeclRewriteRE = regexp.MustCompile(`^(\s*<\?xml[^>]*?encoding\s*=\s*["'])[A-Za-z0-9._:-]+(["'])`)

// rewriteXMLEncoding makes the XML declaration of a body already decoded to
// UTF-8 say so, lest an XML parser decode it a second time.
func rewriteXMLEncoding(b []byte) []byte {
	head := b
	if len(head) > 256 {
		head = head[:256]
	}
	loc := xmlDeclRewriteRE.FindSubmatchIndex(head)
	if loc == nil {
		return b
	}
	out := make([]byte, 0, len(b))
	out = append(out, b[:loc[3]]...)
	out = append(out, "UTF-8"...)
	out = append(out, b[loc[4]:]...)
	return out
}
