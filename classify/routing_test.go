package classify

import (
	"strings"
	"testing"

	"github.com/casebook/casebook/extract"
)

// routesOf extracts a Markdown post and returns the field each sentence was
// routed to ("" for none), by sentence text.
func routesOf(t *testing.T, md string) map[string]string {
	t.Helper()
	doc, err := extract.Extract([]byte(md), extract.Options{Format: extract.FormatMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range testClassifier().Explain(doc) {
		out[strings.TrimSpace(r.Text)] = r.Field
	}
	return out
}

type routeWant struct {
	sentence, field string
}

func checkRoutes(t *testing.T, md string, want []routeWant) {
	t.Helper()
	got := routesOf(t, md)
	for _, w := range want {
		f, ok := got[w.sentence]
		if !ok {
			t.Errorf("sentence %q not found; sentences: %v", w.sentence, got)
			continue
		}
		if f != w.field {
			t.Errorf("%q went to %q, want %q", w.sentence, f, w.field)
		}
	}
}

// An inline label ("Root cause: …") heads the untitled paragraphs after its
// own, up to the next label.
func TestInlineLabelCarriesOn(t *testing.T) {
	cases := []struct {
		name string
		md   string
		want []routeWant
	}{
		{"en", "# Queue outage\n\n## Summary\n\n**Root cause**: the consumer pool was sized for the traffic of two years ago.\n\n" +
			"Every tenant we onboarded since then opened two more connections per node.\n\n" +
			"**What happened?**: on Monday the queue stopped draining.\n\nThe night shift was on a call with the vendor.\n",
			[]routeWant{
				{"Every tenant we onboarded since then opened two more connections per node.", "root_cause"},
				{"The night shift was on a call with the vendor.", ""},
			}},
		{"ru", "# Очередь встала\n\n## Кратко\n\n**Причина**: пул соединений рассчитан на нагрузку позапрошлого года.\n\n" +
			"Каждый новый клиент открывал ещё два соединения на узел.\n\n" +
			"**Что произошло**: в понедельник очередь перестала разбираться.\n\nНочная смена созвонилась с поставщиком.\n",
			[]routeWant{
				{"Каждый новый клиент открывал ещё два соединения на узел.", "root_cause"},
				{"Ночная смена созвонилась с поставщиком.", ""},
			}},
		{"zh", "# 队列积压\n\n## 概述\n\n**原因**：消费者连接池是按前年的流量配置的。\n\n" +
			"之后每接入一个租户，每个节点上就多开两个连接。\n\n" +
			"**概要**：周一队列不再消费。\n\n值班同学和供应商开了电话会议。\n",
			[]routeWant{
				{"之后每接入一个租户，每个节点上就多开两个连接。", "root_cause"},
				{"值班同学和供应商开了电话会议。", ""},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkRoutes(t, tc.md, tc.want) })
	}
}
