// Package peers holds the open-source main-content extractors that casebook
// is measured against. It is linked only into the evaluation command
// (cmd/evalcontent) and the benchmarks, never into the casebook binary.
package peers

import (
	"bytes"
	"net/url"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"

	"github.com/casebook/casebook/extract/evalcontent"
)

// All is casebook followed by its peers, in table order.
func All() []evalcontent.Extractor {
	return []evalcontent.Extractor{evalcontent.Casebook(), Trafilatura(), Readability()}
}

// Trafilatura is go-trafilatura configured as in the AEB benchmark (with fallback).
func Trafilatura() evalcontent.Extractor {
	return evalcontent.Extractor{Name: "go-trafilatura", Fn: func(page []byte, pageURL string) (string, error) {
		doc, err := html.Parse(bytes.NewReader(page))
		if err != nil {
			return "", err
		}
		u, _ := url.Parse(pageURL)
		res, err := trafilatura.ExtractDocument(doc, trafilatura.Options{EnableFallback: true, OriginalURL: u})
		if err != nil {
			return "", err
		}
		return res.ContentText, nil
	}}
}

// Readability is readeck's go-readability v2, text rendered by its InnerText.
func Readability() evalcontent.Extractor {
	return evalcontent.Extractor{Name: "go-readability", Fn: func(page []byte, pageURL string) (string, error) {
		u, err := url.Parse(pageURL)
		if err != nil || pageURL == "" {
			u, _ = url.Parse("https://example.com/")
		}
		art, err := readability.FromReader(bytes.NewReader(page), u)
		if err != nil {
			return "", err
		}
		if art.Node == nil {
			return "", nil
		}
		var sb strings.Builder
		if err := art.RenderText(&sb); err != nil {
			return "", err
		}
		return sb.String(), nil
	}}
}
