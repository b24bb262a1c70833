package classify

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/casebook/casebook"
)

// The organisation the text names as its own, when the page's metadata and
// address name none: "at Acme, we …", "we at Acme", "в компании X мы",
// "在X公司，我们". A Russian title that names a company in guillemets
// ("Как упал «Ромашка»") counts when the body names it again.
var (
	orgCapName = `([A-Z][\w&.-]*[\w&](?: [A-Z][\w&.-]*[\w&]){0,2})`
	orgTextRes = []*regexp.Regexp{
		regexp.MustCompile(`\b(?:[Hh]ere at|[Aa]t) ` + orgCapName + `,? (?:we|our)\b`),
		regexp.MustCompile(`\b[Ww]e at ` + orgCapName + `\b`),
		regexp.MustCompile(`(?:[Вв] компании|[Кк]омпания|[Мм]ы в компании) «?([A-ZА-ЯЁ][\wА-Яа-яЁё&-]*(?: [A-ZА-ЯЁ][\wА-Яа-яЁё&-]*){0,2})»?`),
		regexp.MustCompile(`在(\p{Han}{2,6}?)(?:公司|集团)[，,]?我们`),
	}
	// orgTextAnchors are the words one of which each pattern of orgTextRes
	// needs, checked first.
	orgTextAnchors = [][]string{{" we", " our"}, {"e at "}, {"омпани"}, {"公司"}}
	ruQuotedName   = regexp.MustCompile(`«([A-ZА-ЯЁ][\wА-Яа-яЁё&-]*(?: [A-ZА-ЯЁ][\wА-Яа-яЁё&-]*){0,2})»`)
)

// orgTextScan is how much of the text is read for an organisation naming
// itself: a post says who "we" are near its start.
const orgTextScan = 8000

// notOrgWords are capitalised words the patterns catch that name no
// organisation ("At first, we", "At the time we", "At 10:00 we").
var notOrgWords = map[string]bool{"First": true, "The": true, "That": true, "This": true, "Some": true, "Least": true,
	"Last": true, "Once": true, "Work": true, "Home": true, "Night": true, "Scale": true, "All": true, "Times": true,
	"Present": true, "Peak": true, "One": true, "Our": true, "Its": true, "Any": true, "Each": true, "Most": true}

// zhNotOrg opens Han text that is no company's name: "上家公司", "这家公司".
const zhNotOrg = "上前这那某一我本该大小其别每另"

// textOrganization returns the organisation the text names as its own, or "".
func textOrganization(title, text string) string {
	if len(text) > orgTextScan {
		text = text[:orgTextScan]
	}
	for i, re := range orgTextRes {
		if !slices.ContainsFunc(orgTextAnchors[i], func(a string) bool { return strings.Contains(text, a) }) {
			continue // the pattern's fixed word is absent: skip the costly scan
		}
		for _, m := range re.FindAllStringSubmatch(text, 5) {
			if name := strings.TrimRight(m[1], ".-"); orgName(name) {
				return name
			}
		}
	}
	for _, m := range ruQuotedName.FindAllStringSubmatch(title, 3) {
		name := m[1]
		// named again in the body, in any case form: the stem without its last two letters
		if orgName(name) && utf8.RuneCountInString(name) >= 4 && strings.Count(text, ruStem(name)) >= 2 {
			return name
		}
	}
	return teamOrganization(text)
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
	regexp.MustCompile(`\b(?:[Tt]he|[Aa]t|[Ff]or|[Oo]f|[Tt]o|[Bb]y|[Ff]rom) ` + orgCapName +
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
