package pipelines_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/api"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines"
	"github.com/casebook/casebook/pipelines/crawl"
)

// fixtureSite serves the project's own fixture posts with fitting content types.
func fixtureSite(t *testing.T) *httptest.Server {
	t.Helper()
	dir := filepath.Join("..", "testdata", "posts")
	mux := http.NewServeMux()
	mux.HandleFunc("/posts/{name}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		raw, err := os.ReadFile(filepath.Join(dir, filepath.Base(name)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		switch filepath.Ext(name) {
		case ".md":
			w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		case ".txt":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		w.Write(raw)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func testLogger(t *testing.T) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func startService(t *testing.T, dataDir string) (*pipelines.Service, *api.Client) {
	t.Helper()
	return startConfigured(t, dataDir, pipelines.ServeConfig{
		Fetch:  fetch.Config{AllowPrivateNetworks: true},
		Runner: pipelines.RunnerConfig{Concurrency: 2, Backoff: func(int) time.Duration { return 200 * time.Millisecond }},
		// Every fixture is on one local host; the politeness tests cover spacing.
		Politeness: crawl.Politeness{MinDelay: 10 * time.Millisecond},
	})
}

// startConfigured starts a service on dataDir with cfg (its address and
// logger filled in) and a client holding the admin token.
func startConfigured(t *testing.T, dataDir string, cfg pipelines.ServeConfig) (*pipelines.Service, *api.Client) {
	t.Helper()
	cfg.DataDir, cfg.HTTPAddr, cfg.Log = dataDir, "127.0.0.1:0", testLogger(t)
	svc, err := pipelines.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	tok, err := os.ReadFile(filepath.Join(dataDir, pipelines.AdminTokenFile))
	if err != nil {
		t.Fatalf("admin token: %v", err)
	}
	return svc, &api.Client{BaseURL: "http://" + svc.Addr, Token: strings.TrimSpace(string(tok))}
}

func submit(t *testing.T, c *api.Client, u string) (casebook.Submission, int) {
	t.Helper()
	var sub casebook.Submission
	status, err := c.Do(context.Background(), "POST", "/api/v1/submissions", map[string]string{"url": u}, &sub)
	if err != nil {
		t.Fatalf("submit %s: %v", u, err)
	}
	return sub, status
}

func waitTerminal(t *testing.T, c *api.Client, id string) casebook.Submission {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var sub casebook.Submission
		if _, err := c.Do(context.Background(), "GET", "/api/v1/submissions/"+id, nil, &sub); err != nil {
			t.Fatalf("status %s: %v", id, err)
		}
		if sub.Terminal() {
			return sub
		}
		if time.Now().After(deadline) {
			t.Fatalf("submission %s still %s after 60s", id, sub.State)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestEndToEnd(t *testing.T) {
	site := fixtureSite(t)
	svc, c := startService(t, t.TempDir())
	defer svc.Close()
	ctx := context.Background()

	posts := map[string]string{"en-queue-outage.html": "en", "ru-disk-full.md": "ru", "zh-dns-timeout.html": "zh"}
	drafts := map[string]string{}
	for name, lang := range posts {
		sub, status := submit(t, c, site.URL+"/posts/"+name)
		if status != http.StatusAccepted || sub.ID == "" || sub.State != casebook.StateQueued {
			t.Fatalf("submit %s: status %d, %+v", name, status, sub)
		}
		done := waitTerminal(t, c, sub.ID)
		if done.State != casebook.StateDrafted || done.DraftID == "" {
			t.Fatalf("%s: %+v, want drafted", name, done)
		}
		var d casebook.Case
		if _, err := c.Do(ctx, "GET", "/api/v1/review/drafts/"+done.DraftID, nil, &d); err != nil {
			t.Fatal(err)
		}
		if d.Language != lang {
			t.Errorf("%s: language %q, want %q", name, d.Language, lang)
		}
		if d.RootCause.Description == "" || len(d.Remediation) == 0 {
			t.Errorf("%s: root cause %q, remediation %q: want both filled", name, d.RootCause.Description, d.Remediation)
		}
		if d.Status != casebook.StatusDraft || len(d.Sources) != 1 || d.Sources[0].SHA256 == "" {
			t.Errorf("%s: draft status %s sources %+v", name, d.Status, d.Sources)
		}
		// The review view carries the source text the evidence spans point into.
		var view struct {
			SourceText string `json:"source_text"`
			Extraction struct {
				Evidence map[string][]casebook.Span `json:"evidence"`
			} `json:"extraction"`
		}
		if _, err := c.Do(ctx, "GET", "/api/v1/review/drafts/"+done.DraftID, nil, &view); err != nil {
			t.Fatal(err)
		}
		spans := view.Extraction.Evidence["root_cause"]
		if len(spans) == 0 || spans[0].End > len(view.SourceText) || !strings.Contains(d.RootCause.Description, view.SourceText[spans[0].Start:spans[0].End][:min(20, spans[0].End-spans[0].Start)]) {
			t.Errorf("%s: root-cause evidence %v does not point into the %d-byte source text", name, spans, len(view.SourceText))
		}
		drafts[name] = done.DraftID

		// The same URL again answers with the existing submission, no second draft.
		again, status := submit(t, c, site.URL+"/posts/"+name)
		if status != http.StatusOK || again.ID != sub.ID || again.DraftID != done.DraftID {
			t.Errorf("resubmit %s: status %d %+v", name, status, again)
		}
	}

	var queue struct {
		Items      []casebook.Case `json:"items"`
		NextCursor string          `json:"next_cursor"`
	}
	if _, err := c.Do(ctx, "GET", "/api/v1/review/drafts?limit=2", nil, &queue); err != nil {
		t.Fatal(err)
	}
	if len(queue.Items) != 2 || queue.NextCursor == "" {
		t.Fatalf("draft page: %d items, cursor %q", len(queue.Items), queue.NextCursor)
	}

	var published casebook.Case
	if _, err := c.Do(ctx, "POST", "/api/v1/review/drafts/"+drafts["en-queue-outage.html"]+"/approve", map[string]string{"note": "looks right"}, &published); err != nil {
		t.Fatal(err)
	}
	if published.ID != "CB-0001" || published.Status != casebook.StatusPublished || published.Review.DecidedBy != "admin" {
		t.Fatalf("approve answered %s %s %+v", published.ID, published.Status, published.Review)
	}
	public := &api.Client{BaseURL: c.BaseURL}
	var got casebook.Case
	if _, err := public.Do(ctx, "GET", "/api/v1/cases/CB-0001", nil, &got); err != nil {
		t.Fatal(err)
	}
	if got.Title != published.Title || got.RootCause.Description == "" {
		t.Fatalf("read back %+v", got)
	}
	var cases struct {
		Items []casebook.Case `json:"items"`
	}
	if _, err := public.Do(ctx, "GET", "/api/v1/cases", nil, &cases); err != nil || len(cases.Items) != 1 {
		t.Fatalf("cases list: %v %d", err, len(cases.Items))
	}

	// Reject with a reason; the submission then shows it.
	var rejected casebook.Case
	if _, err := c.Do(ctx, "POST", "/api/v1/review/drafts/"+drafts["zh-dns-timeout.html"]+"/reject", map[string]string{"reason": "duplicate of an older write-up"}, &rejected); err != nil {
		t.Fatal(err)
	}
	if rejected.Status != casebook.StatusRejected {
		t.Fatalf("reject: %s", rejected.Status)
	}

	// Failures are recorded with a clear error; nothing is drafted.
	sub, _ := submit(t, c, site.URL+"/posts/missing.html")
	if done := waitTerminal(t, c, sub.ID); done.State != casebook.StateFailed || !strings.Contains(done.Error, "404") {
		t.Fatalf("missing page: %+v, want failed with 404", done)
	}
	sub, _ = submit(t, c, "http://does-not-exist.invalid/post")
	if done := waitTerminal(t, c, sub.ID); done.State != casebook.StateFailed || done.Error == "" {
		t.Fatalf("dns failure: %+v, want failed", done)
	}

	// Auth: review endpoints need a valid token; public reads need none.
	var apiErr *api.Error
	if _, err := public.Do(ctx, "GET", "/api/v1/review/drafts", nil, nil); !errors.As(err, &apiErr) || apiErr.Status != 401 {
		t.Fatalf("drafts without token: %v", err)
	}
	bad := &api.Client{BaseURL: c.BaseURL, Token: "cbk_wrong"}
	if _, err := bad.Do(ctx, "POST", "/api/v1/review/drafts/"+drafts["ru-disk-full.md"]+"/approve", nil, nil); !errors.As(err, &apiErr) || apiErr.Status != 401 {
		t.Fatalf("approve with a wrong token: %v", err)
	}
	var issued struct {
		Token string `json:"token"`
	}
	if _, err := c.Do(ctx, "POST", "/api/v1/review/reviewers", map[string]string{"name": "dana"}, &issued); err != nil || issued.Token == "" {
		t.Fatalf("reviewer add: %v", err)
	}
	dana := &api.Client{BaseURL: c.BaseURL, Token: issued.Token}
	if _, err := dana.Do(ctx, "POST", "/api/v1/review/reviewers", map[string]string{"name": "eve"}, nil); !errors.As(err, &apiErr) || apiErr.Status != 403 {
		t.Fatalf("a reviewer issuing tokens: %v, want 403", err)
	}
	var second casebook.Case
	if _, err := dana.Do(ctx, "POST", "/api/v1/review/drafts/"+drafts["ru-disk-full.md"]+"/approve", nil, &second); err != nil || second.ID != "CB-0002" {
		t.Fatalf("dana approves: %v %s", err, second.ID)
	}
	if _, err := public.Do(ctx, "GET", "/api/v1/cases/CB-9999", nil, nil); !errors.As(err, &apiErr) || apiErr.Status != 404 || apiErr.Code != "not_found" {
		t.Fatalf("unknown case: %v", err)
	}
	if _, err := public.Do(ctx, "POST", "/api/v1/submissions", map[string]string{"url": "ftp://example.org/x"}, nil); !errors.As(err, &apiErr) || apiErr.Status != 400 {
		t.Fatalf("ftp url: %v, want 400", err)
	}
}

// TestRestartLosesNothing stops the service right after the submissions were
// accepted, before the pipeline could finish, and again between draft and
// approval: every submission still ends drafted and approval works.
func TestRestartLosesNothing(t *testing.T) {
	site := fixtureSite(t)
	data := t.TempDir()
	svc, c := startService(t, data)
	var ids []string
	for _, name := range []string{"en-queue-outage.html", "ru-disk-full.md", "zh-dns-timeout.html"} {
		sub, _ := submit(t, c, site.URL+"/posts/"+name)
		ids = append(ids, sub.ID)
	}
	svc.Close() // mid-flight

	svc, c = startService(t, data)
	var draftIDs []string
	for _, id := range ids {
		done := waitTerminal(t, c, id)
		if done.State != casebook.StateDrafted {
			t.Fatalf("after restart %s: %+v", id, done)
		}
		draftIDs = append(draftIDs, done.DraftID)
	}
	svc.Close() // between draft and approval

	svc, c = startService(t, data)
	defer svc.Close()
	var queue struct {
		Items []casebook.Case `json:"items"`
	}
	if _, err := c.Do(context.Background(), "GET", "/api/v1/review/drafts", nil, &queue); err != nil || len(queue.Items) != 3 {
		t.Fatalf("drafts after restart: %v, %d (want 3, no duplicates)", err, len(queue.Items))
	}
	var pub casebook.Case
	if _, err := c.Do(context.Background(), "POST", "/api/v1/review/drafts/"+draftIDs[0]+"/approve", nil, &pub); err != nil {
		t.Fatal(err)
	}
	var got casebook.Case
	if _, err := (&api.Client{BaseURL: c.BaseURL}).Do(context.Background(), "GET", "/api/v1/cases/"+pub.ID, nil, &got); err != nil || got.ID != pub.ID {
		t.Fatalf("read back after restart: %v", err)
	}
}
