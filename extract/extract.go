package extract

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// MaxInput bounds what Extract will parse; larger inputs are cut, not parsed whole.
const MaxInput = 16 << 20

// Extract reads raw bytes (UTF-8 from the fetcher; anything else goes
// through ToUTF8) as the format in opts and returns the Document. Its Text
// is never longer than the input as UTF-8.
func Extract(raw []byte, opts Options) (*Document, error) {
	if len(raw) > MaxInput {
		raw = raw[:MaxInput]
	}
	raw = ToUTF8(raw, opts.ContentType)
	format := opts.Format
	if format == "" {
		format = SniffFormat(opts.URL, opts.ContentType, raw)
	}
	var (
		d   *Document
		err error
	)
	switch format {
	case FormatHTML:
		d, err = extractHTML(raw, opts)
	case FormatMarkdown:
		d, err = extractMarkdown(raw, opts)
	case FormatText:
		d, err = extractText(raw, opts)
	default:
		return nil, fmt.Errorf("extract: unknown format %q", format)
	}
	if err != nil {
		return nil, err
	}
	d.Format = format
	if d.URL == "" {
		d.URL = opts.URL
	}
	return d, nil
}

// SniffFormat picks a format from the content type, the URL or file name, and the bytes.
func SniffFormat(name, contentType string, raw []byte) string {
	ct := strings.ToLower(contentType)
	switch {
	case strings.Contains(ct, "html"):
		return FormatHTML
	case strings.Contains(ct, "markdown"):
		return FormatMarkdown
	}
	switch strings.ToLower(path.Ext(strings.SplitN(name, "?", 2)[0])) {
	case ".html", ".htm", ".xhtml":
		return FormatHTML
	case ".md", ".markdown", ".mdx":
		return FormatMarkdown
	case ".txt", ".text":
		return FormatText
	}
	head := bytes.ToLower(bytes.TrimSpace(raw[:min(len(raw), 1024)]))
	if bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html")) || bytes.Contains(head, []byte("<body")) || bytes.Contains(head, []byte("<head")) {
		return FormatHTML
	}
	if strings.Contains(ct, "text/plain") {
		return FormatText
	}
	if bytes.HasPrefix(head, []byte("---\n")) || bytes.HasPrefix(head, []byte("# ")) {
		return FormatMarkdown
	}
	return FormatText
}

// ToUTF8 returns raw as valid UTF-8. Valid UTF-8 (the fetcher's output) is
// returned as is. Otherwise a charset the page declares (BOM, Content-Type,
// <meta charset>) is decoded; text that is UTF-8 with a few bad bytes
// loses those bytes rather than being read as a legacy charset.
func ToUTF8(raw []byte, contentType string) []byte {
	if utf8.Valid(raw) {
		return raw
	}
	if bad := invalidRuns(raw); bad*200 > len(raw) {
		if enc, name, _ := charset.DetermineEncoding(raw, contentType); name != "utf-8" {
			if out, err := enc.NewDecoder().Bytes(raw); err == nil {
				return bytes.ToValidUTF8(out, nil)
			}
		}
	}
	return bytes.ToValidUTF8(raw, nil)
}

// invalidRuns counts the invalid UTF-8 sequences in b.
func invalidRuns(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			n++
		}
		b = b[max(size, 1):]
	}
	return n
}
