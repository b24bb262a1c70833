package classify

import (
	"testing"
	"unicode"

	"github.com/casebook/casebook/extract"
)

// The Han and Russian-word shortcuts must answer as the plain forms they
// replace: isHanRune as the table, hasHan and zhMostly as a rune-by-rune
// scan, ruWordsOf as ruWords.

func hasHanPlain(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

func zhMostlyPlain(low string) bool {
	han, other := 0, 0
	for _, r := range low {
		switch {
		case unicode.Is(unicode.Han, r):
			han++
		case unicode.IsLetter(r):
			other++
		}
	}
	return han > 0 && 3*han >= other
}

func TestHanShortcutsMatchTheTable(t *testing.T) {
	if lo := rune(unicode.Han.R16[0].Lo); lo != hanFirst {
		t.Fatalf("the Han table now starts at %U, hanFirst is %U", lo, hanFirst)
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if isHanRune(r) != unicode.Is(unicode.Han, r) {
			t.Fatalf("isHanRune(%U) = %v", r, isHanRune(r))
		}
	}
	for _, s := range []string{
		"", "plain ascii", "Кириллица и latin", "日志", "mixed 中文 text", "⺀ radical", "\xe2\xba", "\xff\xe4\xb8\xad",
		"½ ⅓ — “quotes” …", "ＡＢＣ全角", "연결 한국어", "かな カナ", "服务 restarted after 超时 at 03:00",
		"the pool was exhausted and requests timed out 连接池耗尽",
	} {
		if got, want := hasHan(s), hasHanPlain(s); got != want {
			t.Errorf("hasHan(%q) = %v, want %v", s, got, want)
		}
		if got, want := zhMostly(s), zhMostlyPlain(s); got != want {
			t.Errorf("zhMostly(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzHanShortcuts(f *testing.F) {
	for _, s := range []string{"日志 log", "Сервис упал", "\xe2\xba\x80", "a\xe4b", "中文中文 and some english words"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := hasHan(s), hasHanPlain(s); got != want {
			t.Errorf("hasHan(%q) = %v, want %v", s, got, want)
		}
		if got, want := zhMostly(s), zhMostlyPlain(s); got != want {
			t.Errorf("zhMostly(%q) = %v, want %v", s, got, want)
		}
	})
}

func TestRuWordsOfIsRuWords(t *testing.T) {
	doc, err := extract.Extract([]byte("Сервис упал ночью. Мы перезапустили под, и всё ожило.\n\nThe cache was cold. 缓存是冷的。"),
		extract.Options{Format: extract.FormatMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	a := analyse(doc)
	if len(a.units) < 3 {
		t.Fatalf("want at least 3 units, got %d", len(a.units))
	}
	for pass := 0; pass < 2; pass++ { // the second pass reads the cache
		for i := range a.units {
			got, want := a.ruWordsOf(i), ruWords(a.units[i].low)
			if len(got) != len(want) {
				t.Fatalf("unit %d: ruWordsOf = %q, ruWords = %q", i, got, want)
			}
			for k := range got {
				if got[k] != want[k] {
					t.Fatalf("unit %d: ruWordsOf = %q, ruWords = %q", i, got, want)
				}
			}
		}
	}
}
