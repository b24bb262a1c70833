package classify

import (
	"slices"
	"strings"
	"testing"
)

func toLower(s string) string { return strings.ToLower(s) }

// checkTags reports, for the post name, each tag of want that tags lacks
// and each tag of not that it holds.
func checkTags(t *testing.T, name string, tags, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(tags, w) {
			t.Errorf("%s: tags %v, want %s", name, tags, w)
		}
	}
	for _, n := range not {
		if slices.Contains(tags, n) {
			t.Errorf("%s: tags %v, want no %s", name, tags, n)
		}
	}
}
