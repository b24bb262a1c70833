package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Class and id names are matched by words, not regular expressions: a page
// has thousands of elements and this runs on each.

// negWords name boilerplate containers.
var negWords = set("comment", "comments", "commentlist", "disqus", "respond", "reply", "replies",
	"share", "sharing", "sharebar", "shares", "social", "sociable", "related", "recommend", "recommended",
	"recommendations", "sidebar", "widget", "widgets", "footer", "breadcrumb", "breadcrumbs", "crumbs",
	"pagination", "pager", "paging", "newsletter", "subscribe", "subscription", "signup", "promo",
	"sponsor", "sponsored", "advert", "advertisement", "ad", "ads", "adv", "banner", "cookie", "cookies",
	"consent", "gdpr", "popup", "modal", "overlay", "masthead", "navbar", "nav", "navigation", "menu",
	"topbar", "toolbar", "hidden", "tags", "taglist", "keywords", "rating", "votes", "likes", "follow",
	"outbrain", "taboola", "zergnet", "trending", "popular", "mostread", "teaser", "teasers", "jump",
	"copyright", "disclaimer", "login", "register", "search", "feedback", "print", "rss", "hot",
	"newslist", "links", "friendlink", "gotop", "backtotop", "bio",
	"sitemap", "morestories", "readmore", "alsoread", "seealso", "nextprev",
	"prevnext", "partner", "partners",
	"aside", "rail", "assessment", "poll", "polls", "survey", "quiz", "rate", "caption", "credit", "credits", "legal", "email", "like", "vote", "tag", "topic",
	"authorbio", "aboutauthor", "authorinfo", "printonly", "skiplink", "topstories", "friendlinks", "signup", "sidebar", "rightrail", "leftrail", "supplemental", "shoutbox")

// negPrefixes catch compounds such as "commentform" or "sharethis".
var negPrefixes = []string{"comment", "disqus", "share", "social", "related", "recommend", "sidebar",
	"breadcrumb", "newsletter", "subscri", "advert", "sponsor", "cookie", "outbrain", "taboola", "navig",
	"footer", "promo", "popup"}

// posWords name article containers.
var posWords = set("article", "articles", "content", "entry", "post", "story", "text", "main", "markdown",
	"prose", "detail", "details", "zw", "hentry", "body", "blog", "news", "page", "single", "view", "read")

// neverWords name containers that never wrap the article.
var neverWords = set("comment", "comments", "commentlist", "disqus", "respond", "replies", "related",
	"recommend", "recommended", "recommendations", "outbrain", "taboola", "newsletter", "cookie", "consent")

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// nameWords splits class and id values into lower-case words at
// punctuation, digits, spaces and camelCase humps.
func nameWords(s string, out []string) []string {
	start := -1
	prevLower := false
	for i := 0; i <= len(s); {
		var r rune = ' '
		size := 1
		if i < len(s) {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		letter := unicode.IsLetter(r)
		hump := letter && unicode.IsUpper(r) && prevLower
		if (!letter || hump) && start >= 0 {
			out = append(out, strings.ToLower(s[start:i]))
			start = -1
		}
		if letter && start < 0 {
			start = i
		}
		prevLower = letter && unicode.IsLower(r)
		i += size
	}
	return out
}

// nameClass sums up an element's class and id: boilerplate, never the
// article, strongly the article body, or an article-ish name.
type nameClass struct {
	negative, never, strong, positive bool
	quote                             bool // a pull quote: "quote", "pullquote", "blockquote"
}

func classify(s string) nameClass {
	var c nameClass
	if s == "" {
		return c
	}
	var buf [16]string
	words := nameWords(s, buf[:0])
	for i, w := range words {
		// "nojs"/"noscript" hold what a page shows without scripts ("please
		// enable JavaScript"). Only the joined word counts: the split form
		// "no-js" is Modernizr's class on <html> itself.
		if negWords[w] || strings.Contains(w, "comment") || w == "nojs" || w == "noscript" {
			c.negative = true
		} else {
			for _, p := range negPrefixes {
				if strings.HasPrefix(w, p) {
					c.negative = true
					break
				}
			}
		}
		// compounds split by the tokenizer: "more-stories", "back-to-top"
		if i+1 < len(words) && (negWords[w+words[i+1]] || i+2 < len(words) && negWords[w+words[i+1]+words[i+2]]) {
			c.negative = true
		}
		if neverWords[w] || strings.Contains(w, "comment") || strings.Contains(w, "disqus") {
			c.never = true
		}
		if posWords[w] || strings.Contains(w, "article") || strings.Contains(w, "content") || w == "正文" {
			c.positive = true
		}
		// "article body", "post content", "entry-content", "story-body", "articleBody" ...
		if i+1 < len(words) {
			next := words[i+1]
			if (w == "article" || w == "post" || w == "entry" || w == "story" || w == "news" || w == "main" || w == "blog") &&
				(next == "body" || next == "content" || next == "text" || next == "entry") {
				c.strong = true
			}
		}
		if w == "quote" || w == "pullquote" || w == "blockquote" {
			c.quote = true
		}
		switch w {
		case "articlebody", "postbody", "postcontent", "entrycontent", "storybody", "maincontent", "articlecontent", "articletext", "newstext", "markdown", "prose":
			c.strong = true
		}
	}
	return c
}
