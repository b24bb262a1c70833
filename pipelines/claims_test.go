package pipelines_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines"
	"github.com/casebook/casebook/pipelines/crawl"
)

// claimsPost is a made-up English incident write-up; n varies the text so
// each post has its own content hash.
func claimsPost(n int) string {
	return fmt.Sprintf(`# Queue outage number %d

## What happened

On March %d the order queue stopped accepting messages for 40 minutes and customers saw checkout errors.

## Root cause

The root cause was a full disk on the broker: retention was set to keep segments for thirty days after a config change.

## Remediation

- We freed disk space and restarted the broker.
- We added an alert on broker disk usage.
`, n, n)
}

// A page's own word about its URL (rel=canonical, a Markdown front-matter
// url) counts only on its own site: a claim on another site leaves the
// fetched URL as the source and is shown to the reviewer; two posts
// claiming the same foreign URL are two drafts; a javascript: URL is stored
// nowhere.
func TestPageCannotClaimAnotherSitesURL(t *testing.T) {
	const victim = "https://victim.example.org/postmortems/queue"
	mux := http.NewServeMux()
	mux.HandleFunc("/spoof.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		body := strings.ReplaceAll(claimsPost(1), "\n\n", "</p><p>")
		fmt.Fprintf(w, `<html lang="en"><head><title>Queue outage</title><link rel="canonical" href="%s"></head><body><article><p>%s</p></article></body></html>`, victim, body)
	})
	for i, name := range []string{"a", "b"} {
		n := i + 2
		mux.HandleFunc("/"+name+".md", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
			fmt.Fprintf(w, "---\ntitle: Queue outage %d\nurl: %s\n---\n\n%s", n, victim, claimsPost(n))
		})
	}
	mux.HandleFunc("/js.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		fmt.Fprintf(w, "---\ntitle: Queue outage js\nurl: \"javascript:alert(document.cookie)\"\n---\n\n%s", claimsPost(9))
	})
	mux.HandleFunc("/same-site.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		fmt.Fprintf(w, "---\ntitle: Queue outage moved\nurl: /permalink/queue\n---\n\n%s", claimsPost(7))
	})
	site := httptest.NewServer(mux)
	defer site.Close()

	svc, c := startService(t, t.TempDir())
	defer svc.Close()
	ctx := context.Background()

	draftOf := func(path string) casebook.Case {
		t.Helper()
		sub, _ := submit(t, c, site.URL+path)
		done := waitTerminal(t, c, sub.ID)
		if done.State != casebook.StateDrafted {
			t.Fatalf("%s: %+v, want drafted", path, done)
		}
		var d casebook.Case
		if _, err := c.Do(ctx, "GET", "/api/v1/review/drafts/"+done.DraftID, nil, &d); err != nil {
			t.Fatal(err)
		}
		if len(d.Sources) != 1 {
			t.Fatalf("%s: sources %+v", path, d.Sources)
		}
		return d
	}

	for _, path := range []string{"/spoof.html", "/a.md", "/b.md"} {
		d := draftOf(path)
		if got, want := d.Sources[0].URL, site.URL+path; got != want {
			t.Errorf("%s: source URL %q, want the fetched %q", path, got, want)
		}
		if d.Sources[0].ClaimedURL != victim {
			t.Errorf("%s: claimed_url %q, want %q shown to the reviewer", path, d.Sources[0].ClaimedURL, victim)
		}
	}
	d := draftOf("/js.md")
	if d.Sources[0].URL != site.URL+"/js.md" || d.Sources[0].ClaimedURL != "" {
		t.Errorf("javascript: claim: source %+v", d.Sources[0])
	}
	d = draftOf("/same-site.md")
	if got, want := d.Sources[0].URL, site.URL+"/permalink/queue"; got != want || d.Sources[0].ClaimedURL != "" {
		t.Errorf("same-site claim: source %+v, want URL %q", d.Sources[0], want)
	}
}

// A store started anew beside an existing admin.token (its store moved away)
// leaves that file as it was and writes the new token beside it.
func TestAdminTokenNeverOverwritten(t *testing.T) {
	data := t.TempDir()
	tokPath := filepath.Join(data, pipelines.AdminTokenFile)
	if err := os.WriteFile(tokPath, []byte("cbk_of_the_store_moved_away\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	svc, err := pipelines.Start(context.Background(), pipelines.ServeConfig{DataDir: data, HTTPAddr: "127.0.0.1:0", Log: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	svc.Close()
	if tok, _ := os.ReadFile(tokPath); string(tok) != "cbk_of_the_store_moved_away\n" {
		t.Fatalf("admin.token now %q", tok)
	}
	side, _ := filepath.Glob(tokPath + ".*")
	if len(side) != 1 {
		t.Fatalf("new token files %v, want one beside admin.token", side)
	}
	if tok, _ := os.ReadFile(side[0]); !strings.HasPrefix(string(tok), "cbk_") {
		t.Fatalf("new token file holds %q", tok)
	}
}

// A host with a trailing dot is the same host: "localhost." is refused at
// once as the loopback address it is, not retried into "nats: invalid key".
func TestTrailingDotHostRefusedAsItsAddress(t *testing.T) {
	svc, c := startConfigured(t, t.TempDir(), pipelines.ServeConfig{
		Runner:     pipelines.RunnerConfig{Concurrency: 2, Backoff: func(int) time.Duration { return 200 * time.Millisecond }},
		Politeness: crawl.Politeness{MinDelay: 10 * time.Millisecond},
	})
	defer svc.Close()
	sub, status := submit(t, c, "http://localhost.:9/postmortem")
	if status != http.StatusAccepted {
		t.Fatalf("submit: %d %+v", status, sub)
	}
	done := waitTerminal(t, c, sub.ID)
	if done.State != casebook.StateFailed || strings.Contains(done.Error, "invalid key") || strings.Contains(done.Error, "dead-lettered") ||
		!(strings.Contains(done.Error, "127.0.0.1") || strings.Contains(done.Error, "loopback") || strings.Contains(done.Error, "::1")) {
		t.Fatalf("localhost.: %+v, want failed at once, refused as its loopback address", done)
	}
}

// A slow-drip server: the transfer is cut off as stalled, the submission
// shows the attempt count and the error while it is retried (API, web page),
// and a second stall ends it as failed, not after five full timeouts.
func TestSlowDripSubmissionShowsRetriesThenFails(t *testing.T) {
	drip := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		for i := 0; i < 400; i++ {
			if _, err := w.Write([]byte("<p>")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}))
	defer drip.Close()
	svc, c := startConfigured(t, t.TempDir(), pipelines.ServeConfig{
		Fetch:      fetch.Config{AllowPrivateNetworks: true, MinRate: 1000, StallAfter: 300 * time.Millisecond},
		Runner:     pipelines.RunnerConfig{Concurrency: 2, Backoff: func(int) time.Duration { return 3 * time.Second }},
		Politeness: crawl.Politeness{MinDelay: 10 * time.Millisecond},
	})
	defer svc.Close()
	start := time.Now()
	sub, _ := submit(t, c, drip.URL+"/slow")
	// While it waits for its retry, the submission says why.
	var seen casebook.Submission
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err := c.Do(context.Background(), "GET", "/api/v1/submissions/"+sub.ID, nil, &seen); err != nil {
			t.Fatal(err)
		}
		if seen.Attempts > 0 || seen.Terminal() {
			break
		}
	}
	if seen.State != casebook.StateFetching || seen.Attempts != 1 || !strings.Contains(seen.Error, "stalled") {
		t.Fatalf("while retried: %+v, want fetching with attempts 1 and the stall error", seen)
	}
	resp, err := http.Get("http://" + svc.Addr + "/submissions/" + sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), `<dd id="attempts">1 failed, retrying</dd>`) || !strings.Contains(string(page), "stalled") {
		t.Fatalf("submission page does not show the retry:\n%s", page)
	}
	done := waitTerminal(t, c, sub.ID)
	if done.State != casebook.StateFailed || !strings.Contains(done.Error, "stalled again on attempt 2") {
		t.Fatalf("after a second stall: %+v", done)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("took %s", took)
	}
}
