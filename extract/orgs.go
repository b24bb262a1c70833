package extract

import (
	"net"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// orgByHost names the organisation behind well-known engineering blogs and
// status pages, so a post on blog.cloudflare.com is Cloudflare's incident.
// Keys are host suffixes without "www.".
var orgByHost = map[string]string{
	"blog.cloudflare.com":           "Cloudflare",
	"cloudflarestatus.com":          "Cloudflare",
	"shopify.engineering":           "Shopify",
	"engineering.fb.com":            "Meta",
	"netflixtechblog.com":           "Netflix",
	"slack.engineering":             "Slack",
	"slackhq.com":                   "Slack",
	"github.blog":                   "GitHub",
	"githubstatus.com":              "GitHub",
	"dropbox.tech":                  "Dropbox",
	"dropbox.com":                   "Dropbox",
	"eng.uber.com":                  "Uber",
	"uber.com":                      "Uber",
	"engineering.atspotify.com":     "Spotify",
	"stripe.com":                    "Stripe",
	"discord.com":                   "Discord",
	"about.gitlab.com":              "GitLab",
	"gitlab.com":                    "GitLab",
	"aws.amazon.com":                "AWS",
	"status.aws.amazon.com":         "AWS",
	"cloud.google.com":              "Google Cloud",
	"status.cloud.google.com":       "Google Cloud",
	"azure.microsoft.com":           "Microsoft Azure",
	"azure.status.microsoft":        "Microsoft Azure",
	"engineering.linkedin.com":      "LinkedIn",
	"airbnb.io":                     "Airbnb",
	"atlassian.com":                 "Atlassian",
	"blog.twitter.com":              "Twitter",
	"heroku.com":                    "Heroku",
	"fly.io":                        "Fly.io",
	"blog.railway.com":              "Railway",
	"vercel.com":                    "Vercel",
	"supabase.com":                  "Supabase",
	"posthog.com":                   "PostHog",
	"sentry.io":                     "Sentry",
	"blog.sentry.io":                "Sentry",
	"circleci.com":                  "CircleCI",
	"travis-ci.com":                 "Travis CI",
	"blog.travis-ci.com":            "Travis CI",
	"honeycomb.io":                  "Honeycomb",
	"grafana.com":                   "Grafana Labs",
	"fastly.com":                    "Fastly",
	"engineering.zalando.com":       "Zalando",
	"medium.com/airbnb-engineering": "Airbnb",
	"medium.com/netflix-techblog":   "Netflix",
	"blog.discord.com":              "Discord",
	"incident.io":                   "incident.io",
	// open-source projects' own blogs and status pages
	"kubernetes.io":                  "Kubernetes",
	"go.dev":                         "Go",
	"blog.golang.org":                "Go",
	"python.org":                     "Python",
	"pypi.org":                       "PyPI",
	"nodejs.org":                     "Node.js",
	"npmjs.com":                      "npm",
	"mozilla.org":                    "Mozilla",
	"debian.org":                     "Debian",
	"ubuntu.com":                     "Canonical",
	"fedoraproject.org":              "Fedora",
	"apache.org":                     "Apache Software Foundation",
	"gnome.org":                      "GNOME",
	"kde.org":                        "KDE",
	"wikimedia.org":                  "Wikimedia",
	"wikimediafoundation.org":        "Wikimedia",
	"docker.com":                     "Docker",
	"hashicorp.com":                  "HashiCorp",
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

// codeHosts serve repositories at /owner/repo.
var codeHosts = map[string]bool{"github.com": true, "gitlab.com": true, "bitbucket.org": true, "codeberg.org": true,
	"gitee.com": true, "sr.ht": true, "git.sr.ht": true}

// genericRepos are repository names that hold an organisation's write-ups
// rather than name a product: the owner had the incidents.
var genericRepos = map[string]bool{"postmortem": true, "postmortems": true, "postmortemdocs": true, "incidents": true,
	"incident": true, "incidentreports": true, "rca": true, "rcas": true, "outages": true, "blog": true, "docs": true,
	"documentation": true, "status": true, "statuspage": true, "sre": true, "handbook": true, "runbooks": true,
	"reports": true, "wiki": true, "website": true, "site": true, "homepage": true, "engineering": true, "techblog": true}

// orgSuffixes are words organisation logins often end in, run together
// with the name ("cockroachlabs", "acmenetworks"): split off and capitalised.
var orgSuffixes = []string{"networks", "network", "labs", "systems", "software", "technologies", "technology",
	"solutions", "studios", "studio", "security", "digital", "cloud", "group", "foundation", "project", "games"}

// documentOrganization is who had the incident, for a document whose
// address may be a repository file: the host table, then what the document
// says about itself (front matter), then the repository.
func documentOrganization(pageURL, stated string) string {
	u, err := url.Parse(pageURL)
	if err != nil || u.Hostname() == "" {
		return strings.TrimSpace(stated)
	}
	host := strings.ToLower(strings.TrimPrefix(u.Hostname(), "www."))
	if org := organization(host, pageURL, stated); org != "" {
		return org
	}
	org, _ := repoOrganization(host, u.Path)
	return org
}

// repoOrganization names the organisation behind a repository file: the
// project when the repository is a product, its owner when the repository
// only holds write-ups or a website ("postmortems", "www.acme.net"). A
// personal site's repository ("someone.github.io") names nobody. product
// reports the answer is the repository's own name.
func repoOrganization(host, path string) (org string, product bool) {
	if !codeHosts[host] {
		return "", false
	}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return "", false
	}
	owner, repo := parts[0], parts[1]
	lr := strings.ToLower(repo)
	switch {
	// (a repository named as its owner, "flutter/flutter" or a profile's
	// "jdoe/jdoe", falls through to a product: refineOrganization keeps it
	// only when the post names it)
	case pagesRepo(lr):
		return "", false
	case domainRepo(lr): // a site's repository: "www.acme.net", "blog.acme.org"
		site := strings.SplitN(lr, "-", 2)[0] // "mybinder.org-deploy"
		if label := registrableLabel(site); label != "" && !strings.Contains(squash(owner), label) {
			// someone's repository for another name's site: the site's
			// ("jdoe/status.acme.io" is acme.io's)
			if i := strings.Index(site, label+"."); i >= 0 {
				return site[i:], false
			}
		}
		return humanLogin(orgLogin(owner)), false
	case genericRepos[strings.NewReplacer("-", "", "_", "", ".", "").Replace(lr)],
		siteRepo(lr):
		return humanLogin(orgLogin(owner)), false
	}
	return repo, true
}

// siteRepo reports a repository named as a site ("acme-website",
// "personal-blog", "blog"): a person's or an organisation's.
func siteRepo(lr string) bool {
	switch lr {
	case "blog", "website", "site", "homepage":
		return true
	}
	return strings.HasSuffix(lr, "-website") || strings.HasSuffix(lr, "-site") || strings.HasSuffix(lr, "-blog")
}

// domainRepo reports a repository named as a site's address ("www.acme.net",
// "status.sr.ht", "acme.org-deploy"), not a version ("acme-v1.0"): a dot
// followed by two to six letters, then the end, a dot or a hyphen.
func domainRepo(lr string) bool { return domainRepoRe.MatchString(lr) }

var domainRepoRe = regexp.MustCompile(`.\.[a-z]{2,6}(?:$|[.-])`)

// loginNoise are hyphenated parts of an organisation's login that say what
// the account is, not whose: "2i2c-org", "jenkins-infra", "acme-hq".
var loginNoise = map[string]bool{"org": true, "inc": true, "hq": true, "infra": true, "official": true, "oss": true,
	"opensource": true, "dev": true, "eng": true, "team": true, "community": true}

// orgLogin drops loginNoise parts from the end of a login: "2i2c-org" -> "2i2c".
func orgLogin(login string) string {
	for {
		i := strings.LastIndexAny(login, "-_")
		if i <= 0 || !loginNoise[strings.ToLower(login[i+1:])] {
			return login
		}
		login = login[:i]
	}
}

// humanLogin turns an owner login into a name: "Chia-Network" -> "Chia
// Network", "acmenetworks" -> "Acme Networks"; a login it cannot split
// stays as written.
func humanLogin(login string) string {
	s := strings.NewReplacer("-", " ", "_", " ").Replace(login)
	if strings.Contains(s, " ") || strings.ToLower(s) != s {
		return s
	}
	for _, suf := range orgSuffixes {
		if len(s) >= len(suf)+3 && strings.HasSuffix(s, suf) {
			head := s[:len(s)-len(suf)]
			return strings.ToUpper(head[:1]) + head[1:] + " " + strings.ToUpper(suf[:1]) + suf[1:]
		}
	}
	return s
}

// siteWords are the words around an organisation's name in a site name
// ("The Acme Blog", "Acme Engineering", "Acme Status", "Acme 技术博客").
var siteWords = regexp.MustCompile(`(?i)^the\s+|\s*\b(?:engineering|tech(?:nology)?|developers?|dev|blog|weblog|news|official|status(?: page)?|system status|incidents?)\b\.?\s*|\s*(?:技术博客|技术团队|官方博客|博客|инженерный блог|блог)\s*`)

// siteOrganization reads the organisation from a site's own name (the
// og:site_name, a title suffix, a copyright line) when what remains of it
// is the site's domain name, so a person's or a blog's name never counts:
// "The Acme Blog" on blog.acme.io is Acme, "Shining Moon" on moon.example is nobody.
func siteOrganization(name, host string) string {
	name = strings.TrimSpace(siteWords.ReplaceAllString(cleanText(name), " "))
	if name == "" || wlen(name) > 40 {
		return ""
	}
	label := registrableLabel(host)
	if len(label) < 3 {
		return ""
	}
	squash := strings.NewReplacer(" ", "", "-", "", ".", "", "'", "", "’", "").Replace(strings.ToLower(name))
	if squash == label {
		return name
	}
	return ""
}

// namelessHost is an address that names nobody: an IP address, localhost,
// a name with no dot or a reserved test domain.
func namelessHost(host string) bool {
	host = strings.Trim(strings.ToLower(host), "[]")
	if host == "" || net.ParseIP(host) != nil || !strings.Contains(host, ".") {
		return true
	}
	for _, tld := range []string{".localhost", ".local", ".test", ".example", ".invalid", ".internal", ".lan"} {
		if strings.HasSuffix(host, tld) {
			return true
		}
	}
	return false
}

// siteEngines are site generators and blog hosts whose name a theme writes
// into og:site_name or the title when the author set none.
var siteEngines = map[string]bool{"hugo": true, "jekyll": true, "hexo": true, "gatsby": true, "docusaurus": true,
	"mkdocs": true, "zola": true, "eleventy": true, "11ty": true, "vuepress": true, "vitepress": true, "pelican": true,
	"octopress": true, "astro": true, "nextjs": true, "next.js": true, "nuxt": true, "hashnode": true, "ghost": true,
	"wordpress": true, "medium": true, "substack": true, "blogger": true, "github": true, "githubpages": true,
	"gitlab": true, "notion": true, "netlify": true, "vercel": true, "readthedocs": true, "sphinx": true,
	"localhost": true, "mysite": true, "mysitename": true, "sitename": true, "website": true, "home": true}

// SiteEngine reports a site generator's or blog host's name ("Hugo",
// "Medium"): what a theme credits, never who runs the site.
func SiteEngine(name string) bool { return siteEngines[squash(name)] }

// statedSiteName is a site's own name taken as it stands, where no domain
// can vouch for it: short, capitalised, not a blog's, a person's blog's or
// a site engine's name.
func statedSiteName(name string) string {
	raw := cleanText(name)
	if raw == "" || blogNameRe.MatchString(raw) {
		return ""
	}
	name = strings.TrimSpace(siteWords.ReplaceAllString(raw, " "))
	if name == "" || wlen(name) > 30 || len(strings.Fields(name)) > 3 || siteEngines[squash(name)] {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(name)
	if !unicode.IsUpper(r) && !unicode.Is(unicode.Han, r) {
		return ""
	}
	return name
}

// statusHosts serve other companies' status pages at NAME.host: the
// page's owner is NAME ("acme.statuspage.io" is Acme's).
var statusHosts = []string{"statuspage.io", "instatus.com", "betteruptime.com", "betterstack.com", "statuspal.io",
	"freshstatus.io", "status.io", "hund.io", "sorryapp.com", "uptimerobot.com", "cachethq.io", "atlassian.net"}

// hostedStatusPage turns a hosted status page's address into one whose
// name part is its owner's: "acme.statuspage.io" -> "acme.io".
func hostedStatusPage(host string) string {
	for _, h := range statusHosts {
		if sub, ok := strings.CutSuffix(strings.ToLower(host), "."+h); ok && sub != "" {
			parts := strings.Split(sub, ".")
			return parts[len(parts)-1] + ".io"
		}
	}
	return host
}

// registrableLabel is the name part of a host: "blog.acme.co.uk" -> "acme".
func registrableLabel(host string) string {
	host = hostedStatusPage(host)
	labels := strings.Split(strings.ToLower(host), ".")
	if len(labels) < 2 {
		return ""
	}
	i := len(labels) - 2
	if i > 0 && len(labels[i]) <= 3 && (labels[i] == "co" || labels[i] == "com" || labels[i] == "org" || labels[i] == "net" || labels[i] == "ac") {
		i--
	}
	return strings.ReplaceAll(labels[i], "-", "")
}

// blogPlatforms host other people's blogs and repositories: their name is
// never who had the incident, so the domain rule below skips them.
var blogPlatforms = map[string]bool{"github": true, "gitlab": true, "bitbucket": true, "codeberg": true, "gitee": true,
	"medium": true, "substack": true, "wordpress": true, "blogspot": true, "blogger": true, "hashnode": true,
	"dev": true, "habr": true, "vc": true, "livejournal": true, "dzen": true, "juejin": true, "csdn": true,
	"cnblogs": true, "zhihu": true, "jianshu": true, "segmentfault": true, "oschina": true, "51cto": true,
	"tumblr": true, "ghost": true, "notion": true, "netlify": true, "vercel": true, "pages": true, "sr": true}

// genericLabelParts are the parts of a hyphenated domain name that do not
// name the organisation: "acme-hq.com" is Acme's when the text says "Acme".
// ("lang" is not one: "rust-lang.org" -> Rust helped only the source it was
// checked on, see classify/README.)
var genericLabelParts = map[string]bool{"hq": true, "app": true, "inc": true, "labs": true,
	"team": true, "project": true, "official": true, "eng": true, "dev": true, "io": true, "tech": true, "blog": true,
	"org": true, "group": true, "status": true, "engineering": true, "cloud": true}

// refineOrganization names the organisation from the page itself where
// the address and the metadata left it open, or left only a repository's
// name: the domain's name as the text spells it ("letsencrypt.org" and a
// text about "Let's Encrypt": Let's Encrypt), and a repository's owner when the text names
// that owner in full ("acmecorp" and a text about "Acme Corp": Acme Corp).
func refineOrganization(d *Document) {
	u, err := url.Parse(d.URL)
	if err != nil || u.Hostname() == "" {
		return
	}
	host := strings.ToLower(strings.TrimPrefix(u.Hostname(), "www."))
	text := d.Title + "\n" + d.Text
	if len(text) > orgScan {
		text = text[:orgScan]
	}
	if codeHosts[host] {
		parts := strings.Split(strings.Trim(u.Path, "/"), "/")
		if len(parts) < 2 {
			return
		}
		owner, repo := parts[0], parts[1]
		if d.Organization == "" && pagesRepo(repo) {
			// "acme.github.io" is a person's site or an organisation's: the
			// owner's when the post names it, and it is not the author.
			if name := textNameFor(text, squash(owner)); name != "" && squash(name) != squash(d.Author) {
				d.Organization = name
			}
			return
		}
		org, product := repoOrganization(host, u.Path)
		if siteRepo(strings.ToLower(repo)) && org != "" && org == d.Organization {
			// the owner of a site's repository: who had the incident when
			// the post names the owner and the owner is not the author; a
			// person's login ("jdoe93") the post never writes names nobody
			switch name := textNameFor(text, squash(org)); {
			case squash(org) == squash(d.Author):
				d.Organization = ""
			case name != "":
				d.Organization = name
			case wordCount(strings.ToLower(text), strings.ToLower(org), 1) == 0:
				d.Organization = ""
			}
			return
		}
		if !product && org == d.Organization && org == owner && handleLogin(owner) &&
			wordCount(strings.ToLower(text), strings.ToLower(owner), 1) == 0 {
			// a person's handle ("yinyu985/docs") the post never writes
			// names nobody, whatever the repository holds
			d.Organization = ""
			return
		}
		if !product && strings.Contains(org, ".") && org == d.Organization &&
			wordCount(strings.ToLower(text), registrableLabel(org), 1) == 0 {
			// another's site ("jdoe/status.acme.io" is acme.io's) when the
			// post names it; a personal domain it never writes names nobody
			d.Organization = ""
			return
		}
		if !product || org != d.Organization {
			return // not the repository's name: a stated name stands
		}
		if name := textNameFor(text, squash(owner)); name != "" {
			d.Organization = name
		} else if wordCount(strings.ToLower(text), strings.ToLower(repo), 2) < 2 && (strings.EqualFold(owner, repo) || !ownerNamesRepo(owner, repo)) {
			// A product names itself in its own write-up, or its owner's
			// login does ("acme-labs/acme"); a repository name the post
			// never uses ("notes", "family-site") is a folder, not who had
			// the incident.
			d.Organization = ""
		}
		return
	}
	if d.Organization != "" {
		return
	}
	label := hyphenLabel(host)
	if label == "" || blogPlatforms[strings.ReplaceAll(label, "-", "")] {
		return
	}
	for _, cand := range labelCandidates(label) {
		if name := textNameFor(text, cand); name != "" {
			d.Organization = name
			return
		}
	}
}

// handleLogin reports a login made as a person's handle: letters, then two
// digits or more ("yinyu985", "jdoe93"); organisations' logins are names.
func handleLogin(login string) bool { return handleLoginRe.MatchString(login) }

var handleLoginRe = regexp.MustCompile(`^[A-Za-z]+[0-9]{2,}$`)

// pagesRepo reports a repository that serves its owner's site ("acme.github.io",
// "acme.github.com" as GitHub named them before 2013, Gitee's "acme.gitee.io").
func pagesRepo(repo string) bool {
	lr := strings.ToLower(repo)
	return strings.HasSuffix(lr, ".github.io") || strings.HasSuffix(lr, ".github.com") || strings.HasSuffix(lr, ".gitlab.io") ||
		strings.HasSuffix(lr, ".codeberg.page") || strings.HasSuffix(lr, ".gitee.io")
}

// ownerNamesRepo reports an owner login with the repository's name as one
// of its hyphenated parts ("ethereum-optimism" and "optimism").
func ownerNamesRepo(owner, repo string) bool {
	r := strings.ToLower(repo)
	for _, p := range strings.FieldsFunc(strings.ToLower(owner), func(c rune) bool { return c == '-' || c == '_' }) {
		if p == r {
			return true
		}
	}
	return false
}

// wordCount counts word occurrences of w in text up to limit: w not run
// into a letter or digit on either side ("erni-ki" in "ERNI-KI's", not in
// "ernikit").
func wordCount(text, w string, limit int) int {
	n := 0
	for i := 0; n < limit && w != ""; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			break
		}
		at, end := i+j, i+j+len(w)
		before, _ := utf8.DecodeLastRuneInString(text[:at])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if !isWordRune(before) && !isWordRune(after) {
			n++
			i = end
			continue
		}
		i = at + 1
	}
	return n
}

// isWordRune: a letter or digit a name cannot run into. Chinese writes
// Latin names against its characters ("新版lanternd把"), so Han and the
// scripts after it do not count.
func isWordRune(r rune) bool {
	return r != utf8.RuneError && r < 0x2E80 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// orgScan is how much of a document the name rules read.
const orgScan = 16000

// squash lower-cases a name and drops what domains and logins leave out.
func squash(s string) string {
	return strings.NewReplacer(" ", "", "-", "", ".", "", "'", "", "’", "", "_", "", "&", "").Replace(strings.ToLower(s))
}

// hyphenLabel is the name part of a host with its hyphens: "blog.rust-lang.org" -> "rust-lang".
func hyphenLabel(host string) string {
	host = hostedStatusPage(host)
	labels := strings.Split(strings.ToLower(host), ".")
	if len(labels) < 2 {
		return ""
	}
	i := len(labels) - 2
	if i > 0 && (labels[i] == "co" || labels[i] == "com" || labels[i] == "org" || labels[i] == "net" || labels[i] == "ac") {
		i--
	}
	return labels[i]
}

// labelCandidates are the squashed names a domain label may stand for:
// the whole label, and its leading parts when the rest are generic words.
func labelCandidates(label string) []string {
	out := []string{squash(label)}
	parts := strings.Split(label, "-")
	for n := len(parts) - 1; n >= 1; n-- {
		generic := true
		for _, p := range parts[n:] {
			generic = generic && genericLabelParts[p]
		}
		if generic {
			out = append(out, strings.Join(parts[:n], ""))
		}
	}
	var keep []string
	for _, c := range out {
		if len(c) >= 3 {
			keep = append(keep, c)
		}
	}
	return keep
}

// nameRe is a capitalised name of up to three words ("Rust", "US Digital
// Response", "Acme Networks", "crates.io" is not one: it starts lower-case).
var nameRe = regexp.MustCompile(`\b[A-Z][\w.&'-]*[\w&](?:[ -][A-Z][\w.&'-]*[\w&]){0,2}`)

// textNameFor returns the text's most frequent spelling of a capitalised
// name (or a sub-phrase of one) that squashes to want, when the text
// writes it at least twice: a name the post uses, not one it cites once.
func textNameFor(text, want string) string {
	if want == "" {
		return ""
	}
	counts := map[string]int{}
	for _, m := range nameRe.FindAllString(text, -1) {
		words := strings.FieldsFunc(m, func(r rune) bool { return r == ' ' })
		for i := range words {
			for j := i + 1; j <= len(words); j++ {
				phrase := strings.Join(words[i:j], " ")
				if r := phrase[0]; r < 'A' || r > 'Z' {
					continue
				}
				// "Acme's" is Acme: the possessive is not the name
				name := strings.TrimSuffix(strings.TrimRight(phrase, "."), "'s")
				if squash(name) == want {
					counts[name]++
				}
			}
		}
	}
	best, n, total := "", 0, 0
	for name, c := range counts {
		total += c
		if c > n || c == n && name < best {
			best, n = name, c
		}
	}
	if total < 2 {
		return ""
	}
	return best
}
