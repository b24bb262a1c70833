package extract

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

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
	case Table:
		// data rows belong to the article they sit in but do not make one
		return (l*(1-ld) - 20) * 0.3
	}
	// link text counts against a block steeply past linkKnee: prose with
	// a few links stays prose, a list of links does not
	v := l*(1-ld) - linkSteep*l*max(0, ld-linkKnee) - 30
	v += float64(min(b.punct, 8)) * 4
	if v < 0 {
		// boilerplate weighs less than text: a container keeps its few share
		// links and captions rather than losing to its own best paragraph
		v *= negWeight
	}
	return v
}

// negWeight scales negative block values.
const negWeight = 0.5

// choose marks boilerplate elements, scores every element and returns the
// index of the article container. Flags are tried strict first: when they
// leave nothing worth having, the article-ish names are trusted, then none.
func (p *page) choose() int {
	if len(p.els) == 0 {
		return -1
	}
	n := len(p.els)
	hard := make([]bool, n)  // chrome tags, never-article names, plain boilerplate names
	soft := make([]bool, n)  // boilerplate word next to an article-ish one
	never := make([]bool, n) // comments, related: never the article
	for i := range p.els {
		e := &p.els[i]
		a := e.node.DataAtom
		if a == atom.Body || a == atom.Html || a == atom.Main || a == atom.Article {
			continue
		}
		if chromeTags[a] || a == atom.Form {
			hard[i] = true
		}
		if c := e.names; !c.strong {
			switch {
			case c.never:
				hard[i], never[i] = true, true
			case c.negative && !c.positive:
				hard[i] = true
			case c.negative:
				soft[i] = true
			}
		}
		if r := attr(e.node, "role"); r == "navigation" || r == "complementary" || r == "contentinfo" || r == "banner" {
			hard[i] = true
		}
	}
	for bi := range p.blocks {
		p.blocks[bi].value = value(&p.blocks[bi])
	}
	p.markTeasers()
	// good text per subtree, ignoring the flags: a "sidebar" wrapper around
	// most of the page's good text is a layout wrapper, not boilerplate.
	good := make([]float64, n)
	for bi := range p.blocks {
		b := &p.blocks[bi]
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
		if (hard[i] || soft[i]) && !never[i] && good[i] > 0.6*total {
			hard[i], soft[i] = false, false
		}
	}
	bad := make([]bool, n)
	for tier := 0; tier < 3; tier++ {
		for i := range bad {
			bad[i] = tier == 0 && (hard[i] || soft[i]) || tier == 1 && hard[i]
		}
		best := p.score(bad)
		if tier == 2 || best >= 0 && p.els[best].score > 0 && good[best] >= minGood {
			return p.expand(best)
		}
	}
	return -1
}

// minGood is the least good text a container must hold for its flags to be
// believed (a few sentences).
const minGood = 150

// score marks the drop flags from bad (inherited down the tree), sums block
// values per subtree and returns the best element.
func (p *page) score(bad []bool) int {
	n := len(p.els)
	for i := range p.els {
		d := bad[i]
		if par := p.els[i].parent; par >= 0 && p.els[par].drop {
			d = true
		}
		p.els[i].drop = d
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
	return p.best(true)
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
func (p *page) emit(b *builder, c int, m *meta, opts Options) string {
	if c < 0 {
		return ""
	}
	e := p.els[c]
	headline := ""
	if opts.IncludeHeadline {
		if h := p.headlineBefore(c, m); h >= 0 {
			headline = p.blocks[h].text
			b.heading(1, headline)
		}
	}
	lead := p.leadBefore(c)
	var total float64
	for _, bi := range lead {
		total += p.blocks[bi].value
	}
	for bi := e.blocks; bi < e.end; bi++ {
		if blk := &p.blocks[bi]; !p.els[blk.el].drop && blk.value > 0 {
			total += blk.value
		}
	}
	var seen, leadSeen float64
	for _, bi := range lead {
		leadSeen += p.blocks[bi].value
		b.blockLang(p.blocks[bi].kind, p.blocks[bi].text, p.blocks[bi].lang)
	}
	for bi := e.blocks; bi < e.end; bi++ {
		blk := &p.blocks[bi]
		if p.els[blk.el].drop {
			continue
		}
		if seen == 0 && bi < e.blocks+8 && bylineLike(blk) {
			continue // "By Jane Doe - 2019-04-10" above the first paragraph
		}
		if blk.len <= 60 && seen+leadSeen >= 0.5*total && endMarker(blk.text) || blk.len <= 100 && seen+leadSeen >= commentsAfter && commentsMarker(blk.text) {
			break // "Comments", "Related posts": the article is over
		}
		if blk.value > 0 {
			seen += blk.value
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
			b.blockLang(blk.kind, blk.text, blk.lang)
		}
	}
	return headline
}

// endMarkers open the parts of a page that follow an article: comments,
// related posts, share prompts; in English, Russian and Chinese.
var endMarkers = []string{
	"comment", "leave a reply", "leave a comment", "add comments", "related", "read next",
	"more from", "more stories", "you may also", "you might also", "also be interested", "recommended", "also read", "sponsored",
	"see also", "share this", "popular", "most read", "trending",
	"коммент", "обсуждени", "отзыв", "читайте также", "похожие", "по теме", "другие новости",
	"новости по теме", "смотрите также", "популярн", "поделиться",
	"评论", "留言", "相关", "推荐阅读", "延伸阅读", "热门", "分享到", "更多", "上一篇", "下一篇",
}

// endMarker reports a short block that names what follows the article:
// the marker must be most of it ("13 Comments", "Читайте также:", "相关新闻"),
// so a sentence that mentions comments does not end the article.
func endMarker(s string) bool {
	l := strings.ToLower(s)
	if strings.HasSuffix(l, ".") || strings.HasSuffix(l, "。") {
		return false
	}
	rest := wlen(l)
	for _, m := range endMarkers {
		if strings.Contains(l, m) {
			return rest-wlen(m) <= 14
		}
	}
	return false
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
	if b.kind == Paragraph {
		// lower-cased once for both checks; of a long block only its opening
		l := b.text
		if b.len > noticeMax {
			l = l[:min(len(l), 96)]
		}
		l = strings.ToLower(l)
		if b.len <= 120 && boilerLine(l) || notice(b, l) {
			return false
		}
	}
	return true
}

// boilerStarts open the short lines that news and blog pages put in and
// around an article: sharing, printing, sources, editors, tags, captions.
var boilerStarts = []string{
	"share", "print", "email", "e-mail", "advert", "sponsored", "this slideshow", "don't miss", "don’t miss", "tags:", "tagged", "posted in", "filed under",
	"image:", "photo:", "credit:", "follow us", "sign up", "click here", "read more", "related:", "copyright", "©",
	"all rights reserved", "last updated", "published:", "updated:",
	"источник:", "версия для печати", "распечатать", "поделиться", "теги:", "метки:", "фото:", "автор:",
	"читайте также", "подписывайтесь", "все права защищены", "опубликовано", "реклама",
	"免责声明", "责任编辑", "[责任编辑", "【责任编辑", "编辑：", "编辑:", "(编辑", "（编辑", "字号", "分享到", "打印",
	"关闭窗口", "广告", "来源：", "来源:", "原标题", "标签：", "相关新闻", "用手机", "【纠错】", "版权所有", "本文来源",
	"您所在的位置", "您的位置", "当前位置", "浏览字号", "本文共分", "欢迎订阅",
	// the same in traditional characters
	"免責聲明", "責任編輯", "[責任編輯", "【責任編輯", "編輯：", "編輯:", "(編輯", "（編輯", "字號", "分享到", "列印",
	"關閉", "【關閉", "廣告", "來源：", "來源:", "原標題", "標籤：", "相關新聞", "版權所有", "本文來源",
	"您所在的位置", "您的位置", "當前位置", "瀏覽字號", "調整字體", "本文共分", "歡迎訂閱",
}

// noticeStarts open the site's notices that follow or precede articles,
// however long they run: disclaimers, reprint and copyright terms.
var noticeStarts = []string{
	"声明：", "声明:", "聲明：", "聲明:", "版权声明", "版權聲明",
	"严正申明", "嚴正申明", "特别声明：", "特別聲明：", "本文版权", "本文版權", "凡注明", "凡本网注明", "凡本網注明",
	"при использовании материал", "при перепечатке", "при цитировании", "при полном или частичном",
}

// noticeCues mark a line as a notice wherever they stand in it: reprint
// terms, "press Ctrl+Enter to report a typo", loading placeholders.
var noticeCues = []string{
	"不得转载", "不得轉載", "严禁转载", "嚴禁轉載", "禁止转载", "禁止轉載",
	"ссылка обязательна", "ссылка на источник обязательна", "гиперссылка обязательна", "ссылка на сайт обязательна",
	"all rights reserved", "may not be published, broadcast", "may not be reproduced",
	"ctrl+enter", "ctrl-enter", "ctrl + enter", "ctrl+insert",
	"【大 中 小】", "【大中小】", "当前是第", "當前是第",
}

// noticeMax bounds the lines noticeCues may drop: a long paragraph that
// mentions them is article text.
const noticeMax = 200

// loadingCues are the whole of a loading placeholder.
var loadingCues = []string{"loading", "please wait", "загрузка", "загружается", "подождите", "加载中", "載入中", "正在加载", "正在載入"}

// notice reports a block that is a site notice rather than article text;
// low is its text lower-cased (its opening only, past noticeMax).
func notice(b *block, low string) bool {
	l := strings.TrimLeft(low, " \t[【(（*•·|-")
	for _, m := range noticeStarts {
		if strings.HasPrefix(l, m) {
			return true
		}
	}
	if b.len > noticeMax {
		return false
	}
	for _, m := range noticeCues {
		if strings.Contains(l, m) {
			return true
		}
	}
	// the newsroom's contact line: telephone and fax together
	if (strings.Contains(l, "电话") || strings.Contains(l, "電話")) && (strings.Contains(l, "传真") || strings.Contains(l, "傳真")) {
		return true
	}
	if b.len <= 40 {
		rest := l
		for _, m := range loadingCues {
			rest = strings.ReplaceAll(rest, m, "")
		}
		if rest != l && strings.Trim(rest, " .,:;!…。，-–—пожалуйста") == "" {
			return true
		}
	}
	return false
}

// boilerOpenings are boilerStarts as boilerLine compares them, with the
// brackets it trims from lines trimmed from them too.
var boilerOpenings = func() []string {
	out := make([]string, len(boilerStarts))
	for i, m := range boilerStarts {
		out[i] = strings.TrimLeft(m, "[【(（")
	}
	return out
}()

// boilerLine reports a short line that opens with one of boilerStarts;
// low is the line lower-cased.
func boilerLine(low string) bool {
	l := strings.TrimLeft(low, " \t[【(（*•|-")
	for _, m := range boilerOpenings {
		if strings.HasPrefix(l, m) {
			return true
		}
	}
	return false
}

// headlineBefore finds the article's headline when it sits outside the
// container, just before it, as article headers do: a heading that the
// page's title metadata also names.
func (p *page) headlineBefore(c int, m *meta) int {
	e := p.els[c]
	for bi := e.blocks; bi < min(e.end, e.blocks+3); bi++ {
		if p.blocks[bi].kind == Heading && sameTitle(p.blocks[bi].text, m) {
			return -1 // the container has it
		}
	}
	for bi := e.blocks - 1; bi >= 0 && bi >= e.blocks-60; bi-- {
		b := &p.blocks[bi]
		if b.kind == Heading && b.links*2 < b.len && sameTitle(b.text, m) {
			return bi
		}
	}
	return -1
}

// sameTitle reports whether a heading is the page's title as metadata gives it.
func sameTitle(h string, m *meta) bool {
	hk := titleKey(h)
	if len(hk) < 8 {
		return false
	}
	for _, t := range []string{m.ldTitle, m.ogTitle, m.htmlTitle} {
		tk := titleKey(t)
		if tk == "" {
			continue
		}
		if tk == hk || strings.Contains(tk, hk) && len(hk)*3 >= len(tk) || strings.Contains(hk, tk) && len(tk)*3 >= len(hk)*2 {
			return true
		}
	}
	return false
}

// titleKey is a title reduced to its lower-case letters and digits.
func titleKey(s string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// markTeasers finds teaser items, a link-only headline with a line or two
// of summary under it in a small element of its own (news feeds, related
// posts), and turns their summaries negative: a feed of twenty teasers
// must not outweigh the article it sits beside.
func (p *page) markTeasers() {
	var cands []int
	sig := map[string]int{}
	for i := range p.els {
		e := &p.els[i]
		nb := e.end - e.blocks
		if nb < 2 || nb > 4 {
			continue
		}
		first := &p.blocks[e.blocks]
		if first.kind == Code || first.links*2 <= first.len || first.len > 200 {
			continue
		}
		cands = append(cands, i)
		sig[e.node.Data+"."+attr(e.node, "class")]++
	}
	// headline and summary as sibling elements (<dt><a>…</a><dd>…</dd>):
	// the summary follows a link-only block under the same parent
	pairs := map[int][]int{}
	heads := map[int]int{}
	under := map[int]int{}   // blocks in the direct children of each parent
	longest := map[int]int{} // and the longest of them
	for bi := range p.blocks {
		g := p.els[p.blocks[bi].el].parent
		under[g]++
		longest[g] = max(longest[g], p.blocks[bi].len)
	}
	for bi := 0; bi+1 < len(p.blocks); bi++ {
		h := &p.blocks[bi]
		if h.kind == Code || h.links*2 <= h.len || h.len > 200 {
			continue
		}
		g := p.els[h.el].parent
		found := false
		for bj := bi + 1; bj < len(p.blocks) && bj <= bi+2; bj++ {
			b := &p.blocks[bj]
			if b.el == h.el || p.els[b.el].parent != g || b.links*2 > b.len || b.len >= 400 {
				break
			}
			pairs[g] = append(pairs[g], bj)
			found = true
		}
		if found {
			heads[g]++
		}
	}
	for g, sums := range pairs {
		// a feed is made of such pairs and holds no long paragraph; an
		// article has long paragraphs and the odd link line between them
		if len(sums) >= 3 && float64(len(sums)+heads[g]) >= 0.7*float64(under[g]) && longest[g] < 250 {
			for _, bj := range sums {
				if b := &p.blocks[bj]; b.value > 0 && b.len < 400 {
					b.value = 0
				}
			}
		}
	}
	// one such item is a short article under a linked title; a feed repeats it
	for _, i := range cands {
		e := &p.els[i]
		if sig[e.node.Data+"."+attr(e.node, "class")] < 3 {
			continue
		}
		for bi := e.blocks + 1; bi < e.end; bi++ {
			if b := &p.blocks[bi]; b.value > 0 && b.len < 400 {
				b.value = 0
			}
		}
	}
}

// bylineStarts open author lines.
var bylineStarts = []string{"by ", "posted by", "written by", "автор", "作者", "文/", "文｜"}

// bylineLike reports a short line that carries a date or opens with an
// author cue: the byline or dateline above an article.
func bylineLike(b *block) bool {
	if b.kind != Paragraph || b.len > 100 {
		return false
	}
	// a sentence that starts with a date ("2020年7月13日一大早收到告警，…") is
	// the story itself, not its byline
	if strings.ContainsAny(b.text, "，。！？!?") || strings.HasSuffix(b.text, ".") || punctCount(b.text) > 3 {
		return false
	}
	if hasYear(b.text) && findDate(b.text) != "" {
		return true
	}
	l := strings.ToLower(b.text)
	for _, s := range bylineStarts {
		if strings.HasPrefix(l, s) {
			return true
		}
	}
	return false
}

// commentsAfter is how much article must come before a comments heading ends it.
const commentsAfter = 300

// commentMarkers head a comments section, which never belongs to the
// article, however long it runs: "12 Comments", "Оставить комментарий",
// "Комментарии читателей", "网友评论".
var commentMarkers = []string{"comment", "leave a reply", "leave a comment", "add a comment", "post a comment",
	"join the discussion", "коммент", "оставить коммент", "добавить коммент", "обсуждени", "评论", "留言",
	"发表评论", "网友评论", "添加评论"}

func commentsMarker(s string) bool {
	l := strings.ToLower(s)
	if len(l) > 300 {
		return false
	}
	l = strings.TrimLeft(l, "0123456789 ()[]:|-–—•·*#")
	for _, m := range commentMarkers {
		if strings.HasPrefix(l, m) {
			return true
		}
	}
	return false
}

// An ancestor replaces the container when it holds expandGain times its
// article text and what else it would emit weighs at most expandLeak of
// the text gained.
const expandGain, expandLeak = 1.75, 0.25

// expand widens the chosen container to an ancestor that holds clearly
// more article text, when what the ancestor adds besides that text is
// mostly links (dropped on output anyway): paragraphs that are siblings
// of a link list have no element of their own.
func (p *page) expand(best int) int {
	n := len(p.els)
	good := make([]float64, n)
	leak := make([]float64, n)
	for bi := range p.blocks {
		b := &p.blocks[bi]
		if p.els[b.el].drop {
			continue
		}
		switch {
		case b.value > 0:
			good[b.el] += b.value
		case b.value < 0 && keep(b):
			leak[b.el] -= b.value
		}
	}
	for i := n - 1; i > 0; i-- {
		if par := p.els[i].parent; par >= 0 {
			good[par] += good[i]
			leak[par] += leak[i]
		}
	}
	cur := best
	for a := p.els[cur].parent; a >= 0; a = p.els[a].parent {
		if p.els[a].drop {
			break
		}
		gain := good[a] - good[cur]
		if good[a] < expandGain*good[cur] || leak[a]-leak[cur] > expandLeak*gain {
			if good[a] > good[cur]*1.02 {
				break // the next step adds text, but with too much else: stop here
			}
			continue // a wrapper adding nothing: look further up
		}
		cur = a
	}
	return cur
}

const linkSteep, linkKnee = 3, 0.35

// Lead paragraphs sit just before the article body in an element of their
// own (a "lead", "intro" or description box beside the body's), under the
// same parent: up to leadMax prose blocks worth leadValue each, above the
// body and below the headline, with only short lines (dates, captions,
// share buttons, which are left out) between them.
const leadMax, leadValue, leadSkip = 3, 40, 80

// leadBefore returns the lead paragraphs of container c, in page order.
func (p *page) leadBefore(c int) []int {
	par := p.els[c].parent
	if par < 0 || p.els[par].drop {
		return nil
	}
	switch p.els[par].node.DataAtom {
	case atom.Body, atom.Html, atom.Tr, atom.Tbody, atom.Table:
		// the whole page, or the cells of a layout row, which stand
		// side by side rather than one above the other
		return nil
	}
	var lead []int
	for bi := p.els[c].blocks - 1; bi >= p.els[par].blocks && len(lead) < leadMax; bi-- {
		b := &p.blocks[bi]
		if b.kind == Heading || p.els[b.el].drop {
			break
		}
		if b.kind == Paragraph && b.value >= leadValue && b.links*5 < b.len && prose(b) && keep(b) && !bylineLike(b) && !p.inHeader(b.el, par) {
			lead = append(lead, bi)
			continue
		}
		if b.len > leadSkip {
			break
		}
	}
	slices.Reverse(lead)
	return lead
}

// inHeader reports an element inside a <header> or a pull quote below
// ancestor par: an article header's standfirst and a quote box restate
// the article rather than open it.
func (p *page) inHeader(el, par int) bool {
	for ; el >= 0 && el != par; el = p.els[el].parent {
		if p.els[el].node.DataAtom == atom.Header || p.els[el].names.quote {
			return true
		}
	}
	return false
}

// prose reports a block that reads as sentences: it ends as one, or it is
// long and holds a sentence break ("… снизили. Новая …").
func prose(b *block) bool {
	if sentenceEnd(b.text) {
		return true
	}
	if b.len < 100 {
		return false
	}
	prev := ' '
	for _, r := range b.text {
		if r == '。' || r == '！' || r == '？' {
			return true
		}
		if unicode.IsUpper(r) && (prev == '.' || prev == '!' || prev == '?') {
			return true
		}
		if r != ' ' {
			prev = r
		}
	}
	return false
}

// sentenceEnd reports text that ends as a sentence does, in any of the
// three languages: captions, datelines and bylines mostly do not.
func sentenceEnd(s string) bool {
	s = strings.TrimRight(s, " \"'»”)）)")
	r, _ := utf8.DecodeLastRuneInString(s)
	switch r {
	case '.', '!', '?', '…', '。', '！', '？':
		return true
	}
	return false
}
