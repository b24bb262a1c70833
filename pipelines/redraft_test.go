package pipelines_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/casebook/casebook"
)

// TestSkippedPostRedrafted: a crawled guide is skipped by the gate, stays
// listed with its reason, and a reviewer's "draft it" sends it through the
// real pipeline again (embedded NATS, bbolt, loopback HTTP) to a draft.
func TestSkippedPostRedrafted(t *testing.T) {
	guide := `<!doctype html><html lang="en"><head><title>How to choose a database index</title></head><body><article>
<h1>How to choose a database index</h1>
<p>You should pick an index by the queries you run most often. If your table is small, you may not need one at all.</p>
<p>First, list your queries. Then look at the columns in their filters. You can use a composite index when two columns are always filtered together.</p>
<p>Remember that each index makes writes a little slower, so you should not add indexes you do not use.</p>
<h2>Options</h2><ul><li>B-tree indexes for ranges</li><li>Hash indexes for equality</li><li>Partial indexes for hot subsets</li></ul>
<p>In the next post we will compare these options with benchmarks you can run yourself.</p>
</article></body></html>`
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(guide))
	}))
	t.Cleanup(site.Close)
	svc, c := startService(t, t.TempDir())
	t.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	rec, _, err := svc.Submitter.Submit(ctx, site.URL+"/guides/index", "crawl:test-blog", "test-blog")
	if err != nil {
		t.Fatal(err)
	}
	if sub := waitTerminal(t, c, rec.ID); sub.State != casebook.StateSkipped || sub.Reason == "" {
		t.Fatalf("crawled guide: %s %q, want skipped with a reason", sub.State, sub.Reason)
	}
	skipped, _, err := svc.Store.ListSkipped("test-blog", "", 10)
	if err != nil || len(skipped) != 1 || skipped[0].ID != rec.ID || !skipped[0].Scored {
		t.Fatalf("skipped list: %+v %v", skipped, err)
	}
	var queued casebook.Submission
	if _, err := c.Do(ctx, "POST", "/api/v1/review/skipped/"+rec.ID+"/draft", nil, &queued); err != nil {
		t.Fatal(err)
	}
	sub := waitTerminal(t, c, rec.ID)
	if sub.State != casebook.StateDrafted || sub.DraftID == "" {
		t.Fatalf("after draft it: %s %q %q", sub.State, sub.Reason, sub.Error)
	}
	var draft casebook.Case
	if _, err := c.Do(ctx, "GET", "/api/v1/review/drafts/"+sub.DraftID, nil, &draft); err != nil {
		t.Fatal(err)
	}
	if draft.Relevance.IsPostmortem && !draft.Relevance.Flagged {
		t.Errorf("a guide drafted on request should be flagged or not an incident: %+v", draft.Relevance)
	}
}
