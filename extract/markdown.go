package extract

import (
	"html"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	mdTaskBox   = regexp.MustCompile(`^\[[ xX]\]\s+`)
	mdImage     = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	mdLink      = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	mdRefLink   = regexp.MustCompile(`\[([^\]]+)\]\[[^\]]*\]`)
	mdAutoLink  = regexp.MustCompile(`<((?:https?|mailto):[^>\s]+)>`)
	mdEmph      = regexp.MustCompile("(\\*\\*|__|~~|`)")
	mdStar      = regexp.MustCompile(`(^|[\s(])[*_]([^*_\s][^*_]*?)[*_]([\s).,;:!?]|$)`)
	mdTableRule = regexp.MustCompile(`^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$`)
	mdRefDef    = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+\S+`)
)

// The line expressions are anchored, yet Go's backtracker clears a bitmap
// as long as the line before it fails at the first character, so every
// long paragraph line cost a pass per expression. Each helper checks the
// character an expression must open with first (RE2's \s is [\t\n\f\r ]).

// re2Space is RE2's \s.
const re2Space = "\t\n\f\r "

// opensWith reports whether line, after RE2 white space, starts with prefix.
func opensWith(line, prefix string) bool {
	return strings.HasPrefix(strings.TrimLeft(line, re2Space), prefix)
}

// isRE2Space reports a byte of re2Space.
func isRE2Space(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// parseMDHeading reads a heading line by hand as mdHeading,
// `^(#{1,6})\s+(.*?)\s*#*\s*$`, read it (two passes of the expression on
// every heading line were 4% of a post's extraction; the tests keep it as
// the reference): the level (1-6 '#'s before RE2 white space) and the text,
// which the lazy group leaves without its trailing white space, closing
// '#'s and white space ("## Why C#" gives "Why C", as the expression does).
func parseMDHeading(trim string) (level int, text string, ok bool) {
	for level < len(trim) && trim[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level == len(trim) || !isRE2Space(trim[level]) {
		return 0, "", false
	}
	rest := strings.TrimLeft(trim[level:], re2Space)
	end := len(rest)
	for end > 0 && isRE2Space(rest[end-1]) {
		end--
	}
	for end > 0 && rest[end-1] == '#' {
		end--
	}
	for end > 0 && isRE2Space(rest[end-1]) {
		end--
	}
	if strings.IndexByte(rest[:end], '\n') >= 0 {
		return 0, "", false // the lazy '.' stops at a line break
	}
	return level, rest[:end], true
}

// isMDHeading reports a Markdown heading line.
func isMDHeading(trim string) bool {
	_, _, ok := parseMDHeading(trim)
	return ok
}

// parseMDListItem reads a list item line by hand as mdListItem,
// `^\s*(?:[-*+]|\d+[.)])\s+(.*)$`, read it: the item's text after its marker
// ("-", "*", "+", "12.", "3)") and RE2 white space.
func parseMDListItem(line string) (item string, ok bool) {
	t := strings.TrimLeft(line, re2Space)
	if t == "" {
		return "", false
	}
	n := 0
	switch c := t[0]; {
	case c == '-' || c == '*' || c == '+':
		n = 1
	case c >= '0' && c <= '9':
		for n < len(t) && t[n] >= '0' && t[n] <= '9' {
			n++
		}
		if n == len(t) || t[n] != '.' && t[n] != ')' {
			return "", false
		}
		n++
	default:
		return "", false
	}
	if n == len(t) || !isRE2Space(t[n]) {
		return "", false
	}
	item = strings.TrimLeft(t[n:], re2Space)
	if strings.IndexByte(item, '\n') >= 0 {
		return "", false
	}
	return item, true
}

// isMDListItem reports a Markdown list item line.
func isMDListItem(line string) bool {
	_, ok := parseMDListItem(line)
	return ok
}

// dropTaskBox removes a list item's leading task box ("[ ] ", "[x] ").
func dropTaskBox(item string) string {
	if !strings.HasPrefix(item, "[") {
		return item
	}
	return mdTaskBox.ReplaceAllString(item, "")
}

// extractMarkdown reads Markdown with optional YAML (---) or TOML (+++)
// front matter. Blocks come out in the same shape as from HTML.
func extractMarkdown(raw []byte, opts Options) (*Document, error) {
	d := &Document{URL: opts.URL}
	src := strings.ReplaceAll(strings.ToValidUTF8(string(raw), ""), "\r\n", "\n")
	src = strings.TrimPrefix(src, "\ufeff")
	if fm, toml, rest, ok := splitFrontMatter(src); ok {
		frontMatter(d, fm, toml)
		src = rest
	}
	var b builder
	lines := strings.Split(src, "\n")
	var para []string
	flush := func() {
		if len(para) > 0 {
			if p := joinSoft(para); !imagesOnly(p) {
				b.block(Paragraph, inlineMD(p))
			}
			para = nil
		}
	}
	inComment := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trim := strings.TrimSpace(line)
		if inComment {
			if strings.Contains(trim, "-->") {
				inComment = false
			}
			continue
		}
		switch {
		case strings.HasPrefix(trim, "<!--"):
			flush()
			inComment = !strings.Contains(trim, "-->")
		case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
			flush()
			fence, lang := trim[:3], codeLang(strings.TrimLeft(trim, "`~"))
			var code []string
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), fence); i++ {
				code = append(code, lines[i])
			}
			b.blockLang(Code, strings.Join(code, "\n"), lang)
		case opensTemplateTag(trim):
			// a Jekyll (Liquid) or Hugo tag: "{% include figure.html … %}",
			// "{{< music id=… >}}" are no text; "{% highlight go %}" …
			// "{% endhighlight %}" is a code block
			name, lang, end, ok := templateTag(lines, &i)
			if !ok {
				// no closing "%}" near: the writer's text, not a tag
				para = append(para, trim)
				continue
			}
			flush()
			if closer := templateCodeEnd[name]; closer != "" {
				var code []string
				for i++; i < len(lines) && !closesTemplateBlock(lines[i], closer); i++ {
					code = append(code, lines[i])
				}
				b.blockLang(Code, strings.Join(code, "\n"), codeLang(lang))
			} else if rest := strings.TrimSpace(end); rest != "" {
				para = append(para, rest)
			}
		case trim == "":
			flush()
		case len(para) == 0 && strings.HasPrefix(line, "    ") && !isMDListItem(line):
			// indented code block
			var code []string
			for ; i < len(lines) && (strings.HasPrefix(lines[i], "    ") || strings.TrimSpace(lines[i]) == ""); i++ {
				code = append(code, strings.TrimPrefix(lines[i], "    "))
			}
			i--
			b.block(Code, strings.Join(code, "\n"))
		case isMDHeading(trim):
			flush()
			level, text, _ := parseMDHeading(trim)
			mdHeadingTo(&b, d, level, text)
		case len(para) > 0 && isSetextRule(trim):
			// "Title\n=====" and "Section\n-------"
			level := 2
			if trim[0] == '=' {
				level = 1
			}
			text := strings.Join(para, " ")
			para = nil
			mdHeadingTo(&b, d, level, text)
		case strings.HasPrefix(trim, "|") || (strings.Count(trim, "|") >= 2 && i+1 < len(lines) && mdTableRule.MatchString(strings.TrimSpace(lines[i+1]))):
			flush()
			if mdTableRule.MatchString(trim) {
				continue
			}
			b.block(Table, tableRow(trim))
		case mdTableRule.MatchString(trim) && strings.Contains(trim, "|"):
			flush()
		case trim == "***" || trim == "---" || trim == "___":
			flush()
		case opensWith(line, "[") && mdRefDef.MatchString(line):
			flush()
		case isMDListItem(line):
			flush()
			item, _ := parseMDListItem(line)
			// lazy continuation lines belong to the item
			for i+1 < len(lines) {
				next := lines[i+1]
				nt := strings.TrimSpace(next)
				if nt == "" || isMDListItem(next) || isMDHeading(nt) || strings.HasPrefix(nt, "```") || strings.HasPrefix(nt, ">") || strings.HasPrefix(nt, "|") {
					break
				}
				item += " " + nt
				i++
			}
			b.block(ListItem, inlineMD(dropTaskBox(item)))
		case strings.HasPrefix(trim, ">"):
			flush()
			var q []string
			for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), ">"); i++ {
				q = append(q, strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(lines[i]), ">")))
			}
			i--
			b.block(Quote, inlineMD(joinSoft(q)))
		default:
			para = append(para, trim)
		}
	}
	flush()
	b.finish(d)
	if d.Published == "" {
		d.Published = pathDate(opts.URL)
	}
	if d.Published == "" {
		d.Published = pathDate(opts.Name)
	}
	if d.Published == "" {
		d.Published = leadingDate(d)
	}
	d.Organization = documentOrganization(opts.URL, d.Organization)
	return d, nil
}

// templateCodeEnd maps the template tags that open a code block to the
// tag that closes it.
var templateCodeEnd = map[string]string{"highlight": "endhighlight", "codeblock": "endcodeblock",
	"hugo:highlight": "/highlight", "hugo:code": "/code"}

// opensTemplateTag reports a line that starts with a Liquid tag ("{%") or
// a Hugo shortcode ("{{<", "{{%").
func opensTemplateTag(trim string) bool {
	return strings.HasPrefix(trim, "{%") || strings.HasPrefix(trim, "{{<") || strings.HasPrefix(trim, "{{%")
}

// templateTag reads the tag that opens lines[*i], which may run over
// several lines (an include with its arguments), leaving *i on its last
// line. name is the tag's name ("hugo:" before a shortcode's), arg its
// first argument and rest what follows the tag on its last line. ok is
// false, and *i unmoved, when the tag does not close within
// maxTemplateLines: that line is text, and nothing after it is lost.
func templateTag(lines []string, i *int) (name, arg, rest string, ok bool) {
	first := strings.TrimSpace(lines[*i])
	open, closer := "{%", "%}"
	switch {
	case strings.HasPrefix(first, "{{<"):
		open, closer = "{{<", ">}}"
	case strings.HasPrefix(first, "{{%"):
		open, closer = "{{%", "%}}"
	}
	body, last := strings.TrimPrefix(first, open), *i
	for n := 0; !strings.Contains(body, closer) && n < maxTemplateLines && last+1 < len(lines); n++ {
		last++
		body += " " + strings.TrimSpace(lines[last])
	}
	inner, after, closed := strings.Cut(body, closer)
	if !closed {
		return "", "", "", false
	}
	*i = last
	words := strings.Fields(strings.Trim(inner, "-% "))
	if len(words) > 0 {
		name = strings.ToLower(words[0])
		if open != "{%" {
			name = "hugo:" + name
		}
	}
	if len(words) > 1 {
		arg = strings.Trim(words[1], `"'`)
		if k, v, ok := strings.Cut(arg, "="); ok && k == "lang" {
			arg = strings.Trim(v, `"'`)
		}
	}
	return name, arg, after, true
}

// maxTemplateLines bounds how far a template tag's arguments may run.
const maxTemplateLines = 20

// closesTemplateBlock reports the tag that ends a template code block:
// "{% endhighlight %}", "{{< /highlight >}}".
func closesTemplateBlock(line, closer string) bool {
	t := strings.TrimSpace(line)
	if !opensTemplateTag(t) {
		return false
	}
	t = strings.TrimLeft(t, "{%<-")
	return strings.HasPrefix(strings.TrimSpace(t), closer)
}

func mdHeadingTo(b *builder, d *Document, level int, text string) {
	text = inlineMD(text)
	b.heading(level, text)
	if d.Title == "" && level == 1 {
		d.Title = cleanText(text)
	}
}

func isSetextRule(s string) bool {
	if len(s) < 2 {
		return false
	}
	return strings.Trim(s, "=") == "" || strings.Trim(s, "-") == ""
}

// tableRow turns "| a | b |" into "a | b".
func tableRow(s string) string {
	s = strings.TrimSpace(s)
	width := len(s)
	s = strings.TrimPrefix(s, "|")
	s = strings.TrimSuffix(s, "|")
	cells := strings.Split(s, "|")
	for i, c := range cells {
		cells[i] = inlineMD(strings.TrimSpace(c))
	}
	row := strings.Join(cells, " | ")
	if len(row) > width {
		// a compact row ("|a|b|c|") keeps its bare bars: Text is never
		// longer than the input
		row = strings.Join(cells, "|")
	}
	return row
}

// imagesOnly reports whether a paragraph holds nothing but images, linked
// or not. Their alt text captions a picture ("Latency graph"); it is not
// prose, and left in it reads as a sentence of whatever section holds it.
// An HTML page's <img> gives no text either.
func imagesOnly(p string) bool {
	if !strings.Contains(p, "![") {
		return false
	}
	rest := mdImage.ReplaceAllString(p, "")
	rest = mdLink.ReplaceAllString(rest, "")
	return strings.TrimSpace(stripTags(rest)) == ""
}

// inlineMD strips inline markup, keeping link and image text. Each pattern
// runs only when its marker character is present: most lines have none.
func inlineMD(s string) string {
	escaped := false
	if strings.IndexByte(s, '\\') >= 0 {
		s, escaped = hideEscapes(s)
	}
	if strings.Contains(s, "](") {
		s = mdImage.ReplaceAllString(s, "$1")
		s = mdLink.ReplaceAllString(s, "$1")
	}
	if strings.Contains(s, "][") {
		s = mdRefLink.ReplaceAllString(s, "$1")
	}
	if strings.Contains(s, "<") {
		s = mdAutoLink.ReplaceAllString(s, "$1")
		s = stripTags(s)
	}
	if strings.IndexByte(s, '&') >= 0 {
		s = decodeEntities(s)
	}
	if strings.ContainsAny(s, "*_~`") {
		s = mdEmph.ReplaceAllString(s, "")
		s = mdStar.ReplaceAllString(s, "$1$2$3")
	}
	if escaped {
		s = showEscapes(s)
	}
	return s
}

// decodeEntities reads HTML character references outside code spans as the
// characters they stand for, as a Markdown renderer does ("we&#39;ve",
// "S&amp;O"); inside a code span they are the writer's literal text.
func decodeEntities(s string) string {
	if !strings.Contains(s, ";") {
		return s
	}
	if strings.IndexByte(s, '`') < 0 {
		return unescapeShorter(s)
	}
	var b strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			b.WriteString(unescapeShorter(s))
			break
		}
		b.WriteString(unescapeShorter(s[:i]))
		j := strings.IndexByte(s[i+1:], '`')
		if j < 0 { // a lone backtick opens no span
			b.WriteByte('`')
			s = s[i+1:]
			continue
		}
		b.WriteString(s[i : i+j+2])
		s = s[i+j+2:]
	}
	return b.String()
}

// unescapeShorter is html.UnescapeString unless that would lengthen the
// text, so Text stays no longer than the input. The standard library
// decodes no reference longer than it is written (it leaves "&nGt;", which
// x/net/html decodes to six bytes: see growingRefs for HTML); this holds
// the promise should that change.
func unescapeShorter(s string) string {
	if u := html.UnescapeString(s); len(u) <= len(s) {
		return u
	}
	return s
}

// escapeBase is where hideEscapes parks an escaped punctuation character
// (in the Private Use Area, which no pattern above matches) until the
// markup is gone.
const escapeBase = 0xE000

// hideEscapes turns each backslash escape ("\<", "\*", "\_") outside code
// spans into a stand-in the markup patterns leave alone: the writer meant
// the character itself ("**\<START OF OUTAGE>**" is the text
// "<START OF OUTAGE>", not a tag to drop).
func hideEscapes(s string) (string, bool) {
	var b strings.Builder
	code, hid := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '`':
			code = !code
		case c == '\\' && !code && i+1 < len(s) && isASCIIPunct(s[i+1]):
			b.WriteRune(rune(escapeBase + int(s[i+1])))
			i++
			hid = true
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), hid
}

// showEscapes puts back the characters hideEscapes parked.
// Bytes that are not UTF-8 pass through unchanged.
func showEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= escapeBase && r < escapeBase+0x80 {
			b.WriteByte(byte(r - escapeBase))
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isASCIIPunct reports the characters CommonMark lets a backslash escape.
func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// stripTags drops inline HTML tags ("<br>", "</span>", "<img src=x />"),
// keeping text and lone "<" signs such as "a < b".
func stripTags(s string) string {
	var sb strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 || i+1 >= len(s) {
			sb.WriteString(s)
			return sb.String()
		}
		c := s[i+1]
		isTag := c == '/' || c == '!' || (c|0x20 >= 'a' && c|0x20 <= 'z')
		j := -1
		if isTag {
			j = strings.IndexAny(s[i+1:], "<>")
		}
		if j < 0 || s[i+1+j] == '<' {
			sb.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		sb.WriteString(s[:i])
		s = s[i+2+j:]
	}
}

func unquote(s string) string { return strings.Trim(strings.TrimSpace(s), `"'`) }

// dateLabel opens a line that states the post's date: "Date: 2021-10-21",
// "**Дата:** 21 октября 2021", "发布时间：2021年10月21日".
var dateLabel = regexp.MustCompile(`(?i)^\s*(?:date|published|posted(?: on)?|дата(?: публикации)?|опубликовано|日期|发布时间|发布于|发表于)\s*[:：]?\s*`)

// leadingDate finds the post date in the first lines of Markdown or text:
// a labelled date line, or a short byline ("Shopify · Oct 21, 2021") whose
// earliest date is the publication (later ones are updates).
func leadingDate(d *Document) string {
	n := 0
	for _, s := range d.Sections {
		// a report's metadata set as a heading: "## Дата: 09.09.2025"
		if h := inlineMD(s.Heading); h != d.Title && len(h) < 80 && hasYear(h) {
			if loc := dateLabel.FindStringIndex(h); loc != nil && loc[1] > loc[0] {
				if p := findDate(h[loc[1]:]); p != "" {
					return p
				}
			}
		}
		for _, b := range s.Blocks {
			if n++; n > 8 {
				return ""
			}
			if b.Kind != Paragraph || len(b.Text) > 400 || !hasYear(b.Text) {
				continue // table rows and timelines carry incident times, not the post's date
			}
			t := inlineMD(b.Text)
			if loc := dateLabel.FindStringIndex(t); loc != nil && loc[1] > loc[0] {
				if p := findDate(t[loc[1]:]); p != "" {
					return p
				}
			}
			if strings.ContainsAny(t, "·|•") {
				if p := earliestDate(t); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

// earliestDate is the earliest of the dates in a short line.
func earliestDate(s string) string {
	best := ""
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '·' || r == '|' || r == '•' }) {
		if p := findDate(part); p != "" && (best == "" || p < best) {
			best = p
		}
	}
	return best
}

// dropHardBreak removes the backslash that ends a line as a hard line
// break ("first line\"); an escaped backslash ("\\\\") stays.
func dropHardBreak(l string) string {
	n := len(l) - len(strings.TrimRight(l, "\\"))
	if n%2 == 1 {
		return strings.TrimRight(l[:len(l)-1], " ")
	}
	return l
}

// joinSoft joins a paragraph's lines: a soft line break between two Han or
// kana letters (or full-width punctuation) is no space, as browsers render
// it for Chinese and Japanese ("时发\n现" is "时发现", not "时发 现", which
// no cue would match); Korean and the rest keep the space.
func joinSoft(lines []string) string {
	var sb strings.Builder
	prev := ""
	for i, l := range lines {
		if i+1 < len(lines) {
			l = dropHardBreak(l)
		}
		if i > 0 {
			p, _ := utf8.DecodeLastRuneInString(prev)
			n, _ := utf8.DecodeRuneInString(l)
			if !(wideRune(p) && wideRune(n)) {
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(l)
		prev = l
	}
	return sb.String()
}

func wideRune(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef
}
