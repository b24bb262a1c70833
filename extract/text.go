package extract

import "strings"

// extractText reads plain text: blank-line separated paragraphs, bullet
// lines as list items, and the first line as the title when it stands alone.
func extractText(raw []byte, opts Options) (*Document, error) {
	d := &Document{URL: opts.URL}
	src := strings.TrimPrefix(strings.ReplaceAll(strings.ToValidUTF8(string(raw), ""), "\r\n", "\n"), "\ufeff")
	var b builder
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.block(Paragraph, strings.Join(para, " "))
			para = nil
		}
	}
	lines := strings.Split(src, "\n")
	for i, line := range lines {
		trim := strings.TrimSpace(line)
		switch {
		case trim == "":
			flush()
		case isMDListItem(line) || strings.HasPrefix(trim, "•") || strings.HasPrefix(trim, "·"):
			flush()
			item := strings.TrimLeft(trim, "•· ")
			if m, ok := parseMDListItem(line); ok {
				item = m
			}
			b.block(ListItem, item)
		default:
			// the first line names the text; standing alone, it is a heading
			if d.Title == "" && b.text.Len() == 0 && len(para) == 0 && wlen(trim) <= 150 {
				d.Title = cleanText(trim)
				if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) == "" {
					b.heading(1, trim)
					continue
				}
			}
			para = append(para, trim)
		}
	}
	flush()
	b.finish(d)
	d.Published = leadingDate(d)
	if d.Published == "" {
		d.Published = pathDate(opts.URL)
	}
	if d.Published == "" {
		d.Published = pathDate(opts.Name)
	}
	d.Organization = documentOrganization(opts.URL, "")
	return d, nil
}
