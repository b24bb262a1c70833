package classify

import (
	"strings"
	"testing"

	"github.com/casebook/casebook/extract"
)

// A live timeline tells its fix as it happens ("we're rebuilding the
// servers") and its end as the service working again.
func TestFixUnderwayAndWorkingAgain(t *testing.T) {
	tests := []struct {
		s   string
		min float64
	}{
		{"[03:40 utc] we're rebuilding the search index from the nightly snapshot.", 1},
		{"we are reverting the config change on all nodes.", 1},
		{"the queue workers are operational again.", 3},
		{"by 14:00 the checkout service was operational again.", 3},
		{"к обеду сайт снова работает.", 3},
		{"после перезапуска всё заработало.", 3},
		{"晚上九点服务重新上线。", 3},
		{"数据库恢复运行，订单正常写入。", 3},
	}
	for _, tc := range tests {
		if sc, _ := sentenceScores(tc.s); sc[fRemediation] < tc.min {
			t.Errorf("sentenceScores(%q)[remediation] = %v, want >= %v", tc.s, sc[fRemediation], tc.min)
		}
	}
}

// An English impact section tells what users saw: a failure stated there
// is a symptom, told with "saw"/"experienced" or not.
func TestImpactFailuresAreSymptomsEN(t *testing.T) {
	md := "# Checkout outage\n\nOn Monday the checkout service went down after a deploy.\n\n## Impact\n\n" +
		"- Two thirds of card payments failed for shoppers in Europe.\n- The outage lasted 42 minutes.\n\n" +
		"## Root cause\n\nThe deploy shipped a config with a wrong database host.\n"
	doc, err := extract.Extract([]byte(md), extract.Options{Format: extract.FormatMarkdown})
	if err != nil {
		t.Fatal(err)
	}
	a := analyse(doc)
	for _, u := range a.units {
		if strings.HasPrefix(u.text, "Two thirds of card payments failed") && u.assigned != fSymptoms {
			t.Errorf("%q: %s, want symptoms", u.text, fieldNames[u.assigned])
		}
	}
}
