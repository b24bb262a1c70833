package extract

import (
	"regexp"
	"strings"
)

// Front matter comes in three shapes: YAML between "---" lines, TOML
// between "+++" lines, and Hexo's (or gostatic's) YAML with no opening
// fence (key: value lines up to the first "---", or "----"). Fence lines
// may carry trailing spaces.

// fmKeyLine is a YAML "key: value" line at the left margin.
var fmKeyLine = regexp.MustCompile(`^[A-Za-z_][\w-]*\s*:(?:\s|$)`)

// tomlKeyLine is a TOML "key = value" line or a "[table]" header.
var tomlKeyLine = regexp.MustCompile(`^(?:[A-Za-z_][\w.-]*\s*=|\[)`)

// maxBareFrontMatter bounds how far a fence-less front matter may run.
const maxBareFrontMatter = 60

// splitFrontMatter cuts the front matter off src. toml tells its syntax;
// ok is false when src has none.
func splitFrontMatter(src string) (fm string, toml bool, rest string, ok bool) {
	// a blank line or two before the fence (a template's leading newline)
	// still opens front matter, when a key follows the fence: a rule after
	// blank lines is otherwise a thematic break
	if lead := leadingBlankLines(src); lead > 0 {
		fence, after, _ := strings.Cut(src[lead:], "\n")
		if f := strings.TrimRight(fence, " \t\r"); f == "---" && fmKeyLine.MatchString(after) || f == "+++" && tomlKeyLine.MatchString(after) {
			if fm, toml, rest, ok := splitFrontMatter(src[lead:]); ok {
				return fm, toml, rest, true
			}
		}
		return "", false, src, false
	}
	first, after, found := strings.Cut(src, "\n")
	if !found {
		return "", false, src, false
	}
	switch strings.TrimRight(first, " \t\r") {
	case "---", "+++":
		fence := strings.TrimRight(first, " \t\r")
		body := after
		for off := 0; off <= len(body); {
			line, next, more := strings.Cut(body[off:], "\n")
			t := strings.TrimRight(line, " \t\r")
			if t == fence || (fence == "---" && t == "...") {
				rest := ""
				if more {
					rest = next
				}
				return body[:off], fence == "+++", rest, true
			}
			if !more {
				break
			}
			off += len(line) + 1
		}
		return "", false, src, false
	}
	// Hexo: "title: x\ndate: y\n---\n"
	if !fmKeyLine.MatchString(first) {
		return "", false, src, false
	}
	off := 0
	for n := 0; n < maxBareFrontMatter && off <= len(src); n++ {
		line, _, more := strings.Cut(src[off:], "\n")
		t := strings.TrimRight(line, " \t\r")
		switch {
		case len(t) >= 3 && strings.Trim(t, "-") == "": // gostatic closes with "----"
			return src[:off], false, src[min(len(src), off+len(line)+1):], true
		case t == "", fmKeyLine.MatchString(line), strings.HasPrefix(line, " "), strings.HasPrefix(line, "\t"), strings.HasPrefix(line, "- "):
		default:
			return "", false, src, false // prose before any fence: not front matter
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return "", false, src, false
}

// leadingBlankLines is the length of the whitespace-only lines src opens
// with.
func leadingBlankLines(src string) int {
	n := 0
	for {
		line, _, more := strings.Cut(src[n:], "\n")
		if !more || strings.TrimSpace(line) != "" {
			return n
		}
		n += len(line) + 1
	}
}

// fmValue is one top-level front matter entry: its key (TOML keys inside a
// table are "table.key"), its scalar value and its list items.
type fmValue struct {
	key   string
	value string
	list  []string
}

// parseFrontMatter reads the flat keys of YAML or TOML front matter. Nested
// YAML maps are skipped except for list items under a key.
func parseFrontMatter(fm string, toml bool) []fmValue {
	var out []fmValue
	lines := strings.Split(fm, "\n")
	table := ""
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		trim := strings.TrimSpace(line)
		if trim == "" || strings.HasPrefix(trim, "#") {
			continue
		}
		if toml {
			if strings.HasPrefix(trim, "[") && strings.HasSuffix(trim, "]") && !strings.Contains(trim, "=") {
				table = strings.ToLower(strings.Trim(trim, "[] "))
				continue
			}
			k, v, ok := strings.Cut(trim, "=")
			if !ok {
				continue
			}
			k, v = strings.ToLower(strings.Trim(strings.TrimSpace(k), `"'`)), strings.TrimSpace(v)
			if table != "" {
				k = table + "." + k
			}
			// a multi-line array: tags = [\n "a",\n "b"\n]
			if strings.HasPrefix(v, "[") && !strings.Contains(v, "]") {
				for i+1 < len(lines) {
					i++
					v += " " + strings.TrimSpace(lines[i])
					if strings.Contains(lines[i], "]") {
						break
					}
				}
			}
			out = append(out, fmEntry(k, v))
			continue
		}
		if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") || strings.HasPrefix(trim, "- ") {
			// a list item under the last key ("tags:\n  - a")
			if strings.HasPrefix(trim, "- ") && len(out) > 0 && out[len(out)-1].value == "" {
				if t := unquote(trim[2:]); t != "" {
					out[len(out)-1].list = append(out[len(out)-1].list, t)
				}
			}
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		out = append(out, fmEntry(strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)))
	}
	return out
}

// fmEntry splits an inline list ("[a, b]") from a scalar.
func fmEntry(k, v string) fmValue {
	e := fmValue{key: k}
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		for _, t := range strings.Split(strings.Trim(v, "[]"), ",") {
			if t = unquote(t); t != "" {
				e.list = append(e.list, t)
			}
		}
		return e
	}
	if v == "|" || v == ">" || v == "|-" || v == ">-" {
		return e // a block scalar: its lines are indented and skipped
	}
	e.value = unquote(fmScalar(v))
	return e
}

// fmScalar drops a comment after a quoted scalar ("\"x\" # note"); a
// plain scalar keeps its " #" ("Fix for issue #42").
func fmScalar(v string) string {
	if len(v) < 2 || (v[0] != '"' && v[0] != '\'') {
		return v
	}
	if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
		if after := strings.TrimSpace(v[end+2:]); after == "" || strings.HasPrefix(after, "#") {
			return v[:end+2]
		}
	}
	return v
}

// Front matter keys, by what casebook reads from them. Dates are tried in
// this order: an explicit publication date wins over a generic "date".
var (
	fmDateKeys = []string{"published", "publishdate", "publish_date", "published_at", "date_published",
		"datepublished", "pubdate", "date", "created", "created_at", "posted"}
	fmPathKeys = []string{"path", "permalink", "slug", "url"}
	fmOrgKeys  = []string{"organization", "organisation", "company", "org", "extra.organization", "extra.company",
		"params.organization", "params.company"}
)

// frontMatter fills the Document from parsed front matter.
func frontMatter(d *Document, fm string, toml bool) {
	vals := map[string]fmValue{}
	for _, e := range parseFrontMatter(fm, toml) {
		if _, dup := vals[e.key]; !dup {
			vals[e.key] = e
		}
		switch e.key {
		case "title":
			if e.value != "" {
				d.Title = cleanText(e.value)
			}
		case "author", "authors":
			a := e.value
			if a == "" {
				a = strings.Join(e.list, ", ")
			}
			d.Author = cleanText(a)
		case "url", "canonical", "canonical_url", "canonicalurl":
			d.CanonicalURL = e.value
		case "lang", "language":
			d.DeclaredLang = e.value
		case "tags", "categories", "keywords", "taxonomies.tags", "taxonomies.categories":
			d.Tags = append(d.Tags, e.list...)
			if e.value != "" {
				for _, t := range strings.Split(e.value, ",") {
					if t = unquote(t); t != "" {
						d.Tags = append(d.Tags, t)
					}
				}
			}
		}
	}
	for _, k := range fmDateKeys {
		if p := parseDate(vals[k].value); p != "" {
			d.Published = p
			break
		}
	}
	if d.Published == "" {
		// a static site's path often carries the date: "blog/2020/02/26/x"
		for _, k := range fmPathKeys {
			if p := urlDate("/" + strings.TrimPrefix(vals[k].value, "/")); p != "" {
				d.Published = p
				break
			}
		}
	}
	for _, k := range fmOrgKeys {
		if v := cleanText(vals[k].value); v != "" && wlen(v) <= 60 {
			d.Organization = v
			break
		}
	}
}
