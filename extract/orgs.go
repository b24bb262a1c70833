package extract

import (
	"net/url"
	"regexp"
	"strings"
)

// orgByHost names the organisation behind well-known engineering blogs and
// status pages, so a post on blog.cloudflare.com is Cloudflare's incident.
// Keys are host suffixes without "www.".
var orgByHost = map[string]string{
	"blog.cloudflare.com":            "Cloudflare",
	"cloudflarestatus.com":           "Cloudflare",
	"shopify.engineering":            "Shopify",
	"engineering.fb.com":             "Meta",
	"netflixtechblog.com":            "Netflix",
	"slack.engineering":              "Slack",
	"slackhq.com":                    "Slack",
	"github.blog":                    "GitHub",
	"githubstatus.com":               "GitHub",
	"dropbox.tech":                   "Dropbox",
	"dropbox.com":                    "Dropbox",
	"eng.uber.com":                   "Uber",
	"uber.com":                       "Uber",
	"engineering.atspotify.com":      "Spotify",
	"stripe.com":                     "Stripe",
	"discord.com":                    "Discord",
	"about.gitlab.com":               "GitLab",
	"gitlab.com":                     "GitLab",
	"aws.amazon.com":                 "AWS",
	"status.aws.amazon.com":          "AWS",
	"cloud.google.com":               "Google Cloud",
	"status.cloud.google.com":        "Google Cloud",
	"azure.microsoft.com":            "Microsoft Azure",
	"azure.status.microsoft":         "Microsoft Azure",
	"engineering.linkedin.com":       "LinkedIn",
	"airbnb.io":                      "Airbnb",
	"atlassian.com":                  "Atlassian",
	"blog.twitter.com":               "Twitter",
	"heroku.com":                     "Heroku",
	"fly.io":                         "Fly.io",
	"blog.railway.com":               "Railway",
	"vercel.com":                     "Vercel",
	"supabase.com":                   "Supabase",
	"posthog.com":                    "PostHog",
	"sentry.io":                      "Sentry",
	"blog.sentry.io":                 "Sentry",
	"circleci.com":                   "CircleCI",
	"travis-ci.com":                  "Travis CI",
	"blog.travis-ci.com":             "Travis CI",
	"honeycomb.io":                   "Honeycomb",
	"grafana.com":                    "Grafana Labs",
	"fastly.com":                     "Fastly",
	"engineering.zalando.com":        "Zalando",
	"medium.com/airbnb-engineering":  "Airbnb",
	"medium.com/netflix-techblog":    "Netflix",
	"blog.discord.com":               "Discord",
	"incident.io":                    "incident.io",
	"tech.meituan.com":               "美团",
	"tech.youzan.com":                "有赞",
	"developer.aliyun.com":           "阿里云",
	"help.aliyun.com":                "阿里云",
	"cloud.tencent.com":              "腾讯云",
	"tech.kuaishou.com":              "快手",
	"juejin.cn":                      "",
	"yandex.ru":                      "Яндекс",
	"habr.com/ru/companies/yandex":   "Яндекс",
	"habr.com/ru/company/yandex":     "Яндекс",
	"habr.com/ru/companies/ozontech": "Ozon",
	"habr.com/ru/companies/avito":    "Авито",
	"habr.com/ru/companies/vk":       "VK",
	"habr.com/ru/companies/selectel": "Selectel",
	"habr.com/ru/companies/tinkoff":  "Т-Банк",
	"habr.com/ru/companies/sberbank": "Сбер",
}

// blogNameRe marks publisher names that name a blog, not who had the incident.
var blogNameRe = regexp.MustCompile(`(?i)blog|博客|блог|weblog|журнал|日志|笔记|notes`)

// organization is who had the incident: the host table first (a URL path
// prefix such as medium.com/airbnb-engineering counts), then an
// organisation publisher that is not just a blog's name.
func organization(host, pageURL, publisher string) string {
	path := ""
	if u, err := url.Parse(pageURL); err == nil {
		path = strings.ToLower(strings.TrimSuffix(u.EscapedPath(), "/"))
	}
	best, bestLen := "", 0
	found := false
	for k, v := range orgByHost {
		h, p, _ := strings.Cut(k, "/")
		if host != h && !strings.HasSuffix(host, "."+h) {
			continue
		}
		if p != "" && !strings.HasPrefix(path+"/", "/"+p+"/") {
			continue
		}
		if len(k) > bestLen {
			best, bestLen, found = v, len(k), true
		}
	}
	if found {
		return best
	}
	if publisher != "" && !blogNameRe.MatchString(publisher) && wlen(publisher) <= 60 {
		return publisher
	}
	return ""
}
