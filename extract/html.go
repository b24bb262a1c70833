package extract

import (
	"bytes"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// extractHTML is the v0 article finder: the first of article, main, body,
// with chrome (nav, header, footer, aside, scripts) removed.
func extractHTML(raw []byte, opts Options) (*Document, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	d := &Document{URL: opts.URL}
	d.Title = cleanText(doc.Find("title").First().Text())
	if og, ok := doc.Find(`meta[property="og:title"]`).Attr("content"); ok && strings.TrimSpace(og) != "" {
		d.Title = cleanText(og)
	}
	d.Site, _ = doc.Find(`meta[property="og:site_name"]`).Attr("content")
	d.DeclaredLang, _ = doc.Find("html").Attr("lang")
	if c, ok := doc.Find(`link[rel="canonical"]`).Attr("href"); ok {
		d.CanonicalURL = strings.TrimSpace(c)
	}
	doc.Find("script, style, noscript, nav, header, footer, aside, form, iframe, svg").Remove()
	root := doc.Find("article").First()
	if root.Length() == 0 {
		root = doc.Find("main").First()
	}
	if root.Length() == 0 {
		root = doc.Find("body").First()
	}
	var b builder
	for _, n := range root.Nodes {
		walk(&b, n)
	}
	if h1 := cleanText(root.Find("h1").First().Text()); h1 != "" {
		d.Title = h1
	}
	b.finish(d)
	return d, nil
}

func walk(b *builder, n *html.Node) {
	if n.Type != html.ElementNode {
		return
	}
	switch n.Data {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		b.heading(int(n.Data[1]-'0'), nodeText(n))
		return
	case "p":
		b.block(Paragraph, nodeText(n))
		return
	case "li":
		b.block(ListItem, nodeText(n))
		return
	case "pre":
		b.block(Code, nodeText(n))
		return
	case "table":
		b.block(Table, nodeText(n))
		return
	case "blockquote":
		b.block(Quote, nodeText(n))
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(b, c)
	}
}

func nodeText(n *html.Node) string {
	var sb strings.Builder
	var f func(*html.Node)
	f = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && n.Data == "br" {
			sb.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c)
		}
		if n.Type == html.ElementNode && (n.Data == "td" || n.Data == "th") {
			sb.WriteByte(' ')
		}
	}
	f(n)
	return sb.String()
}
