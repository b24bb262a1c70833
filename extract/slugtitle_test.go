package extract

import "testing"

func TestSlugTitle(t *testing.T) {
	for _, tc := range []struct{ address, want string }{
		{"https://github.com/flutter/flutter/blob/42a1/docs/postmortems/Postmortem-flutter.dev-outage-on-August-26-2023.md", "Postmortem flutter.dev outage on August 26 2023"},
		{"https://blog.example.com/2021/05/26/database-failover-gone-wrong/", "database failover gone wrong"},
		{"_posts/2014-11-18-debugging-our-hardware-problem.markdown", "debugging our hardware problem"},
		{"https://example.com/posts/redis-outage/index.html", "redis outage"},
		{"https://example.com/docs/%E7%BA%BF%E4%B8%8A-%E6%95%85%E9%9A%9C.md", "线上 故障"},
		{"https://example.com/docs/RAILWAY_CRASH_FIX.md", "RAILWAY CRASH FIX"},
		// nothing a reviewer could read as a title
		{"https://habr.com/ru/articles/205389/", ""},
		{"https://example.com/README.md", ""},
		{"https://example.com/incident.md", ""},
		{"https://example.com/", ""},
		{"", ""},
	} {
		if got := slugTitle(tc.address); got != tc.want {
			t.Errorf("slugTitle(%q) = %q, want %q", tc.address, got, tc.want)
		}
	}
}

// A Markdown file without a level-1 heading takes its title from its
// address; one with a heading keeps the heading.
func TestTitleFromAddress(t *testing.T) {
	md := []byte("## Summary\n\nThe site was down for an hour after a DNS change.\n")
	d, err := Extract(md, Options{URL: "https://example.com/docs/dns-outage-2023.md", Format: FormatMarkdown})
	if err != nil || d.Title != "dns outage 2023" {
		t.Fatalf("title %q, %v; want the address's", d.Title, err)
	}
	d, err = Extract(append([]byte("# The DNS outage\n\n"), md...), Options{URL: "https://example.com/docs/dns-outage-2023.md", Format: FormatMarkdown})
	if err != nil || d.Title != "The DNS outage" {
		t.Fatalf("title %q, %v; want the heading", d.Title, err)
	}
}
