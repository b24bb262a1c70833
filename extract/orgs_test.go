package extract

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRefineOrganization: the organisation named from the page itself, on
// made-up posts. Each case holds only with its rule: the domain spelled by
// the text (en, ru, zh posts naming a Latin brand), a repository owner
// named in full; and a domain, a personal site or a product repository no
// text names gives no guess.
func TestRefineOrganization(t *testing.T) {
	tests := []struct {
		file, url, want string
	}{
		{"domain_en.md", "https://engineering.zephyr-labs.io/2024/05/queue-stall/", "Zephyr Labs"},
		{"domain_ru.md", "https://tech.kotelok.ru/posts/queue-stall/", "Kotelok"},
		{"domain_zh.md", "https://tech.mofang.cn/2024/05/queue/", "Mofang"},
		{"project_en.md", "https://blog.quill-lang.org/2024/05/stale-index/", ""}, // a domain the text never names: no guess
		{"personal_en.md", "https://anna-k.dev/posts/disk/", ""},
		{"personal_en.md", "https://annak.github.io/posts/disk/", ""},
		// initials alone do not name the owner: "NWT" could split the login several ways
		{"acronym_en.md", "https://github.com/northwindtraders/shipit/blob/main/docs/incidents/ci-budget.md", "shipit"},
		{"ownername_en.md", "https://github.com/acmecorp/widget/blob/main/postmortems/signing-key.md", "Acme Corp"},
		// the repository is the product and the text never names its owner
		{"personal_en.md", "https://github.com/annak/homelab/blob/main/notes/disk.md", "homelab"},
	}
	for _, tt := range tests {
		t.Run(tt.file+" "+tt.url, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "orgs", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			d, err := Extract(raw, Options{URL: tt.url, Format: FormatMarkdown})
			if err != nil {
				t.Fatal(err)
			}
			if d.Organization != tt.want {
				t.Errorf("organization = %q, want %q", d.Organization, tt.want)
			}
		})
	}
}
