package extract

import "testing"

func TestFindDate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2021-10-21T09:30:00Z", "2021-10-21"},
		{"Posted 2021/10/21 by admin", "2021-10-21"},
		{"21.10.2021, 14:35", "2021-10-21"},
		{"21 октября 2021", "2021-10-21"},
		{"Опубликовано 3 мая 2019 г.", "2019-05-03"},
		{"1 марта 2020", "2020-03-01"},
		{"12 июня 2018", "2018-06-12"},
		{"2021年10月21日", "2021-10-21"},
		{"发布于 2021 年 1 月 5 日", "2021-01-05"},
		{"October 21, 2021", "2021-10-21"},
		{"Oct. 21st 2021", "2021-10-21"},
		{"21 October 2021", "2021-10-21"},
		{"Last updated at 10:01 AM on 12th January 2012", "2012-01-12"},
		{"Tue, 19 Nov 2019 08:00:00 GMT", "2019-11-19"},
		{"20111128", ""}, // bare digits are only read by parseDate
		{"version 2.13.2021", ""},
		{"no date here", ""},
		{"2021-13-45", ""},
		{"Date: 09/25/2020", "2020-09-25"}, // the US order where the day cannot be first
		{"25/09/2020", "2020-09-25"},
		{"05/06/2020", "2020-06-05"}, // ambiguous: day first, as most of the world writes it
		{"09.25.2020", ""},           // dots are the day-first order only
	}
	for _, tt := range tests {
		if got := findDate(tt.in); got != tt.want {
			t.Errorf("findDate(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := parseDate("20111128"); got != "2011-11-28" {
		t.Errorf("parseDate(compact) = %q", got)
	}
}

func TestURLDate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://example.com/2021/10/21/outage/", "2021-10-21"},
		{"https://example.com/blog/2019-11-19-db-failover", "2019-11-19"},
		{"https://example.com/posts/210311132723/", ""},
		{"https://example.com/p/20200118.html", "2020-01-18"},
		{"https://example.com/about", ""},
	}
	for _, tt := range tests {
		if got := urlDate(tt.in); got != tt.want {
			t.Errorf("urlDate(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStripSite(t *testing.T) {
	tests := []struct{ title, site, host, want string }{
		{"Partial outage of the cache | The Cloudflare Blog", "The Cloudflare Blog", "blog.cloudflare.com", "Partial outage of the cache"},
		{"AWS使用快照创建实例启动失败 – SRE运维博客", "SRE运维博客", "cnsre.cn", "AWS使用快照创建实例启动失败"},
		{"一次数据库连接池耗尽故障的复盘_运维笔记", "", "", "一次数据库连接池耗尽故障的复盘"},
		{"Сбой платёжного шлюза — Вестник", "", "", "Сбой платёжного шлюза"},
		{"Postgres - Wikipedia", "", "wikipedia.org", "Postgres"},
		{"No separator here", "", "", "No separator here"},
		{"A - B", "", "", "A - B"}, // too short to tell headline from site
	}
	for _, tt := range tests {
		if got := stripSite(tt.title, tt.site, tt.host); got != tt.want {
			t.Errorf("stripSite(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}

func TestOrganization(t *testing.T) {
	tests := []struct{ host, url, publisher, want string }{
		{"blog.cloudflare.com", "https://blog.cloudflare.com/x/", "", "Cloudflare"},
		{"shopify.engineering", "https://shopify.engineering/x", "Shopify Engineering", "Shopify"},
		{"tech.meituan.com", "https://tech.meituan.com/2021/x.html", "", "美团"},
		{"medium.com", "https://medium.com/airbnb-engineering/x", "Medium", "Airbnb"},
		{"medium.com", "https://medium.com/some-user/x", "", ""},
		{"habr.com", "https://habr.com/ru/companies/yandex/articles/1/", "", "Яндекс"},
		{"cnsre.cn", "https://www.cnsre.cn/posts/1/", "SRE运维博客", ""}, // a blog's name is not an organisation
		{"example.org", "https://example.org/post", "Acme Corp", "Acme Corp"},
		{"notcloudflare.com", "https://notcloudflare.com/", "", ""},
	}
	for _, tt := range tests {
		if got := organization(tt.host, tt.url, tt.publisher); got != tt.want {
			t.Errorf("organization(%q, %q, %q) = %q, want %q", tt.host, tt.url, tt.publisher, got, tt.want)
		}
	}
}

func TestSniffFormat(t *testing.T) {
	tests := []struct{ name, ct, body, want string }{
		{"", "text/html; charset=utf-8", "", FormatHTML},
		{"x", "text/markdown", "", FormatMarkdown},
		{"README.md", "", "hello", FormatMarkdown},
		{"https://example.com/post.html?x=1", "", "", FormatHTML},
		{"notes.txt", "", "<html>", FormatText},
		{"", "", "  <!DOCTYPE html><html>", FormatHTML},
		{"", "", "---\ntitle: x\n---\n", FormatMarkdown},
		{"", "text/plain", "# not markdown when declared plain", FormatText},
		{"", "", "just words", FormatText},
	}
	for _, tt := range tests {
		if got := SniffFormat(tt.name, tt.ct, []byte(tt.body)); got != tt.want {
			t.Errorf("SniffFormat(%q, %q, %q) = %q, want %q", tt.name, tt.ct, tt.body, got, tt.want)
		}
	}
}

func TestNameClasses(t *testing.T) {
	tests := []struct {
		names                   string
		negative, never, strong bool
	}{
		{"comments-area", true, true, false},
		{"addcomments", true, true, false},
		{"post-content entry-content", false, false, true},
		{"articleBody", false, false, true},
		{"share-bar", true, false, false},
		{"more-stories", true, false, false},
		{"back-to-top", true, false, false},
		{"content-with-aside", true, false, false},
		{"main", false, false, false},
		{"single__nojs", true, false, false},
		{"noscript-warning", true, false, false},
		{"no-js", false, false, false}, // Modernizr's class on <html>: not boilerplate
	}
	for _, tt := range tests {
		c := classify(tt.names)
		if c.negative != tt.negative || c.never != tt.never || c.strong != tt.strong {
			t.Errorf("classify(%q) = %+v", tt.names, c)
		}
	}
}

func TestLangTag(t *testing.T) {
	tests := []struct{ in, want string }{
		{"en-US", "en-US"}, {"zh_CN", "zh-CN"}, {`["zh-CN","en","default"]`, "zh-CN"}, {"ru", "ru"}, {"", ""},
	}
	for _, tt := range tests {
		if got := langTag(tt.in); got != tt.want {
			t.Errorf("langTag(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestBylineLike(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"By Jane Doe - 2019-04-10", true},
		{"Last updated at 10:01 AM on 12th January 2012", true},
		{"21 октября 2021, 14:35", true},
		{"Posted by admin", true},
		{"2020年7月13日一大早收到告警，测试环境数据库CPU 100%", false},
		{"On 14 March 2024 the cache failed.", false},
		{"The cache failed", false},
	}
	for _, tt := range tests {
		b := &block{kind: Paragraph, text: tt.in, len: wlen(tt.in)}
		if got := bylineLike(b); got != tt.want {
			t.Errorf("bylineLike(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
