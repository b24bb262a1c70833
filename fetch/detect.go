package fetch

import (
	"math"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// The detector for bodies that declare no charset. Valid UTF-8 wins
// outright. Otherwise every candidate legacy encoding is scored by the
// log-likelihood of the non-ASCII byte sequence under a small generative
// model of text in that encoding:
//
//   - double-byte encodings (GB18030/GBK, Big5) score each lead/trail pair
//     by the region it falls in: the encoding's frequent-character block
//     (GB2312 level 1, Big5 level 1 — each ordered to hold the everyday
//     characters), common CJK punctuation, the rarer second level, the
//     other symbol rows, extension rows, and invalid pairs;
//   - single-byte encodings (windows-1251, KOI8-R, windows-1252) score each
//     byte by the letter frequency of the character it decodes to (Russian
//     letter frequencies for the Cyrillic pair, Western European accented
//     letters and typographic punctuation for windows-1252);
//   - every model also scores how non-ASCII units follow one another: CJK
//     and Cyrillic text runs in long stretches of high bytes, Western text
//     has isolated accented letters inside ASCII words.
//
// Each class probability is spread evenly over the byte strings in the
// class, so the models are distributions over the same bytes and their
// scores compare. The structure, not any training text, carries the model.

// detectSample bounds the work on a large body.
const detectSample = 64 << 10

type sbcsModel struct {
	name  string
	enc   *charmap.Charmap
	logp  [128]float64 // per high byte
	pCont float64      // P(a high byte follows a high byte)
}

type dbcsModel struct {
	name  string
	enc   encoding.Encoding
	score func(lead, trail byte) float64 // log P of a valid pair, or NaN if invalid
	punct map[uint16]bool
	pCont float64
}

const logInvalid = -18.0 // an undecodable byte: one costs more than any real character

var (
	cyrillicFreq = map[rune]float64{
		'о': 10.97, 'е': 8.45, 'а': 8.01, 'и': 7.35, 'н': 6.70, 'т': 6.26, 'с': 5.47, 'р': 4.73,
		'в': 4.54, 'л': 4.40, 'к': 3.49, 'м': 3.21, 'д': 2.98, 'п': 2.81, 'у': 2.62, 'я': 2.01,
		'ы': 1.90, 'ь': 1.74, 'г': 1.70, 'з': 1.65, 'б': 1.59, 'ч': 1.44, 'й': 1.21, 'х': 0.97,
		'ж': 0.94, 'ш': 0.73, 'ю': 0.64, 'ц': 0.48, 'щ': 0.36, 'э': 0.32, 'ф': 0.26, 'ъ': 0.04,
		'ё': 0.04,
		// Ukrainian and Belarusian letters, so those texts still look Cyrillic.
		'і': 1.0, 'ї': 0.3, 'є': 0.3, 'ґ': 0.05, 'ў': 0.3,
	}
	cyrillicPunct = []rune{'«', '»', '—', '–', '…', '№', '“', '”', '„', '’', '\u00a0'}

	westernFreq = map[rune]float64{
		'é': 14, 'è': 4, 'à': 5, 'ç': 2, 'ê': 2, 'â': 1, 'ô': 1, 'î': 1, 'û': 0.5, 'ë': 0.5,
		'ï': 0.5, 'ü': 4, 'ö': 4, 'ä': 4, 'ß': 1.5, 'ñ': 2, 'á': 3, 'í': 3, 'ó': 3, 'ú': 1.5,
		'ã': 1, 'õ': 0.5, 'å': 1, 'ø': 1, 'æ': 0.5, 'ù': 0.3, 'ì': 0.3, 'ò': 0.3,
		'É': 0.5, 'À': 0.2, 'Ü': 0.3, 'Ö': 0.3, 'Ä': 0.3, 'Ç': 0.1, 'Å': 0.1, 'Ø': 0.1,
		'’': 8, '‘': 2, '“': 4, '”': 4, '–': 4, '—': 3, '…': 2, '•': 1, '©': 1, '®': 0.5,
		'°': 1, '€': 1, '£': 0.5, '«': 0.5, '»': 0.5, '·': 0.5, '¿': 0.3, '¡': 0.3, '™': 0.3,
		'\u00a0': 2, '×': 0.3, '½': 0.1, '§': 0.2, '¢': 0.1, 'µ': 0.1,
	}

	sbcsModels = []*sbcsModel{
		newCyrillicModel("windows-1251", charmap.Windows1251),
		newCyrillicModel("koi8-r", charmap.KOI8R),
		newWesternModel("windows-1252", charmap.Windows1252),
	}
	dbcsModels = []*dbcsModel{newGBModel(), newBig5Model()}
)

func newCyrillicModel(name string, cm *charmap.Charmap) *sbcsModel {
	total := 0.0
	for _, f := range cyrillicFreq {
		total += f
	}
	m := &sbcsModel{name: name, enc: cm, pCont: 0.85}
	for i := range 128 {
		r := cm.DecodeByte(byte(0x80 + i))
		lower := unicode.ToLower(r)
		p := 0.004 / 128 // anything else
		if f, ok := cyrillicFreq[lower]; ok {
			if lower == r {
				p = 0.90 * f / total
			} else {
				p = 0.07 * f / total
			}
		} else if containsRune(cyrillicPunct, r) {
			p = 0.026 / float64(len(cyrillicPunct))
		}
		m.logp[i] = math.Log(p)
	}
	return m
}

func newWesternModel(name string, cm *charmap.Charmap) *sbcsModel {
	total := 0.0
	for _, f := range westernFreq {
		total += f
	}
	m := &sbcsModel{name: name, enc: cm, pCont: 0.12}
	for i := range 128 {
		r := cm.DecodeByte(byte(0x80 + i))
		p := 0.03 / 128
		if f, ok := westernFreq[r]; ok {
			p = 0.97 * f / total
		}
		m.logp[i] = math.Log(p)
	}
	return m
}

func containsRune(rs []rune, r rune) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// cjkPunct are the punctuation marks that make up a large share of Chinese
// text in either script; their byte pairs are found by encoding them.
var cjkPunct = []rune("，。、：；？！“”‘’（）《》「」『』…—·")

func punctPairs(enc encoding.Encoding) map[uint16]bool {
	out := map[uint16]bool{}
	e := enc.NewEncoder()
	for _, r := range cjkPunct {
		b, err := e.Bytes([]byte(string(r)))
		if err == nil && len(b) == 2 {
			out[uint16(b[0])<<8|uint16(b[1])] = true
		}
	}
	return out
}

func newGBModel() *dbcsModel {
	m := &dbcsModel{name: "gb18030", enc: simplifiedchinese.GB18030, pCont: 0.9}
	m.punct = punctPairs(simplifiedchinese.GBK)
	np := float64(len(m.punct))
	var (
		lPunct  = math.Log(0.15 / np)
		lLevel1 = math.Log(0.70 / (40 * 94))
		lSym    = math.Log(0.03 / (9 * 94))
		lLevel2 = math.Log(0.09 / (32 * 94))
		lExt    = math.Log(0.03 / 23940)
	)
	m.score = func(lead, trail byte) float64 {
		if lead < 0x81 || lead > 0xFE || trail < 0x40 || trail == 0x7F || trail == 0xFF {
			return math.NaN()
		}
		switch {
		case m.punct[uint16(lead)<<8|uint16(trail)]:
			return lPunct
		case trail >= 0xA1 && lead >= 0xB0 && lead <= 0xD7:
			return lLevel1
		case trail >= 0xA1 && lead >= 0xA1 && lead <= 0xA9:
			return lSym
		case trail >= 0xA1 && lead >= 0xD8 && lead <= 0xF7:
			return lLevel2
		}
		return lExt
	}
	return m
}

func newBig5Model() *dbcsModel {
	m := &dbcsModel{name: "big5", enc: traditionalchinese.Big5, pCont: 0.9}
	m.punct = punctPairs(traditionalchinese.Big5)
	np := float64(len(m.punct))
	var (
		lPunct  = math.Log(0.15 / np)
		lLevel1 = math.Log(0.70 / 5401)
		lSym    = math.Log(0.03 / 408)
		lLevel2 = math.Log(0.09 / 7652)
		lOther  = math.Log(0.03 / 12000)
	)
	m.score = func(lead, trail byte) float64 {
		if lead < 0x81 || lead > 0xFE || !(trail >= 0x40 && trail <= 0x7E || trail >= 0xA1 && trail <= 0xFE) {
			return math.NaN()
		}
		code := uint16(lead)<<8 | uint16(trail)
		switch {
		case m.punct[code]:
			return lPunct
		case code >= 0xA440 && code <= 0xC67E:
			return lLevel1
		case code >= 0xA140 && code <= 0xA3BF:
			return lSym
		case code >= 0xC940 && code <= 0xF9D5:
			return lLevel2
		}
		return lOther
	}
	return m
}

// scoreBytes walks b as a double-byte encoding. GB18030 four-byte sequences
// are valid but rare.
func (m *dbcsModel) scoreBytes(b []byte) float64 {
	const log4 = -20.0
	// A trail byte in the ASCII range is paid for inside the pair here,
	// while the single-byte models, which skip ASCII, get it free; credit
	// back what an ASCII byte costs in any model so the scores compare.
	const asciiCredit = 3.7 // -log(1/40)
	lc, ls := math.Log(m.pCont), math.Log(1-m.pCont)
	total := 0.0
	prevHigh := false
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			prevHigh = false
			i++
			continue
		}
		if prevHigh {
			total += lc
		} else {
			total += ls
		}
		prevHigh = true
		if i+1 >= len(b) {
			break // a pair cut by the sample's end
		}
		if m.name == "gb18030" && i+3 < len(b) && c >= 0x81 && c <= 0xFE &&
			b[i+1] >= 0x30 && b[i+1] <= 0x39 && b[i+2] >= 0x81 && b[i+2] <= 0xFE && b[i+3] >= 0x30 && b[i+3] <= 0x39 {
			total += log4 + 2*asciiCredit
			i += 4
			continue
		}
		s := m.score(c, b[i+1])
		if math.IsNaN(s) {
			total += logInvalid
			i++
			continue
		}
		total += s
		if b[i+1] < 0x80 {
			total += asciiCredit
		}
		i += 2
	}
	return total
}

func (m *sbcsModel) scoreBytes(b []byte) float64 {
	lc, ls := math.Log(m.pCont), math.Log(1-m.pCont)
	total := 0.0
	prevHigh := false
	for _, c := range b {
		if c < 0x80 {
			prevHigh = false
			continue
		}
		if prevHigh {
			total += lc
		} else {
			total += ls
		}
		prevHigh = true
		total += m.logp[c-0x80]
	}
	return total
}

// detectCharset names the most likely encoding of an undeclared body:
// "utf-8", "gb18030", "big5", "windows-1251", "koi8-r" or "windows-1252".
func detectCharset(b []byte) string {
	name, _ := DetectCharset(b)
	return name
}

// DetectCharset is the statistical detector, exported for tests and tools.
// It returns the winning charset and its margin over the runner-up in nats
// per non-ASCII byte (0 when the decision needs no statistics).
func DetectCharset(b []byte) (string, float64) {
	if len(b) > detectSample {
		b = b[:detectSample]
	}
	high := 0
	for _, c := range b {
		if c >= 0x80 {
			high++
		}
	}
	if high == 0 || validUTF8Prefix(b) || mostlyUTF8(b) {
		return "utf-8", 0
	}
	best, second := math.Inf(-1), math.Inf(-1)
	bestName := "windows-1252"
	consider := func(name string, s float64) {
		if s > best {
			second, best, bestName = best, s, name
		} else if s > second {
			second = s
		}
	}
	for _, m := range dbcsModels {
		consider(m.name, m.scoreBytes(b))
	}
	for _, m := range sbcsModels {
		consider(m.name, m.scoreBytes(b))
	}
	return bestName, (best - second) / float64(high)
}

// mostlyUTF8 accepts UTF-8 with a few stray bytes (a bad copy-paste, a
// truncated character): legacy text almost never forms valid multi-byte
// sequences, so many valid sequences and at most 2% invalid bytes among
// the non-ASCII ones is UTF-8, and decoding it otherwise would garble all
// the rest.
func mostlyUTF8(b []byte) bool {
	valid, invalid := 0, 0
	for len(b) > 0 {
		if b[0] < 0x80 {
			b = b[1:]
			continue
		}
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			invalid++
			b = b[1:]
			continue
		}
		valid += size
		b = b[size:]
	}
	return valid >= 16 && invalid*50 <= valid+invalid
}

// validUTF8Prefix is utf8.Valid, tolerating one incomplete character at the
// end (a sample cut mid-character).
func validUTF8Prefix(b []byte) bool {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			return !utf8.FullRune(b) && len(b) < utf8.UTFMax
		}
		b = b[size:]
	}
	return true
}
