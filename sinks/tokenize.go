package sinks

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/russian"
)

// Tokens splits text into search terms for the inverted index, in English,
// Russian and Chinese at once (a case's text stays in its source language,
// and a query may mix scripts):
//
//   - Latin and Cyrillic words are lower-cased, ё folded to е, stop words
//     dropped and stemmed with Snowball, so "отказов" finds "отказ" and
//     "failing" finds "failed".
//   - Runs of Han (and kana/hangul) characters have no spaces, so each
//     character is a unigram term and each adjacent pair a bigram term;
//     forIndex adds both, a query uses bigrams (unigram for a one-character
//     run), which makes "数据库故障" match without word segmentation.
func Tokens(text string, forIndex bool) []string {
	var out []string
	var word []rune
	var han []rune
	flushWord := func() {
		if len(word) == 0 {
			return
		}
		if t := normWord(string(word)); t != "" {
			out = append(out, t)
		}
		word = word[:0]
	}
	flushHan := func() {
		switch {
		case len(han) == 0:
			return
		case len(han) == 1:
			out = append(out, string(han))
		default:
			for i := range han {
				if forIndex {
					out = append(out, string(han[i]))
				}
				if i+1 < len(han) {
					out = append(out, string(han[i:i+2]))
				}
			}
		}
		han = han[:0]
	}
	for _, r := range text {
		switch {
		case isCJK(r):
			flushWord()
			han = append(han, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushHan()
			word = append(word, r)
		default:
			flushWord()
			flushHan()
		}
	}
	flushWord()
	flushHan()
	return out
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// maxTermBytes keeps a pathological "word" (a hash, a base64 blob) from
// bloating the index keys.
const maxTermBytes = 64

func normWord(w string) string {
	w = strings.ToLower(w)
	w = strings.ReplaceAll(w, "ё", "е")
	if len(w) > maxTermBytes {
		return ""
	}
	cyr, lat := false, false
	for _, r := range w {
		switch {
		case unicode.Is(unicode.Cyrillic, r):
			cyr = true
		case r < 0x250 && unicode.IsLetter(r):
			lat = true
		}
	}
	switch {
	case cyr && !lat:
		if russian.IsStopWord(w) {
			return ""
		}
		return russian.Stem(w, true)
	case lat && !cyr:
		if len(w) < 2 || english.IsStopWord(w) {
			return ""
		}
		if isASCIIWordStemmable(w) {
			return english.Stem(w, true)
		}
		return w
	}
	return w // digits, mixed scripts: as written
}

// isASCIIWordStemmable keeps tokens like "k8s", "s3" or "http2" unstemmed:
// the stemmer is for words, not identifiers.
func isASCIIWordStemmable(w string) bool {
	for _, r := range w {
		if r >= '0' && r <= '9' {
			return false
		}
	}
	return true
}
