package classify

import (
	"testing"
)

// exactCountsPlain counts the exact aliases one strings.Index scan each,
// as tagCounts did.
func exactCountsPlain(ex *exactAliases, text string) map[string]int {
	out := map[string]int{}
	for _, al := range ex.list {
		if n := countWhole(text, al.text); n > 0 {
			out[al.slug] += n
		}
	}
	return out
}

func checkExactAliases(t *testing.T, ex *exactAliases, text string) {
	t.Helper()
	got := map[string]int{}
	ex.count(text, got)
	want := exactCountsPlain(ex, text)
	if len(got) != len(want) {
		t.Fatalf("exact aliases in %q: %v, want %v", text, got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("exact aliases in %q: %v, want %v", text, got, want)
		}
	}
}

var exactAliasSeeds = []string{"", "We moved from Go to Rust and back to Go.", "Gopher Golang Go-based go", "C++ and C# on .NET",
	"HTTP/2 over TLS, HTTP/1.1 too", "SNSNS SNS", "the 1C server", "OS X and iOS", "npm, pip and Yarn", "ZZ", "+A+A+"}

func TestExactAliasIndexCountsAsTheScan(t *testing.T) {
	for _, text := range exactAliasSeeds {
		checkExactAliases(t, exactTags, text)
	}
	// self-overlapping aliases, where the scan's restart after each
	// occurrence decides the count
	ex := newExactAliases([]tagAlias{{text: "ABA", slug: "aba"}, {text: "AA", slug: "aa"}, {text: "A", slug: "a"},
		{text: "+A+", slug: "plus"}})
	for _, text := range []string{"ABABA", "AAAA", "A AA ABA", "ABA-ABA", "xABA ABA", "ABAABA ABA", "+A+A+", "+A+ +A+A+"} {
		checkExactAliases(t, ex, text)
	}
}

func FuzzExactAliasIndex(f *testing.F) {
	for _, s := range exactAliasSeeds {
		f.Add(s)
	}
	overlap := newExactAliases([]tagAlias{{text: "ABA", slug: "aba"}, {text: "AA", slug: "aa"}, {text: "Go", slug: "go"},
		{text: "+A+", slug: "plus"}})
	f.Fuzz(func(t *testing.T, text string) {
		checkExactAliases(t, exactTags, text)
		checkExactAliases(t, overlap, text)
	})
}
