package extract

import (
	"strings"

	"golang.org/x/net/html/atom"
)

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
	if v < 0 {
		// boilerplate weighs less than text: a container keeps its few share
		// links and captions rather than losing to its own best paragraph
		v *= negWeight
	}
	return v
}

var negWeight = envFloat("CASEBOOK_NEGW", 0.5)

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
		// like readability: a boilerplate word loses to an article-ish one
		// ("content-with-aside"), except words that never wrap the article.
		if c := classify(names(e.node)); !c.strong && (c.never || c.negative) {
			bad[i] = true
			never[i] = c.never
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
	best := p.best(true)
	if best < 0 || p.els[best].score <= 0 {
		// nothing good outside boilerplate: the flags were wrong for this page
		for i := range p.els {
			p.els[i].drop = false
			p.els[i].score = 0
		}
		for bi := range p.blocks {
			p.els[p.blocks[bi].el].score += p.blocks[bi].value
		}
		for i := n - 1; i > 0; i-- {
			if par := p.els[i].parent; par >= 0 {
				p.els[par].score += p.els[i].score
			}
		}
		best = p.best(false)
	}
	return best
}

// best is the element with the highest score, boilerplate skipped.
func (p *page) best(skipDrop bool) int {
	best, bestScore := -1, 0.0
	for i := range p.els {
		if skipDrop && p.els[i].drop {
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
