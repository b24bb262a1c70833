package classify

import "strings"

func toLower(s string) string { return strings.ToLower(s) }
