package api

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestDecisionErrors: a reject or merge that fails shows the draft again
// with why above it (role=alert, a fitting status) and what the reviewer
// typed kept, not a bare error page; one another reviewer decided on
// meanwhile shows as it is now.
func TestDecisionErrors(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedCases()
	f.seedDrafts()
	c := browser(t)
	login(t, c, f.srv.URL, f.revTok)
	_, page := get(t, c, f.srv.URL+"/review/drafts/"+f.drafts["cert"])
	csrf := csrfOf(t, page)
	// Another reviewer rejects the zh draft first.
	if _, err := f.store.Reject(f.drafts["zh"], "olga", "duplicate"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		draft  string
		action string
		form   url.Values
		status int
		says   string
		kept   string // on the page again, as typed
	}{
		{"reject without a reason", "cert", "reject", url.Values{"reason": {"  "}}, http.StatusBadRequest, "A reject needs a reason", ""},
		{"reject decided meanwhile", "zh", "reject", url.Values{"reason": {"not an incident"}}, http.StatusConflict, "Not rejected: " + f.drafts["zh"] + " is rejected, not a draft.", ""},
		{"merge into nothing", "cert", "merge", url.Values{"into": {""}, "note": {"same outage"}}, http.StatusBadRequest, "Name the published case to merge into", `value="same outage"`},
		{"merge into an unknown case", "cert", "merge", url.Values{"into": {"CB-9999"}}, http.StatusNotFound, "Not merged: merge target CB-9999 does not exist.", `value="CB-9999"`},
		{"merge into a draft", "cert", "merge", url.Values{"into": {f.drafts["flagged"]}}, http.StatusConflict, "is draft, not published.", `value="` + f.drafts["flagged"] + `"`},
		{"reject too long a reason", "cert", "reject", url.Values{"reason": {strings.Repeat("x", 5000)}}, http.StatusBadRequest, "Reason: is 5000 bytes", strings.Repeat("x", 100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("csrf", csrf)
			resp, page := post(t, c, f.srv.URL+"/review/drafts/"+f.drafts[tc.draft]+"/"+tc.action, tc.form)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
			alert := ""
			if i := strings.Index(page, `<p class="error" role="alert">`); i >= 0 {
				alert = html.UnescapeString(page[i : i+strings.Index(page[i:], "</p>")])
			}
			if !strings.Contains(alert, tc.says) {
				t.Errorf("alert %q, want %q", alert, tc.says)
			}
			if !strings.Contains(page, `<article`) && !strings.Contains(page, `id="edit-form"`) {
				t.Errorf("not the draft page:\n%.800s", page)
			}
			if tc.kept != "" && !strings.Contains(page, tc.kept) {
				t.Errorf("the typed input %q is not on the page again", tc.kept)
			}
		})
	}
	// Nothing was decided by any of them.
	if d, _, _ := f.store.GetCase(f.drafts["cert"]); d.Status != "draft" {
		t.Errorf("cert draft is %s", d.Status)
	}
}

// TestDecisionKeepsLane: a draft opened from the flagged lane links back to
// it, and saving or rejecting it returns there, so a reviewer working
// through the lane is not sent to "all drafts" after each one.
func TestDecisionKeepsLane(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedDrafts()
	c := browser(t)
	login(t, c, f.srv.URL, f.revTok)
	_, lane := get(t, c, f.srv.URL+"/review?flagged=true")
	if !strings.Contains(lane, `href="/review/drafts/`+f.drafts["flagged"]+`?lane=flagged"`) {
		t.Fatalf("the flagged lane does not open drafts in the lane:\n%.2000s", lane)
	}
	for _, tc := range []struct {
		lane, back, backText string
	}{
		{"flagged", `href="/review?flagged=true"`, "← Flagged lane"},
		{"", `href="/review"`, "← Review queue"},
		{"bogus", `href="/review"`, "← Review queue"},
	} {
		_, page := get(t, c, f.srv.URL+"/review/drafts/"+f.drafts["flagged"]+"?lane="+tc.lane)
		if !strings.Contains(page, `<a id="back" `+tc.back+`>`+tc.backText+`</a>`) {
			t.Errorf("lane %q: no back link %s", tc.lane, tc.back)
		}
	}
	_, page := get(t, c, f.srv.URL+"/review/drafts/"+f.drafts["flagged"]+"?lane=flagged")
	csrf := csrfOf(t, page)
	for _, tc := range []struct {
		path string
		form url.Values
		to   string // the redirect's start
	}{
		{"/review/drafts/" + f.drafts["flagged"], url.Values{"action": {"save"}, "title": {"Наш опыт с Kubernetes (заметки)"}, "lane": {"flagged"}}, "/review/drafts/" + f.drafts["flagged"] + "?lane=flagged&notice="},
		{"/review/drafts/" + f.drafts["flagged"] + "/reject", url.Values{"reason": {"notes, not an incident"}, "lane": {"flagged"}}, "/review?flagged=true&notice="},
		{"/review/drafts/" + f.drafts["zh"] + "/reject", url.Values{"reason": {"duplicate"}}, "/review?notice="},
	} {
		tc.form.Set("csrf", csrf)
		resp, body := post(t, c, f.srv.URL+tc.path, tc.form)
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, tc.to) {
			t.Errorf("POST %s: %d to %q, want %s…\n%.500s", tc.path, resp.StatusCode, loc, tc.to, body)
		}
	}
}

// TestFormAfterSessionEnded: a review form sent once the session is gone
// (expired, or logged out in another tab) answers the login form, which
// returns to the form's page, instead of a bare 401 page.
func TestFormAfterSessionEnded(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedDrafts()
	seedSkipped(t, f.store, "blog-e", 1)
	c := browser(t)
	for _, tc := range []struct{ path, next string }{
		{"/review/drafts/" + f.drafts["cert"] + "/reject", "/review/drafts/" + f.drafts["cert"]},
		{"/review/drafts/" + f.drafts["cert"], "/review/drafts/" + f.drafts["cert"]},
		{"/review/skipped/sub-00000001/draft", "/review/skipped"},
		{"/review/tokens", "/review/tokens"},
	} {
		resp, page := post(t, c, f.srv.URL+tc.path, url.Values{"csrf": {"x"}, "reason": {"typed"}})
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(page, `id="token"`) || !strings.Contains(page, "Your session has ended") ||
			!strings.Contains(page, `name="next" value="`+tc.next+`"`) {
			t.Errorf("POST %s: %d, want 401 with the login form going on to %s\n%.1500s", tc.path, resp.StatusCode, tc.next, page)
		}
	}
	// Logging in from that form goes back to the page.
	_, page := post(t, c, f.srv.URL+"/review/drafts/"+f.drafts["cert"]+"/reject", url.Values{"csrf": {"x"}})
	resp, _ := post(t, c, f.srv.URL+"/login", url.Values{"csrf": {csrfOf(t, page)}, "token": {f.revTok}, "next": {"/review/drafts/" + f.drafts["cert"]}})
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/review/drafts/"+f.drafts["cert"] {
		t.Errorf("login: %d to %q", resp.StatusCode, loc)
	}
	// Logging out without a session is done already.
	c2 := browser(t)
	if resp, _ := post(t, c2, f.srv.URL+"/logout", url.Values{"csrf": {"x"}}); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Errorf("logout without a session: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}
