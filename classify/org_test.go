package classify

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTextOrganization(t *testing.T) {
	tests := []struct{ name, title, text, want string }{
		{"en at X we", "Cache outage", "At Widgetly, we run two clusters. The cache failed.", "Widgetly"},
		{"en here at", "", "Here at Blue Harbor Labs our pager went off at night.", "Blue Harbor Labs"},
		{"en we at", "", "We at Quillstack learned a lot from this.", "Quillstack"},
		{"en not a name", "", "At first, we thought the disk was full. At 10:00 we restarted it.", ""},
		{"en a technology is no organisation", "", "At Kubernetes scale we see this often.", ""},
		{"ru в компании", "", "В компании Ромашка мы используем два дата-центра.", "Ромашка"},
		{"ru quoted in the title and named again", "Как упал «Лесторг»", "Сайт Лесторга был недоступен. Инженеры Лесторга нашли причину.", "Лесторг"},
		{"ru quoted once only", "Как упал «Лесторг»", "Сайт был недоступен.", ""},
		{"zh 在X公司我们", "", "在青木公司，我们有三个机房。", "青木"},
		{"zh a previous company names nobody", "", "在上家公司，我们也遇到过。", ""},
	}
	for _, tt := range tests {
		if got := textOrganization(tt.title, tt.text); got != tt.want {
			t.Errorf("%s: textOrganization = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestTeamOrganization: a name the text gives people or customers to, and
// names twice, is who had the incident (made-up posts in testdata/orgs); a
// part of an organisation, a technology or a name said once is not.
func TestTeamOrganization(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{"en_team.txt", "Lantern Freight"},
		{"ru_team.txt", "Lantern Freight"},
		{"zh_team.txt", "Lantern Freight"},
		{"en_team_parts.txt", ""},
		{"en_team_once.txt", ""},
	} {
		raw, err := os.ReadFile(filepath.Join("testdata", "orgs", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := textOrganization("", string(raw)); got != tt.want {
			t.Errorf("%s: textOrganization = %q, want %q", tt.file, got, tt.want)
		}
	}
}
