package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/api"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines"
	"github.com/casebook/casebook/pipelines/crawl"
	"github.com/casebook/casebook/sinks"
	"github.com/chromedp/chromedp"
)

// TestBrowserReviewLanes drives Chromium through the flagged lane and the
// skipped list of issue #10 against the real pipeline (embedded NATS,
// bbolt, loopback HTTP): two crawled posts the gate skips and a manual one
// it drafts flagged; the reviewer sees the flagged draft with its reason,
// the skipped posts with score and reason, filters them by source, presses
// "Draft it" with the keyboard and sees the new draft reach the queue.
func TestBrowserReviewLanes(t *testing.T) {
	br := api.NewChrome(t) // skips without chromium, before NATS starts
	site := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("testdata", "lanes"))))
	t.Cleanup(site.Close)
	svc, err := pipelines.Start(context.Background(), pipelines.ServeConfig{
		DataDir: t.TempDir(), HTTPAddr: "127.0.0.1:0", Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Fetch:  fetch.Config{AllowPrivateNetworks: true},
		Runner: pipelines.RunnerConfig{Concurrency: 2, Backoff: func(int) time.Duration { return 200 * time.Millisecond }},
		// Every post is on one local host.
		Politeness: crawl.Politeness{MinDelay: 10 * time.Millisecond},
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { svc.Close() })
	base := "http://" + svc.Addr
	tok, _, err := svc.Store.AddToken("rita", sinks.RoleReviewer)
	if err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	posts := []struct{ name, path, origin, source, want string }{
		{"guide", "/index-guide.html", "crawl:blog-a", "blog-a", casebook.StateSkipped},
		{"howto", "/alerting-howto.html", "crawl:blog-b", "blog-b", casebook.StateSkipped},
		{"runbook", "/runbook-guide.html", "manual", "", casebook.StateDrafted},
	}
	subs := map[string]sinks.SubmissionRecord{}
	for _, p := range posts {
		rec, _, err := svc.Submitter.Submit(ctx, site.URL+p.path, p.origin, p.source)
		if err != nil {
			t.Fatalf("submit %s: %v", p.name, err)
		}
		subs[p.name] = rec
	}
	for _, p := range posts {
		rec := waitState(t, svc.Store, subs[p.name].ID, func(r sinks.SubmissionRecord) bool { return terminal(r.State) })
		if rec.State != p.want || rec.Reason == "" && p.want == casebook.StateSkipped {
			t.Fatalf("%s: %s %q %q, want %s with a reason", p.name, rec.State, rec.Reason, rec.Error, p.want)
		}
		subs[p.name] = rec
	}
	flagged, _, err := svc.Store.GetCase(subs["runbook"].DraftID)
	if err != nil || !flagged.Relevance.Flagged || flagged.Relevance.Reason == "" {
		t.Fatalf("the manual guide's draft should be flagged with a reason: %v %+v", err, flagged.Relevance)
	}

	// Log in; the queue opens on the "all drafts" tab.
	br.Step("login", chromedp.Navigate(base+"/login"), chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SetValue(chromedp.CSS("#token"), tok), chromedp.Click(chromedp.CSS("#login")),
		chromedp.WaitVisible(chromedp.CSS(`#tab-all[aria-current="page"]`)))

	// The flagged tab: only its page has table#drafts[data-lane=flagged].
	br.Step("flagged tab", chromedp.Click(chromedp.CSS("#tab-flagged")),
		chromedp.WaitVisible(chromedp.CSS(`table#drafts[data-lane="flagged"]`)))
	if tab := br.Text("#tab-flagged"); !strings.Contains(tab, "(1)") {
		t.Errorf("flagged tab %q: want its count, 1", tab)
	}
	row := `#drafts tr:has(a[href="/review/drafts/` + flagged.ID + `?lane=flagged"])`
	if got := br.Text(row + " .relevance-reason"); got != flagged.Relevance.Reason {
		t.Errorf("flagged row's reason %q, want the gate's %q", got, flagged.Relevance.Reason)
	}
	if got := br.Text(row + " .badge.warn"); got != "flagged" {
		t.Errorf("flagged row's badge %q", got)
	}
	br.AuditHere("flagged-lane")
	br.Step("open the flagged draft", chromedp.Click(chromedp.CSS(row+" a.draft-link")), chromedp.WaitVisible(chromedp.CSS("#edit-form")))
	if got := br.Text(".relevance-reason"); got != flagged.Relevance.Reason {
		t.Errorf("draft page reason %q, want %q", got, flagged.Relevance.Reason)
	}

	// The skipped list: both crawled posts, with score and reason; its tab
	// carries the count on the queue's pages and its own.
	br.Step("skipped list", chromedp.Navigate(base+"/review?flagged=true"), chromedp.WaitVisible(chromedp.CSS(`table#drafts[data-lane="flagged"]`)))
	if tab := br.Text("#tab-skipped"); !strings.Contains(tab, "(2)") {
		t.Errorf("skipped tab on the queue %q: want its count, 2", tab)
	}
	br.Step("skipped tab", chromedp.Click(chromedp.CSS("#tab-skipped")), chromedp.WaitVisible(chromedp.CSS("table#skipped")))
	if tab := br.Text("#tab-skipped"); !strings.Contains(tab, "(2)") {
		t.Errorf("skipped tab %q: want its count, 2", tab)
	}
	for _, name := range []string{"guide", "howto"} {
		rec := subs[name]
		tr := `#skipped tr[id="` + rec.ID + `"]`
		if br.Count(tr) != 1 {
			t.Fatalf("%s (%s) is not on the skipped list", name, rec.ID)
		}
		if !rec.GateScored() || rec.Score < 0 || rec.Score >= 0.45 {
			t.Errorf("%s: the gate's score %v is not recorded (or not a skip's)", name, rec.Score)
		}
		if got, want := br.Text(tr+" .score"), strconv.Itoa(int(rec.Score*100+0.5))+"%"; got != want {
			t.Errorf("%s: score %q, want %q", name, got, want)
		}
		if got := br.Text(tr + " .reason"); got != rec.Reason || !strings.Contains(got, "not an incident") {
			t.Errorf("%s: reason %q, want %q", name, got, rec.Reason)
		}
	}
	br.AuditHere("skipped-list")

	// Filter by source with the keyboard (type, Enter); only the filtered
	// page carries data-source.
	br.Step("filter by source", chromedp.SendKeys(chromedp.CSS(`input[name="source"]`), "blog-a\r"),
		chromedp.WaitVisible(chromedp.CSS(`table#skipped[data-source="blog-a"]`)))
	guide := subs["guide"]
	if n, other := br.Count(`#skipped tbody tr[id]`), br.Count(`#skipped tr[id="`+subs["howto"].ID+`"]`); n != 1 || other != 0 {
		t.Fatalf("source=blog-a lists %d posts (blog-b's: %d), want blog-a's one", n, other)
	}
	if tab := br.Text("#tab-skipped"); !strings.Contains(tab, "(1 of 2)") {
		t.Errorf("filtered skipped tab %q: want 1 of 2", tab)
	}

	// "Draft it", pressed with the keyboard: the notice is on the page the
	// redirect lands on (the filter kept), the post leaves the list.
	br.Step("draft it", chromedp.Focus(chromedp.CSS(`#skipped tr[id="`+guide.ID+`"] button.draft-skipped`)), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS("p.notice")))
	if loc, _ := chromedp.Run(br.Ctx, chromedp.Location()); !strings.Contains(loc, "source=blog-a") {
		t.Errorf("after draft it at %s: the source filter was dropped", loc)
	}
	if br.Count(`#skipped tr[id="`+guide.ID+`"]`) != 0 || !strings.Contains(br.Text("p.notice"), guide.ID) {
		t.Errorf("after draft it: the post is still listed or the notice %q does not name it", br.Text("p.notice"))
	}
	if tab := br.Text("#tab-skipped"); !strings.Contains(tab, "(0 of 1)") {
		t.Errorf("after draft it, the skipped tab %q: want 0 of 1", tab)
	}

	// The pipeline drafts it; the queue shows it (flagged: the gate
	// still thinks it a guide) once done. Poll the page, not the store.
	rec := waitState(t, svc.Store, guide.ID, func(r sinks.SubmissionRecord) bool { return terminal(r.State) && r.Origin == sinks.OriginReview })
	if rec.State != casebook.StateDrafted {
		t.Fatalf("draft it: %s %q %q", rec.State, rec.Reason, rec.Error)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		br.Step("queue", chromedp.Navigate(base+"/review?flagged=true"), chromedp.WaitVisible(chromedp.CSS(`table#drafts[data-lane="flagged"]`)))
		if br.Count(`#drafts a[href="/review/drafts/`+rec.DraftID+`?lane=flagged"]`) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("draft %s of %s never reached the flagged lane", rec.DraftID, guide.ID)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if got := br.Text(`#drafts tr:has(a[href="/review/drafts/` + rec.DraftID + `?lane=flagged"]) a.draft-link`); got != "How to choose a database index" {
		t.Errorf("redrafted title %q", got)
	}
	if tab := br.Text("#tab-flagged"); !strings.Contains(tab, "(2)") {
		t.Errorf("flagged tab %q after draft it: want 2", tab)
	}

	// Working through the lane: reject the manual guide from it and land
	// back on the flagged lane (not "all drafts"), one draft fewer.
	br.Step("open from the lane", chromedp.Click(chromedp.CSS(row+" a.draft-link")), chromedp.WaitVisible(chromedp.CSS("#reject-form")))
	if back := br.Text("#back"); !strings.Contains(back, "Flagged lane") {
		t.Errorf("back link %q", back)
	}
	br.Step("reject from the lane", chromedp.SendKeys(chromedp.CSS("#reason"), "a runbook guide, not an incident"), chromedp.Click(chromedp.CSS("#reject")),
		chromedp.WaitVisible(chromedp.CSS("p.notice")))
	if br.Count(`table#drafts[data-lane="flagged"]`) != 1 || !strings.Contains(br.Text("#tab-flagged"), "(1)") || br.Count(row) != 0 {
		t.Errorf("after the reject: not back on the flagged lane with one draft left (tab %q)", br.Text("#tab-flagged"))
	}

	// The same pages at phone width, with axe-core.
	br.Phone()
	br.Audit("flagged-lane", base+"/review?flagged=true", `table#drafts[data-lane="flagged"]`)
	br.Audit("skipped-filtered", base+"/review/skipped?source=blog-b", `table#skipped[data-source="blog-b"]`)
	br.Audit("skipped-empty", base+"/review/skipped?source=blog-z", `table#skipped[data-source="blog-z"]`)
	if got := br.Text("#skipped td.empty"); !strings.Contains(got, "blog-z") {
		t.Errorf("empty filtered list says %q", got)
	}
}

func terminal(state string) bool {
	return state == casebook.StateDrafted || state == casebook.StateSkipped || state == casebook.StateFailed
}

// waitState polls the store until done holds for the submission (60 s:
// the pipeline under -race on shared cores).
func waitState(t *testing.T, st *sinks.Store, id string, done func(sinks.SubmissionRecord) bool) sinks.SubmissionRecord {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		rec, err := st.GetSubmission(id)
		if err == nil && done(rec) {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("submission %s: still %s %q (%v)", id, rec.State, rec.Error, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
