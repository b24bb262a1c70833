package evalcases

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casebook/casebook/classify"
)

// TestLossAccounts: on the gold set every language has a row per text
// field it annotates, and the shipped classifier routes some gold tokens
// right in each language (a routing that lost them all would show here).
func TestLossAccounts(t *testing.T) {
	shared := sharedDir(t)
	exs, err := LoadExamples(context.Background(), Config{GoldDir: filepath.Join(shared, "eval", "gold"), SharedDir: shared})
	if err != nil {
		t.Fatal(err)
	}
	rows := Loss(exs, classify.New(classify.Config{}), io.Discard, false)
	right := map[string]int{}
	for key, r := range rows {
		lang, _, _ := strings.Cut(key, " ")
		right[lang] += r.Right
		if r.Right+r.Nowhere+r.Other == 0 {
			t.Errorf("%s: no gold token placed at all", key)
		}
	}
	for _, lang := range []string{"en", "ru", "zh"} {
		if right[lang] == 0 {
			t.Errorf("%s: no gold token routed to its field", lang)
		}
	}
	if len(rows) < 3*len(classify.ModelFields())-3 {
		t.Errorf("%d rows, want about one per language and field", len(rows))
	}
}
