package extract

import "strings"

// extractText reads plain text: blank-line separated paragraphs, bullet lines as list items.
func extractText(raw []byte, opts Options) (*Document, error) {
	d := &Document{URL: opts.URL}
	src := strings.TrimPrefix(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\ufeff")
	var b builder
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.block(Paragraph, strings.Join(para, " "))
			para = nil
		}
	}
	for _, line := range strings.Split(src, "\n") {
		trim := strings.TrimSpace(line)
		switch {
		case trim == "":
			flush()
		case mdListItem.MatchString(line) || strings.HasPrefix(trim, "•"):
			flush()
			item := strings.TrimPrefix(trim, "•")
			if m := mdListItem.FindStringSubmatch(line); m != nil {
				item = m[1]
			}
			b.block(ListItem, item)
		default:
			if d.Title == "" && len(para) == 0 && b.text.Len() == 0 {
				d.Title = cleanText(trim)
			}
			para = append(para, trim)
		}
	}
	flush()
	b.finish(d)
	return d, nil
}
