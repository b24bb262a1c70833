package extract

import (
	"regexp"
	"strings"
	"testing"
)

func TestInlineMD(t *testing.T) {
	tests := []struct{ in, want string }{
		{"see the [guide](https://x.example/g) and ![diagram](d.png)", "see the guide and diagram"},
		{"**bold** and `code` and *em* and _em_", "bold and code and em and em"},
		{"line<br>break <span class=\"x\">text</span>", "linebreak text"},
		{"a < b and c > d", "a < b and c > d"},
		{"<https://example.com/x>", "https://example.com/x"},
		{"snake_case_name stays", "snake_case_name stays"},
		{"[ref link][1]", "ref link"},
		// a backslash escape is the character itself, outside code spans
		{`**\<START OF OUTAGE>** and 5 \* 3 and \_x\_ and \[link\]`, "<START OF OUTAGE> and 5 * 3 and _x_ and [link]"},
		{"`" + `C:\\temp\*` + "`" + ` and a\\b`, `C:\\temp\* and a\b`},
	}
	for _, tt := range tests {
		if got := inlineMD(tt.in); got != tt.want {
			t.Errorf("inlineMD(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A soft line break inside a Chinese or Japanese paragraph is no space;
// between Latin, Cyrillic or Korean words, and between Han and Latin, it is.
func TestMarkdownSoftBreaks(t *testing.T) {
	tests := []struct{ name, md, want string }{
		{"zh", "排查时发\n现连接池已满。", "排查时发现连接池已满。"},
		{"zh punctuation", "连接池已满，\n请求全部超时。", "连接池已满，请求全部超时。"},
		{"ja", "再起動した\nところ復旧した。", "再起動したところ復旧した。"},
		{"en", "the pool was\nexhausted", "the pool was exhausted"},
		{"ru", "пул соединений\nзакончился", "пул соединений закончился"},
		{"ko", "연결 풀이\n가득 찼다", "연결 풀이 가득 찼다"},
		{"han then latin", "升级了\nRedis 之后", "升级了 Redis 之后"},
		{"quote", "> 排查时发\n> 现问题", "排查时发现问题"},
		// a backslash at a line's end is a hard break, not text
		{"hard break", "the pool was\\\nexhausted \\\\\nat noon", `the pool was exhausted \ at noon`},
		{"zh hard break", "排查时发\\\n现问题", "排查时发现问题"},
	}
	for _, tt := range tests {
		doc, err := Extract([]byte("# T\n\n"+tt.md+"\n"), Options{Format: FormatMarkdown})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, s := range doc.Sections {
			for _, b := range s.Blocks {
				got += b.Text
			}
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A paragraph of nothing but images gives no text, as an HTML page's <img>
// does not; an image inside a sentence keeps its alt text.
func TestMarkdownImageParagraphs(t *testing.T) {
	tests := []struct{ name, md, want string }{
		{"image alone", "Before.\n\n![Latency graph](./latency.png \"p99 over a day\")\n\nAfter.", "Before.|After."},
		{"linked image", "[![Build status](badge.svg)](https://ci.example/x)\n\nThe build broke.", "The build broke."},
		{"two images", "![a](a.png) ![b](b.png)\n\nЛоги показали ошибку.", "Логи показали ошибку."},
		{"html img", "<img src=\"x.png\" alt=\"x\">\n\n重启后恢复。", "重启后恢复。"},
		{"image in a sentence", "The graph ![p99](p.png) shows the spike.", "The graph p99 shows the spike."},
	}
	for _, tt := range tests {
		doc, err := Extract([]byte("# T\n\n"+tt.md+"\n"), Options{Format: FormatMarkdown})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range doc.Sections {
			for _, b := range s.Blocks {
				got = append(got, b.Text)
			}
		}
		if g := strings.Join(got, "|"); g != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, g, tt.want)
		}
	}
}

// The expressions the hand readers of headings and list items replaced,
// kept as their reference.
var (
	mdHeading  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	mdListItem = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(.*)$`)
)

var mdLineSeeds = []string{"# Title", "###### deep ##", "#nospace", "  - item", "\t* item", "+ x", "12. step", "3) step",
	"-no space", "    [ref]: https://example.com/x", "[ref]: http://a", "   [x] done", "[x] task", "[ ] open", "", " ", "plain line",
	"\f- odd space", "\v- vertical tab", "１. full-width digit", "— dash", "#️⃣ emoji",
	"## Why C#", "# # #", "#  spaced  ##  ", "####### seven", "#\tTab", "## a\nb", "- a\nb", "12.) x", "7.\t\ttabbed", "- ", "-\t",
	"1.", "## ", "##\x00", "* \xff bad", "# x \\#", "# 0\n", "- \nitem", "- a\n"}

func checkMDLine(t *testing.T, line string) {
	t.Helper()
	if got, want := isMDHeading(line), mdHeading.MatchString(line); got != want {
		t.Errorf("isMDHeading(%q) = %v, the expression says %v", line, got, want)
	}
	if got, want := isMDListItem(line), mdListItem.MatchString(line); got != want {
		t.Errorf("isMDListItem(%q) = %v, the expression says %v", line, got, want)
	}
	if m := mdHeading.FindStringSubmatch(line); m != nil {
		if level, text, _ := parseMDHeading(line); level != len(m[1]) || text != m[2] {
			t.Errorf("parseMDHeading(%q) = %d %q, the expression says %d %q", line, level, text, len(m[1]), m[2])
		}
	}
	if m := mdListItem.FindStringSubmatch(line); m != nil {
		if item, _ := parseMDListItem(line); item != m[1] {
			t.Errorf("parseMDListItem(%q) = %q, the expression says %q", line, item, m[1])
		}
	}
	if got, want := opensWith(line, "[") && mdRefDef.MatchString(line), mdRefDef.MatchString(line); got != want {
		t.Errorf("reference definition %q: %v, the expression says %v", line, got, want)
	}
	if got, want := dropTaskBox(line), mdTaskBox.ReplaceAllString(line, ""); got != want {
		t.Errorf("dropTaskBox(%q) = %q, the expression gives %q", line, got, want)
	}
}

// TestMarkdownLineChecks: the first-character checks before the line
// expressions change no answer, and the hand readers of headings and list
// items give the expressions' groups.
func TestMarkdownLineChecks(t *testing.T) {
	for _, line := range mdLineSeeds {
		checkMDLine(t, line)
	}
}

func FuzzMarkdownLineChecks(f *testing.F) {
	for _, line := range mdLineSeeds {
		f.Add(line)
	}
	f.Fuzz(checkMDLine)
}

// A code block keeps its language mark: a Markdown fence's info string, an
// HTML page's class ("language-java", Hexo's "highlight go").
func TestCodeBlockLang(t *testing.T) {
	tests := []struct {
		name, src string
		format    string
		want      string
	}{
		{"fence", "# T\n\n```java\nclass A {}\n```\n", FormatMarkdown, "java"},
		{"fence attrs", "# T\n\n``` {.python .numberLines}\nprint(1)\n```\n", FormatMarkdown, "python"},
		{"tilde", "# T\n\n~~~Go\nfunc main() {}\n~~~\n", FormatMarkdown, "go"},
		{"bare fence", "# T\n\n```\nls -l\n```\n", FormatMarkdown, ""},
		{"prism", `<html><body><article><h1>T</h1><p>` + strings.Repeat("Text of the post. ", 20) + `</p><pre><code class="language-typescript">const a = 1;</code></pre></article></body></html>`, FormatHTML, "typescript"},
		{"hexo", `<html><body><article><h1>T</h1><p>` + strings.Repeat("文章正文。", 40) + `</p><figure class="highlight java"><table><tr><td><pre><span>class A {}</span></pre></td></tr></table></figure></article></body></html>`, FormatHTML, "java"},
	}
	for _, tt := range tests {
		doc, err := Extract([]byte(tt.src), Options{Format: tt.format})
		if err != nil {
			t.Fatal(err)
		}
		got, found := "", false
		for _, s := range doc.Sections {
			for _, b := range s.Blocks {
				if b.Kind == Code {
					got, found = b.Lang, true
				}
			}
		}
		if !found || got != tt.want {
			t.Errorf("%s: code block lang %q (found %v), want %q", tt.name, got, found, tt.want)
		}
	}
}

// A report's date stated on a line of its own near the top, as a paragraph
// or as a heading, in en, ru and zh, is its publication date.
func TestLeadingDateLine(t *testing.T) {
	tests := []struct{ md, want string }{
		{"# Map not rendering\n\nDate: 09/25/2020\n\nAuthors: Jane\n\nThe map broke.\n", "2020-09-25"},
		{"# Исправление OAuth\n\n## Дата: 09.09.2025\n\n## Проблема\n\nТокены не обновлялись.\n", "2025-09-09"},
		{"# 支付失败复盘\n\n## 日期：2025年10月23日\n\n## 问题\n\n下单失败。\n", "2025-10-23"},
		{"# Outage\n\n## Timeline\n\nThe cache fell over.\n", ""},
	}
	for _, tt := range tests {
		doc, err := Extract([]byte(tt.md), Options{Format: FormatMarkdown})
		if err != nil {
			t.Fatal(err)
		}
		if doc.Published != tt.want {
			t.Errorf("%q: published %q, want %q", tt.md[:20], doc.Published, tt.want)
		}
	}
}

// A highlighter's line-number gutter beside the code is no code block.
func TestLineNumberGutter(t *testing.T) {
	src := `<html><body><article><h1>T</h1><p>` + strings.Repeat("Text of the post. ", 20) +
		`</p><figure class="highlight java"><table><tr><td class="gutter"><pre><span>1</span><br><span>2</span></pre></td>` +
		`<td class="code"><pre><span>class A {</span><br><span>}</span></pre></td></tr></table></figure></article></body></html>`
	doc, err := Extract([]byte(src), Options{Format: FormatHTML})
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for _, s := range doc.Sections {
		for _, b := range s.Blocks {
			if b.Kind == Code {
				code = append(code, b.Lang+": "+b.Text)
			}
		}
	}
	if len(code) != 1 || !strings.HasPrefix(code[0], "java: class A") {
		t.Errorf("code blocks %q, want the one java block", code)
	}
}

// FuzzMarkdownEscapes: outside code spans, hiding and showing the escapes
// is CommonMark's unescaping, and inlineMD never grows a backslash.
func FuzzMarkdownEscapes(f *testing.F) {
	for _, s := range []string{`\<tag\>`, `a\\b`, `\*x\*`, `end\`, `\é`, "\\\xff"} {
		f.Add(s)
	}
	unescape := regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])")
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "`") || strings.ContainsFunc(s, func(r rune) bool { return r >= escapeBase && r < escapeBase+0x80 }) {
			return
		}
		hidden, _ := hideEscapes(s)
		if got, want := showEscapes(hidden), unescape.ReplaceAllString(s, "$1"); got != want {
			t.Errorf("escapes of %q: %q, want %q", s, got, want)
		}
		if strings.Count(inlineMD(s), `\`) > strings.Count(s, `\`) {
			t.Errorf("inlineMD(%q) grew a backslash", s)
		}
	})
}

// Jekyll's Liquid tags and Hugo's shortcodes are no text: an include of a
// figure (over several lines), a music player; a highlight tag's body is a
// code block in its language.
func TestTemplateTags(t *testing.T) {
	md := "# T\n\nThe cache went cold at noon.\n\n" +
		"{% include figure.html src=\"spikes.png\"\n    alt=\"Graph of memory\"\n    caption=\"Spikes!\" %}\n\n" +
		"{{< music id=\"211059\" >}}\n\n" +
		"{% highlight ruby %}\nputs 'leak'\n{% endhighlight %}\n\n" +
		"{{< highlight go \"linenos=table\" >}}\nfunc main() {}\n{{< /highlight >}}\n\n" +
		"We restarted the workers.\n"
	doc, err := Extract([]byte(md), Options{Format: FormatMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	var text, langs []string
	for _, b := range doc.Blocks() {
		switch b.Kind {
		case Code:
			langs = append(langs, b.Lang+":"+b.Text)
		case Paragraph:
			text = append(text, b.Text)
		}
	}
	if got, want := strings.Join(text, "|"), "The cache went cold at noon.|We restarted the workers."; got != want {
		t.Errorf("paragraphs %q, want %q", got, want)
	}
	if got, want := strings.Join(langs, "|"), "ruby:puts 'leak'|go:func main() {}"; got != want {
		t.Errorf("code blocks %q, want %q", got, want)
	}
	// a "{%" that never closes is the writer's text, and so is what follows
	doc, err = Extract([]byte("# T\n\n{% of requests failed at noon.\n\nWe restarted the workers.\n"), Options{Format: FormatMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := doc.Text, "T\n{% of requests failed at noon.\nWe restarted the workers."; got != want {
		t.Errorf("unclosed tag: text %q, want %q", got, want)
	}
}

// HTML character references in Markdown prose are the characters they stand
// for; inside a code span they stay as written.
func TestMarkdownEntities(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"so far we&#39;ve found no evidence", "so far we've found no evidence"},
		{"a call with S&amp;O and IT", "a call with S&O and IT"},
		{"мы&nbsp;перезапустили &laquo;воркер&raquo;", "мы\u00a0перезапустили «воркер»"},
		{"重启后&lt;服务&gt;恢复", "重启后<服务>恢复"},
		{"run `echo &amp;` then &amp; wait", "run echo &amp; then & wait"},
		{"AT&T and R&D stay", "AT&T and R&D stay"},
		{"a lone `backtick &amp; no close", "a lone backtick & no close"},
	} {
		if got := inlineMD(tc.in); got != tc.want {
			t.Errorf("inlineMD(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A table row reads "a | b" where the row had room for the spaces, and keeps
// bare bars where it had none: Text is never longer than the input.
func TestTableRowWidth(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"| a | b |", "a | b"},
		{"|a|b|", "a | b"},
		{"|a|b|c|", "a|b|c"},
		{"|00|0", "00|0"},
	} {
		if got := tableRow(tc.in); got != tc.want {
			t.Errorf("tableRow(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
