package classify

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/casebook/casebook/extract"
	"github.com/pemistahl/lingua-go"
)

// LanguageDetector decides en, ru, zh or und from a document's prose.
//
// Script comes first and is decided by counting letters of prose words (code,
// URLs, identifiers and log lines removed): kana means Japanese, Hangul
// Korean, a fair share of Han characters Chinese, of Cyrillic letters a
// Cyrillic language. Within Cyrillic and Latin, lingua decides among the
// languages that are easily confused with the ones we keep (Ukrainian,
// Belarusian, Bulgarian...; German, French, Spanish...), fed only with words
// of that script, so English commands in a Russian post do not vote. Only the
// trigram models are loaded (low accuracy mode) to keep memory small; texts
// are long enough for them.
type LanguageDetector struct {
	cyrillic lingua.LanguageDetector
	latin    lingua.LanguageDetector
}

// Confusable languages loaded beside Russian and English.
var (
	cyrillicLangs = []lingua.Language{lingua.Russian, lingua.Ukrainian, lingua.Belarusian,
		lingua.Bulgarian, lingua.Macedonian, lingua.Serbian, lingua.Kazakh, lingua.Mongolian}
	latinLangs = []lingua.Language{lingua.English, lingua.German, lingua.French, lingua.Spanish,
		lingua.Portuguese, lingua.Italian, lingua.Dutch, lingua.Polish, lingua.Czech,
		lingua.Swedish, lingua.Danish, lingua.Bokmal, lingua.Finnish, lingua.Turkish, lingua.Romanian,
		lingua.Indonesian, lingua.Vietnamese, lingua.Hungarian, lingua.Catalan}
)

// maxProse bounds how much prose is handed to lingua: enough to decide, and
// detection time stays flat for long posts.
const maxProse = 1000

// maxSample bounds the text whose scripts are counted: the article's
// language is settled well within its first pages.
const maxSample = 12000

// NewLanguageDetector loads the models it needs, once.
func NewLanguageDetector() *LanguageDetector {
	return &LanguageDetector{
		cyrillic: lingua.NewLanguageDetectorBuilder().FromLanguages(cyrillicLangs...).
			WithLowAccuracyMode().WithPreloadedLanguageModels().Build(),
		latin: lingua.NewLanguageDetectorBuilder().FromLanguages(latinLangs...).
			WithLowAccuracyMode().WithPreloadedLanguageModels().Build(),
	}
}

// Detect returns the language code of doc's prose: en, ru, zh or und.
func (l *LanguageDetector) Detect(doc *extract.Document) string {
	code, _ := l.DetectSeen(doc)
	return code
}

// DetectSeen returns the code (en, ru, zh or und) and the language seen, as
// an ISO 639-1 code ("uk", "ja", "de") or "" when none could be told.
func (l *LanguageDetector) DetectSeen(doc *extract.Document) (code, seen string) {
	var sb strings.Builder
	if doc.Title != "" {
		sb.WriteString(doc.Title)
		sb.WriteByte('\n')
	}
sections:
	for _, s := range doc.Sections {
		if s.Heading != "" {
			sb.WriteString(s.Heading)
			sb.WriteByte('\n')
		}
		for _, b := range s.Blocks {
			if b.Kind == extract.Code {
				continue
			}
			sb.WriteString(b.Text)
			sb.WriteByte('\n')
			if sb.Len() >= maxSample {
				break sections
			}
		}
	}
	return l.DetectText(sb.String())
}

// DetectText is DetectSeen for plain text.
func (l *LanguageDetector) DetectText(text string) (code, seen string) {
	p := prose(text)
	var han, kana, hangul, cyr, lat int
	for _, w := range p {
		switch w.script {
		case scriptHan:
			han += w.letters
			kana += w.kana
		case scriptHangul:
			hangul += w.letters
		case scriptCyrillic:
			cyr += w.letters
		case scriptLatin:
			lat += w.letters
		}
	}
	// A Han character carries about as much as a two-letter word part.
	total := 2*(han+kana+hangul) + cyr + lat
	switch {
	case total < 2:
		return "und", ""
	case kana >= 5 && kana*10 >= han+kana:
		return "und", "ja"
	case 2*hangul*5 >= total:
		return "und", "ko"
	case 2*han*10 >= total:
		return "zh", "zh"
	case cyr*10 >= total:
		return l.decide(l.cyrillic, p, scriptCyrillic)
	case lat > 0:
		return l.decide(l.latin, p, scriptLatin)
	}
	return "und", ""
}

func (l *LanguageDetector) decide(det lingua.LanguageDetector, p []proseWord, script int) (string, string) {
	var sb strings.Builder
	for _, w := range p {
		if w.script != script {
			continue
		}
		if sb.Len() > maxProse {
			break
		}
		sb.WriteString(w.text)
		sb.WriteByte(' ')
	}
	text := sb.String()
	// Settle the clear cases without lingua, whose confidence arithmetic is
	// slow: Russian by its letters, English by its function words.
	if script == scriptCyrillic && surelyRussian(text) {
		return "ru", "ru"
	}
	if script == scriptLatin && surelyEnglish(p) {
		return "en", "en"
	}
	if det == nil {
		return "und", "" // no models loaded (a test's detector)
	}
	lang, ok := det.DetectLanguageOf(text)
	if script == scriptCyrillic && lang != lingua.Russian {
		lang, ok = preferRussian(det, text, lang, ok)
	}
	if !ok {
		return "und", ""
	}
	seen := strings.ToLower(lang.IsoCode639_1().String())
	switch lang {
	case lingua.English:
		return "en", seen
	case lingua.Russian:
		return "ru", seen
	}
	return "und", seen
}

const (
	scriptOther = iota
	scriptLatin
	scriptCyrillic
	scriptHan
	scriptHangul
)

type proseWord struct {
	text    string
	script  int
	letters int
	kana    int
}

// prose splits text into words that read as natural language: URLs, paths,
// identifiers (snake_case, camelCase, dotted names, ALLCAPS, words with
// digits) and log-line noise are dropped. Han and kana runs count together
// because Japanese mixes them.
func prose(text string) []proseWord {
	var out []proseWord
	for _, f := range strings.Fields(text) {
		if strings.Contains(f, "://") || strings.HasPrefix(f, "www.") || strings.Count(f, "/") >= 2 {
			continue
		}
		// split a field into runs of one script, dropping punctuation
		start := -1
		cur := scriptOther
		flush := func(end int) {
			if start < 0 {
				return
			}
			w := f[start:end]
			start = -1
			if cur == scriptLatin && isIdentifier(w, f) {
				return
			}
			pw := proseWord{text: w, script: cur}
			for _, r := range w {
				if isKana(r) {
					pw.kana++
				} else if unicode.IsLetter(r) {
					pw.letters++
				}
			}
			out = append(out, pw)
		}
		for i, r := range f {
			s := scriptOf(r)
			if s == scriptOther {
				if r == '\'' || r == '’' || r == '-' {
					continue // inside a word: don't, по-русски
				}
				flush(i)
				cur = scriptOther
				continue
			}
			if s != cur {
				flush(i)
				start, cur = i, s
			} else if start < 0 {
				start = i
			}
		}
		flush(len(f))
	}
	return out
}

func scriptOf(r rune) int {
	switch {
	case r < utf8.RuneSelf:
		if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return scriptLatin
		}
		return scriptOther
	case unicode.Is(unicode.Han, r) || isKana(r) || r == 'ー':
		return scriptHan
	case unicode.Is(unicode.Hangul, r):
		return scriptHangul
	case unicode.Is(unicode.Cyrillic, r):
		return scriptCyrillic
	case unicode.Is(unicode.Latin, r):
		return scriptLatin
	}
	return scriptOther
}

func isKana(r rune) bool {
	return unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}

// isIdentifier reports whether a Latin word (from the white-space field f)
// looks like code rather than prose.
func isIdentifier(w, f string) bool {
	if strings.ContainsAny(f, "_=(){}[]<>$#@\\|`") || strings.Contains(f, "::") {
		return true
	}
	if strings.Contains(strings.Trim(f, ".,;:!?\"'»)"), ".") {
		return true // dotted names: os.Getenv, example.com
	}
	for _, r := range f {
		if r >= '0' && r <= '9' {
			return true
		}
	}
	upper, lowerThenUpper := 0, false
	prevLower := false
	for _, r := range w {
		if unicode.IsUpper(r) {
			upper++
			if prevLower {
				lowerThenUpper = true
			}
		}
		prevLower = unicode.IsLower(r)
	}
	if lowerThenUpper {
		return true // camelCase
	}
	return upper >= 2 && upper*2 >= utf8.RuneCountInString(w) // CPU, HTTP, OOM
}

// nonRussianLetters occur in the other Cyrillic languages loaded, not in Russian.
const nonRussianLetters = "іїєґўѓќѕљњџјәғқңөұүһІЇЄҐЎЃЌЅЉЊЏЈӘҒҚҢӨҰҮҺ"

// preferRussian settles short or ambiguous Cyrillic text: with no letter that
// Russian lacks, a letter only Russian among them has (ы, э, ё) beside one
// Belarusian lacks (и, щ, ъ) makes it Russian, and otherwise
// Russian wins when lingua rates it at least half as likely as its pick.
// Bulgarian, Macedonian and Serbian prose keeps lingua's clear verdict.
func preferRussian(det lingua.LanguageDetector, text string, lang lingua.Language, ok bool) (lingua.Language, bool) {
	if strings.ContainsAny(text, nonRussianLetters) {
		return lang, ok
	}
	if strings.ContainsAny(text, "ыэёЫЭЁ") && strings.ContainsAny(text, "ищъИЩЪ") {
		return lingua.Russian, true
	}
	var top, ru float64
	for _, cv := range det.ComputeLanguageConfidenceValues(text) {
		if cv.Value() > top {
			top = cv.Value()
		}
		if cv.Language() == lingua.Russian {
			ru = cv.Value()
		}
	}
	if top > 0 && ru*2 >= top {
		return lingua.Russian, true
	}
	return lang, ok
}

// surelyRussian: letters only Russian has among the loaded languages (ы, э
// or ё, which Bulgarian, Serbian and Macedonian lack, with и, щ or ъ, which
// Belarusian lacks) and none that Russian lacks.
func surelyRussian(text string) bool {
	return !strings.ContainsAny(text, nonRussianLetters) &&
		strings.ContainsAny(text, "ыэёЫЭЁ") && strings.ContainsAny(text, "ищъИЩЪ")
}

// englishFunctionWords are frequent in any English prose and rare as words
// of the other Latin-script languages loaded.
var englishFunctionWords = map[string]bool{
	"the": true, "and": true, "of": true, "to": true, "is": true, "was": true, "that": true,
	"we": true, "it": true, "for": true, "with": true, "were": true, "this": true, "which": true,
	"from": true, "have": true, "has": true, "be": true, "are": true, "not": true, "by": true,
}

// surelyEnglish: at least 60 words, a fifth of them English function words,
// and almost no letters outside ASCII (German, French, Spanish, Portuguese
// and the rest write diacritics).
func surelyEnglish(p []proseWord) bool {
	words, fn, letters, accented := 0, 0, 0, 0
	for _, w := range p {
		if w.script != scriptLatin {
			continue
		}
		words++
		if englishFunctionWords[strings.ToLower(w.text)] {
			fn++
		}
		for _, r := range w.text {
			letters++
			if r >= utf8.RuneSelf {
				accented++
			}
		}
	}
	return words >= 60 && fn*5 >= words && accented*200 <= letters
}
