package classify

import (
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/casebook/casebook"
)

// tagMatcher finds the vocabulary's tags in text.
type tagAlias struct {
	text  string // folded unless exact
	slug  string
	exact bool
}

var (
	tagAliasOnce sync.Once
	tagAliasList []tagAlias
)

func tagAliases() []tagAlias {
	tagAliasOnce.Do(func() {
		for slug, aliases := range casebook.TagAliases {
			tagAliasList = append(tagAliasList, tagAlias{text: slug, slug: slug})
			for _, a := range aliases {
				if strings.HasPrefix(a, "=") {
					tagAliasList = append(tagAliasList, tagAlias{text: a[1:], slug: slug, exact: true})
				} else {
					tagAliasList = append(tagAliasList, tagAlias{text: strings.ToLower(a), slug: slug})
				}
			}
		}
		sort.Slice(tagAliasList, func(i, j int) bool { return tagAliasList[i].text < tagAliasList[j].text })
	})
	return tagAliasList
}

// countWhole counts occurrences of w in s that are whole words (for Latin
// and Cyrillic edges; Han edges need no boundary).
func countWhole(s, w string) int {
	n, from := 0, 0
	for {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return n
		}
		i += from
		from = i + len(w)
		if i > 0 {
			p, _ := utf8.DecodeLastRuneInString(s[:i])
			f, _ := utf8.DecodeRuneInString(w)
			if isWordRune(p) && isWordRune(f) {
				continue
			}
		}
		if from < len(s) {
			nx, _ := utf8.DecodeRuneInString(s[from:])
			l, _ := utf8.DecodeLastRuneInString(w)
			if isWordRune(nx) && isWordRune(l) || nx == '-' && isWordRune(l) {
				continue
			}
		}
		n++
	}
}

func isWordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') && !unicode.Is(unicode.Han, r)
}

// Tag selection: a tag in the title, the front matter or the root cause
// counts outright; elsewhere it must recur. At most maxTags, most-mentioned first.
const (
	maxTags      = 8
	tagMinCount  = 2
	titleWeight  = 3
	causeWeight  = 2
	frontMatterW = 4
)

func (a *analysis) tagScores(rootCause string) map[string]float64 {
	scores := map[string]float64{}
	var body strings.Builder
	for _, u := range a.units {
		body.WriteString(u.text)
		body.WriteByte('\n')
	}
	text := body.String()
	low := strings.ToLower(text)
	title := a.doc.Title
	lowTitle := strings.ToLower(title)
	lowCause := strings.ToLower(rootCause)
	counts := map[string]int{}
	bonus := map[string]float64{}
	for _, al := range tagAliases() {
		var n, t, c int
		if al.exact {
			n, t, c = countWhole(text, al.text), countWhole(title, al.text), countWhole(rootCause, al.text)
		} else {
			n, t, c = countWhole(low, al.text), countWhole(lowTitle, al.text), countWhole(lowCause, al.text)
		}
		counts[al.slug] += n
		if t > 0 {
			bonus[al.slug] = max(bonus[al.slug], titleWeight)
		}
		if c > 0 {
			bonus[al.slug] = max(bonus[al.slug], causeWeight)
		}
	}
	for _, t := range a.doc.Tags {
		if slug, ok := casebook.NormalizeTag(t); ok {
			bonus[slug] = max(bonus[slug], frontMatterW)
		}
	}
	for slug := range bonus {
		if _, ok := counts[slug]; !ok {
			counts[slug] = 0 // a title mention counts even when the body never repeats it
		}
	}
	for slug, n := range counts {
		if n >= tagMinCount || bonus[slug] > 0 {
			scores[slug] = float64(n) + bonus[slug]
		}
	}
	for slug, b := range bonus {
		if scores[slug] == 0 && b >= frontMatterW {
			scores[slug] = b
		}
	}
	return scores
}

func (a *analysis) fillTags(cs *casebook.Case) {
	scores := a.tagScores(cs.RootCause.Description)
	tags := sortedKeys(scores)
	if len(tags) > maxTags {
		tags = tags[:maxTags]
	}
	cs.Tags = tags
	if len(tags) > 0 {
		cs.Extraction.Confidence["tags"] = 0.6
	}
}
