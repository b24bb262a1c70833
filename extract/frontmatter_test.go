package extract

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFrontMatterForms(t *testing.T) {
	tests := []struct {
		name, src, url        string
		title, published, org string
		tags                  []string
		bodyStarts            string
	}{
		{name: "toml with colons in the title",
			src:   "+++\ntitle = \"Postmortem: the queue stalled at 03:10\"\ndate = 2022-03-04T10:00:00Z\ntags = [\"kafka\", \"zookeeper\"]\n+++\n\nThe body.\n",
			title: "Postmortem: the queue stalled at 03:10", published: "2022-03-04", tags: []string{"kafka", "zookeeper"}, bodyStarts: "The body."},
		{name: "yaml fences with trailing spaces",
			src:   "---   \ntitle: \"Outage: disk full\"\ndate: 2021-07-08 09:10:11\ntags:\n  - redis\n  - linux\n---  \nThe body.\n",
			title: "Outage: disk full", published: "2021-07-08", tags: []string{"redis", "linux"}, bodyStarts: "The body."},
		{name: "hexo front matter with no opening fence",
			src:   "title: 一次磁盘写满的故障\ndate: 2020-05-06 18:50:46\ntags: [BUG, mysql]\ncategories: [Notes]\n---\n\n正文。\n",
			title: "一次磁盘写满的故障", published: "2020-05-06", tags: []string{"BUG", "mysql", "Notes"}, bodyStarts: "正文。"},
		{name: "gostatic front matter closed by four dashes",
			src:   "title: Как постгрес тормозил\ndate: 2008-04-23 15:26:19\ntags: postgres, db\n----\n\nТекст.\n",
			title: "Как постгрес тормозил", published: "2008-04-23", tags: []string{"postgres", "db"}, bodyStarts: "Текст."},
		{name: "toml table keys and a dated path",
			src:   "+++\npath = \"notes/2019/11/12/cache-miss\"\ntitle = \"Cache miss storm\"\n\n[extra]\norganization = \"Acme Widgets\"\n+++\nText.\n",
			title: "Cache miss storm", published: "2019-11-12", org: "Acme Widgets", bodyStarts: "Text."},
		{name: "multi-line toml array",
			src:   "+++\ntitle = \"x\"\ntags = [\n  \"nginx\",\n  \"tls\"\n]\n+++\nText.\n",
			title: "x", tags: []string{"nginx", "tls"}, bodyStarts: "Text."},
		{name: "yaml comments after quoted values",
			src:   "---\ntitle: \"Outage: disk full\" # draft title\ndate: '2021-07-08' # moved\n---\nThe body.\n",
			title: "Outage: disk full", published: "2021-07-08", bodyStarts: "The body."},
		{name: "crlf line ends, quoted toml date and a title with = and :",
			src:   "+++\r\ntitle = \"Postmortem: a = b at 03:10\"\r\ndate = \"2022-03-04\"\r\n+++\r\nThe body.\r\n",
			title: "Postmortem: a = b at 03:10", published: "2022-03-04", bodyStarts: "The body."},
		{name: "date in a Jekyll file name",
			src: "# Slow DNS\n\nText.\n", url: "https://blog.example.org/_posts/2017-08-21-slow-dns.md",
			title: "Slow DNS", published: "2017-08-21", bodyStarts: "# Slow DNS"},
		{name: "yaml front matter after a leading blank line",
			src:   "\n---\ntitle: 一次内存泄漏的排查\ndate: 2019-11-12\ntags: [\"golang\"]\n---\n\n正文。\n",
			title: "一次内存泄漏的排查", published: "2019-11-12", tags: []string{"golang"}, bodyStarts: "正文。"},
		{name: "toml front matter after blank lines",
			src:   "\n\n+++\ntitle = \"Queue stall\"\ndate = 2022-03-04\n+++\nText.\n",
			title: "Queue stall", published: "2022-03-04", bodyStarts: "Text."},
		{name: "a rule after a blank line is no front matter",
			src:        "\n---\nWe restarted the API.\n---\nMore.\n",
			bodyStarts: "---"},
		{name: "published wins over date",
			src:       "---\ndate: 2020-01-01\npublished: 2020-02-02\n---\nText.\n",
			published: "2020-02-02", bodyStarts: "Text."},
		{name: "prose starting with a colon phrase is no front matter",
			src:        "Summary: the API went down.\nWe restarted it.\n---\nMore.\n",
			bodyStarts: "Summary: the API went down."},
		{name: "date from a blog address",
			src: "# Slow DNS\n\nText.\n", url: "https://blog.example.org/2017/08/21/slow-dns/",
			title: "Slow DNS", published: "2017-08-21", bodyStarts: "# Slow DNS"},
		{name: "a postmortem repository's file name is the incident's date, not the post's",
			src: "# Slow DNS\n\nText.\n", url: "https://github.com/acme/postmortems/blob/main/2021-05-26-dns.md",
			title: "Slow DNS", org: "acme", bodyStarts: "# Slow DNS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Extract([]byte(tt.src), Options{URL: tt.url, Format: FormatMarkdown})
			if err != nil {
				t.Fatal(err)
			}
			if tt.title != "" && d.Title != tt.title {
				t.Errorf("title %q, want %q", d.Title, tt.title)
			}
			if d.Published != tt.published {
				t.Errorf("published %q, want %q", d.Published, tt.published)
			}
			if d.Organization != tt.org {
				t.Errorf("organization %q, want %q", d.Organization, tt.org)
			}
			if strings.Join(d.Tags, ",") != strings.Join(tt.tags, ",") {
				t.Errorf("tags %q, want %q", d.Tags, tt.tags)
			}
			_, _, rest, ok := splitFrontMatter(tt.src)
			if !ok {
				rest = tt.src
			}
			if !strings.HasPrefix(strings.TrimLeft(rest, "\n"), tt.bodyStarts) {
				t.Errorf("body %q, want it to start with %q", rest, tt.bodyStarts)
			}
		})
	}
}

func TestPathDate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.org/2021/10/21/outage/", "2021-10-21"},
		{"source/_posts/2017-08-21-docker-udp.md", "2017-08-21"},
		{"notes/fix-upload-20251030.md", "2025-10-30"},
		{"https://github.com/acme/post-mortems/blob/main/2021-05-26-site.md", ""},
		{"docs/incidents/2021-06-29--budget.md", ""},
		{"https://example.org/about/", ""},
		{"build-20251399.md", ""}, // not a date
	}
	for _, tt := range tests {
		if got := pathDate(tt.in); got != tt.want {
			t.Errorf("pathDate(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRepoOrganization(t *testing.T) {
	tests := []struct{ url, stated, want string }{
		{"https://github.com/acme/postmortems/blob/x/a.md", "", "acme"},
		{"https://github.com/Acme-Corp/post-mortem/blob/x/a.md", "", "Acme Corp"},
		{"https://github.com/someone/widgetd/blob/x/docs/a.md", "", "widgetd"},            // a product
		{"https://github.com/acmenetworks/www.acme.net/blob/x/a.md", "", "Acme Networks"}, // a site's repository
		{"https://github.com/someone/someone.github.io/blob/x/a.md", "", ""},              // a personal site
		{"https://github.com/someone/someone.github.com/blob/x/a.md", "", ""},             // one named before 2013
		{"https://gitee.com/someone/someone.gitee.io/blob/x/a.md", "", ""},                // Gitee's pages
		{"https://github.com/acme/widgetd/blob/x/a.md", "Widget Works", "Widget Works"},   // front matter says
		{"https://blog.example.org/x", "", ""},
	}
	for _, tt := range tests {
		if got := documentOrganization(tt.url, tt.stated); got != tt.want {
			t.Errorf("documentOrganization(%q, %q) = %q, want %q", tt.url, tt.stated, got, tt.want)
		}
	}
}

func TestSiteOrganization(t *testing.T) {
	tests := []struct{ name, host, want string }{
		{"The Acme Blog", "blog.acme.io", "Acme"},
		{"Acme Engineering", "acme.com", "Acme"},
		{"Acme 技术博客", "tech.acme.cn", "Acme"},
		{"Shining Moon", "moon.example", ""}, // a blog's own name
		{"SRE运维博客", "cnsre.cn", ""},
		{"Acme Widgets", "acmewidgets.co.uk", "Acme Widgets"},
		{"Acme Status", "status.acme.com", "Acme"},
		{"Acme", "acme.statuspage.io", "Acme"},
		{"Acme Status", "acme.instatus.com", "Acme"},
		{"Statuspage", "acme.statuspage.io", ""},
	}
	for _, tt := range tests {
		if got := siteOrganization(tt.name, tt.host); got != tt.want {
			t.Errorf("siteOrganization(%q, %q) = %q, want %q", tt.name, tt.host, got, tt.want)
		}
	}
}

func TestHTMLSiteOrganization(t *testing.T) {
	page := `<html><head><title>Cache outage – Acme Engineering</title></head><body><article><h1>Cache outage</h1>
<p>` + strings.Repeat("We lost the cache for an hour and restarted the nodes one by one. ", 8) + `</p></article>
<footer>© 2023 Acme, Inc. All rights reserved.</footer></body></html>`
	d, err := Extract([]byte(page), Options{URL: "https://www.acme.com/blog/cache-outage", Format: FormatHTML})
	if err != nil {
		t.Fatal(err)
	}
	if d.Organization != "Acme" {
		t.Errorf("organization %q, want Acme", d.Organization)
	}
	d, _ = Extract([]byte(strings.ReplaceAll(page, "Acme", "Jane Doe")), Options{URL: "https://www.acme.com/blog/cache-outage", Format: FormatHTML})
	if d.Organization != "" {
		t.Errorf("a person's name is no organisation: %q", d.Organization)
	}
}

// TestNamelessHostSiteName: a page served from an address that names
// nobody (127.0.0.1, localhost) takes its organisation from og:site_name;
// a site engine's or a blog's name there names nobody.
func TestNamelessHostSiteName(t *testing.T) {
	page := func(site string) string {
		return `<html><head><title>Cache outage</title><meta property="og:site_name" content="` + site + `"></head><body><article><h1>Cache outage</h1>
<p>` + strings.Repeat("We lost the cache for an hour and restarted the nodes one by one. ", 8) + `</p></article></body></html>`
	}
	for _, tt := range []struct{ site, url, want string }{
		{"Acme", "http://127.0.0.1:8080/posts/cache-outage.html", "Acme"},
		{"Acme Engineering", "http://localhost:1313/posts/cache-outage/", "Acme"},
		{"Hugo", "http://127.0.0.1:1313/posts/cache-outage/", ""},
		{"Jane's Blog", "http://127.0.0.1/posts/cache-outage/", ""},
		{"Acme", "https://moon.example.org/posts/cache-outage/", ""}, // a named host must vouch for the name
	} {
		d, err := Extract([]byte(page(tt.site)), Options{URL: tt.url, Format: FormatHTML})
		if err != nil {
			t.Fatal(err)
		}
		if d.Organization != tt.want {
			t.Errorf("%q on %s: organization %q, want %q", tt.site, tt.url, d.Organization, tt.want)
		}
	}
}

// TestStatusPageOrganization: a status page's title names its owner
// ("… | Acme Status"), on its own domain or a hosted status service.
func TestStatusPageOrganization(t *testing.T) {
	page := `<html><head><title>Elevated API errors | Acme Status</title></head><body><article><h1>Elevated API errors</h1>
<p>` + strings.Repeat("Between 10:00 and 10:40 UTC some API requests failed and we rolled back the release. ", 6) + `</p></article></body></html>`
	for _, tt := range []struct{ url, want string }{
		{"https://status.acme.com/incidents/abc123", "Acme"},
		{"https://acme.statuspage.io/incidents/abc123", "Acme"},
		{"https://status.example-widgets.net/incidents/abc123", ""}, // the title names another name than the host's
	} {
		d, err := Extract([]byte(page), Options{URL: tt.url, Format: FormatHTML})
		if err != nil {
			t.Fatal(err)
		}
		if d.Organization != tt.want {
			t.Errorf("%s: organization %q, want %q", tt.url, d.Organization, tt.want)
		}
	}
}

// FuzzFrontMatter: any input splits and parses without panicking, the rest
// is a suffix of the input, and the fields come out valid UTF-8.
func FuzzFrontMatter(f *testing.F) {
	for _, s := range []string{
		"---\ntitle: a: b\n---\nx", "+++\ntitle = \"a = b\"\n[extra]\nteam = \"t\"\n+++\n", "title: x\ndate: 2020-01-02\n---\n",
		"---  \ntags:\n  - a\n  -\n---", "+++\ntags = [\n\"a\",\n", "---\n---", "+++", "key:\n", "---\n: x\n---\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		fm, toml, rest, ok := splitFrontMatter(src)
		if !ok && rest != src {
			t.Fatalf("no front matter but rest changed")
		}
		if ok && (!strings.HasSuffix(src, rest) || len(fm) > len(src)) {
			t.Fatalf("rest %q is not a suffix of %q", rest, src)
		}
		d := &Document{}
		frontMatter(d, fm, toml)
		if d.Published != "" && len(d.Published) != 10 {
			t.Fatalf("published %q", d.Published)
		}
		if _, err := Extract([]byte(src), Options{Format: FormatMarkdown}); err != nil {
			t.Fatal(err)
		}
		for _, s := range append([]string{d.Title, d.Author, d.Organization}, d.Tags...) {
			if utf8.ValidString(src) && !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 %q", s)
			}
		}
	})
}

// Plain text gets the date and the organisation its address gives, as
// Markdown does.
func TestTextDateAndOrganization(t *testing.T) {
	d, err := Extract([]byte("Cache outage\n\nThe cache went down for an hour.\n"), Options{URL: "https://github.com/acme/postmortems/blob/main/notes/2019/04/05/cache.txt", Format: FormatText})
	if err != nil {
		t.Fatal(err)
	}
	if d.Organization != "acme" || d.Published != "" {
		t.Errorf("organization %q published %q, want acme and no date (a postmortems repository)", d.Organization, d.Published)
	}
	d, _ = Extract([]byte("Cache outage\n\nThe cache went down for an hour.\n"), Options{Name: "posts/2019-04-05-cache.txt", Format: FormatText})
	if d.Published != "2019-04-05" {
		t.Errorf("published %q, want the file name's date", d.Published)
	}
}
