package extract

import (
	"regexp"
	"strings"
)

var (
	mdHeading  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	mdListItem = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(.*)$`)
	mdLink     = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	mdEmph     = regexp.MustCompile("(\\*\\*|__|\\*|`)")
)

// extractMarkdown reads Markdown with optional YAML front matter.
func extractMarkdown(raw []byte, opts Options) (*Document, error) {
	d := &Document{URL: opts.URL}
	src := strings.ReplaceAll(string(raw), "\r\n", "\n")
	src = strings.TrimPrefix(src, "\ufeff")
	if strings.HasPrefix(src, "---\n") {
		if end := strings.Index(src[4:], "\n---"); end >= 0 {
			frontMatter(d, src[4:4+end])
			src = src[4+end+4:]
		}
	}
	var b builder
	lines := strings.Split(src, "\n")
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.block(Paragraph, inlineMD(strings.Join(para, " ")))
			para = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
			flush()
			fence := trim[:3]
			var code []string
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), fence); i++ {
				code = append(code, lines[i])
			}
			b.block(Code, strings.Join(code, "\n"))
		case trim == "":
			flush()
		case mdHeading.MatchString(trim):
			flush()
			m := mdHeading.FindStringSubmatch(trim)
			b.heading(len(m[1]), inlineMD(m[2]))
			if d.Title == "" && len(m[1]) == 1 {
				d.Title = cleanText(inlineMD(m[2]))
			}
		case mdListItem.MatchString(line):
			flush()
			b.block(ListItem, inlineMD(mdListItem.FindStringSubmatch(line)[1]))
		case strings.HasPrefix(trim, ">"):
			flush()
			b.block(Quote, inlineMD(strings.TrimLeft(trim, "> ")))
		case strings.HasPrefix(trim, "|"):
			flush()
			b.block(Table, strings.ReplaceAll(trim, "|", " "))
		default:
			para = append(para, trim)
		}
	}
	flush()
	b.finish(d)
	return d, nil
}

func inlineMD(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	return mdEmph.ReplaceAllString(s, "")
}

// frontMatter reads the flat keys casebook uses from YAML front matter.
func frontMatter(d *Document, fm string) {
	var listKey string
	for _, line := range strings.Split(fm, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "- ") && listKey != "" {
			d.Tags = append(d.Tags, unquote(strings.TrimSpace(line)[2:]))
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		listKey = ""
		switch k {
		case "title":
			d.Title = cleanText(unquote(v))
		case "date", "published":
			if len(v) >= 10 {
				d.Published = unquote(v)[:10]
			}
		case "author":
			d.Author = unquote(v)
		case "tags", "categories":
			if v == "" {
				listKey = k
			}
			v = strings.Trim(v, "[]")
			for _, t := range strings.Split(v, ",") {
				if t = unquote(strings.TrimSpace(t)); t != "" {
					d.Tags = append(d.Tags, t)
				}
			}
		}
	}
}

func unquote(s string) string { return strings.Trim(strings.TrimSpace(s), `"'`) }
