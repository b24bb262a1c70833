package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// builder accumulates blocks into Document.Text and Sections, keeping the
// byte offsets right. Every input path (HTML, Markdown, text) goes through it
// so the Document shape is the same whatever the format.
type builder struct {
	text     strings.Builder
	sections []Section
}

func (b *builder) cur() *Section {
	if len(b.sections) == 0 {
		b.sections = append(b.sections, Section{})
	}
	return &b.sections[len(b.sections)-1]
}

func (b *builder) write(s string) int {
	if b.text.Len() > 0 {
		b.text.WriteByte('\n')
	}
	start := b.text.Len()
	b.text.WriteString(s)
	return start
}

// heading opens a new section.
func (b *builder) heading(level int, s string) {
	s = cleanText(s)
	if s == "" {
		return
	}
	start := b.write(s)
	b.sections = append(b.sections, Section{Heading: s, Level: level, Start: start})
}

// block appends a block to the current section. Code keeps its line breaks
// (as spaces in Text would lose structure); other kinds collapse white space.
func (b *builder) block(kind BlockKind, s string) { b.blockLang(kind, s, "") }

// blockLang is block with a code block's language.
func (b *builder) blockLang(kind BlockKind, s, lang string) {
	if kind == Code {
		s = strings.TrimRight(nfc(strings.ToValidUTF8(s, "")), " \t\r\n")
		s = strings.Trim(s, "\n")
		// one block per line in Text: code lines are joined with a visible separator-free newline
	} else {
		s = cleanText(s)
	}
	if strings.TrimSpace(s) == "" {
		return
	}
	sec := b.cur()
	if len(sec.Blocks) == 0 && sec.Heading == "" {
		sec.Start = b.text.Len()
		if b.text.Len() > 0 {
			sec.Start++
		}
	}
	start := b.write(s)
	sec.Blocks = append(sec.Blocks, Block{Kind: kind, Text: s, Start: start, End: start + len(s), Lang: lang})
}

func (b *builder) finish(d *Document) {
	d.Text = b.text.String()
	d.Sections = b.sections
	if d.Sections == nil {
		d.Sections = []Section{}
	}
	if d.Tags == nil {
		d.Tags = []string{}
	}
}

// cleanText makes text valid UTF-8, NFC, with white space collapsed and
// control characters dropped, as the case schema requires.
func cleanText(s string) string {
	if !nfcStable(s) {
		s = nfc(strings.ToValidUTF8(s, ""))
	}
	return collapseSpace(s)
}

// collapseSpace drops control characters and turns each run of white
// space into one space, none at the ends.
func collapseSpace(s string) string {
	var out strings.Builder
	out.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r) || r == '\u00a0' || r == '\u200b' || r == '\ufeff':
			space = true
		case unicode.IsControl(r):
		default:
			if space && out.Len() > 0 {
				out.WriteByte(' ')
			}
			space = false
			out.WriteRune(r)
		}
	}
	return out.String()
}

// nfcStable reports valid UTF-8 made only of runes NFC leaves alone
// whatever their neighbours (ASCII, Cyrillic letters, CJK ideographs and
// punctuation; TestNFCStableRunes checks each against the tables): such
// text needs neither repair nor normalising, whose per-rune table lookups
// were a twentieth of the 50 KB benchmark.
func nfcStable(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !nfcStableRune(r) { // utf8.RuneError (invalid bytes) is not stable
			return false
		}
		i += n
	}
	return true
}

func nfcStableRune(r rune) bool {
	switch {
	case r >= 0x400 && r <= 0x482, r >= 0x48A && r <= 0x4FF: // Cyrillic, not its combining marks
		return true
	case r >= 0x4E00 && r <= 0x9FFF, r >= 0x3400 && r <= 0x4DBF: // CJK ideographs
		return true
	case r >= 0x3000 && r <= 0x3029, r >= 0x3030 && r <= 0x303F, r >= 0xFF01 && r <= 0xFF5E: // CJK and fullwidth punctuation
		return true
	case r >= 0x2010 && r <= 0x2027, r >= 0x2030 && r <= 0x205E: // dashes, quotes, bullets
		return true
	}
	return false
}

// nfc normalises to NFC unless that would lengthen the text (a handful of
// code points decompose under NFC); text never grows in extraction.
func nfc(s string) string {
	if n := norm.NFC.String(s); len(n) <= len(s) {
		return n
	}
	return s
}

// codeLang normalises a code block's language mark: the first word of a
// fence's info string ("java {.numberLines}", "{.python}") or of a class
// name's rest, lower case, letters, digits and +#- only.
func codeLang(info string) string {
	info = strings.TrimLeft(strings.TrimSpace(info), "{.")
	end := 0
	for end < len(info) {
		c := info[end]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '#' || c == '-' || c == '_') {
			break
		}
		end++
	}
	if end > 20 {
		return ""
	}
	return strings.ToLower(info[:end])
}
