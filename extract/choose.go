package extract

import (
	"regexp"
	"strings"

	"golang.org/x/net/html/atom"
)

// strongPositiveRe names containers that are the article body itself; such
// a name outweighs a boilerplate word next to it ("entry-content sidebar-on").
var strongPositiveRe = regexp.MustCompile(`(?i)article-?body|articlebody|post-?body|entry-?content|post-?content|story-?body|main-?content|article-?content|article-?text|news-?text|markdown-body`)

// neverArticleRe names containers that never wrap the article, however much text they hold.
var neverArticleRe = regexp.MustCompile(`(?i)(^|[-_ ])(comments?|commentlist|disqus|respond|replies|related|recommend(ed|ations)?|outbrain|taboola|newsletter|cookie|consent)($|[-_ \d])`)

// value scores a block for choosing the container.
func value(b *block) float64 {
	l := float64(b.len)
	if l == 0 {
		return 0
	}
	ld := float64(b.links) / l
	switch b.kind {
	case Heading:
		return 0
	case Code:
		return l * 0.5
	}
	v := l*(1-ld)*(1-ld) - l*ld - 30
	v += float64(min(b.punct, 8)) * 4
	return v
}

// choose marks boilerplate elements, scores every element and returns the
// index of the article container.
func (p *page) choose() int {
	if len(p.els) == 0 {
		return -1
	}
	n := len(p.els)
	bad := make([]bool, n)
	never := make([]bool, n)
	for i := range p.els {
		e := &p.els[i]
		a := e.node.DataAtom
		if a == atom.Body || a == atom.Html || a == atom.Main || a == atom.Article {
			continue
		}
		if chromeTags[a] {
			bad[i] = true
		}
		if s := names(e.node); s != "" && negativeRe.MatchString(s) && !strongPositiveRe.MatchString(s) {
			bad[i] = true
			never[i] = neverArticleRe.MatchString(s)
		}
		if r := attr(e.node, "role"); r == "navigation" || r == "complementary" || r == "contentinfo" || r == "banner" {
			bad[i] = true
		}
	}
	// good text per subtree, ignoring the flags: a "sidebar" wrapper around
	// most of the page's good text is a layout wrapper, not boilerplate.
	good := make([]float64, n)
	for bi := range p.blocks {
		b := &p.blocks[bi]
		b.value = value(b)
		if b.value > 0 {
			good[b.el] += b.value
		}
	}
	for i := n - 1; i > 0; i-- {
		if par := p.els[i].parent; par >= 0 {
			good[par] += good[i]
		}
	}
	total := good[0]
	for i := range p.els {
		if bad[i] && !never[i] && good[i] > 0.6*total {
			bad[i] = false
		}
	}
	// inherit: an element under a bad one is bad
	for i := range p.els {
		if par := p.els[i].parent; par >= 0 && bad[par] {
			bad[i] = true
		}
		p.els[i].drop = bad[i]
		p.els[i].score = 0
	}
	for bi := range p.blocks {
		b := &p.blocks[bi]
		v := b.value
		if p.els[b.el].drop {
			v = -min(float64(b.len), 200) * 0.5
		}
		p.els[b.el].score += v
	}
	for i := n - 1; i > 0; i-- {
		if par := p.els[i].parent; par >= 0 {
			p.els[par].score += p.els[i].score
		}
	}
	best, bestScore := -1, 0.0
	for i := range p.els {
		if p.els[i].drop {
			continue
		}
		s := p.els[i].score * (1 + p.els[i].bonus)
		if best < 0 || s > bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

// emit writes the chosen container's blocks to the builder, dropping
// boilerplate. It returns the headline heading found, if any.
func (p *page) emit(b *builder, c int, m *meta) string {
	if c < 0 {
		return ""
	}
	e := p.els[c]
	headline := ""
	for bi := e.blocks; bi < e.end; bi++ {
		blk := &p.blocks[bi]
		if p.els[blk.el].drop {
			continue
		}
		if !keep(blk) {
			continue
		}
		switch blk.kind {
		case Heading:
			if headline == "" && blk.level == 1 {
				headline = blk.text
			}
			b.heading(blk.level, blk.text)
		default:
			b.block(blk.kind, blk.text)
		}
	}
	return headline
}

// keep drops link lists and link-only lines inside the container.
func keep(b *block) bool {
	if b.len == 0 {
		return false
	}
	ld := float64(b.links) / float64(b.len)
	switch b.kind {
	case Code:
		return true
	case Heading:
		return ld < 0.9 || b.len > 40
	}
	if ld > 0.6 {
		return false
	}
	return true
}

var _ = strings.TrimSpace
