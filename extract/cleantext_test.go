package extract

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestNFCStableRunes: every rune nfcStable passes is NFC alone, of
// combining class 0 and never composes with the rune before it, so text
// made only of such runes has a boundary at every rune and NFC leaves it
// as it is (a letter that could take a following accent is fine: the
// accent is not such a rune). The runes just outside the ranges are
// checked to stay out.
func TestNFCStableRunes(t *testing.T) {
	for r := rune(0x80); r <= 0xFFFF; r++ {
		if !nfcStableRune(r) {
			continue
		}
		s := string(r)
		p := norm.NFC.PropertiesString(s)
		if !norm.NFC.IsNormalString(s) || p.CCC() != 0 || !p.BoundaryBefore() {
			t.Errorf("U+%04X passes nfcStable but NFC may change it (ccc %d, boundary before %v)",
				r, p.CCC(), p.BoundaryBefore())
		}
	}
	// runes the ranges leave out because NFC does touch them
	for _, r := range []rune{0x483, 0x489, 0x302A, 0x302F, 0x2000, 0x2001, 0x0301} {
		if nfcStableRune(r) {
			t.Errorf("U+%04X passes nfcStable", r)
		}
	}
}

// cleanTextSlow is cleanText as it was: always repair and normalise.
func cleanTextSlow(s string) string {
	return collapseSpace(nfc(strings.ToValidUTF8(s, "")))
}

func TestCleanTextIsSlowPath(t *testing.T) {
	for _, s := range []string{"", "plain ascii", "Сервер  упал\tв 03:00", "数据库连接池耗尽。", "cafe\u0301", "и\u0306",
		"\u2000em quad", "bad \xff byte", "ёлка — «кавычки» … 「引号」（全角）", "\u302a tone"} {
		if got, want := cleanText(s), cleanTextSlow(s); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"Сервер упал", "数据库。", "cafe\u0301", "и\u0306", "\xff", "\u2001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := cleanText(s), cleanTextSlow(s); got != want {
			t.Fatalf("cleanText(%q) = %q, want %q", s, got, want)
		}
		if nfcStable(s) && (!utf8.ValidString(s) || !norm.NFC.IsNormalString(s)) {
			t.Fatalf("nfcStable(%q) but NFC changes it", s)
		}
	})
}
