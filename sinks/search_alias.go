package sinks

import (
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/casebook/casebook"
)

// aliasIndex reads tag aliases the way a query is written: by their
// terms (so "контрольных групп" is "контрольные группы", inflected), and,
// for aliases in Han script, inside a run written without spaces
// ("服务网格故障" holds 服务网格).
type aliasIndex struct {
	byTerms map[string]string // the alias's terms joined by spaces -> slug; "" if two slugs share them
	han     []hanAlias        // longest first
}

type hanAlias struct{ text, slug string }

var (
	aliasesOnce sync.Once
	aliases     aliasIndex
)

func tagAliases() *aliasIndex {
	aliasesOnce.Do(func() {
		aliases = aliasIndex{byTerms: map[string]string{}}
		add := func(a, slug string) {
			a = strings.ToLower(strings.TrimPrefix(a, "="))
			if terms := Tokens(a, false); len(terms) > 1 {
				k := strings.Join(terms, " ")
				if prev, ok := aliases.byTerms[k]; ok && prev != slug {
					slug = ""
				}
				aliases.byTerms[k] = slug
			}
			if strings.IndexFunc(a, isHanRune) >= 0 {
				aliases.han = append(aliases.han, hanAlias{a, slug})
			}
		}
		for slug, as := range casebook.TagAliases {
			add(strings.ReplaceAll(slug, "-", " "), slug)
			for _, a := range as {
				add(a, slug)
			}
		}
		sort.Slice(aliases.han, func(i, j int) bool {
			a, b := aliases.han[i], aliases.han[j]
			if len(a.text) != len(b.text) {
				return len(a.text) > len(b.text)
			}
			return a.text < b.text
		})
	})
	return &aliases
}

// aliasOfWords is the tag the words name together, as written or by
// their terms (wordTerms[i] is words[i]'s); "" for none.
func aliasOfWords(words []string, wordTerms [][]string) string {
	if slug, ok := casebook.NormalizeTag(strings.Join(words, " ")); ok {
		return slug
	}
	var terms []string
	for _, ts := range wordTerms {
		terms = append(terms, ts...)
	}
	if len(terms) < 2 {
		return ""
	}
	return tagAliases().byTerms[strings.Join(terms, " ")]
}

// tokensEach is Tokens of each word.
func tokensEach(words []string) [][]string {
	out := make([][]string, len(words))
	for i, w := range words {
		out[i] = Tokens(w, false)
	}
	return out
}

// wordPart is a piece of a query word and the tag it names ("" for none).
type wordPart struct{ text, slug string }

// hanParts cuts a word written without spaces at the Han-script aliases it
// holds, longest first: "服务网格故障" is 服务网格 (service-mesh) and 故障.
// The bigram across a cut is not asked for: a case carrying the tag need
// not have it, and a case with the words still matches its other terms.
func hanParts(w string) []wordPart {
	if slug, ok := casebook.NormalizeTag(w); ok {
		return []wordPart{{w, slug}}
	}
	if strings.IndexFunc(w, isHanRune) < 0 {
		return []wordPart{{w, ""}}
	}
	lw := strings.ToLower(w)
	for _, a := range tagAliases().han {
		i := strings.Index(lw, a.text)
		if i < 0 || a.slug == "" {
			continue
		}
		// Lower-casing keeps byte offsets for the scripts aliases use.
		if len(lw) != len(w) {
			break
		}
		var out []wordPart
		if i > 0 {
			out = append(out, hanParts(w[:i])...)
		}
		out = append(out, wordPart{w[i : i+len(a.text)], a.slug})
		if rest := w[i+len(a.text):]; rest != "" {
			out = append(out, hanParts(rest)...)
		}
		return out
	}
	return []wordPart{{w, ""}}
}

func isHanRune(r rune) bool { return unicode.Is(unicode.Han, r) }
