package extract

import "testing"

func TestInlineMD(t *testing.T) {
	tests := []struct{ in, want string }{
		{"see the [guide](https://x.example/g) and ![diagram](d.png)", "see the guide and diagram"},
		{"**bold** and `code` and *em* and _em_", "bold and code and em and em"},
		{"line<br>break <span class=\"x\">text</span>", "linebreak text"},
		{"a < b and c > d", "a < b and c > d"},
		{"<https://example.com/x>", "https://example.com/x"},
		{"snake_case_name stays", "snake_case_name stays"},
		{"[ref link][1]", "ref link"},
	}
	for _, tt := range tests {
		if got := inlineMD(tt.in); got != tt.want {
			t.Errorf("inlineMD(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
