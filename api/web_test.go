package api

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/casebook/casebook"
)

func TestEvidenceSegments(t *testing.T) {
	text := "abc déf ghi"
	for _, tc := range []struct {
		name string
		ev   map[string][]casebook.Span
		want string // segments as text|fields;...
	}{
		{"none", nil, "abc déf ghi|"},
		{"one", map[string][]casebook.Span{"symptoms": {{Start: 4, End: 8}}}, "abc |;déf|symptoms; ghi|"},
		{"overlap", map[string][]casebook.Span{"symptoms": {{Start: 0, End: 8}}, "root_cause": {{Start: 4, End: 12}}},
			"abc |symptoms;déf|symptoms,root_cause; ghi|root_cause"},
		// 5 is inside "é": moved to the next rune start; out-of-range ends are clamped.
		{"mid-rune and clamp", map[string][]casebook.Span{"lessons": {{Start: 5, End: 999}}}, "abc d|;éf ghi|lessons"},
		{"empty and inverted", map[string][]casebook.Span{"lessons": {{Start: 3, End: 3}, {Start: 8, End: 2}}}, "ab|;c|; déf|; ghi|"},
	} {
		var parts []string
		for _, s := range evidenceSegments(text, tc.ev) {
			parts = append(parts, s.Text+"|"+strings.Join(s.Fields, ","))
		}
		if got := strings.Join(parts, ";"); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// browser is a cookie-keeping client that does not follow redirects.
func browser(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func get(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func post(t *testing.T, c *http.Client, u string, form url.Values, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfRe.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field in page:\n%.500s", page)
	}
	return m[1]
}

// login logs c in with token and returns the session's CSRF token.
func login(t *testing.T, c *http.Client, base, token string) string {
	t.Helper()
	_, page := get(t, c, base+"/login?next=/review")
	resp, _ := post(t, c, base+"/login", url.Values{"csrf": {csrfOf(t, page)}, "token": {token}, "next": {"/review"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/review" {
		t.Fatalf("login: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	_, page = get(t, c, base+"/review")
	return csrfOf(t, page)
}

func TestWebPages(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedCases()
	f.seedDrafts()
	base := f.srv.URL
	c := browser(t)

	// Public pages.
	for _, tc := range []struct {
		path   string
		status int
		want   []string
	}{
		{"/", 200, []string{"Kafka brokers ran out of disk", "DNS解析超时导致服务不可用", `href="/topics/kubernetes"`, `href="/api/v1/feed.json"`, `href="/api/v1/export.csv"`}},
		{"/?q=" + url.QueryEscape("数据库"), 200, []string{"DNS解析超时导致服务不可用", "1 case matches"}},
		{"/?q=" + url.QueryEscape("дисков"), 200, []string{"Отказ базы данных"}},
		{"/?category=network", 200, []string{"DNS解析超时", "1 case matches the filters"}},
		{"/cases/CB-0001", 200, []string{`class="facts"`, "Organization", "Acme", "Root cause", "Remediation", "Sources", "Related cases", "CB-0002"}},
		{"/cases/CB-9999", 404, []string{"not found"}},
		{"/cases/" + f.drafts["cert"], 404, nil},
		{"/topics/k8s", 200, []string{"Topic: kubernetes", "2 published cases"}},
		{"/topics/zzz-none", 404, nil},
		{"/static/style.css", 200, []string{"@media"}},
	} {
		resp, body := get(t, c, base+tc.path)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: %d, want %d", tc.path, resp.StatusCode, tc.status)
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: no %q", tc.path, w)
			}
		}
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") && resp.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: no CSP", tc.path)
		}
	}
	// Home page "a case" on filter for the drafts is absent: drafts are not public.
	if _, body := get(t, c, base+"/"); strings.Contains(body, "Expired certificate") {
		t.Fatal("a draft is listed publicly")
	}

	// Review pages need a session.
	resp, _ := get(t, c, base+"/review/drafts/"+f.drafts["cert"])
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login?next=") {
		t.Fatalf("review without session: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := post(t, c, base+"/review/drafts/"+f.drafts["cert"]+"/reject", url.Values{"reason": {"x"}}); resp.StatusCode != 401 {
		t.Fatalf("POST without session: %d", resp.StatusCode)
	}

	// Login: CSRF double-submit, wrong token, then a good one.
	_, page := get(t, c, base+"/login")
	tok := csrfOf(t, page)
	if resp, _ := post(t, c, base+"/login", url.Values{"csrf": {"00"}, "token": {f.revTok}}); resp.StatusCode != 403 {
		t.Fatalf("login with a wrong CSRF token: %d", resp.StatusCode)
	}
	if resp, body := post(t, c, base+"/login", url.Values{"csrf": {tok}, "token": {"cbk_nope"}}); resp.StatusCode != 401 || !strings.Contains(body, "not valid") {
		t.Fatalf("login with a bad token: %d", resp.StatusCode)
	}
	_, page = get(t, c, base+"/login")
	resp, _ = post(t, c, base+"/login", url.Values{"csrf": {csrfOf(t, page)}, "token": {f.revTok}, "next": {"//evil.example/"}})
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "/review" {
		t.Fatalf("login: %d %s (an off-site next must not be followed)", resp.StatusCode, resp.Header.Get("Location"))
	}
	var sc *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == sessionCookie {
			sc = ck
		}
	}
	if sc == nil || !sc.HttpOnly || sc.SameSite != http.SameSiteStrictMode || sc.Secure || sc.MaxAge <= 0 {
		t.Fatalf("session cookie %+v", sc)
	}

	// Queue and draft page: evidence highlighted beside the fields.
	_, body := get(t, c, base+"/review")
	csrf := csrfOf(t, body)
	for _, w := range []string{"3 drafts", "flagged", f.drafts["cert"], "Expired certificate broke checkout"} {
		if !strings.Contains(body, w) {
			t.Errorf("queue: no %q", w)
		}
	}
	if _, body := get(t, c, base+"/review?language=ru"); strings.Contains(body, "Expired certificate") || !strings.Contains(body, "Kubernetes") {
		t.Errorf("queue filter by language")
	}
	draftURL := base + "/review/drafts/" + f.drafts["cert"]
	_, body = get(t, c, draftURL)
	for _, w := range []string{`<mark class="ev f-root_cause" id="ev-root_cause"`, `href="#ev-root_cause"`, "The root cause was an expired TLS certificate", `name="root_cause.category"`, `value="expiry" selected`, "Approve and publish", "80%",
		`<details class="suggest"><summary>Suggested, left empty (low confidence)</summary><ul><li>Certificates need an owner and an expiry alert.</li>`} {
		if !strings.Contains(body, w) {
			t.Errorf("draft page: no %q", w)
		}
	}
	// a suggestion is offered, not filled in
	if strings.Contains(body, `rows="3">Certificates need an owner`) || strings.Count(body, `class="suggest"`) != 1 {
		t.Errorf("draft page: the lessons suggestion was filled in or shown for other fields")
	}

	form := url.Values{"csrf": {csrf}, "action": {"save"}, "title": {"Expired TLS certificate broke checkout"}, "language": {"en"},
		"summary": {"An expired certificate broke checkout."}, "tags": {"ssl, k8s"}, "components": {"load-balancer", "certificates"},
		"root_cause.category": {"expiry"}, "root_cause.description": {"An expired certificate."}, "trigger.kind": {"time"},
		"detection.method": {"automated-alert"}, "remediation": {"Renewed the certificate\nAdded expiry alerts"}}
	// CSRF: missing, wrong, or a foreign Origin are refused.
	bad := url.Values{}
	for k, v := range form {
		bad[k] = v
	}
	bad.Set("csrf", "")
	if resp, _ := post(t, c, draftURL, bad); resp.StatusCode != 403 {
		t.Fatalf("edit without CSRF: %d", resp.StatusCode)
	}
	if resp, _ := post(t, c, draftURL, form, "Origin", "https://evil.example"); resp.StatusCode != 403 {
		t.Fatalf("edit from another origin: %d", resp.StatusCode)
	}
	// An invalid label is refused with the form shown again.
	badLabel := url.Values{}
	for k, v := range form {
		badLabel[k] = v
	}
	badLabel.Set("root_cause.category", "gremlins")
	if resp, body := post(t, c, draftURL, badLabel); resp.StatusCode != 400 || !strings.Contains(body, "not in the vocabulary") || !strings.Contains(body, "Expired TLS certificate broke checkout") {
		t.Fatalf("invalid label: %d", resp.StatusCode)
	}
	resp, _ = post(t, c, draftURL, form)
	if resp.StatusCode != 303 || !strings.Contains(resp.Header.Get("Location"), "notice=Saved") {
		t.Fatalf("save: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	d, _, _ := f.store.GetCase(f.drafts["cert"])
	if d.Title != "Expired TLS certificate broke checkout" || strings.Join(d.Tags, ",") != "tls,kubernetes" || d.Trigger.Kind != "time" || len(d.Remediation) != 2 {
		t.Fatalf("saved draft: %q %v %s %v", d.Title, d.Tags, d.Trigger.Kind, d.Remediation)
	}
	form.Set("action", "approve")
	resp, _ = post(t, c, draftURL, form)
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "/cases/CB-0004" {
		t.Fatalf("approve: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Reject: a reason is required.
	rejURL := base + "/review/drafts/" + f.drafts["flagged"] + "/reject"
	if resp, body := post(t, c, rejURL, url.Values{"csrf": {csrf}, "reason": {""}}); resp.StatusCode != 400 || !strings.Contains(body, "needs a reason") {
		t.Fatalf("reject without reason: %d", resp.StatusCode)
	}
	if resp, _ := post(t, c, rejURL, url.Values{"csrf": {csrf}, "reason": {"not a postmortem"}}); resp.StatusCode != 303 {
		t.Fatalf("reject: %d", resp.StatusCode)
	}
	// Merge from the page.
	if resp, _ := post(t, c, base+"/review/drafts/"+f.drafts["zh"]+"/merge", url.Values{"csrf": {csrf}, "into": {"CB-0003"}}); resp.StatusCode != 303 || resp.Header.Get("Location") != "/cases/CB-0003" {
		t.Fatalf("merge: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	// History page.
	if _, body := get(t, c, base+"/review/cases/CB-0004/history"); !strings.Contains(body, "edited") || !strings.Contains(body, "approved") || !strings.Contains(body, "rita") {
		t.Fatalf("history page lacks entries")
	}
	// Tokens page is for admins.
	if resp, _ := get(t, c, base+"/review/tokens"); resp.StatusCode != 403 {
		t.Fatalf("reviewer on tokens page: %d", resp.StatusCode)
	}
	// Logout ends the session.
	if resp, _ := post(t, c, base+"/logout", url.Values{"csrf": {csrf}}); resp.StatusCode != 303 {
		t.Fatalf("logout: %d", resp.StatusCode)
	}
	if resp, _ := get(t, c, base+"/review"); resp.StatusCode != 303 {
		t.Fatalf("after logout: %d", resp.StatusCode)
	}

	// Admin: issue and revoke a token; the revoked token's session ends.
	a := browser(t)
	acsrf := login(t, a, base, f.adminTok)
	resp, body = post(t, a, base+"/review/tokens", url.Values{"csrf": {acsrf}, "name": {"noor"}, "role": {"reviewer"}})
	m := regexp.MustCompile(`id="new-token">(cbk_[0-9a-f]+)<`).FindStringSubmatch(body)
	if resp.StatusCode != 200 || m == nil {
		t.Fatalf("issue token: %d", resp.StatusCode)
	}
	n := browser(t)
	login(t, n, base, m[1])
	rv, _ := f.store.Authenticate(m[1])
	if resp, _ := post(t, a, base+"/review/tokens/"+rv.ID+"/revoke", url.Values{"csrf": {acsrf}}); resp.StatusCode != 303 {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	if resp, _ := get(t, n, base+"/review"); resp.StatusCode != 303 {
		t.Fatalf("session of a revoked token: %d", resp.StatusCode)
	}
}

func FuzzEvidenceSegments(f *testing.F) {
	f.Add("We saw errors. The cause was DNS.", 3, 14, 15, 33)
	f.Add("数据库故障导致服务不可用", 1, 7, 5, 100)
	f.Add("", 0, 0, -5, 2)
	f.Fuzz(func(t *testing.T, text string, a, b, c, d int) {
		ev := map[string][]casebook.Span{"symptoms": {{Start: a, End: b}}, "root_cause": {{Start: c, End: d}}}
		var joined strings.Builder
		for _, s := range evidenceSegments(text, ev) {
			if s.Text == "" {
				t.Fatalf("empty segment for %q %v", text, ev)
			}
			joined.WriteString(s.Text)
		}
		want := text
		if len(want) > evidenceMaxBytes {
			want = want[:evidenceMaxBytes]
		}
		if joined.String() != want {
			t.Fatalf("segments do not rebuild the text: %q vs %q", joined.String(), want)
		}
	})
}

func TestSessionCookieSecureOverTLS(t *testing.T) {
	f := newFixture(t, Config{})
	tlsSrv := httptest.NewTLSServer(f.srv.Config.Handler)
	defer tlsSrv.Close()
	c := tlsSrv.Client()
	jar, _ := cookiejar.New(nil)
	c.Jar = jar
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	_, page := get(t, c, tlsSrv.URL+"/login")
	resp, _ := post(t, c, tlsSrv.URL+"/login", url.Values{"csrf": {csrfOf(t, page)}, "token": {f.revTok}})
	var sc *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == sessionCookie {
			sc = ck
		}
	}
	if resp.StatusCode != 303 || sc == nil || !sc.Secure || !sc.HttpOnly || sc.SameSite != http.SameSiteStrictMode {
		t.Fatalf("TLS login: %d cookie %+v", resp.StatusCode, sc)
	}
}

func TestWebSubmit(t *testing.T) {
	// Every POST takes a token, refused ones too: three fit, the fourth not.
	f := newFixture(t, Config{SubmitRate: 0.01, SubmitBurst: 3})
	c := browser(t)
	_, page := get(t, c, f.srv.URL+"/submit")
	tok := csrfOf(t, page)
	if resp, _ := post(t, c, f.srv.URL+"/submit", url.Values{"csrf": {"bad"}, "url": {"https://example.org/p"}}); resp.StatusCode != 403 {
		t.Fatalf("submit with a wrong CSRF token: %d", resp.StatusCode)
	}
	if resp, body := post(t, c, f.srv.URL+"/submit", url.Values{"csrf": {tok}, "url": {"ftp://example.org/p"}}); resp.StatusCode != 400 || !strings.Contains(body, "http") {
		t.Fatalf("ftp submit: %d", resp.StatusCode)
	}
	resp, _ := post(t, c, f.srv.URL+"/submit", url.Values{"csrf": {tok}, "url": {"https://example.org/p"}})
	loc := resp.Header.Get("Location")
	if resp.StatusCode != 303 || !strings.HasPrefix(loc, "/submissions/sub-") {
		t.Fatalf("submit: %d %s", resp.StatusCode, loc)
	}
	if _, body := get(t, c, f.srv.URL+loc); !strings.Contains(body, `<dd id="state">queued</dd>`) || !strings.Contains(body, "https://example.org/p") {
		t.Fatalf("submission page:\n%.400s", body)
	}
	// The form shares the per-client limit with the API.
	if resp, _ := post(t, c, f.srv.URL+"/submit", url.Values{"csrf": {tok}, "url": {"https://example.org/q"}}); resp.StatusCode != 429 {
		t.Fatalf("over the limit: %d", resp.StatusCode)
	}
	if resp, _ := get(t, c, f.srv.URL+"/submissions/sub-nope"); resp.StatusCode != 404 {
		t.Fatalf("unknown submission: %d", resp.StatusCode)
	}
}

// The submission page renders whole in every state a submission can be in.
func TestWebSubmissionStates(t *testing.T) {
	f := newFixture(t, Config{})
	c := browser(t)
	for _, tc := range []struct{ state, reason, errMsg, outcome string }{
		{casebook.StateQueued, "", "", "Still in progress"},
		{casebook.StateFetching, "", "", "Still in progress"},
		{casebook.StateExtracting, "", "", "Still in progress"},
		{casebook.StateClassifying, "", "", "Still in progress"},
		{casebook.StateDrafted, "", "", "A draft awaits review."},
		{casebook.StateSkipped, "relevance 0.12 below 0.5", "", "does not read as an incident write-up"},
		{casebook.StateFailed, "", "fetch: 404 Not Found", "could not be processed"},
	} {
		t.Run(tc.state, func(t *testing.T) {
			u := "https://states.example/" + tc.state
			rec, _, err := f.store.CreateSubmission(u, u, "manual", "")
			if err != nil {
				t.Fatal(err)
			}
			if tc.state != casebook.StateQueued {
				if err := f.store.Progress(rec.ID, tc.state, tc.reason, tc.errMsg, ""); err != nil {
					t.Fatal(err)
				}
			}
			resp, body := get(t, c, f.srv.URL+"/submissions/"+rec.ID)
			if resp.StatusCode != 200 || !strings.HasSuffix(strings.TrimSpace(body), "</html>") {
				t.Fatalf("%s: status %d, page ends %q", tc.state, resp.StatusCode, body[max(0, len(body)-80):])
			}
			for _, want := range []string{`<dd id="state">` + tc.state + `</dd>`, tc.outcome, tc.reason, tc.errMsg} {
				if !strings.Contains(body, want) {
					t.Errorf("%s: page lacks %q", tc.state, want)
				}
			}
		})
	}
}

// The home page: search and filters combine, facets count the result, the
// count is the result's, and pages go both ways.
func TestWebBrowse(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedCases()
	var more []*casebook.Case
	for i := range browsePageSize + 5 {
		c := pub(fmt.Sprintf("Cache node %d evicted hot keys", i), "", "en", "capacity", 2020, []string{"cache"}, []string{"redis"}, "A cache node evicted its hot keys under memory pressure.")
		c.Published = ""
		more = append(more, c)
	}
	if _, err := f.store.Import(more, "seed"); err != nil {
		t.Fatal(err)
	}
	c := browser(t)
	for _, tc := range []struct {
		path    string
		want    []string
		notWant []string
	}{
		{"/", []string{"28 published cases", `href="/?category=capacity"`, "capacity <small>27</small>", `rel="next"`}, []string{`rel="prev"`}},
		{"/?category=network", []string{"1 case matches the filters", "DNS解析超时", `aria-current="true"`, "network <small>1</small>"}, []string{"Kafka brokers", "capacity <small>"}},
		{"/?q=k8s", []string{"2 cases match", "Kafka brokers", "DNS解析超时", "kubernetes <small>2</small>"}, []string{"Cache node"}},
		{"/?q=k8s&language=zh", []string{"1 case matches", "DNS解析超时"}, []string{"Kafka brokers"}},
		{"/?q=k8s&sort=oldest", []string{"<strong aria-current=\"true\">oldest</strong>"}, nil},
		{"/?q=cache+-kafka&tag=redis&page=2", []string{"25 cases match", `rel="prev"`, "page 2", "Cache node 4 "}, []string{`rel="next"`, "Cache node 5 "}},
		{"/?tag=redis&sort=oldest&page=2", []string{"Cache node 20 ", `href="/?sort=oldest&amp;tag=redis"`}, []string{"Cache node 19 "}},
	} {
		resp, body := get(t, c, f.srv.URL+tc.path)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", tc.path, resp.StatusCode)
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: no %q", tc.path, w)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(body, w) {
				t.Errorf("%s: has %q", tc.path, w)
			}
		}
		// A missing organization or year is left out, never shown as a
		// placeholder, an empty separator or year 0.
		for _, bad := range []string{"unknown organization", "· ·", "· 0 ·"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s: shows %q", tc.path, bad)
			}
		}
	}
	for _, path := range []string{"/?page=0", "/?sort=relevance", "/?year=abc", "/?component=nope"} {
		if resp, _ := get(t, c, f.srv.URL+path); resp.StatusCode != 400 {
			t.Errorf("%s: %d, want 400", path, resp.StatusCode)
		}
	}
}

// Case pages carry OpenGraph and alternate links; topic pages link their feed.
func TestWebCaseHead(t *testing.T) {
	f := newFixture(t, Config{PublicURL: "https://cases.example"})
	f.seedCases()
	c := browser(t)
	_, body := get(t, c, f.srv.URL+"/cases/CB-0003")
	for _, w := range []string{
		`<link rel="alternate" type="application/json" title="This case as JSON" href="/api/v1/cases/CB-0003">`,
		`<link rel="alternate" type="application/atom+xml"`,
		`<meta property="og:title" content="DNS解析超时导致服务不可用">`,
		`<meta property="og:url" content="https://cases.example/cases/CB-0003">`,
		`<meta property="og:type" content="article">`,
		`<meta property="og:locale" content="zh_CN">`,
		`<meta property="article:tag" content="kubernetes">`,
		`<meta property="og:description" content="集群内DNS解析超时`,
	} {
		if !strings.Contains(body, w) {
			t.Errorf("case page lacks %s", w)
		}
	}
	_, body = get(t, c, f.srv.URL+"/topics/k8s")
	if !strings.Contains(body, `href="/api/v1/feed.atom?tag=kubernetes"`) || !strings.Contains(body, `<link rel="alternate" type="application/atom+xml" title="Cases tagged kubernetes" href="/api/v1/feed.atom?tag=kubernetes">`) {
		t.Errorf("topic page does not link its feed")
	}
}

// A logged-in reviewer's login and submit forms carry their own tokens
// (the session's token had replaced them, so both forms always failed).
func TestWebFormsWhileLoggedIn(t *testing.T) {
	f := newFixture(t, Config{})
	c := browser(t)
	login := func(tok string) {
		t.Helper()
		_, page := get(t, c, f.srv.URL+"/login")
		if resp, body := post(t, c, f.srv.URL+"/login", url.Values{"csrf": {lastCSRF(t, page)}, "token": {tok}}); resp.StatusCode != 303 {
			t.Fatalf("login: %d %.300s", resp.StatusCode, body)
		}
	}
	login(f.revTok)
	login(f.adminTok) // switching user without logging out
	if _, body := get(t, c, f.srv.URL+"/review"); !strings.Contains(body, "Log out admin") {
		t.Fatal("second login did not take")
	}
	_, page := get(t, c, f.srv.URL+"/submit")
	if resp, _ := post(t, c, f.srv.URL+"/submit", url.Values{"csrf": {lastCSRF(t, page)}, "url": {"https://example.org/logged-in"}}); resp.StatusCode != 303 {
		t.Fatalf("submit while logged in: %d", resp.StatusCode)
	}
}

// lastCSRF is the token of the page's own form, after the header's logout form.
func lastCSRF(t *testing.T, page string) string {
	t.Helper()
	m := csrfRe.FindAllStringSubmatch(page, -1)
	if m == nil {
		t.Fatalf("no CSRF field in page:\n%.500s", page)
	}
	return m[len(m)-1][1]
}
