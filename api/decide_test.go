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
