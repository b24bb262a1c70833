package extract

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// MaxInput bounds what Extract will parse; larger inputs are cut, not parsed whole.
const MaxInput = 16 << 20

// Extract reads raw (already UTF-8) bytes as the format in opts and returns the Document.
func Extract(raw []byte, opts Options) (*Document, error) {
	if len(raw) > MaxInput {
		raw = raw[:MaxInput]
	}
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
