package extract

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

// checkDoc asserts the invariants every Document keeps: valid UTF-8, Text
// is the blocks joined by "\n", and every offset points at its text.
func checkDoc(t testing.TB, d *Document) {
	t.Helper()
	if !utf8.ValidString(d.Text) {
		t.Fatalf("Text is not valid UTF-8")
	}
	var parts []string
	for _, s := range d.Sections {
		if s.Heading != "" && (s.Start < 0 || s.Start+len(s.Heading) > len(d.Text) || d.Text[s.Start:s.Start+len(s.Heading)] != s.Heading) {
			t.Fatalf("section %q: offset %d does not point at its heading", s.Heading, s.Start)
		}
	}
	for _, b := range d.Blocks() {
		if b.Start < 0 || b.End > len(d.Text) || b.Start > b.End {
			t.Fatalf("block %q: offsets [%d,%d) out of range %d", b.Text, b.Start, b.End, len(d.Text))
		}
		if got := d.Text[b.Start:b.End]; got != b.Text {
			t.Fatalf("block offsets [%d,%d) give %q, want %q", b.Start, b.End, got, b.Text)
		}
		if b.Text == "" {
			t.Fatalf("empty block")
		}
		parts = append(parts, b.Text)
	}
	if joined := strings.Join(parts, "\n"); joined != d.Text {
		t.Fatalf("Text is not the blocks joined by newlines:\n%q\n%q", joined, d.Text)
	}
	if d.Published != "" && (len(d.Published) != 10 || d.Published[4] != '-' || d.Published[7] != '-') {
		t.Fatalf("Published %q is not YYYY-MM-DD", d.Published)
	}
}

type fixture struct {
	file    string
	url     string
	want    Document // only the non-empty metadata fields are compared
	has     []string // must be in Text
	hasNot  []string // must not be in Text
	kinds   []BlockKind
	tags    []string
	minSecs int
}

var fixtures = []fixture{
	{
		file: "en_blog_postmortem.html", url: "https://blog.cloudflare.com/partial-outage-edge-cache/",
		want: Document{Title: "Partial outage of the edge cache on 14 March 2024", Published: "2024-03-18",
			Organization: "Cloudflare", Author: "Dana Whitfield", Site: "The Cloudflare Blog", DeclaredLang: "en-US",
			CanonicalURL: "https://blog.cloudflare.com/partial-outage-edge-cache/"},
		has: []string{"On 14 March 2024, between 10:02 and 10:49 UTC", "memory_limit: 512", "Cache hit ratio | 94% | 61%",
			"What we are changing", "Every change to production configuration", "10:09 UTC: error rate alerts fire",
			"We are sorry for the disruption"},
		hasNot: []string{"cookies", "Home", "Related posts", "How we roll out", "transparent write-up", "Share on",
			"Subscribe", "All rights reserved", "systems engineer on the edge team", "Tags:", "12 Comments"},
		kinds:   []BlockKind{Paragraph, ListItem, Code, Table, Quote, Heading},
		minSecs: 5,
	},
	{
		file: "ru_news_incident.html", url: "http://vestnik.example.ru/news/payments",
		want: Document{Title: "Сбой платёжного шлюза оставил магазины без оплаты на два часа", Published: "2021-10-21", DeclaredLang: "en"},
		has: []string{"почти два часа не принимал оплату картами", "без промежуточного звена цепочки",
			"«Мы откатили изменение", "синтетические платежи в мониторинг"},
		hasNot: []string{"Комментарии", "Андрей", "вечная боль", "Банки обновят", "Крупнейшие банки", "Все права защищены",
			"Главная", "Экономика", "Облачный сервис"},
		kinds: []BlockKind{Paragraph},
	},
	{
		file: "zh_blog_outage.html", url: "https://ops-notes.example.cn/p/42.html",
		want: Document{Title: "一次数据库连接池耗尽故障的复盘", Published: "2021-10-21"},
		has:  []string{"订单服务开始大量报错", "HikariPool-1 - Connection is not available", "禁止在数据库事务中调用外部接口", "原因分析"},
		hasNot: []string{"责任编辑", "分享到", "相关文章", "Redis 内存暴涨", "写得很清楚", "热门文章", "版权所有", "首页",
			"阅读 1024"},
		kinds:   []BlockKind{Paragraph, ListItem, Code, Heading},
		minSecs: 3,
	},
	{
		file: "en_legacy_table.html", url: "http://www.riverside-gazette.example/news/77",
		want: Document{Title: "City council approves new flood barrier", Published: "2012-01-12"},
		has: []string{"The city council voted on Tuesday night", "cost 14 million pounds",
			"Residents of the low-lying streets", "Councillor Margaret Hale"},
		hasNot: []string{"Print this story", "Copyright 2012", "Weather", "Archive"},
		kinds:  []BlockKind{Paragraph},
	},
	{
		file: "post_frontmatter.md",
		want: Document{Title: "Queue backlog after a broker upgrade", Published: "2022-06-03", Author: "Platform team"},
		has: []string{"a backlog of 1.2 million messages built up over three hours", "See the upgrade guide for",
			"06:10 | Upgrade of broker 1 starts", "group.protocol: consumer", "indented code is code too",
			"Pin protocol settings explicitly", "The new broker version changed"},
		hasNot:  []string{"**", "https://example.com/guide", "|---|", "title:", "```"},
		kinds:   []BlockKind{Paragraph, ListItem, Code, Table, Quote, Heading},
		tags:    []string{"kafka", "upgrade", "postmortem", "messaging"},
		minSecs: 5,
	},
	{
		file:  "notes_plain.txt",
		want:  Document{Title: "Disk full on the logging cluster", Published: "2023-02-13"},
		has:   []string{"On Monday the logging cluster ran out of disk space after a debug flag was left on in production. Writes were rejected", "Turned the debug flag off.", "Added an alert at 80% disk usage."},
		kinds: []BlockKind{Paragraph, ListItem, Heading},
	},
}

func TestFixtures(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.file, func(t *testing.T) {
			raw, err := readFixture(fx.file)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Extract(raw, Options{URL: fx.url, Format: SniffFormat(fx.file, "", raw)})
			if err != nil {
				t.Fatal(err)
			}
			checkDoc(t, d)
			w := fx.want
			for _, c := range []struct{ name, got, want string }{
				{"Title", d.Title, w.Title}, {"Published", d.Published, w.Published}, {"Organization", d.Organization, w.Organization},
				{"Author", d.Author, w.Author}, {"Site", d.Site, w.Site}, {"DeclaredLang", d.DeclaredLang, w.DeclaredLang},
				{"CanonicalURL", d.CanonicalURL, w.CanonicalURL},
			} {
				if c.want != "" && c.got != c.want {
					t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
				}
			}
			for _, s := range fx.has {
				if !strings.Contains(d.Text, s) {
					t.Errorf("Text lacks %q", s)
				}
			}
			for _, s := range fx.hasNot {
				if strings.Contains(d.Text, s) {
					t.Errorf("Text has boilerplate %q", s)
				}
			}
			kinds := map[BlockKind]bool{}
			for _, b := range d.Blocks() {
				kinds[b.Kind] = true
			}
			for _, k := range fx.kinds {
				if !kinds[k] {
					t.Errorf("no %s block", k)
				}
			}
			if fx.tags != nil && strings.Join(d.Tags, ",") != strings.Join(fx.tags, ",") {
				t.Errorf("Tags = %q, want %q", d.Tags, fx.tags)
			}
			if len(d.Sections) < fx.minSecs {
				t.Errorf("%d sections, want at least %d", len(d.Sections), fx.minSecs)
			}
			golden(t, fx.file, d)
		})
	}
}

// golden compares the whole Document with testdata/golden/<name>.json.
func golden(t *testing.T, name string, d *Document) {
	t.Helper()
	got, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from golden file; run go test ./extract -update and review the diff\n%s", path, firstDiff(string(want), string(got)))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n- " + al[i] + "\n+ " + bl[i]
		}
	}
	return "length differs"
}

func readFixture(name string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", name)) }

func TestIncludeHeadline(t *testing.T) {
	raw, err := readFixture("en_blog_postmortem.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, include := range []bool{false, true} {
		d, err := Extract(raw, Options{Format: FormatHTML, IncludeHeadline: include})
		if err != nil {
			t.Fatal(err)
		}
		checkDoc(t, d)
		starts := strings.HasPrefix(d.Text, d.Title+"\n")
		if starts != include {
			t.Errorf("IncludeHeadline=%v: Text starts with the headline: %v", include, starts)
		}
		if include && (d.Sections[0].Heading != d.Title || d.Sections[0].Level != 1) {
			t.Errorf("first section = %q level %d, want the headline at level 1", d.Sections[0].Heading, d.Sections[0].Level)
		}
	}
}

func TestBlockKindsAndLevels(t *testing.T) {
	raw := []byte(`<html><body><article>
<h2>Timeline</h2><p>First paragraph of the write-up with enough words to count as article text here.</p>
<ul><li>10:00 alert fired for the queue</li><li>10:05 on-call engineer paged</li></ul>
<h3>Detail</h3><pre>line one
line two</pre><blockquote><p>A quoted remark from the chat log.</p></blockquote>
<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>
<p>Second paragraph of the write-up, long enough to belong to the article body as well.</p>
</article></body></html>`)
	d, err := Extract(raw, Options{Format: FormatHTML})
	if err != nil {
		t.Fatal(err)
	}
	checkDoc(t, d)
	want := []struct {
		kind BlockKind
		text string
	}{
		{Heading, "Timeline"}, {Paragraph, "First paragraph"}, {ListItem, "10:00 alert"}, {ListItem, "10:05 on-call"},
		{Heading, "Detail"}, {Code, "line one\nline two"}, {Quote, "A quoted remark"}, {Table, "a | b"}, {Table, "c | d"},
		{Paragraph, "Second paragraph"},
	}
	got := d.Blocks()
	if len(got) != len(want) {
		t.Fatalf("%d blocks, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Kind != w.kind || !strings.HasPrefix(got[i].Text, w.text) {
			t.Errorf("block %d = %s %q, want %s %q", i, got[i].Kind, got[i].Text, w.kind, w.text)
		}
	}
	if len(d.Sections) != 2 || d.Sections[0].Level != 2 || d.Sections[1].Level != 3 {
		t.Errorf("sections %+v; want Timeline (2), Detail (3)", d.Sections)
	}
}
