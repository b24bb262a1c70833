// Package evalcontent scores main-content extraction on the AEB and DAnIEL
// benchmarks, as ../shared/design/evaluation.md defines, and runs any set of
// extractors side by side on the same pages in the same process. The peers
// (go-trafilatura, go-readability) live in the subpackage peers, so that the
// casebook binary, whose `casebook eval content` runs casebook alone, does
// not link them; `go run ./cmd/evalcontent --aeb DIR --daniel DIR` is
//
//	rep, err := evalcontent.Run(ctx, evalcontent.Config{AEBDir: aeb, DanielDir: daniel, Extractors: peers.All()}, os.Stdout)
//
// which prints one row per extractor: F1 per data set (AEB; DAnIEL en, ru,
// zh), pages per second by wall and by CPU time, KiB allocated per page and
// the peak heap over any one page. The same run is a test:
// CASEBOOK_BENCH=peers go test ./extract/evalcontent/peers -run TestBenchmarkReport -v
// (CASEBOOK_BENCH=1 for casebook alone, CASEBOOK_BENCH_WORST=N to list the
// worst pages), and go test -bench Extractors compares ns/page and allocs.
package evalcontent

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Counts are one page's true positives, false positives and false negatives,
// normalised to sum to 1 so long pages do not weigh more (as the AEB
// evaluate.py does).
type Counts struct{ TP, FP, FN float64 }

// aebWords splits lower-cased text into runs of word characters (Python's
// \w: letters, numbers, underscore), the AEB tokenizer.
func aebWords(s string) []string {
	s = strings.ToLower(s)
	var out []string
	start := -1
	for i, r := range s {
		w := unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_'
		switch {
		case w && start < 0:
			start = i
		case !w && start >= 0:
			out = append(out, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// Tokens is evaluation.md's tokens(): NFKC, lower case, every Han character
// a token, other runs of letters and digits a token.
func Tokens(s string) []string {
	s = strings.ToLower(norm.NFKC.String(s))
	var out []string
	start := -1
	flush := func(i int) {
		if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
	}
	for i, r := range s {
		switch {
		case isHan(r):
			flush(i)
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
	}
	flush(len(s))
	return out
}

func isHan(r rune) bool {
	return (r >= 0x3400 && r <= 0x9FFF) || (r >= 0xF900 && r <= 0xFAFF)
}

// shingles is the AEB n-gram multiset; a text shorter than n words is one
// shingle of all its words, as upstream.
func shingles(words []string, n int) map[string]int {
	m := make(map[string]int)
	if len(words) == 0 {
		return m
	}
	last := max(1, len(words)-n+1)
	for i := 0; i < last; i++ {
		m[strings.Join(words[i:min(i+n, len(words))], "\x00")]++
	}
	return m
}

func bag(tokens []string) map[string]int {
	m := make(map[string]int, len(tokens))
	for _, t := range tokens {
		m[t]++
	}
	return m
}

func match(gold, pred map[string]int) Counts {
	var c Counts
	for k, g := range gold {
		p := pred[k]
		c.TP += float64(min(g, p))
		c.FN += float64(max(0, g-p))
	}
	for k, p := range pred {
		c.FP += float64(max(0, p-gold[k]))
	}
	if s := c.TP + c.FP + c.FN; s > 0 {
		c.TP, c.FP, c.FN = c.TP/s, c.FP/s, c.FN/s
	}
	return c
}

// AEBCounts compares texts by 4-word shingles.
func AEBCounts(gold, pred string) Counts {
	return match(shingles(aebWords(gold), 4), shingles(aebWords(pred), 4))
}

// DanielCounts compares texts by bags of Tokens.
func DanielCounts(gold, pred string) Counts {
	return match(bag(Tokens(gold)), bag(Tokens(pred)))
}

func precision(c Counts) float64 {
	switch {
	case c.FP == 0 && c.FN == 0:
		return 1
	case c.TP == 0 && c.FP == 0:
		return 0
	}
	return c.TP / (c.TP + c.FP)
}

func recall(c Counts) float64 {
	switch {
	case c.FP == 0 && c.FN == 0:
		return 1
	case c.TP == 0 && c.FN == 0:
		return 0
	}
	return c.TP / (c.TP + c.FN)
}

// F1 of one page.
func (c Counts) F1() float64 {
	p, r := precision(c), recall(c)
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// Score is a data set's figures: precision and recall are means over
// pages (pages with nothing extracted count for recall only, as upstream),
// F1 their harmonic mean (the AEB evaluate.py figure); MeanF1 is the mean
// of per-page F1 ("score per page, then mean over pages").
type Score struct {
	Pages     int
	Precision float64
	Recall    float64
	F1        float64
	MeanF1    float64
}

// Headline is the figure evaluation.md names for the data set: AEB's own
// measure for AEB, the mean of per-page token F1 for DAnIEL.
func (s Score) Headline(dataset string) float64 {
	if strings.HasPrefix(dataset, "daniel") {
		return s.MeanF1
	}
	return s.F1
}

// Aggregate turns per-page counts into a Score.
func Aggregate(cs []Counts) Score {
	var s Score
	var np, nr int
	for _, c := range cs {
		if c.TP+c.FP > 0 {
			s.Precision += precision(c)
			np++
		}
		if c.TP+c.FN > 0 {
			s.Recall += recall(c)
			nr++
		}
		s.MeanF1 += c.F1()
	}
	s.Pages = len(cs)
	if np > 0 {
		s.Precision /= float64(np)
	}
	if nr > 0 {
		s.Recall /= float64(nr)
	}
	if len(cs) > 0 {
		s.MeanF1 /= float64(len(cs))
	}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	return s
}
