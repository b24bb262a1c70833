package classify

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/casebook/casebook"
)

// Technology names the tag table does not know, recognised by their shape:
// a name with an inner capital ("SearXNG", "iCloud"), letters mixed with
// digits ("l2geth"), a dotted package or site name ("crates.io",
// "valkey.py") or a -db/-mq/-ctl name ("widgetdb", "queuectl"). Plain
// words, capitalised or not, names with digits (versions, hosts,
// interfaces) and all-capital acronyms are never candidates. (A capitalised
// Latin word in Russian or Chinese prose was tried as a cue and dropped: it
// caught header and function names, "Expect", "Merge", as often as products.)
var techWordRe = regexp.MustCompile(`[A-Za-z][A-Za-z0-9]*(?:[.\-_][A-Za-z0-9]+)*`)

// dottedSuffix ends a dotted name that is a product, not a file or a host.
var dottedSuffix = regexp.MustCompile(`\.(?:io|js|rs|py|sh|dev|app|ai)$`)

// hasTechSuffix reports a name that is a kind of system by its suffix: two
// lower-case letters or more, then db, mq or ctl, a hyphen between allowed
// ("influxdb", "zeromq", "kube-ctl"). It is the expression
// [a-z]{2,}(?:-?db|-?mq|-?ctl)$ without the regexp engine, which
// backtracked from every start of every plain word of the post (6% of
// Classify's CPU).
func hasTechSuffix(w string) bool {
	for _, suf := range [...]string{"db", "mq", "ctl"} {
		if !strings.HasSuffix(w, suf) {
			continue
		}
		head := strings.TrimSuffix(w[:len(w)-len(suf)], "-")
		if n := len(head); n >= 2 && isLowerASCII(head[n-1]) && isLowerASCII(head[n-2]) {
			return true
		}
	}
	return false
}

func isLowerASCII(c byte) bool { return c >= 'a' && c <= 'z' }

// notTechNames are capitalised words of general prose and of the trade that
// take a product-like shape in posts ("JavaScript" is in the table; "PodSpec" is a
// field name, not a technology).
var notTechNames = map[string]bool{
	"ok": true, "todo": true, "tl": true, "dr": true, "faq": true, "readme": true, "changelog": true,
	"error": true, "warning": true, "info": true, "debug": true, "true": true, "false": true, "null": true,
	"none": true, "pod": true, "node": true, "service": true, "server": true, "client": true, "cluster": true,
	"master": true, "main": true, "config": true, "namespace": true, "deployment": true, "token": true,
	"update": true, "issue": true, "bug": true, "fix": true, "note": true, "step": true, "part": true,
	"postmortem": true, "incident": true, "summary": true, "timeline": true, "impact": true, "root": true,
	"cause": true, "monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true,
	"saturday": true, "sunday": true, "utc": true, "gmt": true, "msk": true, "cst": true,
}

// techCandidate reports whether a word as written has the shape of a technology name.
func techCandidate(w string) bool {
	letters, upper, digits, innerCap := 0, 0, 0, false
	prevLower := false
	for _, r := range w {
		switch {
		case unicode.IsUpper(r):
			upper++
			letters++
			if prevLower {
				innerCap = true
			}
			prevLower = false
		case unicode.IsLower(r):
			letters++
			prevLower = true
		case unicode.IsDigit(r):
			digits++
			prevLower = false
		default:
			prevLower = false
		}
	}
	if letters < 3 || notTechNames[strings.ToLower(w)] {
		return false
	}
	if upper == letters && digits == 0 {
		return false // an acronym: API, CPU, UTC
	}
	if digits > 0 {
		return false // versions, hosts, interfaces, user names: python3, node2, docker0
	}
	first := rune(w[0])
	switch {
	case innerCap:
		// "GitHub", "SearXNG", "iCloud"; not a lowerCamel identifier
		// ("initFiles") nor a class name of three words ("RouterSecurityManager")
		return (unicode.IsUpper(first) || len(w) > 1 && unicode.IsUpper(rune(w[1]))) && titleWords(w) < 3
	case dottedSuffix.MatchString(strings.ToLower(w)) && !strings.Contains(w[:len(w)-3], "/"):
		return true
	case hasTechSuffix(w):
		return true
	}
	return false
}

// techSlug is a recognised name as a tag slug: the table's slug when it
// knows the name, else the name lower-cased with dots and spaces as hyphens.
func techSlug(w string) string {
	if slug, ok := casebook.NormalizeTag(w); ok {
		return slug
	}
	s := strings.ToLower(strings.NewReplacer(".", "-", "_", "-", " ", "-").Replace(w))
	if slug, ok := casebook.NormalizeTag(s); ok {
		return slug
	}
	return s
}

// Unknown names need more evidence than the table's: named at least twice,
// one of the mentions in the title or the cause. (Recurrence alone, five
// mentions, was tried: it added code identifiers and products told in
// passing, and lowered the gold figure of sources that did not suggest it.)
const techMinCount = 2

// techNameCounts counts, per slug, the unknown technology names in the
// article's units (a name counts in every case form it is written in).
func (a *analysis) techNameCounts() map[string]int {
	out := map[string]int{}
	plain := map[string]int{} // lower-case words as written
	for _, u := range a.units {
		latinWords(u.text, func(w string) {
			if !hasUpperASCII(w) {
				plain[w]++
				if !strings.ContainsAny(w, ".-") && !hasTechSuffix(w) {
					return // a plain word: the common case, no candidate
				}
			}
			if !techCandidate(w) {
				return
			}
			if _, known := casebook.NormalizeTag(w); known {
				return // the table counts it already
			}
			out[techSlug(w)]++
		})
	}
	for slug, n := range out {
		// a word also written in lower case as often is an ordinary word
		// capitalised ("Merge", "Expect"), not a product's name
		if plain[slug] >= n {
			delete(out, slug)
		}
	}
	return out
}

// titleWords counts the capitalised words run together in w ("PodWorkerState" is 3).
func titleWords(w string) int {
	n, run := 0, 0
	for _, r := range w + "." {
		switch {
		case unicode.IsUpper(r):
			if run >= 3 {
				n++
			}
			run = 1
		case unicode.IsLower(r) && run > 0:
			run++
		default:
			if run >= 3 {
				n++
			}
			run = 0
		}
	}
	return n
}

// latinWords calls fn for each run of ASCII letters and digits (joined by
// single dots, hyphens or underscores) in s that starts with a letter, as
// techWordRe finds them, without the regular expression's cost per unit.
func latinWords(s string, fn func(w string)) {
	isAlnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
	for i := 0; i < len(s); {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			i++
			continue
		}
		j := i
		for j < len(s) {
			if isAlnum(s[j]) {
				j++
			} else if (s[j] == '.' || s[j] == '-' || s[j] == '_') && j+1 < len(s) && isAlnum(s[j+1]) {
				j += 2
			} else {
				break
			}
		}
		fn(s[i:j])
		i = j
	}
}

func hasUpperASCII(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= 'A' && w[i] <= 'Z' {
			return true
		}
	}
	return false
}
