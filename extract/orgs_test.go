package extract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRefineOrganization: the organisation named from the page itself, on
// made-up posts. Each case holds only with its rule: the domain spelled by
// the text (en, ru, zh posts naming a Latin brand), a repository owner
// named in full (possessive too), a product repository the text names (en,
// ru, zh) or its owner's login does, the owner of a "<owner>.github.io"
// site the text names when that is not the author; and a domain, a
// personal site or a repository no text names gives no guess.
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
		// initials alone do not name the owner ("NWT" could split the login
		// several ways), and the repository is named once, in passing
		{"acronym_en.md", "https://github.com/northwindtraders/shipit/blob/main/docs/incidents/ci-budget.md", ""},
		{"ownername_en.md", "https://github.com/acmecorp/widget/blob/main/postmortems/signing-key.md", "Acme Corp"},
		// a repository the text never names is a folder, not who had the incident
		{"personal_en.md", "https://github.com/annak/homelab/blob/main/notes/disk.md", ""},
		// ... unless its owner's login names it
		{"personal_en.md", "https://github.com/homelab-project/homelab/blob/main/notes/disk.md", "homelab"},
		// a product the post names in its own write-up
		{"product_en.md", "https://github.com/someone/lanternd/blob/main/docs/outage.md", "lanternd"},
		{"product_ru.md", "https://github.com/someone/lanternd/blob/main/docs/outage.md", "lanternd"},
		{"product_zh.md", "https://github.com/someone/lanternd/blob/main/docs/outage.md", "lanternd"},
		{"product_en.md", "https://github.com/someone/lantern/blob/main/docs/outage.md", ""}, // "lanternd" is not "lantern"
		// an organisation's site repository, the owner named ("Acme Corp's")
		{"pages_en.md", "https://github.com/acmecorp/acmecorp.github.io/blob/main/_posts/disks.md", "Acme Corp"},
		// a person's: the name the text gives is the author's
		{"pages_personal_en.md", "https://github.com/danareyes/danareyes.github.io/blob/main/_posts/disk.md", ""},
		// a site repository ("-blog", "-website") is its owner's when the
		// text names the owner; a login the post never writes is a person's
		{"personal_en.md", "https://github.com/annak93/personal-blog/blob/main/posts/disk.md", ""},
		{"ownername_en.md", "https://github.com/acmecorp/acme-website/blob/main/_posts/signing-key.md", "Acme Corp"},
		// so is a repository named "blog" or "website": a person's as often
		{"personal_en.md", "https://github.com/annak93/blog/blob/main/posts/disk.md", ""},
		{"personal_ru.md", "https://github.com/ivanov-v/blog/blob/main/posts/disk.md", ""},
		{"personal_zh.md", "https://github.com/xiaoming/blog/blob/main/source/_posts/disk.md", ""},
		{"ownername_en.md", "https://github.com/acmecorp/blog/blob/main/_posts/signing-key.md", "Acme Corp"},
		{"ownername_en.md", "https://github.com/acmecorp/website/blob/main/_posts/signing-key.md", "Acme Corp"},
		// a repository of write-ups is its owner's, named or not, without
		// what the login says of the account ("-org", "-infra")
		{"personal_en.md", "https://github.com/widgetco-infra/status/blob/main/2024/disk.md", "widgetco"},
		{"personal_en.md", "https://github.com/2b3d-org/incident-reports/blob/main/2024/disk.md", "2b3d"},
		// ... but not a person's handle ("xiaoming88") the post never writes
		{"personal_zh.md", "https://github.com/xiaoming88/docs/blob/main/src/disk.md", ""},
		{"personal_ru.md", "https://github.com/ivanov93/handbook/blob/main/docs/disk.md", ""},
		{"personal_en.md", "https://github.com/annak93/postmortems/blob/main/2024/disk.md", ""},
		// a site's address as the repository: the site's, unless the owner
		// is the site ("zephyrlabs" runs zephyr.io)
		{"product_en.md", "https://github.com/jdoe/status.lanternd.io/blob/main/2024/outage.md", "lanternd.io"},
		{"personal_en.md", "https://github.com/jdoe/janedoe.me/blob/main/2024/disk.md", ""}, // a domain the post never writes
		{"personal_en.md", "https://github.com/zephyrlabs/www.zephyr.io/blob/main/2024/outage.md", "Zephyr Labs"},
		// a repository named as its owner ("lanternd/lanternd") is the
		// project's when the post names it; a profile's ("annak/annak") is no one's
		{"product_en.md", "https://github.com/lanternd/lanternd/blob/main/docs/postmortems/outage.md", "Lanternd"}, // the title spells it
		{"product_ru.md", "https://github.com/lanternd/lanternd/blob/main/docs/postmortems/outage.md", "lanternd"},
		{"personal_en.md", "https://github.com/annak/annak/blob/main/notes/disk.md", ""},
		{"personal_zh.md", "https://github.com/xiaoming/xiaoming/blob/main/notes/disk.md", ""},
		// a version in the name is no address: a product the post never names
		{"product_en.md", "https://github.com/someone/lanternd-v1.2/blob/main/docs/outage.md", ""},
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

// FuzzWordCount: a word count never exceeds the plain count of the
// substring nor its limit, and a word (starting and ending in a letter or
// digit) set off by spaces counts once.
func FuzzWordCount(f *testing.F) {
	f.Add("erni-ki and ERNI-KI's fix", "erni-ki")
	f.Add("周二lanternd有。的lanternd把", "lanternd")
	f.Add("aaaa", "aa")
	f.Fuzz(func(t *testing.T, text, w string) {
		n := wordCount(text, w, 3)
		if n > 3 || w != "" && n > strings.Count(text, w) {
			t.Fatalf("wordCount(%q, %q) = %d", text, w, n)
		}
		first, _ := utf8.DecodeRuneInString(w)
		last, _ := utf8.DecodeLastRuneInString(w)
		if isWordRune(first) && isWordRune(last) {
			if got := wordCount(" "+w+" ", w, 3); got != 1 {
				t.Fatalf("wordCount of %q alone = %d", w, got)
			}
		}
	})
}
