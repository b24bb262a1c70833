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

// A Markdown file that opens with a heading at level 2 takes it as its title
// when it reads as a headline (four words, eight Han characters, or a date
// and a name); a section name, a second headline at that level, or text
// before it leave the title to the address.
func TestLeadHeadingTitle(t *testing.T) {
	for _, tc := range []struct{ name, md, want string }{
		{"en", "## How a full disk stopped the billing export\n\n### Summary\n\nThe export failed at night.\n", "How a full disk stopped the billing export"},
		{"ru", "## Как переполненный диск остановил выгрузку счетов\n\n### Кратко\n\nВыгрузка упала ночью.\n", "Как переполненный диск остановил выгрузку счетов"},
		{"zh", "## 磁盘写满导致账单导出失败的一次事故\n\n### 摘要\n\n导出任务在夜里失败了。\n", "磁盘写满导致账单导出失败的一次事故"},
		{"section name", "## Summary\n\nThe export failed at night.\n\n### Details\n\nThe disk was full.\n", "dns outage 2023"},
		{"zh section name", "## 问题排查过程\n\n导出任务在夜里失败了。\n", "dns outage 2023"},
		{"two at its level", "## How a full disk stopped the billing export\n\nText.\n\n## What we changed after the disk filled up\n\nMore.\n", "dns outage 2023"},
		{"section names at its level", "## Checkout outage on the night of 12 March\n\nText.\n\n## What we learned\n\nMore.\n\n## Timeline (UTC)\n\n- 22:00 down\n", "Checkout outage on the night of 12 March"},
		{"a dated event's name", "## 2024-11-05 Payments Outage\n\nText.\n", "2024-11-05 Payments Outage"},
		{"a dated section name", "## Timeline\n\nText.\n", "dns outage 2023"},
		{"text before it", "The export failed at night.\n\n## How a full disk stopped the billing export\n\nText.\n", "dns outage 2023"},
	} {
		d, err := Extract([]byte(tc.md), Options{URL: "https://example.com/docs/dns-outage-2023.md", Format: FormatMarkdown})
		if err != nil || d.Title != tc.want {
			t.Errorf("%s: title %q, %v; want %q", tc.name, d.Title, err, tc.want)
		}
	}
}
