package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
)

// seedSkipped records n crawled posts of source src that the gate skipped.
func seedSkipped(t *testing.T, st *sinks.Store, src string, n int) []string {
	t.Helper()
	var ids []string
	for i := 0; i < n; i++ {
		u := fmt.Sprintf("https://%s.example/guide-%d", src, i)
		rec, _, err := st.CreateSubmission(u, u, "crawl:"+src, src)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Progress(rec.ID, casebook.StateSkipped, "not an incident write-up (guide: second person, no dated event)", "", ""); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	return ids
}

func TestSkippedListAPI(t *testing.T) {
	f := newFixture(t, Config{})
	a := seedSkipped(t, f.store, "blog-a", 3)
	seedSkipped(t, f.store, "blog-b", 2)

	type page struct {
		Items []struct {
			ID, URL, State, Reason, Source string
			Score                          float64
		} `json:"items"`
		NextCursor string `json:"next_cursor"`
	}
	resp, _ := do(t, "GET", f.srv.URL+"/api/v1/review/skipped", "", nil)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("anonymous: %d, want 401", resp.StatusCode)
	}
	seen, cursor := 0, ""
	for i := 0; ; i++ {
		resp, body := do(t, "GET", f.srv.URL+"/api/v1/review/skipped?limit=2&cursor="+url.QueryEscape(cursor), f.revTok, nil)
		var p page
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &p) != nil {
			t.Fatalf("page %d: %d %s", i, resp.StatusCode, body)
		}
		for _, it := range p.Items {
			if it.State != casebook.StateSkipped || !strings.Contains(it.Reason, "second person") || it.Source == "" {
				t.Errorf("item %+v", it)
			}
		}
		seen += len(p.Items)
		if p.NextCursor == "" || i > 5 {
			break
		}
		cursor = p.NextCursor
	}
	if seen != 5 {
		t.Fatalf("%d skipped posts over the pages, want 5", seen)
	}
	_, body := do(t, "GET", f.srv.URL+"/api/v1/review/skipped?source=blog-a", f.revTok, nil)
	var onlyA page
	if json.Unmarshal([]byte(body), &onlyA); len(onlyA.Items) != 3 {
		t.Fatalf("source=blog-a: %s", body)
	}
	if resp, _ := do(t, "GET", f.srv.URL+"/api/v1/review/skipped?bogus=1", f.revTok, nil); resp.StatusCode != 400 {
		t.Errorf("unknown parameter: %d", resp.StatusCode)
	}

	// Draft one: 202, queued as a reviewer's request, off the list; twice is 409.
	resp, body = do(t, "POST", f.srv.URL+"/api/v1/review/skipped/"+a[0]+"/draft", f.revTok, nil)
	var sub casebook.Submission
	if resp.StatusCode != http.StatusAccepted || json.Unmarshal([]byte(body), &sub) != nil || sub.State != casebook.StateQueued || sub.Origin != sinks.OriginReview {
		t.Fatalf("draft: %d %s", resp.StatusCode, body)
	}
	if resp, _ := do(t, "POST", f.srv.URL+"/api/v1/review/skipped/"+a[0]+"/draft", f.revTok, nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("second draft: %d, want 409", resp.StatusCode)
	}
	if resp, _ := do(t, "POST", f.srv.URL+"/api/v1/review/skipped/sub-99999999/draft", f.revTok, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown: %d, want 404", resp.StatusCode)
	}
	_, body = do(t, "GET", f.srv.URL+"/api/v1/review/skipped?source=blog-a", f.revTok, nil)
	if json.Unmarshal([]byte(body), &onlyA); len(onlyA.Items) != 2 {
		t.Fatalf("after drafting one: %s", body)
	}
}

func TestSkippedListWeb(t *testing.T) {
	f := newFixture(t, Config{})
	ids := seedSkipped(t, f.store, "blog-c", 2)
	c := browser(t)
	if resp, _ := get(t, c, f.srv.URL+"/review/skipped"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("anonymous: %d, want a redirect to log in", resp.StatusCode)
	}
	login(t, c, f.srv.URL, f.revTok)
	_, queue := get(t, c, f.srv.URL+"/review")
	if !strings.Contains(queue, `href="/review/skipped"`) || !strings.Contains(queue, `href="/review?flagged=true"`) {
		t.Fatal("the queue does not link the flagged lane and the skipped list")
	}
	resp, page := get(t, c, f.srv.URL+"/review/skipped")
	if resp.StatusCode != 200 || !strings.Contains(page, "blog-c.example/guide-1") || !strings.Contains(page, "second person") ||
		!strings.Contains(page, `action="/review/skipped/`+ids[1]+`/draft"`) {
		t.Fatalf("skipped page: %d\n%.1500s", resp.StatusCode, page)
	}
	if resp, _ := post(t, c, f.srv.URL+"/review/skipped/"+ids[1]+"/draft", url.Values{"csrf": {"00"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("draft without the CSRF token: %d, want 403", resp.StatusCode)
	}
	resp, _ = post(t, c, f.srv.URL+"/review/skipped/"+ids[1]+"/draft", url.Values{"csrf": {csrfOf(t, page)}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("draft: %d", resp.StatusCode)
	}
	rec, err := f.store.GetSubmission(ids[1])
	if err != nil || rec.State != casebook.StateQueued || rec.Origin != sinks.OriginReview || !strings.Contains(rec.Reason, "rita") {
		t.Fatalf("after the button: %+v %v", rec, err)
	}
	_, page = get(t, c, f.srv.URL+"/review/skipped")
	if strings.Contains(page, "guide-1") || !strings.Contains(page, "guide-0") {
		t.Fatal("the drafted post is still listed, or the other one is gone")
	}
}

// TestDraftPageShowsRelevanceReason: a flagged draft's page says which
// signals made the gate unsure.
func TestDraftPageShowsRelevanceReason(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedDrafts()
	c := browser(t)
	login(t, c, f.srv.URL, f.revTok)
	resp, page := get(t, c, f.srv.URL+"/review/drafts/"+f.drafts["flagged"])
	if resp.StatusCode != 200 || !strings.Contains(page, "(uncertain)") || !strings.Contains(page, "guide: second person, no dated event") {
		t.Fatalf("draft page: %d\n%.1200s", resp.StatusCode, page)
	}
}
