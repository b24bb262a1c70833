package extract

import (
	"bytes"

	"golang.org/x/net/html"
)

// parseDepthLimit is the nesting the HTML parser is allowed to see. The
// parser checks element scope by scanning its stack of open elements, so
// markup nested a hundred thousand deep costs quadratic time; real pages
// stay far below this.
const parseDepthLimit = 256

// maybeDeep is a cheap upper bound on nesting depth: tag opens minus
// closes at the worst point. Void elements count as opens, so it can only
// overestimate.
func maybeDeep(raw []byte, limit int) bool {
	depth := 0
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] != '<' {
			continue
		}
		c := raw[i+1]
		switch {
		case c == '/':
			if depth > 0 {
				depth--
			}
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			depth++
			if depth > limit {
				return true
			}
		}
	}
	return false
}

// voidElements never take an end tag.
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true,
}

// flattenDeep rewrites markup so that no element opens deeper than limit:
// tags past it are dropped and their text kept. Text and shallow markup
// pass through byte for byte.
func flattenDeep(raw []byte, limit int) []byte {
	z := html.NewTokenizer(bytes.NewReader(raw))
	out := make([]byte, 0, len(raw))
	depth := 0
	var stack []string
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		tok := z.Raw()
		switch tt {
		case html.StartTagToken:
			name, _ := z.TagName()
			if voidElements[string(name)] {
				break
			}
			if depth >= limit {
				stack = append(stack, "")
				continue
			}
			stack = append(stack, string(name))
			depth++
		case html.EndTagToken:
			name, _ := z.TagName()
			if voidElements[string(name)] {
				break
			}
			if len(stack) == 0 {
				continue
			}
			top := stack[len(stack)-1]
			if top == "" {
				stack = stack[:len(stack)-1]
				continue
			}
			if top != string(name) {
				// misnested: let the parser sort it out if the tag is open at all
				found := false
				for j := len(stack) - 1; j >= 0 && j >= len(stack)-64; j-- {
					if stack[j] == string(name) {
						found = true
						for k := len(stack) - 1; k >= j; k-- {
							if stack[k] != "" {
								depth--
							}
						}
						stack = stack[:j]
						break
					}
				}
				if !found {
					continue
				}
			} else {
				stack = stack[:len(stack)-1]
				depth--
			}
		}
		out = append(out, tok...)
	}
}
