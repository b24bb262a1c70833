package classify

import (
	"math"
	"strings"
	"testing"

	"github.com/casebook/casebook/extract"
)

func TestDefaultFieldModel(t *testing.T) {
	m, err := DefaultFieldModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ModelFields() {
		if len(m.Fields[f].W) != len(FeatureNames()) {
			t.Errorf("%s: %d weights", f, len(m.Fields[f].W))
		}
	}
	bad := *m
	bad.Features = append([]string{"extra"}, m.Features...)
	if bad.check() == nil {
		t.Error("a table fitted for another feature list was accepted")
	}
	bad.Features = m.Features
	bad.Fields = map[string]*FieldWeights{"symptoms": m.Fields["symptoms"]}
	if bad.check() == nil {
		t.Error("a table without every field was accepted")
	}
}

// TestMarkers checks the tense, person and plan markers in each language.
func TestMarkers(t *testing.T) {
	cases := []struct {
		set  cueSet
		name string
		yes  []string
		no   []string
	}{
		{futureMarks, "future",
			[]string{"we will add a second replica to the billing queue.", "мы будем проверять размер очереди каждую ночь.", "后续计划为队列增加告警。"},
			[]string{"the billing queue filled up.", "очередь заполнилась к утру.", "队列在早上被占满。"}},
		{pastMarks, "past",
			[]string{"the disk was full by noon.", "диск был заполнен к полудню.", "磁盘已经写满。"},
			[]string{"disks fill up quickly.", "диски заполняются быстро.", "磁盘写满很快。"}},
		{personMarks, "person (whole words)",
			[]string{"we restarted the gateway.", "мы перезапустили шлюз.", "我们重启了网关。"},
			[]string{"the gateway restarts itself.", "шлюз перезапускается сам.", "网关会自动重启。"}},
	}
	for _, c := range cases {
		has := c.set.any
		if strings.HasPrefix(c.name, "person") {
			has = func(s string) bool { return anyWord(c.set, s) }
		}
		for _, s := range c.yes {
			if !has(s) {
				t.Errorf("%s: %q not marked", c.name, s)
			}
		}
		for _, s := range c.no {
			if has(s) {
				t.Errorf("%s: %q marked", c.name, s)
			}
		}
	}
}

// flatModel gives every field the same probability p whatever the sentence.
func flatModel(p float64) *FieldModel {
	m := &FieldModel{Features: FeatureNames(), Fields: map[string]*FieldWeights{}}
	for _, f := range ModelFields() {
		m.Fields[f] = &FieldWeights{Bias: math.Log(p / (1 - p)), W: make([]float64, len(FeatureNames()))}
	}
	return m
}

var suggestionPosts = map[string]string{
	"en": "# Queue outage\n\n## Root cause\n\nThe queue disk filled up because retention was never set.\n\n## Fix\n\nWe deleted old segments and restarted the brokers.\n",
	"ru": "# Сбой очереди\n\n## Причина\n\nДиск очереди заполнился, потому что срок хранения не был задан.\n\n## Решение\n\nМы удалили старые сегменты и перезапустили брокеры.\n",
	"zh": "# 队列故障\n\n## 原因\n\n队列磁盘被写满，原因是没有设置保留时间。\n\n## 解决方法\n\n我们删除了旧的分段并重启了代理。\n",
}

// TestSuggestions checks that a field the model is unsure of is left empty
// and offered to the reviewer, and that a sure one is drafted.
func TestSuggestions(t *testing.T) {
	base := testClassifier()
	for lang, md := range suggestionPosts {
		doc, err := extract.Extract([]byte(md), extract.Options{Format: extract.FormatMarkdown})
		if err != nil {
			t.Fatal(err)
		}
		hand := base.WithFields(nil).Classify(doc)
		if hand.RootCause.Description == "" || len(hand.Remediation) == 0 || len(hand.Extraction.Suggestions) != 0 {
			t.Fatalf("[%s] hand rules: cause %q fix %v suggestions %v", lang, hand.RootCause.Description, hand.Remediation, hand.Extraction.Suggestions)
		}
		unsure := base.WithFields(flatModel(0.2)).Classify(doc) // over dropMin, under keepMin
		if unsure.RootCause.Description != "" || len(unsure.Remediation) != 0 {
			t.Errorf("[%s] unsure model drafted cause %q fix %v", lang, unsure.RootCause.Description, unsure.Remediation)
		}
		if got := strings.Join(unsure.Extraction.Suggestions["root_cause"], " "); got != hand.RootCause.Description {
			t.Errorf("[%s] cause suggestion %q, want %q", lang, got, hand.RootCause.Description)
		}
		if len(unsure.Extraction.Suggestions["remediation"]) != len(hand.Remediation) {
			t.Errorf("[%s] fix suggestions %v, want %v", lang, unsure.Extraction.Suggestions["remediation"], hand.Remediation)
		}
		if _, ok := unsure.Extraction.Evidence["root_cause"]; ok {
			t.Errorf("[%s] evidence kept for an emptied field", lang)
		}
		sure := base.WithFields(flatModel(0.9)).Classify(doc)
		if sure.RootCause.Description != hand.RootCause.Description || len(sure.Extraction.Suggestions) != 0 {
			t.Errorf("[%s] sure model: cause %q suggestions %v", lang, sure.RootCause.Description, sure.Extraction.Suggestions)
		}
		if c := sure.Extraction.Confidence["root_cause"]; c != 0.9 {
			t.Errorf("[%s] confidence %.2f, want the model's 0.9", lang, c)
		}
		// the hand rules' labels do not move with the model
		if unsure.RootCause.Category != hand.RootCause.Category || unsure.Trigger.Kind != hand.Trigger.Kind {
			t.Errorf("[%s] labels moved: %s/%s vs %s/%s", lang, unsure.RootCause.Category, unsure.Trigger.Kind, hand.RootCause.Category, hand.Trigger.Kind)
		}
	}
}

// TestModelDropsAndAdds checks the two thresholds: a hand route the model
// rules out is dropped, a sentence no rule claims joins a field the model
// is sure of.
func TestModelDropsAndAdds(t *testing.T) {
	base := testClassifier()
	md := suggestionPosts["en"] + "\n## Notes\n\nThe dashboards looked normal all week.\n"
	doc, err := extract.Extract([]byte(md), extract.Options{Format: extract.FormatMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	drop := base.WithFields(flatModel(0.05)).Classify(doc)
	if drop.RootCause.Description != "" || len(drop.Extraction.Suggestions) != 0 {
		t.Errorf("a model under dropMin kept cause %q or suggested %v", drop.RootCause.Description, drop.Extraction.Suggestions)
	}
	// only symptoms sure: the unclaimed note joins it, the cause stays
	m := flatModel(0.2)
	m.Fields["symptoms"].Bias = math.Log(0.95 / 0.05)
	add := base.WithFields(m).Classify(doc)
	if !strings.Contains(add.Symptoms, "dashboards looked normal") {
		t.Errorf("symptoms %q lack the sentence the model was sure of", add.Symptoms)
	}
}

// TestFieldKeep checks the table's keep thresholds: a field is drafted when
// its best sentence reaches its own threshold, left empty and suggested when
// not, and a field the table names none for keeps keepMin.
func TestFieldKeep(t *testing.T) {
	base := testClassifier()
	for lang, md := range suggestionPosts {
		doc, err := extract.Extract([]byte(md), extract.Options{Format: extract.FormatMarkdown})
		if err != nil {
			t.Fatal(err)
		}
		m := flatModel(0.2) // over dropMin, under keepMin
		m.Keep = map[string]float64{"root_cause": 0.15}
		got := base.WithFields(m).Classify(doc)
		hand := base.WithFields(nil).Classify(doc)
		if got.RootCause.Description != hand.RootCause.Description || got.Extraction.Suggestions["root_cause"] != nil {
			t.Errorf("[%s] cause %q (suggested %v) under its own threshold 0.15, want %q drafted", lang, got.RootCause.Description, got.Extraction.Suggestions["root_cause"], hand.RootCause.Description)
		}
		if len(got.Remediation) != 0 || len(got.Extraction.Suggestions["remediation"]) == 0 {
			t.Errorf("[%s] fix %v drafted at p 0.2 with no threshold of its own (keepMin %.2f)", lang, got.Remediation, keepMin)
		}
		m.Keep = map[string]float64{"root_cause": 0.25, "remediation": 0.1}
		got = base.WithFields(m).Classify(doc)
		if got.RootCause.Description != "" || len(got.Remediation) != len(hand.Remediation) {
			t.Errorf("[%s] thresholds 0.25 / 0.1 at p 0.2: cause %q, fix %v", lang, got.RootCause.Description, got.Remediation)
		}
	}
}

// TestRoute checks the exported routing the fit replays against the rules
// Classify applies: a hand route stands from dropMin, goes to the model's
// best field from assignMin, and an unrouted sentence joins one from addMin.
func TestRoute(t *testing.T) {
	x := make([]float64, len(FeatureNames()))
	m := flatModel(0.2)
	for _, c := range []struct {
		hand, sure string
		p          float64
		want       string
	}{
		{"root_cause", "", 0, "root_cause"},      // 0.2 >= dropMin
		{"", "", 0, ""},                          // nothing reaches addMin
		{"", "lessons", 0.85, "lessons"},         // addMin
		{"", "lessons", 0.7, ""},                 // under addMin
		{"trigger", "lessons", 0.95, "trigger"},  // the trigger stays with the hand rules
		{"symptoms", "lessons", 0.6, "symptoms"}, // the hand route stands at 0.2
	} {
		mm := flatModel(0.2)
		if c.sure != "" {
			mm.Fields[c.sure].Bias = math.Log(c.p / (1 - c.p))
		}
		if got, _ := mm.Route(c.hand, x); got != c.want {
			t.Errorf("Route(%q) with %s at %.2f = %q, want %q", c.hand, c.sure, c.p, got, c.want)
		}
	}
	low := flatModel(0.1) // under dropMin: a hand route goes where the model's best reaches assignMin
	low.Fields["lessons"].Bias = math.Log(0.6 / 0.4)
	if got, p := low.Route("root_cause", x); got != "lessons" || math.Abs(p-0.6) > 1e-9 {
		t.Errorf("vetoed hand route went to %q (%.2f), want lessons", got, p)
	}
	if got, _ := m.Route("root_cause", x); got != "root_cause" {
		t.Errorf("hand route at 0.2 went to %q", got)
	}
	if FieldCap("detection") != 3 || FieldCap("root_cause") != 12 || FieldCap("nothing") != 0 {
		t.Errorf("caps %d %d", FieldCap("detection"), FieldCap("root_cause"))
	}
}
