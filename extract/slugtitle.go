package extract

import (
	"net/url"
	"path"
	"regexp"
	"strings"
	"unicode"
)

// slugTitle reads a title from the last part of an address when the page
// gave none (a Markdown file in a repository that opens with "## Summary"):
// "docs/Postmortem-flutter.dev-outage-on-August-26-2023.md" is
// "Postmortem flutter.dev outage on August 26 2023". A Jekyll date prefix
// goes; an index file takes its folder's name; a slug of one word, an ID
// or a generic name ("README", "index") gives none.
func slugTitle(address string) string {
	p := address
	if u, err := url.Parse(address); err == nil {
		p = u.Path
	}
	p = strings.TrimRight(p, "/")
	base := path.Base(p)
	stem := strings.TrimSuffix(base, path.Ext(base))
	if ext := strings.ToLower(path.Ext(base)); ext != "" && !slugExts[ext] {
		stem = base // "flutter.dev" is a name, not a file
	}
	if genericSlugs[strings.ToLower(stem)] {
		p = path.Dir(p)
		stem = path.Base(p)
	}
	stem = slugDatePrefix.ReplaceAllString(stem, "")
	if s, err := url.PathUnescape(stem); err == nil {
		stem = s
	}
	words := strings.FieldsFunc(stem, func(r rune) bool { return r == '-' || r == '_' || r == '+' || r == ' ' })
	if len(words) < 2 || genericSlugs[strings.ToLower(stem)] || !strings.ContainsFunc(stem, unicode.IsLetter) {
		return ""
	}
	return strings.Join(words, " ")
}

var (
	slugExts       = map[string]bool{".md": true, ".markdown": true, ".mdx": true, ".html": true, ".htm": true, ".txt": true, ".php": true, ".aspx": true, ".shtml": true}
	genericSlugs   = map[string]bool{"index": true, "readme": true, "default": true, "post": true, "article": true, "page": true, "main": true, "home": true, "content": true, "untitled": true, ".": true, "/": true, "": true}
	slugDatePrefix = regexp.MustCompile(`^\d{4}[-_]\d{1,2}[-_]\d{1,2}[-_]`)
)
