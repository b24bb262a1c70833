package api

import "testing"

func TestCountOfAgrees(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "0 cases match"},
		{1, "1 case matches"},
		{2, "2 cases match"},
		{21, "21 cases match"},
	} {
		if got := countOf(tc.n, "case matches", "cases match"); got != tc.want {
			t.Errorf("countOf(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
