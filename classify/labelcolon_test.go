package classify

import (
	"strings"
	"testing"
)

func checkLabelColon(t *testing.T, text string) {
	t.Helper()
	for _, limit := range []int{0, 60, 64} {
		want := strings.IndexAny(text, ":：")
		if want > limit {
			want = -1
		}
		if got := labelColon(text, limit); got != want {
			t.Errorf("labelColon(%q, %d) = %d, IndexAny says %d", text, limit, got, want)
		}
	}
}

var labelColonSeeds = []string{"", "Root cause: the pool", "根因：连接池耗尽", "no colon at all", ":leading", "\xe2：after a broken rune",
	"\xef\xbc half a colon: then one", strings.Repeat("x", 60) + ": late", strings.Repeat("x", 61) + ": too late",
	strings.Repeat("y", 60) + "：wide", strings.Repeat("字", 20) + "：", "https://example.com: a link"}

func TestLabelColonIsIndexAny(t *testing.T) {
	for _, s := range labelColonSeeds {
		checkLabelColon(t, s)
	}
}

func FuzzLabelColon(f *testing.F) {
	for _, s := range labelColonSeeds {
		f.Add(s)
	}
	f.Fuzz(checkLabelColon)
}
