package extract

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// meta is what the page says about itself, gathered before the article is chosen.
type meta struct {
	pageURL    string
	htmlTitle  string
	ogTitle    string
	ldTitle    string
	site       string
	publisher  string // JSON-LD publisher name, when it is an organisation
	published  string // YYYY-MM-DD
	author     string
	canonical  string
	lang       string
	authorHint string   // rel=author or itemprop=author text, when no metadata names the author
	timeDates  []string // <time> values, in page order
	textDates  []string // dates written near the top of the page, normalised
	copyright  string   // the first short text with a copyright sign
}

// readMeta reads the head and the few body elements that carry metadata.
func readMeta(root *html.Node, pageURL string) *meta {
	m := &meta{pageURL: pageURL}
	var metaDate, ldDate string
	var f func(n *html.Node, depth int)
	f = func(n *html.Node, depth int) {
		if depth > maxDepth {
			return
		}
		if n.Type == html.TextNode && m.copyright == "" && len(n.Data) < 200 &&
			(strings.Contains(n.Data, "©") || strings.Contains(n.Data, "opyright")) {
			m.copyright = n.Data
		}
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Html:
				if m.lang == "" {
					m.lang = strings.TrimSpace(attr(n, "lang"))
				}
			case atom.Title:
				if m.htmlTitle == "" {
					m.htmlTitle = cleanText(innerText(n, depth))
				}
			case atom.Meta:
				m.readMetaTag(n, &metaDate)
			case atom.Link:
				if strings.EqualFold(attr(n, "rel"), "canonical") && m.canonical == "" {
					m.canonical = strings.TrimSpace(attr(n, "href"))
				}
			case atom.Script:
				if strings.Contains(strings.ToLower(attr(n, "type")), "ld+json") && n.FirstChild != nil {
					m.readJSONLD(n.FirstChild.Data, &ldDate)
				}
				return
			case atom.Time:
				if v := attr(n, "datetime"); v != "" {
					if d := parseDate(v); d != "" {
						if attr(n, "itemprop") == "datePublished" || hasAttr(n, "pubdate") {
							m.timeDates = append([]string{d}, m.timeDates...)
						} else {
							m.timeDates = append(m.timeDates, d)
						}
					}
				} else if d := findDate(innerText(n, depth)); d != "" {
					m.timeDates = append(m.timeDates, d)
				}
			case atom.Style, atom.Noscript, atom.Template, atom.Svg:
				return
			}
			if m.authorHint == "" && n.DataAtom != atom.Meta && (attr(n, "rel") == "author" || attr(n, "itemprop") == "author") {
				m.authorHint = byline(innerText(n, depth))
			}
			if ip := attr(n, "itemprop"); ip == "datePublished" && metaDate == "" {
				v := attr(n, "content")
				if v == "" {
					v = attr(n, "datetime")
				}
				if v == "" {
					v = innerText(n, depth)
				}
				metaDate = parseDate(v)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c, depth+1)
		}
	}
	f(root, 0)
	switch {
	case ldDate != "":
		m.published = ldDate
	case metaDate != "":
		m.published = metaDate
	}
	return m
}

func (m *meta) readMetaTag(n *html.Node, metaDate *string) {
	key := strings.ToLower(attr(n, "property"))
	if key == "" {
		key = strings.ToLower(attr(n, "name"))
	}
	if key == "" {
		key = strings.ToLower(attr(n, "itemprop"))
	}
	val := strings.TrimSpace(attr(n, "content"))
	if he := strings.ToLower(attr(n, "http-equiv")); he == "content-language" && m.lang == "" {
		m.lang = val
	}
	if val == "" {
		return
	}
	switch key {
	case "og:title":
		if m.ogTitle == "" {
			m.ogTitle = cleanText(val)
		}
	case "twitter:title":
		if m.ogTitle == "" {
			m.ogTitle = cleanText(val)
		}
	case "og:site_name", "application-name":
		if m.site == "" {
			m.site = cleanText(val)
		}
	case "og:url":
		if m.canonical == "" {
			m.canonical = val
		}
	case "og:locale":
		if m.lang == "" {
			m.lang = strings.ReplaceAll(val, "_", "-")
		}
	case "author", "article:author", "dc.creator", "byl", "sailthru.author", "parsely-author":
		if m.author == "" && !strings.Contains(val, "://") {
			m.author = cleanText(strings.TrimPrefix(strings.TrimPrefix(val, "By "), "by "))
		}
	case "article:published_time", "og:published_time", "published_time", "datepublished", "pubdate",
		"publishdate", "publish-date", "publish_date", "date", "dc.date", "dc.date.issued", "dcterms.created",
		"sailthru.date", "parsely-pub-date", "article.published", "article:published", "originalpublicationdate",
		"cxenseparse:recs:publishtime", "og:article:published_time", "weibo:article:create_at", "bt:pubdate":
		if *metaDate == "" {
			*metaDate = parseDate(val)
		}
	}
}

// articleTypes are JSON-LD types whose headline and dates describe the page.
var articleTypes = map[string]bool{
	"article": true, "newsarticle": true, "blogposting": true, "techarticle": true, "report": true,
	"reportagenewsarticle": true, "analysisnewsarticle": true, "scholarlyarticle": true, "posting": true,
	"socialmediaposting": true, "webpage": true, "liveblogposting": true, "opinionnewsarticle": true,
}

var orgTypes = map[string]bool{"organization": true, "corporation": true, "newsmediaorganization": true, "onlinebusiness": true}

func (m *meta) readJSONLD(src string, date *string) {
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(src)), &v); err != nil {
		return
	}
	var visit func(v any, depth int)
	visit = func(v any, depth int) {
		if depth > 8 {
			return
		}
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				visit(e, depth+1)
			}
		case map[string]any:
			if g, ok := x["@graph"]; ok {
				visit(g, depth+1)
			}
			if !hasType(x["@type"], articleTypes) {
				return
			}
			// a WebPage counts only when nothing more specific was seen
			web := hasType(x["@type"], map[string]bool{"webpage": true})
			if h := str(x["headline"]); h != "" && (m.ldTitle == "" || !web) {
				m.ldTitle = cleanText(h)
			}
			if d := parseDate(str(x["datePublished"])); d != "" && (*date == "" || !web) {
				*date = d
			}
			if a := personName(x["author"]); a != "" && m.author == "" {
				m.author = a
			}
			if p, ok := x["publisher"].(map[string]any); ok && m.publisher == "" && hasType(p["@type"], orgTypes) {
				m.publisher = cleanText(str(p["name"]))
			}
			if m.site == "" {
				if p, ok := x["publisher"].(map[string]any); ok {
					m.site = cleanText(str(p["name"]))
				}
			}
		}
	}
	visit(v, 0)
}

func hasType(t any, set map[string]bool) bool {
	switch x := t.(type) {
	case string:
		return set[strings.ToLower(x)]
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok && set[strings.ToLower(s)] {
				return true
			}
		}
	}
	return false
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		if len(x) > 0 {
			return str(x[0])
		}
	}
	return ""
}

func personName(v any) string {
	switch x := v.(type) {
	case string:
		return cleanText(x)
	case map[string]any:
		return cleanText(str(x["name"]))
	case []any:
		var names []string
		for _, e := range x {
			if n := personName(e); n != "" {
				names = append(names, n)
			}
		}
		return strings.Join(names, ", ")
	}
	return ""
}

// titleSeparators split "Headline | Site" titles.
var titleSeparators = []string{" | ", " - ", " – ", " — ", " :: ", " · ", " » ", " « ", " / ", "_", "｜", " –", " —"}

// stripSite removes a site-name part from a page title.
func stripSite(title, site, host string) string {
	for _, sep := range titleSeparators {
		if !strings.Contains(title, sep) {
			continue
		}
		parts := strings.Split(title, sep)
		var keep []string
		for _, p := range parts {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			lp := strings.ToLower(p)
			if (site != "" && (strings.EqualFold(p, site) || strings.Contains(strings.ToLower(site), lp))) ||
				(host != "" && strings.Contains(host, strings.ReplaceAll(lp, " ", ""))) {
				continue
			}
			keep = append(keep, p)
		}
		switch {
		case len(keep) == 0:
			return title
		case len(keep) == len(parts):
			// no part is known to be the site: the headline is the longest part
			best := keep[0]
			for _, k := range keep[1:] {
				if wlen(k) > wlen(best) {
					best = k
				}
			}
			if wlen(best) >= 12 {
				return best
			}
			return title
		default:
			return strings.Join(keep, sep)
		}
	}
	return title
}

// apply fills the Document from the metadata and the headline found in the article.
func (m *meta) apply(d *Document, headline string) {
	host := ""
	if u, err := url.Parse(m.pageURL); err == nil {
		host = strings.ToLower(strings.TrimPrefix(u.Hostname(), "www."))
	}
	d.Site = m.site
	d.DeclaredLang = langTag(m.lang)
	d.Author = m.author
	if d.Author == "" {
		d.Author = m.authorHint
	}
	if m.canonical != "" {
		if base, err := url.Parse(m.pageURL); err == nil && m.pageURL != "" {
			if ref, err := url.Parse(m.canonical); err == nil {
				d.CanonicalURL = base.ResolveReference(ref).String()
			}
		} else {
			d.CanonicalURL = m.canonical
		}
	}
	switch {
	case m.ldTitle != "":
		d.Title = stripSite(m.ldTitle, m.site, host)
	case m.ogTitle != "":
		d.Title = stripSite(m.ogTitle, m.site, host)
	case headline != "":
		d.Title = headline
	default:
		d.Title = stripSite(m.htmlTitle, m.site, host)
	}
	if headline != "" && d.Title != headline && strings.Contains(m.htmlTitle, headline) && wlen(headline) >= 8 {
		d.Title = headline
	}
	d.Published = m.published
	if d.Published == "" && len(m.timeDates) > 0 {
		d.Published = m.timeDates[0]
	}
	if d.Published == "" {
		d.Published = urlDate(m.pageURL)
	}
	if d.Published == "" && len(m.textDates) > 0 {
		d.Published = m.textDates[0]
	}
	d.Organization = m.organization(host)
}

// copyrightNoise is what surrounds the holder's name in a copyright line.
var copyrightNoise = regexp.MustCompile(`(?i)copyright|©|\(c\)|all rights reserved\.?|\b(?:19|20)\d{2}\b|[-–—]|版权所有|保留所有权利|все права защищены|\b(?:inc|ltd|llc|gmbh|corp)\b\.?|,`)

// organization is who had the incident: the host table or an
// organisation publisher, then the site's own name where it is the
// domain's name (og:site_name, the title's site part, the copyright
// holder), then the repository a file is served from.
func (m *meta) organization(host string) string {
	if org := organization(host, m.pageURL, m.publisher); org != "" {
		return org
	}
	names := []string{m.site}
	for _, sep := range titleSeparators {
		if i := strings.LastIndex(m.htmlTitle, sep); i > 0 {
			names = append(names, m.htmlTitle[i+len(sep):])
			break
		}
	}
	if m.copyright != "" {
		names = append(names, copyrightNoise.ReplaceAllString(m.copyright, " "))
	}
	for _, n := range names {
		if org := siteOrganization(n, host); org != "" {
			return org
		}
	}
	if namelessHost(host) {
		// a page served from an address with no name (127.0.0.1,
		// localhost): the site's own name is the only word on who it is
		if org := statedSiteName(m.site); org != "" {
			return org
		}
	}
	if u, err := url.Parse(m.pageURL); err == nil {
		org, _ := repoOrganization(host, u.Path)
		return org
	}
	return ""
}

var langTagRe = regexp.MustCompile(`[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?`)

// langTag is the first language tag in a lang attribute, which pages fill
// with anything from "en-US" to `["zh-CN","en","default"]`.
func langTag(s string) string {
	return strings.ReplaceAll(langTagRe.FindString(s), "_", "-")
}

// byline cleans an author line: "By Jane Doe" -> "Jane Doe".
func byline(s string) string {
	s = cleanText(s)
	for _, p := range []string{"By ", "by ", "BY ", "Автор: ", "作者：", "作者:"} {
		s = strings.TrimPrefix(s, p)
	}
	if wlen(s) > 60 {
		return ""
	}
	return s
}
