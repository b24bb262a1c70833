package api

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/internal/casecheck"
)

// TestAnswersMatchSchema reads every answer that carries case records and
// holds each record to case.schema.json, and every answer to "no null":
// a draft whose evidence names fields with no spans (as the classifier
// leaves them) is approved and served through all of them.
func TestAnswersMatchSchema(t *testing.T) {
	f := newFixture(t, Config{})
	f.seedCases()
	f.seedDrafts()
	c := pub("Queue stalled on a full disk", "", "en", "capacity", 2024, nil, nil, "A queue stalled when its disk filled.")
	c.Published = ""
	c.Sources[0].URL = "https://nulls.example/p"
	c.Extraction = casebook.Extraction{Method: "heuristic", Version: "1", Evidence: map[string][]casebook.Span{"components": nil, "tags": nil}}
	id := f.addDraft("nulls", c, "")

	get := func(path, tok string) []byte {
		t.Helper()
		resp, body := do(t, "GET", f.srv.URL+path, tok, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		casecheck.NoNulls(t, path, []byte(body))
		return []byte(body)
	}
	casecheck.Case(t, "draft "+id, get("/api/v1/review/drafts/"+id, f.revTok))
	var queue struct{ Items json.RawMessage }
	_ = json.Unmarshal(get("/api/v1/review/drafts", f.revTok), &queue)
	casecheck.Cases(t, "queue", queue.Items)

	var published casebook.Case
	if _, err := f.reviewer.Do(context.Background(), "POST", "/api/v1/review/drafts/"+id+"/approve", map[string]string{"note": "ok"}, &published); err != nil {
		t.Fatal(err)
	}
	casecheck.Case(t, "case", get("/api/v1/cases/"+published.ID, ""))
	for _, path := range []string{"/api/v1/cases", "/api/v1/cases?category=capacity", "/api/v1/search?q=disk", "/api/v1/topics/kubernetes"} {
		var page struct{ Items json.RawMessage }
		if err := json.Unmarshal(get(path, ""), &page); err != nil {
			t.Fatal(err)
		}
		casecheck.Cases(t, path, page.Items)
	}
	lines := strings.Split(strings.TrimSpace(string(get("/api/v1/export.jsonl", ""))), "\n")
	if len(lines) != 4 {
		t.Fatalf("export has %d lines, want 4", len(lines))
	}
	for i, l := range lines {
		casecheck.Case(t, "export line "+string(rune('1'+i)), []byte(l))
	}
	get("/api/v1/vocab", "")
	get("/api/v1/review/skipped", f.revTok)
	get("/api/v1/review/skipped?source=blog-a", f.revTok)
	get("/api/v1/cases/"+published.ID+"/similar", "")
}
