// Package evalcases scores drafted cases against the gold annotations of
// shared/eval/gold, as shared/design/evaluation.md section 2 defines.
package evalcases

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Tokens splits text as evaluation.md's tokens() does: NFKC, lower case,
// every Han character a token, other runs of letters and digits a token.
func Tokens(text string) []string {
	text = strings.ToLower(norm.NFKC.String(text))
	var out []string
	start := -1
	for i, r := range text {
		switch {
		case isHan(r):
			if start >= 0 {
				out = append(out, text[start:i])
				start = -1
			}
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if start < 0 {
				start = i
			}
		default:
			if start >= 0 {
				out = append(out, text[start:i])
				start = -1
			}
		}
	}
	if start >= 0 {
		out = append(out, text[start:])
	}
	return out
}

func isHan(r rune) bool {
	return (r >= 0x3400 && r <= 0x9FFF) || (r >= 0xF900 && r <= 0xFAFF)
}

// TokenF1 is the bag-of-tokens F1 with clipped counts. An empty gold scores
// 1 only against an empty prediction.
func TokenF1(gold, pred string) float64 {
	return tokensF1(Tokens(gold), Tokens(pred))
}

// SetF1 compares two label sets exactly (after trimming and case folding).
func SetF1(gold, pred []string) float64 {
	gs, ps := toSet(gold), toSet(pred)
	if len(gs) == 0 || len(ps) == 0 {
		if len(gs) == 0 && len(ps) == 0 {
			return 1
		}
		return 0
	}
	shared := 0
	for k := range ps {
		if gs[k] {
			shared++
		}
	}
	if shared == 0 {
		return 0
	}
	prec := float64(shared) / float64(len(ps))
	rec := float64(shared) / float64(len(gs))
	return 2 * prec * rec / (prec + rec)
}

func toSet(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		x = strings.ToLower(strings.TrimSpace(x))
		if x != "" {
			m[x] = true
		}
	}
	return m
}

var isoDur = regexp.MustCompile(`^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// DurationSeconds parses an ISO 8601 duration (weeks, days, hours, minutes,
// seconds; no years or months, which have no fixed length).
func DurationSeconds(s string) (float64, bool) {
	m := isoDur.FindStringSubmatch(strings.ToUpper(strings.TrimSpace(s)))
	if m == nil || s == "P" || strings.HasSuffix(strings.ToUpper(s), "T") {
		return 0, false
	}
	mult := []float64{7 * 86400, 86400, 3600, 60, 1}
	total, any := 0.0, false
	for i, g := range m[1:] {
		if g == "" {
			continue
		}
		v, err := strconv.ParseFloat(g, 64)
		if err != nil {
			return 0, false
		}
		total += v * mult[i]
		any = true
	}
	return total, any
}

// DurationEqual says whether two ISO 8601 durations are the same length of
// time; "" equals only "".
func DurationEqual(gold, pred string) bool {
	gold, pred = strings.TrimSpace(gold), strings.TrimSpace(pred)
	if gold == "" || pred == "" {
		return gold == pred
	}
	g, okg := DurationSeconds(gold)
	p, okp := DurationSeconds(pred)
	if !okg || !okp {
		return strings.EqualFold(gold, pred)
	}
	return g == p
}

// LabelMatch is exact match against the expected value or an accepted one.
func LabelMatch(gold string, accept []string, pred string) bool {
	if pred == gold {
		return true
	}
	for _, a := range accept {
		if pred == a {
			return true
		}
	}
	return false
}

// clippedOverlap counts the tokens of p also in g, each gold token used once.
func clippedOverlap(g, p []string) int {
	counts := map[string]int{}
	for _, t := range g {
		counts[t]++
	}
	shared := 0
	for _, t := range p {
		if counts[t] > 0 {
			counts[t]--
			shared++
		}
	}
	return shared
}
