package extract

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxDepth bounds every walk of the tree: deeper markup is hostile or broken
// and its text is dropped rather than risk the stack and the time budget.
const maxDepth = 400

// extractHTML finds the article in a page and reads its metadata.
//
// The article is found by scoring: the page is cut into text blocks (runs of
// inline content inside block elements), each block gets a value (long,
// sentence-like, link-poor text is positive; short or link-heavy text is
// negative), and the element whose subtree has the largest sum of values is
// the article container. Boilerplate inside it (share bars, related lists,
// comments, link lists) is then dropped by class/id patterns and link density.
func extractHTML(raw []byte, opts Options) (*Document, error) {
	if maybeDeep(raw, parseDepthLimit) {
		raw = flattenDeep(raw, parseDepthLimit)
	}
	root, err := html.ParseWithOptions(bytes.NewReader(raw), html.ParseOptionEnableScripting(false))
	if err != nil {
		return nil, fmt.Errorf("extract: parse html: %w", err)
	}
	d := &Document{URL: opts.URL}
	m := readMeta(root, opts.URL)
	p := newPage()
	p.collect(root)
	body := p.choose()
	var b builder
	headline := p.emit(&b, body, m, opts)
	m.textDates = p.datesNear(body)
	m.apply(d, headline)
	b.finish(d)
	return d, nil
}

// elem is an element of the page that can hold blocks.
type elem struct {
	node   *html.Node
	parent int
	score  float64 // sum of block values in the subtree
	bonus  float64 // class/id/tag hint
	blocks int     // index of the first block in the subtree
	end    int     // one past the last block in the subtree
	drop   bool    // boilerplate inside a container: not emitted
	names  nameClass
}

// block is a run of text to emit, tied to the element that holds it.
type block struct {
	el    int
	kind  BlockKind
	level int // headings
	text  string
	len   int // weighted length: runes, Han/kana/hangul counted triple
	links int // weighted length inside links
	value float64
	punct int    // sentence punctuation
	lang  string // a code block's language (codeLangOf)
}

type page struct {
	els    []elem
	blocks []block
	// inline accumulation
	cur      strings.Builder
	curLinks int
	curLen   int
	curPunct int
	inLink   int
	inPre    int
	curEl    int
	curKind  BlockKind
	brRun    int
	tables   map[*html.Node]bool // data (true) or layout table
}

func newPage() *page {
	return &page{els: make([]elem, 0, 256), blocks: make([]block, 0, 128)}
}

// skipTags never hold article text.
var skipTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Canvas: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Button: true, atom.Select: true, atom.Textarea: true, atom.Input: true,
	atom.Option: true, atom.Head: true, atom.Title: true, atom.Meta: true, atom.Link: true,
	atom.Audio: true, atom.Video: true, atom.Map: true, atom.Dialog: true, atom.Label: true,
}

// chromeTags are page chrome by definition.
var chromeTags = map[atom.Atom]bool{atom.Nav: true, atom.Aside: true, atom.Footer: true, atom.Menu: true}

// blockTags break inline runs.
var blockTags = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Ul: true, atom.Ol: true, atom.Li: true, atom.Dl: true, atom.Dt: true, atom.Dd: true,
	atom.Pre: true, atom.Blockquote: true, atom.Table: true, atom.Tbody: true, atom.Thead: true,
	atom.Tfoot: true, atom.Tr: true, atom.Td: true, atom.Th: true, atom.Caption: true,
	atom.Figure: true, atom.Figcaption: true, atom.Header: true, atom.Footer: true, atom.Nav: true,
	atom.Aside: true, atom.Hr: true, atom.Address: true, atom.Center: true, atom.Form: true,
	atom.Fieldset: true, atom.Details: true, atom.Summary: true, atom.Body: true, atom.Html: true,
	atom.Hgroup: true, atom.Menu: true, atom.Legend: true,
}

var (
	// hiddenStyle marks elements not shown.
	hiddenStyle = regexp.MustCompile(`(?i)display\s*:\s*none|visibility\s*:\s*hidden`)
)

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// names is the class and id of an element, for the patterns.
func names(n *html.Node) string {
	c, id := attr(n, "class"), attr(n, "id")
	if id == "" {
		return c
	}
	if c == "" {
		return id
	}
	return c + " " + id
}

// commentWidget reports an inline link or span that belongs to a comments
// widget, as the per-paragraph comment counters some pages put at the
// start of every paragraph ("<a class="comments_count">0</a>Text…").
func commentWidget(n *html.Node) bool {
	if n.DataAtom != atom.A && n.DataAtom != atom.Span {
		return false
	}
	for _, a := range n.Attr {
		if (a.Key == "class" || a.Key == "id") && len(a.Val) >= 7 && indexFold([]byte(a.Val), "comment") >= 0 {
			// a counter or a "3 comments" link, not a linked phrase of prose
			return textLen(n, 0, 40) <= 40
		}
	}
	return false
}

// textLen is the byte length of the text under n, counted up to limit.
func textLen(n *html.Node, depth, limit int) int {
	if n.Type == html.TextNode {
		return len(strings.TrimSpace(n.Data))
	}
	total := 0
	for c := n.FirstChild; c != nil && total <= limit && depth < 20; c = c.NextSibling {
		total += textLen(c, depth+1, limit-total)
	}
	return total
}

// isHidden reports elements a browser would not show.
func isHidden(n *html.Node) bool {
	if hasAttr(n, "hidden") || attr(n, "aria-hidden") == "true" {
		return true
	}
	if s := attr(n, "style"); s != "" && strings.Contains(s, ":") && hiddenStyle.MatchString(s) {
		return true
	}
	return false
}

// collect walks the tree once, building elements and blocks.
func (p *page) collect(root *html.Node) {
	p.walk(root, -1, 0)
	p.flush()
}

func (p *page) walk(n *html.Node, parent, depth int) {
	if depth > maxDepth {
		return
	}
	switch n.Type {
	case html.DocumentNode:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			p.walk(c, parent, depth+1)
		}
		return
	case html.TextNode:
		p.text(n.Data)
		return
	case html.ElementNode:
	default:
		return
	}
	a := n.DataAtom
	if skipTags[a] {
		return
	}
	if a == atom.Br {
		if p.inPre > 0 {
			p.cur.WriteByte('\n')
			return
		}
		p.brRun++
		if p.brRun >= 2 {
			p.flush() // <br><br> separates paragraphs on old pages
		} else {
			p.cur.WriteByte('\n')
		}
		return
	}
	if a == atom.Figcaption {
		return // captions describe pictures, not the article's argument
	}
	if a == atom.Img || a == atom.Picture || a == atom.Source {
		return
	}
	if isHidden(n) && a != atom.Body && a != atom.Html {
		return
	}
	if !blockTags[a] {
		// inline element
		if commentWidget(n) {
			return
		}
		if a == atom.A {
			p.inLink++
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			p.walk(c, parent, depth+1)
		}
		if a == atom.A {
			p.inLink--
		}
		if a == atom.Td || a == atom.Th {
			p.cur.WriteByte(' ')
		}
		return
	}
	// block element: ends the inline run, opens an element
	p.flush()
	idx := len(p.els)
	p.els = append(p.els, elem{node: n, parent: parent, blocks: len(p.blocks)})
	p.els[idx].names = classify(names(n))
	p.els[idx].bonus = hint(n, p.els[idx].names)
	saved := p.curEl
	savedKind := p.curKind
	p.curEl = idx
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		p.curKind = Heading
	case atom.Li, atom.Dt, atom.Dd:
		p.curKind = ListItem
	case atom.Pre:
		p.curKind = Code
		p.inPre++
	case atom.Blockquote:
		p.curKind = Quote
	case atom.Td, atom.Th, atom.Caption:
		if p.curKind != Quote {
			p.curKind = Paragraph
		}
	case atom.Tr:
		if p.isDataTable(n) {
			p.curKind = Table
		}
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Body:
		if p.curKind != Quote && p.curKind != ListItem && p.curKind != Table {
			p.curKind = Paragraph
		}
	}
	if a == atom.Tr && p.curKind == Table {
		p.row(n, idx)
	} else {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			p.walk(c, idx, depth+1)
		}
	}
	p.flush()
	if a == atom.Pre {
		p.inPre--
	}
	p.curEl = saved
	p.curKind = savedKind
	p.els[idx].end = len(p.blocks)
}

// row emits a data-table row as one block, cells separated by " | ".
func (p *page) row(tr *html.Node, idx int) {
	var cells []string
	links := 0
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
			t := cleanText(innerText(c, 0))
			cells = append(cells, t)
			links += linkLen(c, 0)
		}
	}
	s := strings.Join(cells, " | ")
	if strings.Trim(s, " |") == "" {
		return
	}
	l := wlen(s)
	p.blocks = append(p.blocks, block{el: idx, kind: Table, text: s, len: l, links: links, punct: punctCount(s)})
}

// isDataTable tells a table of data from a table used for layout: data rows
// hold short cells without nested blocks.
func (p *page) isDataTable(tr *html.Node) bool {
	var table *html.Node
	for a := tr.Parent; a != nil; a = a.Parent {
		if a.DataAtom == atom.Table {
			table = a
			break
		}
	}
	if table == nil {
		return false
	}
	// every row asks about its table: decide once
	if v, ok := p.tables[table]; ok {
		return v
	}
	v := dataTable(table)
	if p.tables == nil {
		p.tables = map[*html.Node]bool{}
	}
	p.tables[table] = v
	return v
}

func dataTable(table *html.Node) bool {
	if attr(table, "role") == "presentation" {
		return false
	}
	rows, cells, maxCell := 0, 0, 0
	layout := false
	var f func(n *html.Node, depth int)
	f = func(n *html.Node, depth int) {
		if depth > 6 || layout {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Table, atom.Div, atom.P, atom.Ul, atom.Ol, atom.Blockquote, atom.Pre, atom.H1, atom.H2, atom.H3, atom.Form, atom.Img, atom.Iframe:
				layout = true
				return
			case atom.Tr:
				rows++
			case atom.Td, atom.Th:
				cells++
				maxCell = max(maxCell, wlen(innerText(c, 0)))
				// cells are not descended into beyond the check for blocks
			}
			f(c, depth+1)
		}
	}
	f(table, 0)
	if layout || rows < 2 || cells < 4 {
		return false
	}
	return maxCell < 400
}

// hint scores an element's tag, class and id.
func hint(n *html.Node, c nameClass) float64 {
	switch n.DataAtom {
	case atom.Article, atom.Main:
		return 0.2
	case atom.Body, atom.Html:
		return 0
	}
	if ip := attr(n, "itemprop"); ip == "articleBody" || ip == "text" {
		return 0.3
	}
	switch {
	case c.strong:
		return 0.3
	case c.positive && !c.negative:
		return 0.1
	}
	return 0
}

func (p *page) text(s string) {
	if p.inPre > 0 {
		p.cur.WriteString(s)
		p.curLen += wlen(s)
		return
	}
	if strings.TrimSpace(s) == "" {
		if s != "" {
			p.cur.WriteByte(' ')
		}
		return
	}
	p.brRun = 0
	p.cur.WriteString(s)
	l := wlen(s)
	p.curLen += l
	if p.inLink > 0 {
		p.curLinks += l
	}
	p.curPunct += punctCount(s)
}

// flush closes the current inline run as a block.
func (p *page) flush() {
	p.brRun = 0
	if p.cur.Len() == 0 {
		return
	}
	raw := p.cur.String()
	p.cur.Reset()
	links, l, punct := p.curLinks, p.curLen, p.curPunct
	p.curLinks, p.curLen, p.curPunct = 0, 0, 0
	if p.curEl < 0 || p.curEl >= len(p.els) {
		return
	}
	kind := p.curKind
	if kind == "" {
		kind = Paragraph
	}
	var t string
	if kind == Code {
		t = raw
		if strings.TrimSpace(t) == "" || lineNumbers(t) {
			return
		}
	} else {
		t = cleanText(raw)
		if t == "" {
			return
		}
	}
	level := 0
	if kind == Heading {
		level = int(p.els[p.curEl].node.Data[1] - '0')
	}
	lang := ""
	if kind == Code {
		lang = p.codeLangOf(p.curEl)
	}
	p.blocks = append(p.blocks, block{el: p.curEl, kind: kind, level: level, text: t, len: l, links: links, punct: punct, lang: lang})
}

// lineNumbers reports a code block of nothing but digits: the line-number
// gutter highlighters set beside the code (Hexo's td.gutter), not code.
func lineNumbers(s string) bool {
	digits := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits = true
		case c != ' ' && c != '\n' && c != '\t' && c != '\r':
			return false
		}
	}
	return digits && strings.Contains(strings.TrimSpace(s), "\n")
}

// codeLangOf finds a code block's language in the classes of its element,
// its first child and up to six ancestors: "language-java", "lang-go"
// (highlight.js, Prism, Hugo, Jekyll) or Hexo's figure "highlight java".
func (p *page) codeLangOf(el int) string {
	for depth := 0; el >= 0 && el < len(p.els) && depth < 7; depth++ {
		n := p.els[el].node
		if l := langClass(attr(n, "class")); l != "" {
			return l
		}
		if c := n.FirstChild; c != nil && c.Type == html.ElementNode {
			if l := langClass(attr(c, "class")); l != "" {
				return l
			}
		}
		el = p.els[el].parent
	}
	return ""
}

func langClass(class string) string {
	fields := strings.Fields(class)
	for i, f := range fields {
		for _, pre := range []string{"language-", "lang-"} {
			if strings.HasPrefix(f, pre) {
				return codeLang(f[len(pre):])
			}
		}
		if f == "highlight" && i+1 < len(fields) {
			return codeLang(fields[i+1])
		}
	}
	return ""
}

// wlen is a length that treats languages alike: a Han, kana or hangul
// character carries about as much as a short word, so it counts triple.
func wlen(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r < 0x80:
			if r > ' ' {
				n++
			}
		case isCJK(r):
			n += 3
		case unicode.IsSpace(r):
		default:
			n++
		}
	}
	return n
}

func isCJK(r rune) bool {
	return (r >= 0x3040 && r <= 0x30FF) || (r >= 0x3400 && r <= 0x9FFF) || (r >= 0xAC00 && r <= 0xD7AF) || (r >= 0xF900 && r <= 0xFAFF)
}

// punctCount counts sentence punctuation in any of the three languages.
func punctCount(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case '.', ',', ';', ':', '!', '?', '，', '。', '；', '：', '！', '？', '、', '«', '»', '“', '”', '"':
			n++
		}
	}
	return n
}

func innerText(n *html.Node, depth int) string {
	start := depth
	var sb strings.Builder
	var f func(*html.Node, int)
	f = func(n *html.Node, depth int) {
		if depth > maxDepth {
			return
		}
		switch n.Type {
		case html.TextNode:
			sb.WriteString(n.Data)
			return
		case html.ElementNode:
			if skipTags[n.DataAtom] && depth > start {
				return
			}
			if n.DataAtom == atom.Br {
				sb.WriteByte('\n')
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c, depth+1)
		}
		if n.Type == html.ElementNode && blockTags[n.DataAtom] {
			sb.WriteByte(' ')
		}
	}
	f(n, depth)
	return sb.String()
}

func linkLen(n *html.Node, depth int) int {
	if depth > maxDepth {
		return 0
	}
	if n.Type == html.ElementNode && n.DataAtom == atom.A {
		return wlen(innerText(n, depth))
	}
	total := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		total += linkLen(c, depth+1)
	}
	return total
}

// datesNear finds dates written just before and at the top of the
// container, where bylines sit.
func (p *page) datesNear(c int) []string {
	if c < 0 {
		return nil
	}
	start := p.els[c].blocks
	var out []string
	for i := max(0, start-20); i < min(len(p.blocks), start+10); i++ {
		if b := &p.blocks[i]; b.len > 300 || !hasYear(b.text) {
			continue
		}
		if d := findDate(p.blocks[i].text); d != "" {
			out = append(out, d)
		}
	}
	return out
}
