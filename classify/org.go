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
