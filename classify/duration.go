package classify

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParseDuration reads a stated length of time at the start of s, in English,
// Russian or Chinese ("8 minutes", "1h30m", "1 hour and 48 minutes",
// "30 минут", "полтора часа", "10 分钟", "两个小时", "一个半小时") and returns
// it as ISO 8601 ("PT1H30M") with the number of bytes read. ok is false when
// s does not start with one.
func ParseDuration(s string) (iso string, n int, ok bool) {
	secs, n := parseDurationSeconds(s)
	if secs <= 0 || secs > maxDurationSecs {
		return "", 0, false
	}
	return isoDuration(secs), n, true
}

// maxDurationSecs bounds a duration at a hundred years: a larger figure is
// no incident's ("10000000000000000000S" had overflowed into "PT").
const maxDurationSecs = 100 * 366 * 86400

// isoDuration formats seconds as PT#H#M#S, hours unbounded (PT54H10M).
func isoDuration(secs float64) string {
	total := int64(secs + 0.5)
	h, m, sec := total/3600, total%3600/60, total%60
	var b strings.Builder
	b.WriteString("PT")
	if h > 0 {
		b.WriteString(strconv.FormatInt(h, 10) + "H")
	}
	if m > 0 {
		b.WriteString(strconv.FormatInt(m, 10) + "M")
	}
	if sec > 0 || (h == 0 && m == 0) {
		b.WriteString(strconv.FormatInt(sec, 10) + "S")
	}
	return b.String()
}

// Units, longest first within a prefix family so "minutes" wins over "min".
var durationUnits = []struct {
	word string
	secs float64
}{
	{"milliseconds", 0.001}, {"millisecond", 0.001}, {"ms", 0.001},
	{"seconds", 1}, {"second", 1}, {"secs", 1}, {"sec", 1}, {"s", 1},
	{"minutes", 60}, {"minute", 60}, {"mins", 60}, {"min", 60}, {"m", 60},
	{"hours", 3600}, {"hour", 3600}, {"hrs", 3600}, {"hr", 3600}, {"h", 3600},
	{"days", 86400}, {"day", 86400}, {"d", 86400},
	{"weeks", 604800}, {"week", 604800}, {"w", 604800},
	{"секунды", 1}, {"секунду", 1}, {"секунд", 1}, {"сек", 1},
	{"минуты", 60}, {"минуту", 60}, {"минут", 60}, {"мин", 60},
	{"часов", 3600}, {"часа", 3600}, {"час", 3600}, {"ч", 3600},
	{"суток", 86400}, {"сутки", 86400}, {"дней", 86400}, {"дня", 86400}, {"день", 86400},
	{"недели", 604800}, {"неделю", 604800}, {"недель", 604800},
	{"毫秒", 0.001}, {"秒钟", 1}, {"秒", 1}, {"分钟", 60}, {"分", 60},
	{"小时", 3600}, {"钟头", 3600}, {"天", 86400}, {"日", 86400}, {"周", 604800}, {"星期", 604800},
}

// Number words in English and Russian.
var numberWords = map[string]float64{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
	"thirty": 30, "forty": 40, "forty-five": 45, "fifty": 50, "sixty": 60, "ninety": 90, "half": 0.5,
	"один": 1, "одна": 1, "одну": 1, "одного": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5,
	"шесть": 6, "семь": 7, "восемь": 8, "девять": 9, "десять": 10, "пятнадцать": 15, "двадцать": 20,
	"тридцать": 30, "сорок": 40, "пятьдесят": 50, "шестьдесят": 60, "полтора": 1.5, "полторы": 1.5,
	"пол": 0.5, "несколько": 0,
}

// Words joining the parts of one duration.
var durationJoiners = []string{"and", "и", ",", "又", "零"}

func parseDurationSeconds(s string) (float64, int) {
	total, pos, parts, lastUnit := 0.0, 0, 0, 0.0
	for {
		p := skipSpace(s, pos)
		if parts > 0 {
			for _, j := range durationJoiners {
				if strings.HasPrefix(strings.ToLower(s[p:]), j) {
					p = skipSpace(s, p+len(j))
					break
				}
			}
		}
		if parts > 0 {
			for _, h := range []string{"a half", "half an", "half"} {
				if strings.HasPrefix(strings.ToLower(s[p:]), h) { // "an hour and a half"
					total += 0.5 * lastUnit
					return total, p + len(h)
				}
			}
		}
		v, q, ok := parseNumber(s, p)
		if !ok {
			// "полчаса", "半小时": a half with the unit attached
			if strings.HasPrefix(s[p:], "пол") {
				v, q, ok = 0.5, p+len("пол"), true
			} else if strings.HasPrefix(s[p:], "半") {
				v, q, ok = 0.5, p+len("半"), true
			}
		}
		if !ok {
			break
		}
		q = skipSpace(s, q)
		if strings.HasPrefix(s[q:], "个") {
			q += len("个")
		}
		if strings.HasPrefix(s[q:], "半") { // 一个半小时
			v += 0.5
			q += len("半")
		}
		unit, r, ok := parseUnit(s, q)
		if !ok {
			break
		}
		if strings.HasPrefix(s[r:], "半") { // 两小时半
			v += 0.5
			r += len("半")
		}
		total += v * unit
		pos, lastUnit = r, unit
		parts++
	}
	return total, pos
}

func skipSpace(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) && r != '~' && r != '≈' && r != '约' {
			break
		}
		i += n
	}
	return i
}

// parseNumber reads digits ("1.5", "1,5"), an English or Russian number
// word, or Chinese numerals up to the hundreds.
func parseNumber(s string, i int) (float64, int, bool) {
	j := i
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || (j > i && (s[j] == '.' || s[j] == ',') && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9')) {
		j++
	}
	if j > i {
		v, err := strconv.ParseFloat(strings.ReplaceAll(s[i:j], ",", "."), 64)
		return v, j, err == nil
	}
	if v, k, ok := parseHanNumber(s, i); ok {
		return v, k, true
	}
	k := i
	for k < len(s) {
		r, n := utf8.DecodeRuneInString(s[k:])
		if !unicode.IsLetter(r) && r != '-' {
			break
		}
		k += n
	}
	w := strings.ToLower(s[i:k])
	if v, ok := numberWords[w]; ok && v > 0 {
		return v, k, true
	}
	return 0, i, false
}

var hanDigits = map[rune]float64{'零': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}

func parseHanNumber(s string, i int) (float64, int, bool) {
	total, cur, j, any := 0.0, 0.0, i, false
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if d, ok := hanDigits[r]; ok {
			cur = d
		} else if r == '十' {
			if cur == 0 {
				cur = 1
			}
			total += cur * 10
			cur = 0
		} else if r == '百' {
			total += cur * 100
			cur = 0
		} else {
			break
		}
		any = true
		j += n
	}
	return total + cur, j, any
}

func parseUnit(s string, i int) (float64, int, bool) {
	low := strings.ToLower(s[i:])
	for _, u := range durationUnits {
		if !strings.HasPrefix(low, u.word) {
			continue
		}
		end := i + len(u.word)
		// a Latin or Cyrillic unit must end its word: "m" is not "most"
		if end < len(s) {
			r, _ := utf8.DecodeRuneInString(s[end:])
			if unicode.IsLetter(r) && !unicode.Is(unicode.Han, r) {
				c, _ := utf8.DecodeRuneInString(u.word)
				if !unicode.Is(unicode.Han, c) {
					continue
				}
			}
		}
		return u.secs, end, true
	}
	return 0, i, false
}
