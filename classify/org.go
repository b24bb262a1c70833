package classify

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/extract"
)

// The organisation the text names as its own, when the page's metadata and
// address name none: "at Acme, we …", "we at Acme", "в компании X мы",
// "在X公司，我们". A Russian title that names a company in guillemets
// ("Как упал «Ромашка»") counts when the body names it again.
var (
	orgCapName = `([A-Z][\w&.-]*[\w&](?: [A-Z][\w&.-]*[\w&]){0,2})`
	orgTextRes = []*regexp.Regexp{
		regexp.MustCompile(`\b(?:[Hh]ere at|[Aa]t) ` + orgCapName + `,? (?:we|our)\b`),
		// "At Acme, reliability is our first concern": the clause after the comma says who "we" are
		regexp.MustCompile(`(?:^|[.!?]\s+|\n)(?:Here at|At) ` + orgCapName + `, [^.!?\n]{0,80}?\b(?:we|our|us)\b`),
		regexp.MustCompile(`\b[Ww]e at ` + orgCapName + `\b`),
		regexp.MustCompile(`(?:[Вв] компании|[Кк]омпания|[Мм]ы в компании) «?([A-ZА-ЯЁ][\wА-Яа-яЁё&-]*(?: [A-ZА-ЯЁ][\wА-Яа-яЁё&-]*){0,2})»?`),
		regexp.MustCompile(`在(\p{Han}{2,6}?)(?:公司|集团)[，,]?我们`),
		// "мы в Acme", "у нас в Acme": Latin names only, a Cyrillic one after
		// "в" is a place as often as a company ("мы в Москве")
		regexp.MustCompile(`(?:[Мм]ы в|[Уу] нас в) «?([A-Z][\w&.-]*[\w&](?: [A-Z][\w&.-]*[\w&]){0,2})»?`),
		// "在Acme，我们", "我们在Acme公司", "我们Acme团队"
		regexp.MustCompile(`在 ?([A-Z][\w&.-]*[\w&](?: [A-Z][\w&.-]*[\w&]){0,2}) ?(?:公司|集团)?[，,] ?我们`),
		regexp.MustCompile(`我们(?:在|是)? ?([A-Z][\w&.-]*[\w&](?: [A-Z][\w&.-]*[\w&]){0,2}|\p{Han}{2,6}?) ?(?:公司|集团|团队)`),
	}
	// orgTextAnchors are the words one of which each pattern of orgTextRes
	// needs, checked first.
	orgTextAnchors = [][]string{{" we", " our"}, {"At "}, {"e at "}, {"омпани"}, {"公司"}, {"ы в ", "нас в "}, {"我们"}, {"我们"}}
	// orgTextTwice marks the patterns whose name must recur in the text:
	// "мы в Slack" and "我们在GitHub" name a tool as often as a company.
	orgTextTwice = []bool{false, false, false, false, false, true, false, true}
	// orgTextLines are, per pattern, groups of words a match holds one of
	// each of. No pattern matches across a line break, so the pattern
	// runs on the lines that hold them only (it read the whole text from
	// every byte: 7% of the 50 KB benchmark's profile).
	orgTextLines = [][][]string{{{"at ", "At "}, {" we", " our"}}, {{"At ", "Here at "}, {"we", "our", "us"}}, {{"e at "}},
		{{"омпани"}}, {{"公司", "集团"}, {"我们"}}, {{"ы в ", "нас в "}}, {{"在"}, {"我们"}}, {{"我们"}}}
	ruQuotedName = regexp.MustCompile(`«([A-ZА-ЯЁ][\wА-Яа-яЁё&-]*(?: [A-ZА-ЯЁ][\wА-Яа-яЁё&-]*){0,2})»`)
)

// orgTextMatches is the first five matches of pattern i in text.
func orgTextMatches(i int, text string) [][]string {
	var out [][]string
	for _, loc := range eventMatches(orgTextRes[i], orgTextLines[i], text, 5) {
		m := make([]string, len(loc)/2)
		for j := range m {
			if loc[2*j] >= 0 {
				m[j] = text[loc[2*j]:loc[2*j+1]]
			}
		}
		out = append(out, m)
	}
	return out
}

// orgTextScan is how much of the text is read for an organisation naming
// itself: a post says who "we" are near its start.
const orgTextScan = 8000

// orgTailScan is how much of a long text's end is read too.
const orgTailScan = 2000

// textTail is the last n bytes of text or a little less, cut at a rune's start.
func textTail(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := len(text) - n
	for cut < len(text) && !utf8.RuneStart(text[cut]) {
		cut++
	}
	return text[cut:]
}

// notOrgWords are capitalised words the patterns catch that name no
// organisation ("At first, we", "At the time we", "At 10:00 we").
var notOrgWords = map[string]bool{"First": true, "The": true, "That": true, "This": true, "Some": true, "Least": true,
	"Last": true, "Once": true, "Work": true, "Home": true, "Night": true, "Scale": true, "All": true, "Times": true,
	"Present": true, "Peak": true, "One": true, "Our": true, "Its": true, "Any": true, "Each": true, "Most": true,
	"Monday": true, "Tuesday": true, "Wednesday": true, "Thursday": true, "Friday": true, "Saturday": true,
	"Sunday": true, "January": true, "February": true, "March": true, "April": true, "May": true, "June": true,
	"July": true, "August": true, "September": true, "October": true, "November": true, "December": true,
	"Jan": true, "Feb": true, "Mar": true, "Apr": true, "Jun": true, "Jul": true, "Aug": true, "Sep": true,
	"Sept": true, "Oct": true, "Nov": true, "Dec": true, "Today": true, "Yesterday": true, "Tonight": true,
	"A": true, "An": true, "These": true, "Those": true, "We": true, "I": true, "It": true, "In": true, "On": true,
	"Recent": true, "Recently": true, "Major": true, "Partial": true, "Brief": true, "Full": true, "Initial": true,
	"Final": true, "Incident": true, "Postmortem": true, "Post-mortem": true, "Outage": true, "Summary": true,
	"Production": true, "Staging": true, "Global": true, "Regional": true, "US": true, "EU": true, "UTC": true,
	"Hugo": true, "Jekyll": true, "Hexo": true, "Medium": true, "WordPress": true, "Ghost": true, "Substack": true}

// zhNotOrg opens Han text that is no company's name: "上家公司", "这家公司".
const zhNotOrg = "上前这那某一我本该大小其别每另"

// textOrganization returns the organisation the text names as its own, or "".
func textOrganization(title, text string) string {
	if len(text) > orgTextScan {
		// the start, where a post says who "we" are, and the end, where it
		// signs off ("— The Acme Team") or carries a copyright line
		end := orgTextScan
		for end > 0 && !utf8.RuneStart(text[end]) {
			end--
		}
		text = text[:end] + "\n" + textTail(text, orgTailScan)
	}
	for i := range orgTextRes {
		if !slices.ContainsFunc(orgTextAnchors[i], func(a string) bool { return strings.Contains(text, a) }) {
			continue // the pattern's fixed word is absent: skip the costly scan
		}
		for _, m := range orgTextMatches(i, text) {
			name := strings.TrimRight(m[1], ".-")
			if !orgName(name) || zhTeamPart(name) || teamWords[strings.Fields(name)[0]] || orgTextTwice[i] && strings.Count(text, name) < 2 {
				continue
			}
			return name
		}
	}
	if name := titleOrganization(title, text); name != "" {
		return name
	}
	for _, m := range ruQuotedName.FindAllStringSubmatch(title, 3) {
		name := m[1]
		// named again in the body, in any case form: the stem without its last two letters
		if orgName(name) && utf8.RuneCountInString(name) >= 4 && strings.Count(text, ruStem(name)) >= 2 {
			return name
		}
	}
	if name := teamOrganization(text); name != "" {
		return name
	}
	if name := eventOrganization(text); name != "" {
		return name
	}
	if name := statusHostOrganization(text); name != "" {
		return name
	}
	if name := signOffOrganization(text); name != "" {
		return name
	}
	if name := copyrightOrganization(text); name != "" {
		return name
	}
	return familyOrganization(title, text)
}

// A provider's status-page report names its products, not itself: "Post
// Incident Review (PIR) – Cobalt Portal" with "the Cobalt Portal and
// Cobalt CLI", "Mini Incident Report: Kestrel Kubernetes Engine" with "the
// Kestrel control plane". A capitalised word of such a title that the text
// writes before two different words, one capitalised, and never in lower
// case, names the family.
var statusReportTitle = regexp.MustCompile(`(?i)\b(?:post[- ]incident review|pir|incident report|root cause analysis|rca|incident summary|service (?:event|disruption))\b`)

// reportTitleWords are the words of report titles that are no name.
var reportTitleWords = map[string]bool{"Post": true, "Review": true, "Report": true, "Mini": true, "Root": true, "Cause": true,
	"Analysis": true, "Service": true, "Event": true, "Preliminary": true, "Update": true, "Issue": true, "Region": true}

// familyOrganization returns the product family a status-page report's
// title names, or "".
func familyOrganization(title, text string) string {
	if !statusReportTitle.MatchString(title) {
		return ""
	}
	for _, w := range strings.FieldsFunc(title, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' }) {
		if r, _ := utf8.DecodeRuneInString(w); !unicode.IsUpper(r) || strings.ToUpper(w) == w || len(w) < 3 ||
			!orgName(w) || teamWords[w] || reportTitleWords[w] || wholeWordIn(text, strings.ToLower(w)) {
			continue // not a name, an acronym, or a word of the language ("Partial")
		}
		next, capital := map[string]bool{}, false
		for from := 0; ; {
			i := strings.Index(text[from:], w+" ")
			if i < 0 {
				break
			}
			i += from
			from = i + len(w) + 1
			if prev, _ := utf8.DecodeLastRuneInString(text[:i]); i > 0 && isWordRune(prev) {
				continue
			}
			rest := text[from:]
			end := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })
			if end < 0 {
				end = len(rest)
			}
			if end > 0 {
				next[rest[:end]] = true
				r, _ := utf8.DecodeRuneInString(rest)
				capital = capital || unicode.IsUpper(r)
			}
		}
		if len(next) >= 2 && capital {
			return w
		}
	}
	return ""
}

// wholeWordIn reports whether w occurs in s as a whole word.
func wholeWordIn(s, w string) bool { return countWhole(s, w) > 0 }

// A post that tells of keeping its own status page names the company's
// host: "we posted updates on status.acme.com", "our status page
// (status.acme.com)". The name counts as the text spells it ("Acme"); a
// host the text never spells as a name names nobody.
var statusHostRe = regexp.MustCompile(`(?:\b[Ww]e (?:posted|updated|published|shared|communicated|provided|opened|declared)|\b[Oo]ur status page)[^.!?\n]{0,80}?\bstatus\.([a-z0-9-]{3,})\.[a-z]{2,}\b|(?:\b[Ww]e (?:posted|updated|published|shared|communicated|provided|opened|declared)|\b[Oo]ur status page)[^.!?\n]{0,80}?\b([a-z0-9-]{3,})status\.(?:com|io|net|org)\b`)

// statusHostOrganization returns the owner of the status page the text
// says "we" keep, as the text spells the name, or "".
func statusHostOrganization(text string) string {
	if !strings.Contains(text, "status") {
		return ""
	}
	for _, m := range statusHostRe.FindAllStringSubmatch(text, 4) {
		label := m[1] + m[2]
		want := strings.ReplaceAll(label, "-", "")
		for _, found := range orgCapWordRe.FindAllString(text, -1) {
			words := strings.Fields(found)
			for n := 1; n <= len(words); n++ { // "Widgetly API" holds "Widgetly"
				w := strings.Join(words[:n], " ")
				if !strings.EqualFold(strings.NewReplacer(" ", "", "-", "", ".", "").Replace(w), want) || !orgName(w) {
					continue
				}
				if _, tech := casebook.NormalizeTag(w); !tech {
					return w
				}
			}
		}
	}
	return ""
}

// orgCapWordRe is a capitalised name of one to three words.
var orgCapWordRe = regexp.MustCompile(orgCapName)

// A post signed by its company's team on a line of its own at the end:
// "— The Acme Team", "The Acme Engineering Team", "Команда Acme", "Acme团队".
var signOffRes = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^[-—–~*_ ]*(?:[Tt]he )?` + orgCapName + `(?: [Ee]ngineering| [Ii]nfrastructure| SRE| [Rr]eliability)? [Tt]eam[.!*_ ]*$`),
	regexp.MustCompile(`(?m)^[-—–~*_ ]*(?:[Кк]оманда) «?([A-Z][\w&.-]*[\w&](?: [A-Z][\w&.-]*[\w&]){0,2})»?[.!*_ ]*$`),
	regexp.MustCompile(`(?m)^[-—–~*_ ]*([A-Z][\w&.-]*[\w&](?: [A-Z][\w&.-]*[\w&]){0,2}) ?(?:技术)?团队[。！*_ ]*$`),
}

// signOffOrganization returns the company a sign-off line in the last
// part of the text names, or "".
func signOffOrganization(text string) string {
	text = textTail(text, orgTailScan)
	for _, re := range signOffRes {
		for _, m := range re.FindAllStringSubmatch(text, 3) {
			words := strings.Fields(strings.TrimRight(m[1], ".-"))
			for len(words) > 1 && teamWords[words[len(words)-1]] { // "Acme Engineering Team"
				words = words[:len(words)-1]
			}
			name, first := strings.Join(words, " "), words[0]
			if teamWords[first] || !orgName(name) {
				continue
			}
			if _, tech := casebook.NormalizeTag(first); tech {
				continue
			}
			return name
		}
	}
	return ""
}

// orgName rejects what the patterns catch but is no organisation: common
// capitalised words, technology names, a Han name starting like a pronoun.
func orgName(name string) bool {
	if name == "" || notOrgWords[strings.Fields(name)[0]] {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(name); unicode.Is(unicode.Han, r) && strings.ContainsRune(zhNotOrg, r) {
		return false
	}
	if _, tech := casebook.NormalizeTag(name); tech {
		return false
	}
	return true
}

// ruStem cuts a Russian name to the part its case forms share
// ("Аэрофлот" -> "Аэрофл", matching "Аэрофлота", "Аэрофлоту").
func ruStem(name string) string {
	rs := []rune(name)
	if len(rs) > 5 {
		rs = rs[:len(rs)-2]
	}
	return string(rs)
}

// A name with the people or the customers it has: "the Acme team", "Acme's
// engineers", "Acme customers", "команда Acme", "клиенты Acme", "Acme 团队".
// Latin names only in Russian text, where a Cyrillic name after these words
// stands in the genitive ("клиенты Лесторга"), and in Chinese, where a run
// of Han characters has no edge to tell a name from the words before it.
var teamRes = []*regexp.Regexp{
	regexp.MustCompile(`\b(?:[Tt]he|[Aa]t|[Ff]or|[Oo]f|[Tt]o|[Bb]y|[Ff]rom) (?:all |our |affected |many |some |most )?` + orgCapName +
		` (?:team|teams|engineers|engineering|on-call|customers|users|employees|staff)\b`),
	regexp.MustCompile(orgCapName + `['’]s (?:team|teams|engineers|engineering|on-call|customers|users|employees|staff|infrastructure|platform)\b`),
	regexp.MustCompile(`(?:[Кк]оманд(?:а|ы|е|у|ой)|[Ии]нженер(?:ы|ов|ам|ами)|[Кк]лиент(?:ы|ов|ам|ами)|[Сс]отрудник(?:и|ов|ам|ами)|[Пп]ользовател(?:и|ей|ям|ями)) «?([A-Z][\w&.-]*[\w&](?: [A-Z][\w&.-]*[\w&]){0,2})»?`),
	regexp.MustCompile(`([A-Z][\w&.-]*[\w&](?: [A-Z][\w&.-]*[\w&]){0,2}) ?(?:团队|技术团队|工程师|的用户|的客户)`),
}

// teamWords name a part or kind of an organisation, not one: "the
// Infrastructure team", "the SRE team", "Internet users".
var teamWords = map[string]bool{"Infrastructure": true, "Infra": true, "Platform": true, "Security": true, "Core": true,
	"Data": true, "Ops": true, "DevOps": true, "SRE": true, "Support": true, "Engineering": true, "Product": true,
	"Release": true, "Web": true, "Mobile": true, "Backend": true, "Frontend": true, "Database": true, "Network": true,
	"Networking": true, "Billing": true, "Payments": true, "Compiler": true, "Operations": true, "Internet": true,
	"Customer": true, "Cross": true, "Every": true, "No": true, "Supporting": true, "Your": true, "Their": true,
	"My": true, "Affected": true, "Impacted": true, "Other": true, "Several": true, "New": true, "Existing": true,
	"Few": true, "End": true, "Enterprise": true, "Free": true, "Paid": true, "Premium": true, "API": true, "QA": true,
	"IT": true, "On-call": true, "Incident": true, "Response": true, "Service": true, "Services": true, "Storage": true,
	"Dev": true, "Test": true, "Team": true, "Executive": true, "Leadership": true, "Management": true, "Legal": true}

// teamOrganization returns a name the text gives people or customers to
// and names at least twice, that is neither a technology nor a part of an
// organisation, or "".
func teamOrganization(text string) string {
	for i, re := range teamRes {
		for _, m := range teamMatches(re, teamAnchors[i], text) {
			name := strings.TrimRight(m[1], ".-")
			first := strings.Fields(name)[0]
			if teamWords[first] || !orgName(name) || strings.Count(text, name) < 2 {
				continue
			}
			if _, tech := casebook.NormalizeTag(first); tech {
				continue
			}
			return name
		}
	}
	return ""
}

// teamAnchors are the words around which each pattern of teamRes is tried,
// on a window of teamWindow bytes before the word (a regexp over the whole
// text costs milliseconds).
var teamAnchors = [][]string{
	{" team", " engineer", " on-call", " customer", " user", " employee", " staff"},
	{"'s ", "’s "},
	{"оманд", "нженер", "лиент", "отрудник", "ользовател"},
	{"团队", "工程师", "的用户", "的客户"},
}

const teamWindow = 96

// teamMatches runs re on the windows of text that end shortly after an
// anchor, at most 8 matches.
func teamMatches(re *regexp.Regexp, anchors []string, text string) [][]string {
	var out [][]string
	for _, a := range anchors {
		for from := 0; len(out) < 8; {
			i := strings.Index(text[from:], a)
			if i < 0 {
				break
			}
			i += from
			lo, hi := max(0, i-teamWindow), min(len(text), i+len(a)+24)
			for lo > 0 && !utf8.RuneStart(text[lo]) {
				lo--
			}
			for hi < len(text) && !utf8.RuneStart(text[hi]) {
				hi++
			}
			out = append(out, re.FindAllStringSubmatch(text[lo:hi], 2)...)
			from = i + len(a)
		}
	}
	return out
}

// zhTeamParts are Han words before 公司/团队 that name a part or kind of
// an organisation, not one: "我们技术团队", "我们运维团队".
var zhTeamParts = []string{"技术", "运维", "研发", "开发", "测试", "产品", "平台", "安全", "数据", "架构", "基础",
	"业务", "整个", "自己", "的", "小", "核心", "前端", "后端", "客服", "网络", "项目", "部门", "公司", "团队"}

// zhTeamPart reports a Han name that is a team's kind rather than a name.
func zhTeamPart(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	if !unicode.Is(unicode.Han, r) {
		return false
	}
	for _, p := range zhTeamParts {
		if strings.Contains(name, p) {
			return true
		}
	}
	return false
}

// A status page's or a provider's summary names its owner in the title:
// "Acme Status", "Acme status page", "Summary of the Acme storage service
// event". (A name opening "… incident report" or "… postmortem" is as
// often an adjective: "Blameless postmortem", "Internal incident report".)
// The name must
// come back in the text, so a title that only mentions a product or
// another party's outage ("Postmortem of the Kubernetes upgrade") names
// nobody.
var titleOrgRes = []*regexp.Regexp{
	regexp.MustCompile(`^` + orgCapName + ` [Ss]tatus(?: [Pp]age)?\b`),
	regexp.MustCompile(`[|–—-] ` + orgCapName + ` [Ss]tatus(?: [Pp]age)?$`),
	regexp.MustCompile(`^(?:[Ss]ummary|[Pp]ost-?mortem|RCA|[Rr]oot [Cc]ause [Aa]nalysis) (?:of|for|on) (?:the |an? )?([A-Z][\w&.-]*[\w&])\b[^.:]{0,60}\b(?:[Ss]ervice [Ee]vent|[Ss]ervice [Dd]isruption|[Oo]utage|[Ii]ncident|[Dd]isruption|[Dd]egradation|[Ee]vent)\b`),
}

// titleOrganization returns the organisation a title names as the
// incident's owner and the text names again, or "".
func titleOrganization(title, text string) string {
	title = strings.TrimSpace(title)
	for _, re := range titleOrgRes {
		m := re.FindStringSubmatch(title)
		if m == nil {
			continue
		}
		name := strings.TrimRight(m[1], ".-")
		if !orgName(name) || teamWords[strings.Fields(name)[0]] {
			continue
		}
		if _, tech := casebook.NormalizeTag(strings.Fields(name)[0]); tech {
			continue
		}
		if strings.Contains(text, name) {
			return name
		}
	}
	return ""
}

// A status-page report tells what the company's customers went through, or
// that the company had the outage: "Acme customers experienced elevated
// errors", "Acme experienced a partial outage". Another party's outage is
// told the same way but reaches "us" in the same sentence ("AWS
// experienced an outage that took down our API"): that names nobody.
var eventOrgRes = []*regexp.Regexp{
	regexp.MustCompile(`(?:^|[.!?;:]\s+|\n|, )` + orgCapName + ` (?:customers|users) (?:experienced|were|saw|could not|couldn't|may have|might have|reported|encountered|received|had|faced)\b`),
	regexp.MustCompile(`(?:^|[.!?;:]\s+|\n|, )` + orgCapName + ` (?:experienced|suffered|had|saw) (?:an? |some )?(?:partial |major |brief |significant |widespread |intermittent |global |regional |extended )*(?:outage|incident|service disruption|disruption|service degradation|degradation|downtime|service interruption|interruption)\b`),
	// "Acme engineers identified the cause", "Acme sincerely apologizes"
	regexp.MustCompile(`(?:^|[.!?;:]\s+|\n|, )` + orgCapName + ` (?:engineers|on-call engineers|SREs|support) (?:identified|found|noticed|discovered|determined|observed|began|started|investigated|responded|mitigated|deployed|rolled|were paged|were alerted)\b`),
	regexp.MustCompile(`(?:^|[.!?;:]\s+|\n)` + orgCapName + ` (?:sincerely |deeply |truly )?apologi[sz]es\b`),
	// "Acme's API returned errors", "Acme's control plane"
	regexp.MustCompile(`(?:^|[\s(])` + orgCapName + `['’]s (?:API|APIs|services|service|systems|network|website|web app|app|dashboard|servers|databases?|backend|data ?cent(?:er|re)s|status page|production|control plane|storage|edge|CDN)\b`),
}

// eventOrgNeeds are the fixed words each pattern of eventOrgRes needs in
// the line it matches (one of each group): the patterns open with a
// capitalised name that may stand anywhere, so the scan is costly, and
// a line without them is passed over.
var eventOrgNeeds = [][][]string{
	{{" customers ", " users "}},
	{{" experienced ", " suffered ", " had ", " saw "}, {"outage", "incident", "disruption", "degradation", "downtime", "interruption"}},
	{{" engineers ", " SREs ", " support "}},
	{{" apologi"}},
	{{"'s ", "’s "}},
}

// eventMatches is re.FindAllStringSubmatchIndex(text, n), offsets into
// text, run only on the lines that hold one word of every group of needs
// (no pattern's match crosses a line: names and words are joined by
// spaces, and a line start is a clause start for every pattern).
func eventMatches(re *regexp.Regexp, needs [][]string, text string, n int) [][]int {
	var out [][]int
	for start := 0; start < len(text) && len(out) < n; {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := text[start:end]
		if hasAll(line, needs) {
			for _, loc := range re.FindAllStringSubmatchIndex(line, n-len(out)) {
				for j := range loc {
					if loc[j] >= 0 {
						loc[j] += start
					}
				}
				out = append(out, loc)
			}
		}
		start = end + 1
	}
	return out
}

// hasAll reports whether s holds one word of every group.
func hasAll(s string, groups [][]string) bool {
	for _, g := range groups {
		if !slices.ContainsFunc(g, func(w string) bool { return strings.Contains(s, w) }) {
			return false
		}
	}
	return true
}

// eventThirdParty marks a sentence's rest that tells the outage reached
// the writer: the named party is not the incident's owner.
var eventThirdParty = regexp.MustCompile(`\b(?:us|our|we|we're|we've|my|me|I)\b|\b(?:upstream|provider|vendor|third[- ]party)\b`)

// eventOrganization returns a name the text tells an outage of, or its
// customers' experience of one, at least twice named, or "".
func eventOrganization(text string) string {
	for i, re := range eventOrgRes {
		for _, loc := range eventMatches(re, eventOrgNeeds[i], text, 8) {
			name := strings.TrimRight(text[loc[2]:loc[3]], ".-")
			first := strings.Fields(name)[0]
			if teamWords[first] || !orgName(name) || strings.Count(text, name) < 2 {
				continue
			}
			if _, tech := casebook.NormalizeTag(first); tech {
				continue
			}
			rest := text[loc[1]:]
			if i := strings.IndexAny(rest, ".!?\n"); i >= 0 {
				rest = rest[:i]
			}
			if eventThirdParty.MatchString(rest) {
				continue
			}
			return name
		}
	}
	return ""
}

// A copyright line names who runs the site: "© 2024 Acme Inc.",
// "Copyright (c) 2019-2023 Acme Networks, LLC", "© 2024 ООО «Ромашка»".
// A person's blog carries the author's name there, so a name counts with
// a company's legal form, or as one word that the text names again.
var (
	copyrightRe = regexp.MustCompile(`(?:©|\([Cc]\)|[Cc]opyright)(?:\s*(?:©|\([Cc]\)))?\s*(?:(?:19|20)\d{2}(?:\s*[-–]\s*(?:19|20)\d{2})?,?\s*)?` +
		orgCapName + `(,? (?:Inc|Ltd|LLC|L\.L\.C|GmbH|Corp|Corporation|Limited|AG|SA|S\.A|B\.V|BV|PBC|plc|PLC|Pty Ltd|Oy|AB|SAS|SRL|KK)\b)?`)
	copyrightRuRe = regexp.MustCompile(`(?:©|\([Cc]\))\s*(?:(?:19|20)\d{2}(?:\s*[-–]\s*(?:19|20)\d{2})?,?\s*)?(?:ООО|АО|ПАО|ЗАО|ИП) «([^»\n]{2,40})»`)
	copyrightZhRe = regexp.MustCompile(`(?:©|版权所有)\s*(?:(?:19|20)\d{2}(?:\s*[-–]\s*(?:19|20)\d{2})?\s*)?(\p{Han}{2,10}?)(?:有限公司|股份有限公司|科技有限公司|公司|集团)`)
)

// copyrightOrganization returns the company a copyright line names, or "".
func copyrightOrganization(text string) string {
	if !strings.Contains(text, "©") && !strings.Contains(text, "opyright") && !strings.Contains(text, "(c)") &&
		!strings.Contains(text, "(C)") && !strings.Contains(text, "版权所有") {
		return ""
	}
	for _, m := range copyrightRe.FindAllStringSubmatch(text, 4) {
		name := strings.TrimRight(m[1], ".-")
		legal := m[2] != ""
		if strings.HasSuffix(name, " Inc") || strings.HasSuffix(name, " Ltd") || strings.HasSuffix(name, " LLC") {
			legal, name = true, name[:strings.LastIndexByte(name, ' ')]
		}
		if first := strings.Fields(name)[0]; !orgName(name) || footerWords[strings.ToLower(first)] || extract.SiteEngine(first) {
			continue
		}
		if legal || !strings.Contains(name, " ") && strings.Count(text, name) >= 2 {
			return name
		}
	}
	for _, re := range []*regexp.Regexp{copyrightRuRe, copyrightZhRe} {
		if m := re.FindStringSubmatch(text); m != nil && orgName(m[1]) {
			return m[1]
		}
	}
	return ""
}

// footerWords open a theme's footer credit rather than a name ("© 2024
// Powered by Hugo", "© All rights reserved"); the site engines themselves
// are extract's list.
var footerWords = map[string]bool{"powered": true, "all": true, "the": true}
