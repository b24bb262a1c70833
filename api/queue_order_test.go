package api

import (
	"slices"
	"strings"
	"testing"
)

// TestQueuePageByRelevance: the queue page orders by the gate's score when
// asked ("likeliest incident first") and says so, and refuses an unknown
// order or a cursor of the other order.
func TestQueuePageByRelevance(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedDrafts()
	c := browser(t)
	login(t, c, f.srv.URL, f.revTok)
	// order lists the seeded drafts in the order their links stand on page
	order := func(page string) string {
		names := []string{"cert", "zh", "flagged"}
		at := func(name string) int { return strings.Index(page, `href="/review/drafts/`+f.drafts[name]+`"`) }
		slices.SortFunc(names, func(a, b string) int { return at(a) - at(b) })
		return strings.Join(names, ",")
	}
	_, page := get(t, c, f.srv.URL+"/review?sort=relevance")
	if got := order(page); got != "cert,zh,flagged" {
		t.Errorf("by relevance: %s", got)
	}
	if !strings.Contains(page, `<option value="relevance" selected>likeliest incident first</option>`) || !strings.Contains(page, "likeliest incident first</caption>") {
		t.Errorf("the page does not say its order:\n%.3000s", page)
	}
	_, page = get(t, c, f.srv.URL+"/review")
	if got := order(page); got != "zh,flagged,cert" {
		t.Errorf("newest first: %s", got)
	}
	if resp, _ := get(t, c, f.srv.URL+"/review?sort=relevance&cursor=12"); resp.StatusCode != 400 {
		t.Errorf("a newest-first cursor in relevance order: %d, want 400", resp.StatusCode)
	}
	if resp, _ := get(t, c, f.srv.URL+"/review?sort=best"); resp.StatusCode != 400 {
		t.Errorf("sort=best: %d, want 400", resp.StatusCode)
	}
}
