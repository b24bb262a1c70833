package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is a sentence as a byte range [start, end) of a block's text.
type span struct{ start, end int }

// abbreviations that end in a full stop without ending a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "mr": true, "mrs": true, "dr": true,
	"approx": true, "no": true, "fig": true, "inc": true, "ltd": true, "st": true, "jr": true,
	"т.е": true, "т.к": true, "т.д": true, "т.п": true, "т.н": true, "др": true, "см": true,
	"г": true, "гг": true, "напр": true, "им": true, "ул": true, "стр": true, "рис": true,
	"e": true, "i": true, "т": true, "д": true, "п": true, "к": true,
}

// splitSentences cuts text into sentences for English, Russian and Chinese:
// after 。！？ always, at a space between Han characters; after . ! ? … when followed by white space and not
// ending an abbreviation, a decimal or a dotted name. Trailing spaces are
// not part of a sentence.
func splitSentences(text string) []span { return splitSentencesIn(text, true) }

// splitSentencesIn is splitSentences; hanBreaks says whether a space
// between two Han characters ends a sentence. In HTML it is a <br> the page
// lost; in Markdown and plain text it is a line the author wrapped inside a
// sentence ("token 开\n始时间过早"), and cutting there leaves two halves
// that neither read nor score as the sentence they are.
func splitSentencesIn(text string, hanBreaks bool) []span {
	var out []span
	start := 0
	emit := func(end int) {
		s, e := start, end
		for s < e && (text[s] == ' ' || text[s] == '\t') {
			s++
		}
		for e > s && (text[e-1] == ' ' || text[e-1] == '\t') {
			e--
		}
		if e > s {
			out = append(out, span{s, e})
		}
		start = end
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		next := i + size
		switch r {
		case ' ':
			// Chinese is written without spaces: a space between two Han
			// characters is a line break the page lost (<br>), so a boundary
			if hanBreaks && i > start {
				p, _ := utf8.DecodeLastRuneInString(text[:i])
				nx, _ := utf8.DecodeRuneInString(text[next:])
				if isHanRune(p) && isHanRune(nx) {
					emit(i)
				}
			}
		case '。', '！', '？', '；':
			// keep closing quotes, brackets and repeated marks ("！！！")
			// with the sentence
			for next < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[next:])
				if !isCloser(r2) && r2 != '！' && r2 != '？' && r2 != '。' && r2 != '!' && r2 != '?' {
					break
				}
				next += s2
			}
			emit(next)
		case '.', '!', '?', '…':
			j := next
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if r2 == '.' || r2 == '!' || r2 == '?' || isCloser(r2) {
					j += s2
					continue
				}
				break
			}
			if j >= len(text) {
				emit(len(text))
				i = len(text)
				continue
			}
			r2, _ := utf8.DecodeRuneInString(text[j:])
			if r == '.' && !unicode.IsSpace(r2) {
				// 3.45, example.com, os.Getenv; but a Cyrillic word, a stop and
				// a capital ("вторник.Стою") is a space the page lost
				p, _ := utf8.DecodeLastRuneInString(text[:i])
				if unicode.Is(unicode.Cyrillic, p) && unicode.IsLower(p) && unicode.Is(unicode.Cyrillic, r2) && unicode.IsUpper(r2) {
					emit(j)
					i = j
					continue
				}
				break
			}
			if !unicode.IsSpace(r2) && !isHanRune(r2) {
				break
			}
			if r == '.' && (isAbbreviation(text[start:i]) || isOrdinal(text[start:i]) || isOutlineNumber(text[start:i])) {
				break
			}
			// a lower-case Latin or Cyrillic word after the stop rarely starts a sentence
			k := j
			for k < len(text) && text[k] == ' ' {
				k++
			}
			if k < len(text) {
				r3, _ := utf8.DecodeRuneInString(text[k:])
				if unicode.IsLower(r3) && r == '.' {
					break
				}
			}
			emit(j)
			i = j
			continue
		}
		i = next
	}
	emit(len(text))
	return out
}

func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '»', '”', '’', '）', '」', '』', '】':
		return true
	}
	return false
}

func isHanRune(r rune) bool { return r >= hanFirst && unicode.Is(unicode.Han, r) }

// hanFirst is the lowest code point of the Han script (CJK Radicals
// Supplement): under it the table lookup can only say no.
const hanFirst = 0x2E80

// isAbbreviation reports whether the text before a full stop ends in a known
// abbreviation or a single letter (initials, "т. е.").
func isAbbreviation(before string) bool {
	k := len(before)
	for k > 0 {
		r, s := utf8.DecodeLastRuneInString(before[:k])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		k -= s
	}
	w := strings.ToLower(strings.TrimPrefix(before[k:], "."))
	if w == "" {
		return false
	}
	return abbreviations[w] || utf8.RuneCountInString(w) == 1 && unicode.IsUpper([]rune(before[k:])[0])
}

// isOutlineNumber reports whether the sentence so far is only a section or
// step number ("1.", "2.3.", "1.1."): the number heads the sentence after it
// ("1.1. Open the dashboard"), it is not one of its own.
func isOutlineNumber(before string) bool {
	before = strings.TrimSpace(before)
	if before == "" || before[0] < '0' || before[0] > '9' {
		return false
	}
	for i := 0; i < len(before); i++ {
		if c := before[i]; (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// isOrdinal reports a day or ordinal written with a full stop ("3. February").
func isOrdinal(before string) bool {
	k := len(before)
	for k > 0 && before[k-1] >= '0' && before[k-1] <= '9' {
		k--
	}
	n := len(before) - k
	if n < 1 || n > 2 || k > 0 && before[k-1] != ' ' {
		return false
	}
	// "June 15." ends a sentence; "on 3." or "Monday 3." heads a date
	w := strings.ToLower(strings.TrimSpace(before[:k]))
	if i := strings.LastIndexByte(w, ' '); i >= 0 {
		w = w[i+1:]
	}
	for _, m := range []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"} {
		if strings.HasPrefix(w, m) {
			return false
		}
	}
	return true
}
