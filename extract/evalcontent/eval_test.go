package evalcontent

import (
	"math"
	"testing"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, World 42!", []string{"hello", "world", "42"}},
		{"Сбой БД: 5 минут", []string{"сбой", "бд", "5", "минут"}},
		{"数据库故障ABC", []string{"数", "据", "库", "故", "障", "abc"}},
		{"ＡＢＣ１２", []string{"abc12"}}, // NFKC folds full-width forms
		{"", nil},
	}
	for _, tt := range tests {
		got := Tokens(tt.in)
		if len(got) != len(tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
			}
		}
	}
}

func TestCounts(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	tests := []struct {
		name       string
		c          Counts
		wantF1     float64
		wantTPPart float64
	}{
		{"same", AEBCounts("one two three four five", "one two three four five"), 1, 1},
		{"disjoint", AEBCounts("one two three four five", "six seven eight nine ten"), 0, 0},
		// gold has 2 shingles, pred 3 of which 2 shared: tp 2, fp 1, fn 0
		{"extra", AEBCounts("a b c d e", "a b c d e f"), 2 * (2.0 / 3) * 1 / (2.0/3 + 1), 2.0 / 3},
		{"case", AEBCounts("One Two Three Four", "one two three four"), 1, 1},
		// bag of tokens, counts clipped: gold {a:2,b:1}, pred {a:1,c:1}: tp 1 fp 1 fn 2
		{"bag", DanielCounts("a a b", "a c"), 2 * 0.5 * (1.0 / 3) / (0.5 + 1.0/3), 0.25},
		{"han", DanielCounts("故障", "故障"), 1, 1},
	}
	for _, tt := range tests {
		if !near(tt.c.F1(), tt.wantF1) || !near(tt.c.TP, tt.wantTPPart) {
			t.Errorf("%s: F1 %v TP %v, want %v %v", tt.name, tt.c.F1(), tt.c.TP, tt.wantF1, tt.wantTPPart)
		}
	}
}

func TestAggregate(t *testing.T) {
	// precision mean skips pages with nothing extracted; recall counts them.
	cs := []Counts{{TP: 1}, {FN: 1}}
	s := Aggregate(cs)
	if s.Precision != 1 || s.Recall != 0.5 || math.Abs(s.F1-2*0.5/1.5) > 1e-9 || s.MeanF1 != 0.5 {
		t.Fatalf("Aggregate = %+v", s)
	}
}

func TestReferenceText(t *testing.T) {
	got := ReferenceText([]byte("<p>Ток &amp; ток</p>\n<p>第二段</p>\n"))
	if got != "Ток & ток\n第二段" {
		t.Fatalf("ReferenceText = %q", got)
	}
}

func TestDecodeHTML(t *testing.T) {
	// "Сбой" in windows-1251 with a meta charset.
	raw := append([]byte(`<html><head><meta charset="windows-1251"></head><body>`), 0xd1, 0xe1, 0xee, 0xe9)
	got := string(DecodeHTML(raw, ""))
	if want := "Сбой"; got[len(got)-len(want):] != want {
		t.Fatalf("DecodeHTML = %q", got)
	}
}
