package extract

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

var (
	isoDateRe   = regexp.MustCompile(`(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})`)
	dmyDateRe   = regexp.MustCompile(`\b(\d{1,2})[./](\d{1,2})[./](\d{4})\b`)
	zhDateRe    = regexp.MustCompile(`(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]`)
	ruDateRe    = regexp.MustCompile(`(?i)(\d{1,2})\s+(январ[яь]|феврал[яь]|марта?|апрел[яь]|ма[яй]|июн[яь]|июл[яь]|августа?|сентябр[яь]|октябр[яь]|ноябр[яь]|декабр[яь]|янв|фев|мар|апр|июн|июл|авг|сен|сент|окт|ноя|дек)\.?\s+(\d{4})`)
	enMDYRe     = regexp.MustCompile(`(?i)\b(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
	enDMYRe     = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?,?\s+(\d{4})\b`)
	urlDateRe   = regexp.MustCompile(`/((?:19|20)\d{2})[/-](\d{1,2})[/-](\d{1,2})(?:[/_-]|$)`)
	urlDate8Re  = regexp.MustCompile(`/((?:19|20)\d{2})(\d{2})(\d{2})(?:[/_-]|\.html?|$)`)
	compactDate = regexp.MustCompile(`^((?:19|20)\d{2})(\d{2})(\d{2})`)
)

var enMonths = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

var ruMonths = map[string]int{"янв": 1, "фев": 2, "мар": 3, "апр": 4, "ма": 5, "июн": 6, "июл": 7, "авг": 8, "сен": 9, "окт": 10, "ноя": 11, "дек": 12}

func ymd(y, m, d int) string {
	if y < 1990 || y > 2100 || m < 1 || m > 12 || d < 1 || d > 31 {
		return ""
	}
	return strconv.Itoa(y) + "-" + pad2(m) + "-" + pad2(d)
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// parseDate reads a machine date (ISO 8601, RFC 1123, compact digits) or a
// written one; it returns YYYY-MM-DD or "".
func parseDate(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if m := compactDate.FindStringSubmatch(s); m != nil && len(s) <= 14 {
		if d := ymd(atoi(m[1]), atoi(m[2]), atoi(m[3])); d != "" {
			return d
		}
	}
	return findDate(s)
}

// findDate finds the first date written in text, in English, Russian or
// Chinese, or as digits.
func findDate(s string) string {
	if len(s) > 4000 {
		s = s[:4000]
	}
	type cand struct {
		at   int
		date string
	}
	var best cand
	best.at = -1
	try := func(at int, date string) {
		if date != "" && (best.at < 0 || at < best.at) {
			best = cand{at, date}
		}
	}
	if m := isoDateRe.FindStringSubmatchIndex(s); m != nil {
		try(m[0], ymd(atoi(s[m[2]:m[3]]), atoi(s[m[4]:m[5]]), atoi(s[m[6]:m[7]])))
	}
	if m := zhDateRe.FindStringSubmatchIndex(s); m != nil {
		try(m[0], ymd(atoi(s[m[2]:m[3]]), atoi(s[m[4]:m[5]]), atoi(s[m[6]:m[7]])))
	}
	if m := dmyDateRe.FindStringSubmatchIndex(s); m != nil {
		y, a, b := atoi(s[m[6]:m[7]]), atoi(s[m[2]:m[3]]), atoi(s[m[4]:m[5]])
		date := ymd(y, b, a)
		if date == "" && a <= 12 && strings.Contains(s[m[0]:m[1]], "/") {
			date = ymd(y, a, b) // "09/25/2020": a day over 12 second is the US order
		}
		try(m[0], date)
	}
	if m := ruDateRe.FindStringSubmatchIndex(s); m != nil {
		mon := strings.ToLower(s[m[4]:m[5]])
		n := 0
		for k, v := range ruMonths {
			if strings.HasPrefix(mon, k) && (k != "ма" || strings.HasPrefix(mon, "ма") && !strings.HasPrefix(mon, "мар")) {
				n = v
				break
			}
		}
		try(m[0], ymd(atoi(s[m[6]:m[7]]), n, atoi(s[m[2]:m[3]])))
	}
	if m := enMDYRe.FindStringSubmatchIndex(s); m != nil {
		try(m[0], ymd(atoi(s[m[6]:m[7]]), enMonths[strings.ToLower(s[m[2]:m[2]+3])], atoi(s[m[4]:m[5]])))
	}
	if m := enDMYRe.FindStringSubmatchIndex(s); m != nil {
		try(m[0], ymd(atoi(s[m[6]:m[7]]), enMonths[strings.ToLower(s[m[4]:m[4]+3])], atoi(s[m[2]:m[3]])))
	}
	return best.date
}

// urlDate reads /2021/10/21/ style dates from an address.
func urlDate(u string) string {
	if m := urlDateRe.FindStringSubmatch(u); m != nil {
		return ymd(atoi(m[1]), atoi(m[2]), atoi(m[3]))
	}
	if m := urlDate8Re.FindStringSubmatch(u); m != nil {
		return ymd(atoi(m[1]), atoi(m[2]), atoi(m[3]))
	}
	return ""
}

// hasYear is a cheap test for four digits in a row, before the date patterns run.
func hasYear(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			run++
			if run == 4 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// nameDateRe finds a compact date standing as a word in a file name:
// "docx-upload-fix-20251030.md".
var nameDateRe = regexp.MustCompile(`(?:^|[-_ ])((?:19|20)\d{2})(\d{2})(\d{2})(?:[-_. ]|$)`)

// incidentFolder names a folder (or repository) of incident write-ups,
// whose file names carry the incident's date, not the publication's.
var incidentFolder = regexp.MustCompile(`(?i)(?:^|/)(?:[^/]*[-_])?(?:post-?mortems?|incidents?|outages?|rcas?)(?:[-_][^/]*)?/`)

// pathDate is the publication date an address or a file name carries
// ("/2021/05/26/outage/", "_posts/2021-05-26-outage.md", "fix-20251030.md"),
// unless the file sits among incident write-ups ("postmortems/2021-05-26.md").
func pathDate(p string) string {
	if u, err := url.Parse(p); err == nil && u.Host != "" {
		p = u.Path
	}
	if incidentFolder.MatchString(strings.TrimSuffix(p, "/")) {
		return ""
	}
	return nameDate(p)
}

// nameDate reads the date a file name carries ("2021-05-26-outage.md",
// "posts/2021/05/26/outage.md", "fix-20251030.md").
func nameDate(name string) string {
	if name == "" {
		return ""
	}
	name = strings.ReplaceAll(name, `\`, "/")
	if d := urlDate("/" + strings.TrimPrefix(name, "/")); d != "" {
		return d
	}
	base := name[strings.LastIndexByte(name, '/')+1:]
	if m := nameDateRe.FindStringSubmatch(base); m != nil {
		return ymd(atoi(m[1]), atoi(m[2]), atoi(m[3]))
	}
	return ""
}
