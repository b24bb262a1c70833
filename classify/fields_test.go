package classify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/casebook/casebook/extract"
)

// fixtureDoc extracts a made-up post from testdata/fields.
func fixtureDoc(t *testing.T, name string) *extract.Document {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "fields", name))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := extract.Extract(raw, extract.Options{Format: extract.SniffFormat(name, "", raw)})
	if err != nil {
		t.Fatalf("extract %s: %v", name, err)
	}
	return doc
}

// unitTexts are the sentences analyse cut doc into.
func unitTexts(doc *extract.Document) []string {
	a := analyse(doc)
	out := make([]string, len(a.units))
	for i, u := range a.units {
		out[i] = u.text
	}
	return out
}

// A Chinese sentence wrapped across two source lines of a Markdown post is
// one sentence, joined with no space (extract's soft breaks); in HTML a
// space between Han letters stands for a lost <br> and still ends one.
func TestHanSoftWrap(t *testing.T) {
	tests := []struct {
		file      string
		whole     []string // sentences that must come out whole
		cutBefore []string // sentences that must start a unit
	}{
		{"zh_softwrap.md", []string{
			"周一早上，我们的订单服务开始大量超时，监控上的队列长度一路上涨，消费者几乎停止了处理。",
			"查了半天，最后发现是消费者的线程池被一个慢查询占满了，新的消息根本没有线程可以处理。",
		}, nil},
		{"zh_softwrap.html", nil, []string{"监控上的队列长度一路上涨，消费者几乎停止了处理。"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			units := unitTexts(fixtureDoc(t, tc.file))
			for _, w := range tc.whole {
				if !slices.Contains(units, w) {
					t.Errorf("%q is not one sentence; units: %q", w, units)
				}
			}
			for _, w := range tc.cutBefore {
				if !slices.ContainsFunc(units, func(u string) bool { return strings.HasPrefix(u, w) }) {
					t.Errorf("no sentence starts with %q; units: %q", w, units)
				}
			}
		})
	}
}

// A list item written as a plan (an infinitive, an imperative) sets the
// field model's plan_item feature; a noun or a past-tense report does not.
func TestPlanItemFeature(t *testing.T) {
	idx := slices.Index(FeatureNames(), "plan_item")
	if idx < 0 {
		t.Fatal("no plan_item feature")
	}
	tests := []struct {
		file, lang string
		want       map[string]bool
	}{
		{"ru_plan.md", "ru", map[string]bool{
			"Добавить алерт на долю ошибок выгрузки":                true,
			"Настроить повторные попытки в клиенте":                 true,
			"Проверять размер очереди каждое утро":                  true,
			"Производительность выгрузки после правки заметно выше": false,
			"Часть отчётов пришлось собрать вручную":                false,
			"Во вторник выгрузка отчётов падала с ошибкой 500.":     false,
		}},
		{"en_plan.md", "en", map[string]bool{
			"Add an alert on the export error rate":                     true,
			"Document how to rerun a failed export by hand":             true,
			"Exports were slow for an hour after the fix":               false,
			"Setting the retry limit took two attempts":                 false,
			"On Tuesday the report export failed with HTTP 500 errors.": false,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got := map[string]bool{}
			for _, s := range testClassifier().Sentences(fixtureDoc(t, tc.file), tc.lang) {
				got[strings.TrimSpace(s.Text)] = s.X[idx] == 1
			}
			for s, want := range tc.want {
				g, ok := got[s]
				if !ok {
					t.Errorf("sentence %q not found in %v", s, got)
					continue
				}
				if g != want {
					t.Errorf("plan_item(%q) = %v, want %v", s, g, want)
				}
			}
		})
	}
}
