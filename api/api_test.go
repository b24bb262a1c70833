package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
)

func caseIDs(cs []casebook.Case) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func TestPublicEndpoints(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedCases() // CB-0001 kafka/en, CB-0002 ru, CB-0003 zh
	ctx := context.Background()
	type caseList struct {
		Items      []casebook.Case `json:"items"`
		NextCursor string          `json:"next_cursor"`
	}
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/api/v1/cases", []string{"CB-0003", "CB-0002", "CB-0001"}},
		{"/api/v1/cases?tag=k8s", []string{"CB-0003", "CB-0001"}}, // alias of kubernetes
		{"/api/v1/cases?tag=kubernetes&language=en", []string{"CB-0001"}},
		{"/api/v1/cases?component=storage", []string{"CB-0002", "CB-0001"}},
		{"/api/v1/cases?category=capacity&year=2022", []string{"CB-0002"}},
		{"/api/v1/cases?organization=%E7%BE%8E%E5%9B%A2", []string{"CB-0003"}},
		{"/api/v1/cases?organization=acme", []string{"CB-0001"}},
		{"/api/v1/cases?tag=redis", []string{}},
	} {
		var got caseList
		if _, err := f.public.Do(ctx, "GET", tc.path, nil, &got); err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if !slices.Equal(caseIDs(got.Items), tc.want) {
			t.Errorf("%s = %v, want %v", tc.path, caseIDs(got.Items), tc.want)
		}
	}
	// Cursor pagination under a filter.
	var p1, p2 caseList
	f.public.Do(ctx, "GET", "/api/v1/cases?tag=kubernetes&limit=1", nil, &p1)
	f.public.Do(ctx, "GET", "/api/v1/cases?tag=kubernetes&limit=1&cursor="+p1.NextCursor, nil, &p2)
	if len(p1.Items) != 1 || p1.NextCursor == "" || len(p2.Items) != 1 || p2.Items[0].ID != "CB-0001" || p2.NextCursor != "" {
		t.Fatalf("pages %+v / %+v", caseIDs(p1.Items), caseIDs(p2.Items))
	}

	// Bad parameters are 400 with the JSON error shape.
	for _, path := range []string{
		"/api/v1/cases?category=bogus", "/api/v1/cases?component=nope", "/api/v1/cases?year=abc", "/api/v1/cases?year=12",
		"/api/v1/cases?language=de", "/api/v1/cases?tags=kafka", "/api/v1/cases?limit=0", "/api/v1/cases?limit=x",
		"/api/v1/cases?cursor=abc", "/api/v1/cases?tag=%3Cscript%3E", "/api/v1/search", "/api/v1/search?q=x&limit=1000",
		"/api/v1/search?q=kafka&cursor=-1", "/api/v1/cases/CB-0001/similar?limit=0", "/api/v1/vocab?x=1",
	} {
		resp, body := do(t, "GET", f.srv.URL+path, "", nil)
		var e struct {
			Error apiError `json:"error"`
		}
		if resp.StatusCode != 400 || json.Unmarshal([]byte(body), &e) != nil || e.Error.Code == "" || e.Error.Message == "" {
			t.Errorf("%s: %d %s, want a 400 JSON error", path, resp.StatusCode, body)
		}
	}
	// Unknown ids are 404.
	for _, path := range []string{"/api/v1/cases/CB-9999", "/api/v1/cases/CB-9999/similar", "/api/v1/topics/no-such-topic", "/api/v1/submissions/sub-404", "/api/v1/nothing"} {
		var apiErr *Error
		if _, err := f.public.Do(ctx, "GET", path, nil, nil); !errors.As(err, &apiErr) || apiErr.Status != 404 {
			t.Errorf("%s: %v, want 404", path, err)
		}
	}

	// A case carries related cases computed at read time.
	var c casebook.Case
	if _, err := f.public.Do(ctx, "GET", "/api/v1/cases/CB-0001", nil, &c); err != nil {
		t.Fatal(err)
	}
	// CB-0003 shares only the kubernetes tag, not the cause: not related.
	if len(c.Related) != 1 || c.Related[0].ID != "CB-0002" || c.Related[0].Relation != "same-root-cause" || !slices.Equal(c.Related[0].Shared, []string{"storage"}) {
		t.Fatalf("related = %+v", c.Related)
	}
	var sim struct {
		Items []sinks.Similar `json:"items"`
	}
	if _, err := f.public.Do(ctx, "GET", "/api/v1/cases/CB-0001/similar", nil, &sim); err != nil {
		t.Fatal(err)
	}
	if len(sim.Items) == 0 || sim.Items[0].ID != "CB-0002" || !strings.Contains(sim.Items[0].Reason, "same root cause (capacity)") || sim.Items[0].Score <= 0 {
		t.Fatalf("similar = %+v", sim.Items)
	}

	// Search in three languages.
	for _, tc := range []struct{ q, want string }{
		{"kafka disk", "CB-0001"}, {"writes stopped", "CB-0001"}, {"переполнение дисков", "CB-0002"},
		{"сервером", "CB-0002"}, {"数据库", "CB-0003"}, {"解析超时", "CB-0003"},
	} {
		var ans searchAnswer
		if _, err := f.public.Do(ctx, "GET", "/api/v1/search?q="+urlQuery(tc.q), nil, &ans); err != nil {
			t.Fatal(err)
		}
		if len(ans.Items) == 0 || ans.Items[0].ID != tc.want || ans.Total < 1 || len(ans.Scores) != len(ans.Items) {
			t.Errorf("search %q = %v (terms %q), want %s first", tc.q, caseIDs(ans.Items), ans.Terms, tc.want)
		}
	}

	// Topics and vocabulary.
	var topic topicAnswer
	if _, err := f.public.Do(ctx, "GET", "/api/v1/topics/k8s", nil, &topic); err != nil {
		t.Fatal(err)
	}
	if topic.Tag != "kubernetes" || topic.Count != 2 || !slices.Contains(topic.Aliases, "k8s") || len(topic.Items) != 2 {
		t.Fatalf("topic = %+v", topic)
	}
	var v vocabAnswer
	if _, err := f.public.Do(ctx, "GET", "/api/v1/vocab", nil, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.RootCause) != len(casebook.RootCauseCategories) || len(v.Components) != len(casebook.Components) || len(v.Tags) == 0 {
		t.Fatalf("vocab sizes %d %d %d", len(v.RootCause), len(v.Components), len(v.Tags))
	}
	for _, term := range v.RootCause {
		if term.Slug == "capacity" && term.Count != 2 {
			t.Fatalf("capacity count %d", term.Count)
		}
	}

	// Atom feed: valid XML, newest first, links to the cases.
	resp, body := do(t, "GET", f.srv.URL+"/api/v1/feed.atom", "", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/atom+xml") {
		t.Fatalf("feed: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var feed atomFeed
	if err := xml.Unmarshal([]byte(body), &feed); err != nil || len(feed.Entries) != 3 || !strings.HasSuffix(feed.Entries[0].ID, "/cases/CB-0003") || feed.Entries[0].Updated == "" {
		t.Fatalf("feed: %v %+v", err, feed.Entries)
	}

	// Export: one valid case per line.
	resp, body = do(t, "GET", f.srv.URL+"/api/v1/export.jsonl", "", nil)
	sc := bufio.NewScanner(strings.NewReader(body))
	n := 0
	for sc.Scan() {
		var c casebook.Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil || c.Status != casebook.StatusPublished {
			t.Fatalf("export line %d: %v", n, err)
		}
		n++
	}
	if resp.StatusCode != 200 || n != 3 {
		t.Fatalf("export: %d, %d lines", resp.StatusCode, n)
	}
}

// searchAnswer is a page of search hits as a client decodes it.
type searchAnswer struct {
	Query      string          `json:"query"`
	Terms      []string        `json:"terms"`
	Total      int             `json:"total"`
	Items      []casebook.Case `json:"items"`
	Scores     []float64       `json:"scores"`
	NextCursor string          `json:"next_cursor"`
}

func urlQuery(s string) string { return strings.ReplaceAll(urlEscape(s), "+", "%20") }

func urlEscape(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
		}
	}
	return b.String()
}

// TestOpenAPIMatchesRoutes keeps the document honest: every route this
// server registers under /api/v1 is documented and every documented path
// answers something other than the catch-all 404.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	f := newFixture(t, Config{})
	resp, body := do(t, "GET", f.srv.URL+"/api/v1/openapi.json", "", nil)
	var doc struct {
		OpenAPI string                     `json:"openapi"`
		Paths   map[string]map[string]any  `json:"paths"`
		Comps   map[string]json.RawMessage `json:"components"`
	}
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &doc) != nil || doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi: %d %.200s", resp.StatusCode, body)
	}
	// Every $ref resolves.
	for _, m := range regexp.MustCompile(`"#/components/schemas/([A-Za-z]+)"`).FindAllStringSubmatch(body, -1) {
		if !strings.Contains(string(doc.Comps["schemas"]), `"`+m[1]+`":`) {
			t.Errorf("dangling $ref %s", m[1])
		}
	}
	srcs := []string{"server.go", "public.go", "review.go", "sources.go", "ops.go"}
	routeRe := regexp.MustCompile(`HandleFunc\("(GET|POST|PUT|DELETE) (/api/v1/[^"]+|/healthz|/metrics)"`)
	for _, name := range srcs {
		raw := readFile(t, name)
		for _, m := range routeRe.FindAllStringSubmatch(raw, -1) {
			ops, ok := doc.Paths[m[2]]
			if !ok {
				t.Errorf("route %s %s is not in openapi.json", m[1], m[2])
				continue
			}
			if _, ok := ops[strings.ToLower(m[1])]; !ok {
				t.Errorf("route %s %s: method not documented", m[1], m[2])
			}
		}
	}
	for path, ops := range doc.Paths {
		for method := range ops {
			p := strings.NewReplacer("{id}", "x", "{tag}", "kafka", "{name}", "x").Replace(path)
			resp, body := do(t, strings.ToUpper(method), f.srv.URL+p, "", nil)
			if resp.StatusCode == 404 && strings.Contains(body, "no such endpoint") || resp.StatusCode == 405 {
				t.Errorf("documented %s %s is not served: %d", method, path, resp.StatusCode)
			}
		}
	}
}

func TestReviewActions(t *testing.T) {
	// Eleven wrong-token probes below: more than the default failure allowance.
	f := newFixture(t, Config{AuthFailures: 100})
	f.seedCases()
	f.seedDrafts()
	ctx := context.Background()
	cert, flagged, zh := f.drafts["cert"], f.drafts["flagged"], f.drafts["zh"]

	// Missing or wrong tokens: 401 everywhere under /review; reviewer-only: 403 on admin.
	bad := &Client{BaseURL: f.srv.URL, Token: "cbk_wrong"}
	for _, ep := range []struct{ method, path string }{
		{"GET", "/api/v1/review/drafts"}, {"GET", "/api/v1/review/drafts/" + cert},
		{"POST", "/api/v1/review/drafts/" + cert + "/approve"}, {"POST", "/api/v1/review/drafts/" + cert + "/reject"},
		{"POST", "/api/v1/review/drafts/" + cert + "/merge"}, {"PUT", "/api/v1/review/cases/" + cert},
		{"GET", "/api/v1/review/cases/" + cert + "/history"}, {"GET", "/api/v1/review/submissions"},
		{"GET", "/api/v1/review/reviewers"}, {"POST", "/api/v1/review/reviewers"}, {"DELETE", "/api/v1/review/reviewers/x"},
	} {
		var apiErr *Error
		for _, c := range []*Client{f.public, bad} {
			if _, err := c.Do(ctx, ep.method, ep.path, map[string]string{}, nil); !errors.As(err, &apiErr) || apiErr.Status != 401 || apiErr.Code != "unauthorized" {
				t.Errorf("%s %s with token %q: %v, want 401", ep.method, ep.path, c.Token, err)
			}
		}
	}
	var apiErr *Error
	if _, err := f.reviewer.Do(ctx, "GET", "/api/v1/review/reviewers", nil, nil); !errors.As(err, &apiErr) || apiErr.Status != 403 {
		t.Fatalf("reviewer lists tokens: %v, want 403", err)
	}

	// Queue with filters and counts.
	var q queueAnswer
	if _, err := f.reviewer.Do(ctx, "GET", "/api/v1/review/drafts", nil, &q); err != nil {
		t.Fatal(err)
	}
	if q.Counts.Total != 3 || q.Counts.Flagged != 1 || q.Counts.ByLanguage["ru"] != 1 || len(q.Items) != 3 {
		t.Fatalf("queue counts %+v, %d items", q.Counts, len(q.Items))
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"language=zh", []string{zh}}, {"flagged=true", []string{flagged}}, {"flagged=false&min_relevance=0.8", []string{cert}},
		{"source=habr", []string{flagged}}, {"max_relevance=0.5", []string{flagged}}, {"newer_than=1h", []string{zh, flagged, cert}},
		{"older_than=7d", []string{}},
		{"sort=relevance", []string{cert, zh, flagged}}, {"sort=newest", []string{zh, flagged, cert}},
		{"sort=relevance&language=zh", []string{zh}},
	} {
		var q queueAnswer
		if _, err := f.reviewer.Do(ctx, "GET", "/api/v1/review/drafts?"+tc.query, nil, &q); err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if !slices.Equal(caseIDs(q.Items), tc.want) || q.Counts.Matched != len(tc.want) {
			t.Errorf("queue ?%s = %v (matched %d), want %v", tc.query, caseIDs(q.Items), q.Counts.Matched, tc.want)
		}
	}
	// relevance order pages by its own cursor
	var p1, p2 queueAnswer
	if _, err := f.reviewer.Do(ctx, "GET", "/api/v1/review/drafts?sort=relevance&limit=2", nil, &p1); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reviewer.Do(ctx, "GET", "/api/v1/review/drafts?sort=relevance&limit=2&cursor="+url.QueryEscape(p1.NextCursor), nil, &p2); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(caseIDs(p1.Items), []string{cert, zh}) || !slices.Equal(caseIDs(p2.Items), []string{flagged}) || p2.NextCursor != "" {
		t.Errorf("relevance pages %v (next %q), %v (next %q)", caseIDs(p1.Items), p1.NextCursor, caseIDs(p2.Items), p2.NextCursor)
	}
	for _, query := range []string{"language=xx", "flagged=maybe", "min_relevance=2", "older_than=soon", "colour=red", "sort=best", "sort=relevance&cursor=12"} {
		if _, err := f.reviewer.Do(ctx, "GET", "/api/v1/review/drafts?"+query, nil, nil); !errors.As(err, &apiErr) || apiErr.Status != 400 {
			t.Errorf("queue ?%s: %v, want 400", query, err)
		}
	}

	// The review view carries the source text, duplicates and similar cases.
	var view struct {
		casebook.Case
		SubmissionID string            `json:"submission_id"`
		SourceText   string            `json:"source_text"`
		Duplicates   []sinks.Duplicate `json:"duplicates"`
		Similar      []sinks.Similar   `json:"similar"`
	}
	resp, body := do(t, "GET", f.srv.URL+"/api/v1/review/drafts/"+cert, f.revTok, nil)
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &view) != nil {
		t.Fatalf("draft view: %d %s", resp.StatusCode, body)
	}
	var asCase casebook.Case
	_ = json.Unmarshal([]byte(body), &asCase)
	if view.SourceText != draftText || view.SubmissionID == "" || view.Duplicates == nil || asCase.ID != cert || asCase.Title == "" {
		t.Fatalf("draft view: %+v / %+v", view, asCase)
	}

	// Edit: labels are validated against the vocabulary.
	edited := asCase
	for _, bad := range []func(*casebook.Case){
		func(c *casebook.Case) { c.RootCause.Category = "gremlins" },
		func(c *casebook.Case) { c.Components = []string{"flux-capacitor"} },
		func(c *casebook.Case) { c.Trigger.Kind = "moon" },
		func(c *casebook.Case) { c.Detection.Method = "psychic" },
		func(c *casebook.Case) { c.Tags = []string{"not a tag!"} },
		func(c *casebook.Case) { c.Language = "fr" },
		func(c *casebook.Case) { c.Title = " " },
	} {
		e := edited
		bad(&e)
		if _, err := f.reviewer.Do(ctx, "PUT", "/api/v1/review/cases/"+cert, map[string]any{"case": e}, nil); !errors.As(err, &apiErr) || apiErr.Status != 400 {
			t.Errorf("invalid edit %+v: %v, want 400", e.RootCause, err)
		}
	}
	if _, err := f.reviewer.Do(ctx, "PUT", "/api/v1/review/cases/"+cert, map[string]any{}, nil); !errors.As(err, &apiErr) || apiErr.Status != 400 {
		t.Errorf("edit without case: %v", err)
	}
	if _, err := f.reviewer.Do(ctx, "PUT", "/api/v1/review/cases/"+cert, map[string]any{"case": edited, "bogus": 1}, nil); !errors.As(err, &apiErr) || apiErr.Status != 400 {
		t.Errorf("edit with unknown field: %v", err)
	}
	edited.Title = "Expired TLS certificate broke checkout"
	edited.Tags = []string{"ssl", "SearXNG"} // alias -> tls; a new slug is kept (open vocabulary)
	var afterEdit struct {
		casebook.Case
		Changed []string `json:"changed"`
	}
	resp, body = do(t, "PUT", f.srv.URL+"/api/v1/review/cases/"+cert, f.revTok, strings.NewReader(mustJSON(t, map[string]any{"case": edited, "note": "clearer title"})), "Content-Type", "application/json")
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &afterEdit) != nil {
		t.Fatalf("edit: %d %s", resp.StatusCode, body)
	}
	if !slices.Contains(afterEdit.Changed, "title") {
		t.Fatalf("changed = %v", afterEdit.Changed)
	}
	var got casebook.Case
	_ = json.Unmarshal([]byte(body), &got)
	if got.Title != edited.Title || !slices.Equal(got.Tags, []string{"tls", "searxng"}) || got.Status != casebook.StatusDraft {
		t.Fatalf("after edit: %q %v %s", got.Title, got.Tags, got.Status)
	}

	// Approve; the draft id then redirects to the case.
	var published casebook.Case
	if _, err := f.reviewer.Do(ctx, "POST", "/api/v1/review/drafts/"+cert+"/approve", map[string]string{"note": "ok"}, &published); err != nil {
		t.Fatal(err)
	}
	if published.ID != "CB-0004" || published.Review.DecidedBy != "rita" || published.Title != edited.Title {
		t.Fatalf("approved %+v", published)
	}
	resp, _ = do(t, "GET", f.srv.URL+"/api/v1/cases/"+cert, "", nil)
	if resp.StatusCode != 301 || resp.Header.Get("Location") != "/api/v1/cases/CB-0004" {
		t.Fatalf("draft id after approval: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	var byTag struct {
		Items []casebook.Case `json:"items"`
	}
	f.public.Do(ctx, "GET", "/api/v1/cases?tag=tls", nil, &byTag)
	if !slices.Equal(caseIDs(byTag.Items), []string{"CB-0004"}) {
		t.Fatalf("approved case not indexed: %v", caseIDs(byTag.Items))
	}
	if _, err := f.reviewer.Do(ctx, "POST", "/api/v1/review/drafts/"+cert+"/approve", nil, nil); !errors.As(err, &apiErr) || apiErr.Status != 409 {
		t.Fatalf("approve twice: %v, want 409", err)
	}
	if _, err := f.reviewer.Do(ctx, "POST", "/api/v1/review/drafts/draft-999999/approve", nil, nil); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Fatalf("approve unknown: %v, want 404", err)
	}

	// Reject needs a reason; the submission then shows it.
	if _, err := f.reviewer.Do(ctx, "POST", "/api/v1/review/drafts/"+flagged+"/reject", map[string]string{"reason": " "}, nil); !errors.As(err, &apiErr) || apiErr.Status != 400 {
		t.Fatalf("reject without reason: %v", err)
	}
	var rejected casebook.Case
	if _, err := f.reviewer.Do(ctx, "POST", "/api/v1/review/drafts/"+flagged+"/reject", map[string]string{"reason": "not an incident write-up"}, &rejected); err != nil || rejected.Status != casebook.StatusRejected {
		t.Fatalf("reject: %v %s", err, rejected.Status)
	}
	subID := f.store.SubmissionOf(flagged)
	var sub casebook.Submission
	f.public.Do(ctx, "GET", "/api/v1/submissions/"+subID, nil, &sub)
	if sub.Reason != "rejected: not an incident write-up" {
		t.Fatalf("submission after reject: %+v", sub)
	}

	// Merge into an existing case: the case gains a source, the draft redirects.
	if _, err := f.reviewer.Do(ctx, "POST", "/api/v1/review/drafts/"+zh+"/merge", map[string]string{}, nil); !errors.As(err, &apiErr) || apiErr.Status != 400 {
		t.Fatalf("merge without target: %v", err)
	}
	if _, err := f.reviewer.Do(ctx, "POST", "/api/v1/review/drafts/"+zh+"/merge", map[string]string{"into": "CB-0404"}, nil); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Fatalf("merge into unknown: %v", err)
	}
	if _, err := f.reviewer.Do(ctx, "POST", "/api/v1/review/drafts/"+flagged+"/merge", map[string]string{"into": "CB-0003"}, nil); !errors.As(err, &apiErr) || apiErr.Status != 409 {
		t.Fatalf("merge a rejected draft: %v, want 409", err)
	}
	var merged casebook.Case
	if _, err := f.reviewer.Do(ctx, "POST", "/api/v1/review/drafts/"+zh+"/merge", map[string]string{"into": "CB-0003", "note": "same outage"}, &merged); err != nil {
		t.Fatal(err)
	}
	if merged.ID != "CB-0003" || len(merged.Sources) != 2 {
		t.Fatalf("merged: %s %d sources", merged.ID, len(merged.Sources))
	}
	resp, _ = do(t, "GET", f.srv.URL+"/api/v1/cases/"+zh, "", nil)
	if resp.StatusCode != 301 || resp.Header.Get("Location") != "/api/v1/cases/CB-0003" {
		t.Fatalf("merged draft id: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}

	// History: who, when, what.
	var hist struct {
		Items []sinks.Change `json:"items"`
	}
	if _, err := f.reviewer.Do(ctx, "GET", "/api/v1/review/cases/CB-0004/history", nil, &hist); err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, h := range hist.Items {
		actions = append(actions, h.Action)
		if h.At == "" || h.By == "" {
			t.Fatalf("history entry without who/when: %+v", h)
		}
	}
	if !slices.Equal(actions, []string{"drafted", "edited", "approved"}) || !slices.Contains(hist.Items[1].Fields, "title") || hist.Items[1].By != "rita" {
		t.Fatalf("history = %+v", hist.Items)
	}

	// Edit a published case: re-indexed at once.
	var c4 casebook.Case
	f.public.Do(ctx, "GET", "/api/v1/cases/CB-0004", nil, &c4)
	c4.Components = []string{"cdn"}
	if _, err := f.reviewer.Do(ctx, "PUT", "/api/v1/review/cases/CB-0004", map[string]any{"case": c4}, nil); err != nil {
		t.Fatal(err)
	}
	f.public.Do(ctx, "GET", "/api/v1/cases?component=cdn", nil, &byTag)
	if !slices.Equal(caseIDs(byTag.Items), []string{"CB-0004"}) {
		t.Fatalf("edited published case not re-indexed: %v", caseIDs(byTag.Items))
	}

	// Tokens: issue, list, revoke; a revoked token is refused.
	var issued struct {
		Token    string         `json:"token"`
		Reviewer sinks.Reviewer `json:"reviewer"`
	}
	if _, err := f.admin.Do(ctx, "POST", "/api/v1/review/reviewers", map[string]string{"name": "sam"}, &issued); err != nil {
		t.Fatal(err)
	}
	if _, err := f.admin.Do(ctx, "POST", "/api/v1/review/reviewers", map[string]string{"name": "x", "role": "god"}, nil); !errors.As(err, &apiErr) || apiErr.Status != 400 {
		t.Fatalf("bad role: %v", err)
	}
	var toks struct {
		Items []sinks.Reviewer `json:"items"`
	}
	f.admin.Do(ctx, "GET", "/api/v1/review/reviewers", nil, &toks)
	if len(toks.Items) != 3 || strings.Contains(mustJSON(t, toks), issued.Token) {
		t.Fatalf("token list: %+v", toks)
	}
	sam := &Client{BaseURL: f.srv.URL, Token: issued.Token}
	if _, err := sam.Do(ctx, "GET", "/api/v1/review/drafts", nil, nil); err != nil {
		t.Fatalf("new token: %v", err)
	}
	if _, err := f.admin.Do(ctx, "DELETE", "/api/v1/review/reviewers/"+issued.Reviewer.ID, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := sam.Do(ctx, "GET", "/api/v1/review/drafts", nil, nil); !errors.As(err, &apiErr) || apiErr.Status != 401 {
		t.Fatalf("revoked token: %v, want 401", err)
	}
	if _, err := f.admin.Do(ctx, "DELETE", "/api/v1/review/reviewers/nope", nil, nil); !errors.As(err, &apiErr) || apiErr.Status != 404 {
		t.Fatalf("revoke unknown: %v", err)
	}
}

func readFile(t *testing.T, name string) string {
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func mustJSON(t *testing.T, v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestSubmissionRateLimit(t *testing.T) {
	f := newFixture(t, Config{SubmitRate: 0.01, SubmitBurst: 2})
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if _, err := f.public.Do(ctx, "POST", "/api/v1/submissions", map[string]string{"url": "https://example.org/" + string(rune('a'+i))}, nil); err != nil {
			t.Fatalf("submission %d: %v", i, err)
		}
	}
	resp, body := do(t, "POST", f.srv.URL+"/api/v1/submissions", "", strings.NewReader(`{"url":"https://example.org/c"}`))
	var e struct {
		Error apiError `json:"error"`
	}
	if resp.StatusCode != 429 || json.Unmarshal([]byte(body), &e) != nil || e.Error.Code != "rate_limited" {
		t.Fatalf("third submission: %d %s", resp.StatusCode, body)
	}
	if ra := resp.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After = %q", ra)
	}
	// A reviewer's token lifts the limit (importing a list of postmortems);
	// a wrong or revoked token is anonymous and still limited.
	for i := 0; i < 5; i++ {
		if resp, body := do(t, "POST", f.srv.URL+"/api/v1/submissions", f.revTok, strings.NewReader(`{"url":"https://example.org/r`+strconv.Itoa(i)+`"}`), "Content-Type", "application/json"); resp.StatusCode != 202 {
			t.Fatalf("reviewer submission %d: %d %s", i, resp.StatusCode, body)
		}
	}
	if resp, _ := do(t, "POST", f.srv.URL+"/api/v1/submissions", "cbk_not-a-token", strings.NewReader(`{"url":"https://example.org/w"}`), "Content-Type", "application/json"); resp.StatusCode != 429 {
		t.Fatalf("wrong token: %d, want 429", resp.StatusCode)
	}
	// Reads are not limited.
	if resp, _ := do(t, "GET", f.srv.URL+"/api/v1/cases", "", nil); resp.StatusCode != 200 {
		t.Fatalf("read after limit: %d", resp.StatusCode)
	}
	// Buckets are per client and refill with time.
	l := newIPLimiter(1, 1)
	now := time.Now()
	if ok, _ := l.allow("10.0.0.1", now); !ok {
		t.Fatal("first request refused")
	}
	if ok, wait := l.allow("10.0.0.1", now); ok || wait <= 0 {
		t.Fatalf("second request: %v %v", ok, wait)
	}
	if ok, _ := l.allow("10.0.0.2", now); !ok {
		t.Fatal("another client refused")
	}
	if ok, _ := l.allow("10.0.0.1", now.Add(1100*time.Millisecond)); !ok {
		t.Fatal("bucket did not refill")
	}
	// Bad bodies are still 400 (and count against the bucket like any request).
	g := newFixture(t, Config{})
	for _, body := range []string{`{"url":""}`, `not json`, `{"url":"ftp://x"}`, `{"url":"https://x","extra":1}`} {
		if resp, _ := do(t, "POST", g.srv.URL+"/api/v1/submissions", "", strings.NewReader(body), "Content-Type", "application/json"); resp.StatusCode != 400 {
			t.Errorf("submit %s: %d, want 400", body, resp.StatusCode)
		}
	}
}

// TestApproveIgnoresRelatedInEdit: a client may send back a served case,
// related list and all; related is computed, never stored.
func TestApproveIgnoresRelatedInEdit(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedCases()
	f.seedDrafts()
	ctx := context.Background()
	var d casebook.Case
	if _, err := f.reviewer.Do(ctx, "GET", "/api/v1/review/drafts/"+f.drafts["zh"], nil, &d); err != nil {
		t.Fatal(err)
	}
	d.Related = []casebook.Related{{ID: "CB-0001", Title: "stale", Relation: "same-root-cause", Shared: []string{"x"}}}
	var pubd casebook.Case
	if _, err := f.reviewer.Do(ctx, "POST", "/api/v1/review/drafts/"+f.drafts["zh"]+"/approve", map[string]any{"case": d}, &pubd); err != nil {
		t.Fatal(err)
	}
	var got casebook.Case
	if _, err := f.public.Do(ctx, "GET", "/api/v1/cases/"+pubd.ID, nil, &got); err != nil {
		t.Fatal(err)
	}
	for _, r := range got.Related {
		if r.Title == "stale" {
			t.Fatalf("stored related list served: %+v", got.Related)
		}
	}
}

// Search takes every list filter and a sort order; the listing sorts too.
func TestSearchFiltersAndSort(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedCases()
	ctx := context.Background()
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/api/v1/search?q=k8s&sort=newest", []string{"CB-0003", "CB-0001"}},
		{"/api/v1/search?q=k8s&sort=oldest", []string{"CB-0001", "CB-0003"}},
		{"/api/v1/search?q=k8s&language=zh", []string{"CB-0003"}},
		{"/api/v1/search?q=k8s&tag=kafka&component=storage&category=capacity&organization=acme&year=2021&language=en", []string{"CB-0001"}},
		{"/api/v1/search?q=k8s&year=2022", []string{}},
		{"/api/v1/search?q=k8s+-kafka", []string{"CB-0003"}},
		{"/api/v1/search?q=" + urlQuery(`"retained segments"`), []string{"CB-0001"}},
		{"/api/v1/search?q=" + urlQuery(`"segments retained"`), []string{}},
		{"/api/v1/cases?sort=oldest", []string{"CB-0001", "CB-0002", "CB-0003"}},
		{"/api/v1/cases?sort=newest&category=capacity", []string{"CB-0002", "CB-0001"}},
	} {
		var ans struct {
			Items []casebook.Case `json:"items"`
		}
		if _, err := f.public.Do(ctx, "GET", tc.path, nil, &ans); err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if got := caseIDs(ans.Items); !slices.Equal(got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.path, got, tc.want)
		}
	}
	for _, path := range []string{"/api/v1/search?q=x&sort=best", "/api/v1/cases?sort=relevance", "/api/v1/search?q=x&year=abc", "/api/v1/search?q=x&component=nope", "/api/v1/search?q=x&tags=kafka"} {
		if resp, body := do(t, "GET", f.srv.URL+path, "", nil); resp.StatusCode != 400 || !strings.Contains(body, "bad_parameter") {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
}

// TestEditRoundTrip: a reviewer's client fetches a draft, changes a field and
// sends the record back as it came, review extensions (submission_id,
// duplicates, similar, source_text) and the edit answer's changed list
// included; those are read-only and ignored, while any other unknown field is
// still refused.
func TestEditRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string
		path   string // after /api/v1/review/, %s the draft id
		extra  string // a field added to the fetched record, "" for none
		want   int
	}{
		{"edit as fetched", "PUT", "cases/%s", "", 200},
		{"edit with the answer's changed list", "PUT", "cases/%s", "changed", 200},
		{"approve as fetched", "POST", "drafts/%s/approve", "", 200},
		{"edit with an unknown field", "PUT", "cases/%s", "bogus", 400},
		{"approve with an unknown field", "POST", "drafts/%s/approve", "bogus", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Config{})
			f.seedDrafts()
			id := f.drafts["cert"]
			resp, body := do(t, "GET", f.srv.URL+"/api/v1/review/drafts/"+id, f.revTok, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("get draft: %d %s", resp.StatusCode, body)
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(body), &rec); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"submission_id", "duplicates", "similar", "source_text"} {
				if _, ok := rec[k]; !ok {
					t.Fatalf("the draft view lacks %s, so this test no longer sends it back", k)
				}
			}
			rec["organization"] = "Edited Org"
			switch tc.extra {
			case "changed":
				rec["changed"] = []string{"title"}
			case "bogus":
				rec["bogus"] = 1
			}
			raw, err := json.Marshal(map[string]any{"case": rec, "note": "round trip"})
			if err != nil {
				t.Fatal(err)
			}
			resp, body = do(t, tc.method, f.srv.URL+"/api/v1/review/"+fmt.Sprintf(tc.path, id), f.revTok, bytes.NewReader(raw), "Content-Type", "application/json")
			if resp.StatusCode != tc.want {
				t.Fatalf("%s: %d %s, want %d", tc.method, resp.StatusCode, body, tc.want)
			}
			if tc.want != 200 {
				if !strings.Contains(body, "bogus") {
					t.Errorf("refusal does not name the field: %s", body)
				}
				return
			}
			var got casebook.Case
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatal(err)
			}
			if got.Organization != "Edited Org" {
				t.Errorf("organization = %q, want the edit", got.Organization)
			}
		})
	}
}
