package extract

import (
	"strings"
	"testing"
)

// ruleCase is a small page and what its main text must and must not hold.
type ruleCase struct {
	name   string
	html   string
	has    []string
	hasNot []string
}

func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Extract([]byte(tc.html), Options{Format: FormatHTML})
			if err != nil {
				t.Fatal(err)
			}
			checkDoc(t, d)
			for _, s := range tc.has {
				if !strings.Contains(d.Text, s) {
					t.Errorf("Text lacks %q\n%s", s, d.Text)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(d.Text, s) {
					t.Errorf("Text has %q\n%s", s, d.Text)
				}
			}
		})
	}
}

// body is three paragraphs of article text, enough to be the container.
const ruleBody = `<div class="story-text">
<p>The replication lag on the primary database grew from seconds to forty minutes over the afternoon, and the read replicas served stale balances to customers.</p>
<p>Engineers traced the lag to a batch job that rewrote every row of the ledger table in a single transaction, which the replicas had to apply in one piece.</p>
<p>The job was split into small batches the next morning, and the lag has stayed under two seconds since then, even at the busiest hour of the day.</p>
</div>`

// ruleMore lengthens ruleBody so that it outweighs what sits around it.
const ruleMore = `<p>The team now reviews every job that writes more than a million rows before it runs, and the replicas alert when they fall a minute behind.</p>
<p>A second alert fires when a single transaction has been open for more than five minutes, which would have caught this job within its first hour.</p>`

func TestLeadParagraph(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{
			name: "lead box before the body",
			html: `<html><body><div class="wrap"><h1>Stale balances after a replication stall</h1>
<div class="intro"><p>A payments company showed customers wrong balances for most of a working day. Nobody lost money.</p></div>
` + ruleBody + `</div><div class="menu"><a href="/">Home</a> <a href="/news">News</a></div></body></html>`,
			has: []string{"showed customers wrong balances", "The replication lag", "lag has stayed under"},
		},
		{
			name: "lead without a final full stop, past a date and a caption",
			html: `<html><body><div class="wrap"><h1>Stale balances after a replication stall</h1>
<div class="lead">Сбой репликации показал клиентам неверные остатки на счетах. Деньги никто не потерял, а к вечеру все остатки снова совпали, сообщили в компании</div>
<div class="when">12.03.2021 14:05</div>
<div class="pic">Серверная комната / фото пресс-службы</div>
` + strings.Replace(ruleBody, "</div>", ruleMore+"</div>", 1) + `</div></body></html>`,
			has:    []string{"Сбой репликации показал клиентам", "The replication lag"},
			hasNot: []string{"12.03.2021", "пресс-службы"},
		},
		{
			name: "a standfirst in the article header is not the lead",
			html: `<html><body><div class="wrap"><header><h1>Stale balances after a replication stall</h1>
<p class="summary">Why a batch job that looked harmless held a whole database back for an afternoon.</p></header>
` + ruleBody + `</div></body></html>`,
			has:    []string{"The replication lag"},
			hasNot: []string{"looked harmless"},
		},
		{
			name: "a pull quote is not the lead",
			html: `<html><body><div class="wrap"><div class="press-quote">We split the job into small batches the next morning, and the lag has not come back, not even at the busiest hour.</div>
` + ruleBody + `</div></body></html>`,
			has:    []string{"The replication lag"},
			hasNot: []string{"has not come back"},
		},
		{
			name: "a neighbouring layout cell is not the lead",
			html: `<html><body><table><tr><td><ul><li><a href="/">Home page of the gazette</a></li><li><a href="/a">Archive of past issues</a></li><li><a href="/c">Contact the newsroom</a></li></ul>
<p>Our office is at 5 Harbour Street, open from nine to five on weekdays. Call us any time.</p></td>
<td>` + strings.TrimSuffix(strings.TrimPrefix(ruleBody, `<div class="story-text">`), "</div>") + `</td></tr></table></body></html>`,
			has:    []string{"The replication lag"},
			hasNot: []string{"Harbour Street"},
		},
		{
			name: "a sidebar paragraph before the body is not the lead",
			html: `<html><body><div class="wrap"><div class="sidebar"><p>Subscribe to our weekly letter and get every post about databases in your inbox.</p></div>
` + ruleBody + `</div></body></html>`,
			has:    []string{"The replication lag"},
			hasNot: []string{"weekly letter"},
		},
	})
}

func TestNotices(t *testing.T) {
	page := func(extra string) string {
		return `<html><body><div class="story-text">
<p>The replication lag on the primary database grew from seconds to forty minutes over the afternoon, and the read replicas served stale balances to customers.</p>
<p>Engineers traced the lag to a batch job that rewrote every row of the ledger table in a single transaction, which the replicas had to apply in one piece.</p>
` + extra + `
<p>The job was split into small batches the next morning, and the lag has stayed under two seconds since then, even at the busiest hour of the day.</p>
</div></body></html>`
	}
	drop := []struct{ name, line string }{
		{"zh statement", "声明：本站刊登此文只为传递更多信息，并不代表赞同文中观点，也不对文中所述内容的真实性作任何保证，读者请自行核实相关内容，由此引发的一切后果与本站无关。"},
		{"zh copyright, long", "本文版权归本报所有，任何单位或个人未经书面许可，不得以任何方式转载、摘编、复制或者建立镜像，违者本报将依法追究其法律责任，特此告知。"},
		{"zh reprint terms", "（本稿件由合作媒体提供，不得转载。）"},
		{"zh traditional reprint terms", "（本文內容由合作夥伴提供，不得轉載。）"},
		{"ru reuse terms", "При использовании материалов сайта ссылка на издание обязательна."},
		{"ru link required", "Перепечатка разрешена, гиперссылка обязательна."},
		{"ru typo prompt", "Нашли опечатку? Выделите её мышью и нажмите Ctrl+Enter, и мы всё исправим."},
		{"en typo prompt", "Spotted a mistake? Select the text and press Ctrl-Enter to tell the editors."},
		{"en rights", "Copyright 2020 The Example Wire. All rights reserved. This material may not be published, broadcast or redistributed."},
		{"ru loading", "Загрузка. Пожалуйста, подождите..."},
		{"en loading", "Loading, please wait…"},
		{"zh loading", "正在加载…"},
		{"zh breadcrumb", "您所在的位置：首页 > 科技 > 正文"},
		{"zh font size", "发布时间：2021-10-21 【大 中 小】"},
		{"zh pagination", "本文共3页 当前是第 1 页 下一页"},
		{"zh newsroom contact", "新闻热线 电话：010-1234567 传真：010-7654321 投稿邮箱见网站底部"},
		{"zh traditional subscribe", "歡迎訂閱本站的每日科技快訊，第一時間掌握業界動態。"},
	}
	var cases []ruleCase
	for _, d := range drop {
		cases = append(cases, ruleCase{name: d.name, html: page("<p>" + d.line + "</p>"), has: []string{"The job was split"}, hasNot: []string{d.line}})
	}
	keepLines := []struct{ name, line string }{
		{"zh prose on unauthorised access", "攻击者利用未经授权的接口读取了部分订单数据，安全团队在两小时内关闭了该接口，并通知了受影响的用户。"},
		{"zh prose on schools and phones", "全市大中小学的教务系统同时停机，教师只能打电话逐一通知学生调整上课时间，直到下午系统才恢复正常。"},
		{"en prose on loading", "Loading the new configuration took eleven minutes, during which every request to the cache missed and went to the database."},
		{"ru prose on waiting", "Пользователям пришлось подождите-подождите, как шутили в поддержке, почти два часа, пока шлюз не восстановили после отката."},
		{"en long paragraph citing a notice", "The vendor's page said all rights reserved, but the status text under it had been copied from our own incident page, and a reader who compared them could see that the times and the affected regions matched ours word for word, which is how we learned that the vendor had been watching our page rather than their own systems."},
	}
	for _, k := range keepLines {
		cases = append(cases, ruleCase{name: k.name, html: page("<p>" + k.line + "</p>"), has: []string{k.line}})
	}
	runRuleCases(t, cases)
}

func TestCommentWidgets(t *testing.T) {
	p := func(s string) string { return "<p>" + s + "</p>" }
	body := func(first string) string {
		return `<html><body><div class="story-text">` + first +
			p(`<a class="para-comments comments_count" title="Leave a comment">0</a>Engineers traced the lag to a batch job that rewrote every row of the ledger table in a single transaction.`) +
			p(`<span id="comment-count-3">12</span>The job was split into small batches the next morning, and the lag has stayed under two seconds since then.`) +
			`</div></body></html>`
	}
	runRuleCases(t, []ruleCase{
		{
			name:   "counters before paragraphs",
			html:   body(p(`The replication lag on the primary database grew from seconds to forty minutes over the afternoon, and the replicas served stale data.`)),
			has:    []string{"\nEngineers traced", "\nThe job was split"},
			hasNot: []string{"0Engineers", "12The job"},
		},
		{
			name: "a long linked phrase keeps its text",
			html: body(p(`The replication lag grew over the afternoon, as <a class="commentary-link" href="/c">our earlier commentary on batch jobs and replicas</a> had warned it might, and the replicas served stale data.`)),
			has:  []string{"our earlier commentary on batch jobs and replicas"},
		},
	})
}
