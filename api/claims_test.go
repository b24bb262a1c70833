package api

import (
	"context"
	"strings"
	"testing"

	"github.com/casebook/casebook"
)

// A URL the page claimed on another site is shown to the reviewer, on the
// draft page and in the API's JSON, and never as the source link.
func TestDraftShowsClaimedURL(t *testing.T) {
	f := newFixture(t, Config{})
	c := pub("Queue outage", "Shop", "en", "capacity", 2024, nil, nil, "The queue disk filled up.")
	c.Sources[0].URL = "https://spoof.example/p"
	c.Sources[0].ClaimedURL = "https://victim.example.org/p"
	id := f.addDraft("spoof", c, "")

	var d casebook.Case
	if _, err := f.reviewer.Do(context.Background(), "GET", "/api/v1/review/drafts/"+id, nil, &d); err != nil {
		t.Fatal(err)
	}
	if d.Sources[0].URL != "https://spoof.example/p" || d.Sources[0].ClaimedURL != "https://victim.example.org/p" {
		t.Fatalf("API sources %+v", d.Sources)
	}
	b := browser(t)
	login(t, b, f.srv.URL, f.revTok)
	_, body := get(t, b, f.srv.URL+"/review/drafts/"+id)
	if !strings.Contains(body, "claims to be <code>https://victim.example.org/p</code>") {
		t.Fatalf("draft page has no note of the claimed URL:\n%.2000s", body)
	}
	if strings.Contains(body, `href="https://victim.example.org/p"`) {
		t.Fatal("the claimed URL is linked as a source")
	}
}
