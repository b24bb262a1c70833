package evalcases

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/casebook/casebook/classify"
)

var (
	lossFlag      = flag.Bool("loss", false, "log where each text field's gold sentences go, per language (a debugging aid; with -v)")
	lossSentences = flag.Bool("loss-sentences", false, "with -loss, log every lost or wrong sentence too")
)

// TestLoss tells, per language and text field, where the gold sentences
// go (routed to the field, to another field, nowhere) and where the
// field's wrong sentences come from (under the field's own heading or
// not), in tokens, from the shipped classifier's routes (Explain: before
// the caps and the empty-field threshold); -loss-sentences logs every lost
// or wrong sentence. go test ./classify/evalcases -run TestLoss -loss -v
func TestLoss(t *testing.T) {
	if !*lossFlag {
		t.Skip("no -loss")
	}
	shared := sharedDir(t)
	exs, err := LoadExamples(context.Background(), Config{GoldDir: filepath.Join(shared, "eval", "gold"), SharedDir: shared})
	if err != nil {
		t.Fatal(err)
	}
	cl := classify.New(classify.Config{})
	type row struct{ right, none, other, fpHead, fpElse int }
	rows := map[string]*row{}
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
				r = &row{}
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
					r.right += len(st)
				case in && rt.Field == "":
					r.none += len(st)
					what = "missed"
				case in:
					r.other += len(st)
					what = "went to " + rt.Field
				case rt.Field == name && rt.Section == name:
					r.fpHead += len(st)
					what = "wrong, under its heading"
				case rt.Field == name:
					r.fpElse += len(st)
					what = "wrong"
				}
				if what != "" && *lossSentences {
					t.Logf("%s %s %s: %s [%s, hand %q, p %.2f] %.120s", ex.Source, ex.Expect.Language, name, what, rt.Section, rt.Hand, rt.Prob, rt.Text)
				}
			}
		}
	}
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	sb.WriteString("gold tokens routed right / nowhere / to another field; wrong tokens under the field's heading / elsewhere\n")
	fmt.Fprintf(&sb, "%-22s %8s %8s %8s %10s %10s\n", "lang field", "right", "nowhere", "other", "wrong:head", "wrong:else")
	for _, k := range keys {
		r := rows[k]
		fmt.Fprintf(&sb, "%-22s %8d %8d %8d %10d %10d\n", k, r.right, r.none, r.other, r.fpHead, r.fpElse)
	}
	t.Log("\n" + sb.String())
}
