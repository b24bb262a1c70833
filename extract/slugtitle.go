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

// leadHeadingTitle is the title of a Markdown file that opens with a
// heading at level 2 or below ("## 高并发服务遇redis瓶颈引发time-wait事故"
// over "### 摘要" sections): nothing precedes it, it reads as a headline,
// not a section name ("## Summary" opens many files that have no title of
// their own), and no other headline stands at its level (section names may:
// "## Downtime on the afternoon of 3rd of August" over "## Lessons Learned").
func leadHeadingTitle(sections []Section) string {
	first := -1
	for i, s := range sections {
		if s.Heading != "" {
			first = i
			break
		}
		if len(s.Blocks) > 0 {
			return "" // text before any heading
		}
	}
	if first < 0 {
		return ""
	}
	top := sections[first]
	for _, s := range sections[first+1:] {
		// section names beside it ("## Lessons Learned", "## Timeline")
		// leave it the title; a second headline makes it a section too
		if s.Heading != "" && s.Level <= top.Level && headlineLike(s.Heading) {
			return ""
		}
	}
	if !headlineLike(top.Heading) {
		return ""
	}
	return top.Heading
}

// headlineLike: four words or more, or eight Han characters; section names
// ("Summary", "Root cause analysis", "问题排查过程") are shorter.
func headlineLike(s string) bool {
	han := 0
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			han++
		}
	}
	words := strings.Fields(s)
	// a dated heading is an event's name ("2025-07-30/31 Hex Outage"):
	// section names carry no date
	return han >= 8 || len(words) >= 4 || len(words) >= 2 && headingDateRe.MatchString(s)
}

var headingDateRe = regexp.MustCompile(`\b(?:19|20)\d\d-\d\d-\d\d`)
