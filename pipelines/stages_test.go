package pipelines

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/classify"
	"github.com/casebook/casebook/extract"
)

// bugNote is a made-up short "problem / fix" note: the kind of post the gate
// is unsure about, so its score sits inside every band the test sets.
const bugNote = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Our nightly backup job hung</title></head>
<body><main><article><h1>Our nightly backup job hung</h1>
<p>Last Tuesday the nightly backup of our billing database did not finish. We noticed it the next morning when the report was missing.</p>
<h2>Problem</h2><p>The job waited on a lock held by a long-running migration that someone had started by hand.</p>
<h2>Fix</h2><p>We killed the migration, the backup finished in twenty minutes, and we now run migrations only from the deploy pipeline.</p>
</article></main></body></html>`

// TestClassifyStageBand: a crawled post under the band's low end is skipped
// with its score; from the low end up it is drafted, flagged until the top
// of the band, is_postmortem from the threshold; a manual submission is
// never skipped. The bands are set around the post's own score with the
// real classifier, so the test does not move with a refit of the weights.
func TestClassifyStageBand(t *testing.T) {
	doc, err := extract.Extract([]byte(bugNote), extract.Options{URL: "https://blog.example/backup-hung", Format: "html"})
	if err != nil {
		t.Fatal(err)
	}
	p := classify.New(classify.Config{}).Classify(doc).Relevance.Score
	if p < 0.08 || p > 0.92 {
		t.Fatalf("the note scores %.2f: the bands below need room either side", p)
	}
	at := func(d float64) float64 { return math.Round((p+d)*100) / 100 }
	cases := []struct {
		name                  string
		origin                string
		low, threshold, high  float64
		skipped, flagged, yes bool // yes: is_postmortem
		reason                string
	}{
		{"crawl under the low end is skipped", "crawl:blog", at(0.02), at(0.04), at(0.06), true, false, false, "below"},
		{"manual under the low end is drafted flagged", "manual", at(0.02), at(0.04), at(0.06), false, true, false, ""},
		{"crawl under the threshold is drafted flagged", "crawl:blog", at(-0.02), at(0.02), at(0.04), false, true, false, "under the incident threshold"},
		{"crawl over the threshold, in the band, is flagged", "crawl:blog", at(-0.04), at(-0.02), at(0.02), false, true, true, "uncertain: for"},
		{"crawl over the band is drafted", "crawl:blog", at(-0.06), at(-0.04), at(-0.02), false, false, true, "incident: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := &ClassifyStage{Classifier: classify.New(classify.Config{RelevanceThreshold: c.threshold, RelevanceLow: c.low, RelevanceHigh: c.high})}
			out, err := st.Process(context.Background(), DocTask{Doc: doc, Page: PageRef{SubmissionID: "s1", Origin: c.origin, URL: "https://blog.example/backup-hung"}})
			skip, isSkip := casebook.AsSkip(err)
			if isSkip != c.skipped || (!isSkip && err != nil) {
				t.Fatalf("err %v, want skipped: %v", err, c.skipped)
			}
			if c.skipped {
				if skip.Score != p || !strings.Contains(skip.Reason, c.reason) {
					t.Errorf("skip %+v: want score %.2f and %q in the reason", skip, p, c.reason)
				}
				return
			}
			r := out.Case.Relevance
			if r.Flagged != c.flagged || r.IsPostmortem != c.yes || !strings.Contains(r.Reason, c.reason) {
				t.Errorf("relevance %+v: want flagged %v, is_postmortem %v, %q in the reason", r, c.flagged, c.yes, c.reason)
			}
		})
	}
}
