package evalcases

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/casebook/casebook/classify"
)

// LossRow counts, in tokens, where one language's field went: gold
// sentences routed to the field, nowhere or to another field, and wrong
// sentences routed to it under its own heading or elsewhere.
type LossRow struct {
	Right, Nowhere, Other, WrongHead, WrongElse int
}

// Loss tallies, per "lang field", where each text field's gold sentences
// go in cl's routes (Explain: before the caps and the empty-field
// threshold) and where the field's wrong sentences come from. With
// sentences, every lost or wrong sentence is written to w as well.
func Loss(exs []Example, cl *classify.Classifier, w io.Writer, sentences bool) map[string]*LossRow {
	rows := map[string]*LossRow{}
	for i := range exs {
		ex := &exs[i]
		if ex.Doc == nil || ex.Expect.Language == "" {
			continue
		}
		routes := cl.Explain(ex.Doc)
		for _, name := range classify.ModelFields() {
			text, ok := goldText(&ex.Expect, ex.Present, name)
			if !ok {
				continue
			}
			key := ex.Expect.Language + " " + name
			r := rows[key]
			if r == nil {
				r = &LossRow{}
				rows[key] = r
			}
			toks := Tokens(text)
			joined := " " + strings.Join(toks, " ") + " "
			for _, rt := range routes {
				st := Tokens(rt.Text)
				in := contains(toks, joined, st)
				var what string
				switch {
				case in && rt.Field == name:
					r.Right += len(st)
				case in && rt.Field == "":
					r.Nowhere += len(st)
					what = "missed"
				case in:
					r.Other += len(st)
					what = "went to " + rt.Field
				case rt.Field == name && rt.Section == name:
					r.WrongHead += len(st)
					what = "wrong, under its heading"
				case rt.Field == name:
					r.WrongElse += len(st)
					what = "wrong"
				}
				if what != "" && sentences {
					fmt.Fprintf(w, "%s %s %s: %s [%s, hand %q, p %.2f] %.120s\n", ex.Source, ex.Expect.Language, name, what, rt.Section, rt.Hand, rt.Prob, rt.Text)
				}
			}
		}
	}
	return rows
}

// WriteLoss prints Loss's rows as a table, in key order.
func WriteLoss(w io.Writer, rows map[string]*LossRow) {
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Fprintln(w, "gold tokens routed right / nowhere / to another field; wrong tokens under the field's heading / elsewhere")
	fmt.Fprintf(w, "%-22s %8s %8s %8s %10s %10s\n", "lang field", "right", "nowhere", "other", "wrong:head", "wrong:else")
	for _, k := range keys {
		r := rows[k]
		fmt.Fprintf(w, "%-22s %8d %8d %8d %10d %10d\n", k, r.Right, r.Nowhere, r.Other, r.WrongHead, r.WrongElse)
	}
}
