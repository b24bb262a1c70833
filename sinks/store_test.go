package sinks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casebook/casebook"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "casebook.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func draftCase(title string) *casebook.Case {
	return &casebook.Case{Title: title, Language: "en", RootCause: casebook.RootCause{Category: "configuration", Description: "a bad rule"}}
}

func TestSubmissionLifecycle(t *testing.T) {
	s := openTemp(t)
	rec, existing, err := s.CreateSubmission("https://Example.org/a?utm_source=x", "https://example.org/a", "manual", "")
	if err != nil || existing {
		t.Fatalf("create: %v existing=%v", err, existing)
	}
	again, existing, err := s.CreateSubmission("https://example.org/a", "https://example.org/a", "manual", "")
	if err != nil || !existing || again.ID != rec.ID {
		t.Fatalf("second create = %v %v %v, want the first submission", again.ID, existing, err)
	}
	pending, _ := s.Unenqueued()
	if len(pending) != 1 {
		t.Fatalf("unenqueued = %d, want 1", len(pending))
	}
	if err := s.MarkEnqueued(rec.ID); err != nil {
		t.Fatal(err)
	}
	if pending, _ = s.Unenqueued(); len(pending) != 0 {
		t.Fatalf("unenqueued after mark = %d", len(pending))
	}
	for _, st := range []string{casebook.StateFetching, casebook.StateClassifying, casebook.StateExtracting} {
		if err := s.Progress(rec.ID, st, "", "", ""); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.GetSubmission(rec.ID)
	if got.State != casebook.StateClassifying {
		t.Fatalf("state = %s, want classifying (never backwards)", got.State)
	}
	res, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: "https://example.org/a", ContentHash: "h1", Case: draftCase("A")})
	if err != nil || res.DraftID == "" {
		t.Fatalf("save draft: %+v %v", res, err)
	}
	// A redelivered sink message is a no-op.
	res2, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: "https://example.org/a", ContentHash: "h1", Case: draftCase("A")})
	if err != nil || res2.DraftID != res.DraftID {
		t.Fatalf("replayed save = %+v %v, want %s", res2, err, res.DraftID)
	}
	// A late failure event cannot undo a terminal state.
	_ = s.Progress(rec.ID, casebook.StateFailed, "", "late", "")
	got, _ = s.GetSubmission(rec.ID)
	if got.State != casebook.StateDrafted || got.DraftID != res.DraftID {
		t.Fatalf("after late event: %+v", got.Submission)
	}
	drafts, _, _ := s.ListDrafts("", 10, nil)
	if len(drafts) != 1 {
		t.Fatalf("drafts = %d", len(drafts))
	}
}

// The same content on the same site is a duplicate and skipped; on another
// site it may be a copy or the original, so it becomes a draft of its own
// with the other case listed among its duplicates for the reviewer.
func TestDuplicateContent(t *testing.T) {
	s := openTemp(t)
	save := func(u string) (DraftResult, SubmissionRecord) {
		t.Helper()
		rec, _, err := s.CreateSubmission(u, u, "manual", "")
		if err != nil {
			t.Fatal(err)
		}
		c := draftCase("X")
		c.Sources = []casebook.Source{{URL: u, SHA256: "same"}}
		res, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: u, ContentHash: "same", Case: c})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := s.GetSubmission(rec.ID)
		return res, got
	}
	r1, _ := save("https://a.example/x")
	r2, sub := save("https://www.a.example/x?page=1")
	if r2.DuplicateOf != r1.DraftID || sub.State != casebook.StateSkipped || sub.Reason != "duplicate of case "+r1.DraftID {
		t.Fatalf("same site: %+v %+v, want a duplicate of %s", r2, sub.Submission, r1.DraftID)
	}
	r3, sub := save("https://mirror.example/x")
	if r3.DuplicateOf != "" || r3.DraftID == "" || sub.State != casebook.StateDrafted {
		t.Fatalf("other site: %+v %+v, want a draft of its own", r3, sub.Submission)
	}
	dups, err := s.Duplicates(r3.DraftID)
	if err != nil || len(dups) != 1 || dups[0].ID != r1.DraftID || dups[0].Reason != "same-content-hash" {
		t.Fatalf("duplicates of %s = %+v %v, want %s by content hash", r3.DraftID, dups, err, r1.DraftID)
	}
}

// A rejected draft lets go of its URL and content hash: a later submission
// of that page is drafted, not skipped as a duplicate of the rejected one.
func TestRejectReleasesDedupeKeys(t *testing.T) {
	s := openTemp(t)
	const u = "https://victim.example/p"
	save := func(sub string) DraftResult {
		t.Helper()
		rec, _, err := s.CreateSubmission(sub, sub, "manual", "")
		if err != nil {
			t.Fatal(err)
		}
		c := draftCase("P")
		c.Sources = []casebook.Source{{URL: u, SHA256: "h"}}
		res, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: u, ContentHash: "h", Case: c})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := save("https://victim.example/p?from=spoof")
	if _, err := s.Reject(first.DraftID, "rita", "spoofed"); err != nil {
		t.Fatal(err)
	}
	again := save(u)
	if again.DuplicateOf != "" || again.DraftID == "" || again.DraftID == first.DraftID {
		t.Fatalf("after reject: %+v, want a new draft", again)
	}
	dups, _ := s.Duplicates(again.DraftID)
	if len(dups) != 0 {
		t.Fatalf("duplicates of the new draft = %+v, want none (the rejected one released its keys)", dups)
	}
}

func TestApproveRejectAndPaging(t *testing.T) {
	s := openTemp(t)
	var drafts []string
	for i := 0; i < 5; i++ {
		u := fmt.Sprintf("https://example.org/%d", i)
		rec, _, _ := s.CreateSubmission(u, u, "manual", "")
		res, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: u, ContentHash: fmt.Sprint(i), Case: draftCase(fmt.Sprint("case ", i))})
		if err != nil {
			t.Fatal(err)
		}
		drafts = append(drafts, res.DraftID)
	}
	var published []string
	for _, id := range drafts[:4] {
		c, err := s.Approve(id, "alice", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		published = append(published, c.ID)
	}
	if published[0] != "CB-0001" || published[3] != "CB-0004" {
		t.Fatalf("ids = %v", published)
	}
	if _, err := s.Approve(drafts[0], "alice", "", nil); !errors.Is(err, ErrConflict) {
		t.Fatalf("approving twice: %v, want conflict", err)
	}
	// The draft id keeps answering.
	c, resolved, err := s.GetCase(drafts[1])
	if err != nil || resolved != "CB-0002" || c.Status != casebook.StatusPublished {
		t.Fatalf("alias: %v %s %v", c, resolved, err)
	}
	// Pages: newest first, stable cursor, empty cursor at the end.
	var seen []string
	cursor := ""
	for {
		page, next, err := s.ListPublished(cursor, 3, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page {
			seen = append(seen, c.ID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if fmt.Sprint(seen) != "[CB-0004 CB-0003 CB-0002 CB-0001]" {
		t.Fatalf("pages = %v", seen)
	}
	if _, err := s.Reject(drafts[4], "bob", ""); !errors.Is(err, ErrInvalid) {
		t.Fatalf("reject without reason: %v", err)
	}
	if _, err := s.Reject(drafts[4], "bob", "not an incident"); err != nil {
		t.Fatal(err)
	}
	sub, _ := s.GetSubmission(s.SubmissionOf(drafts[4]))
	if sub.Reason != "rejected: not an incident" {
		t.Fatalf("submission reason = %q", sub.Reason)
	}
	h, _ := s.History("CB-0001")
	if len(h) != 2 || h[0].Action != "drafted" || h[1].Action != "approved" || h[1].By != "alice" {
		t.Fatalf("history = %+v", h)
	}
}

func TestConcurrentSinkBatches(t *testing.T) {
	s := openTemp(t)
	var ids []string
	for i := 0; i < 50; i++ {
		u := fmt.Sprintf("https://example.org/p%d", i)
		rec, _, _ := s.CreateSubmission(u, u, "manual", "")
		ids = append(ids, rec.ID)
	}
	var wg sync.WaitGroup
	for i, id := range ids {
		for rep := 0; rep < 2; rep++ { // every message delivered twice
			wg.Add(1)
			go func() {
				defer wg.Done()
				u := fmt.Sprintf("https://example.org/p%d", i)
				if _, err := s.SaveDraft(DraftInput{SubmissionID: id, CanonicalURL: u, ContentHash: u, Case: draftCase(u)}); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	counts, _ := s.CountCases()
	if counts[casebook.StatusDraft] != 50 {
		t.Fatalf("drafts = %d, want 50 (one per submission)", counts[casebook.StatusDraft])
	}
}

func TestTokensAndBackup(t *testing.T) {
	s := openTemp(t)
	tok, r, err := s.AddToken("carol", RoleReviewer)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Authenticate(tok); !ok || got.Name != "carol" {
		t.Fatalf("auth = %v %v", got, ok)
	}
	if _, ok := s.Authenticate(tok + "x"); ok {
		t.Fatal("a wrong token authenticated")
	}
	if err := s.RevokeToken(r.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Authenticate(tok); ok {
		t.Fatal("a revoked token authenticated")
	}
	var buf bytes.Buffer
	if _, err := s.Backup(&buf, nil); err != nil || buf.Len() == 0 {
		t.Fatalf("backup: %v (%d bytes)", err, buf.Len())
	}
	_, _, err = s.AddToken("", RoleReviewer)
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty name: %v", err)
	}
}

func TestSecondOpenFailsClearly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := Open(path, Options{Timeout: 100_000_000}); err == nil {
		t.Fatal("a second writer opened the same store")
	}
}

func TestMarkEnqueuedMany(t *testing.T) {
	s := openTemp(t)
	var ids []string
	for i := 0; i < 3; i++ {
		u := fmt.Sprintf("https://example.org/m%d", i)
		rec, _, _ := s.CreateSubmission(u, u, "manual", "")
		ids = append(ids, rec.ID)
	}
	if err := s.MarkEnqueuedMany(append(ids[:2:2], "sub-unknown")); err != nil {
		t.Fatal(err)
	}
	pending, _ := s.Unenqueued()
	if len(pending) != 1 || pending[0].ID != ids[2] {
		t.Fatalf("unenqueued = %+v, want only %s", pending, ids[2])
	}
}

func TestStatusOfHeadAndFallback(t *testing.T) {
	c := casebook.Case{ID: "CB-0001", Status: casebook.StatusPublished}
	raw, _ := json.Marshal(c)
	if st, err := statusOf(raw); err != nil || st != casebook.StatusPublished {
		t.Fatalf("statusOf(case JSON) = %q, %v", st, err)
	}
	// A record written some other way (status late, spaced) still counts.
	if st, err := statusOf([]byte(`{"title": "x", "status" : "draft"}`)); err != nil || st != "draft" {
		t.Fatalf("fallback = %q, %v", st, err)
	}
}

func TestApprovedCaseStillCatchesDuplicates(t *testing.T) {
	s := openTemp(t)
	src := []casebook.Source{{URL: "https://a.example/pm", SHA256: "h-pm"}}
	a, _, _ := s.CreateSubmission("https://a.example/pm", "https://a.example/pm", "manual", "")
	c := draftCase("A")
	c.Sources = src
	r, _ := s.SaveDraft(DraftInput{SubmissionID: a.ID, CanonicalURL: src[0].URL, ContentHash: src[0].SHA256, Case: c})
	pub, err := s.Approve(r.DraftID, "alice", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Same content on the same site (content on another site is flagged, see TestDuplicateContent).
	b, _, _ := s.CreateSubmission("https://www.a.example/pm?p=1", "https://www.a.example/pm?p=1", "crawl:m", "m")
	res, err := s.SaveDraft(DraftInput{SubmissionID: b.ID, CanonicalURL: "https://www.a.example/pm?p=1", ContentHash: "h-pm", Case: draftCase("A")})
	if err != nil || res.DuplicateOf != pub.ID {
		t.Fatalf("after approval: %+v %v, want duplicate of %s", res, err, pub.ID)
	}
	if sub := s.SubmissionOf(pub.ID); sub != a.ID {
		t.Fatalf("submission of %s = %q, want %s", pub.ID, sub, a.ID)
	}
}

func BenchmarkCountStatus(b *testing.B) {
	c := casebook.Case{ID: "CB-0001", Status: casebook.StatusPublished, Summary: strings.Repeat("a long summary sentence. ", 400)}
	raw, _ := json.Marshal(c)
	b.Run("statusOf", func(b *testing.B) {
		for b.Loop() {
			_, _ = statusOf(raw)
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			var v struct {
				Status string `json:"status"`
			}
			_ = json.Unmarshal(raw, &v)
		}
	})
}

// TestOpenLockedStore: a second process (here a second open) on a store in
// use gets an error naming the lock, not bbolt's bare "timeout"; once the
// first closes, the store opens.
func TestOpenLockedStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "casebook.db")
	first, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		close   bool // close the first store before opening again
		wantErr string
	}{
		{"while open", false, "locked by another process"},
		{"after close", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.close {
				if err := first.Close(); err != nil {
					t.Fatal(err)
				}
			}
			st, err := Open(path, Options{Timeout: 100 * time.Millisecond})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				st.Close()
				return
			}
			if err == nil {
				st.Close()
				t.Fatal("second open of a store in use succeeded")
			}
			if !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the lock and the path", err)
			}
		})
	}
}

// TestMergeDecidedDraft: merging a draft that was already merged or approved
// is a conflict (409: not a draft any more), even when its id now resolves
// to the merge target; only a live draft named as its own target is "into
// itself".
func TestMergeDecidedDraft(t *testing.T) {
	s := openTemp(t)
	draft := func(u string) string {
		t.Helper()
		rec, _, err := s.CreateSubmission(u, u, "manual", "")
		if err != nil {
			t.Fatal(err)
		}
		c := draftCase("Merge " + u)
		c.Sources = []casebook.Source{{URL: u, SHA256: u}}
		res, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: u, ContentHash: u, Case: c, Text: "text of " + u})
		if err != nil || res.DraftID == "" {
			t.Fatalf("draft %s: %v %+v", u, err, res)
		}
		return res.DraftID
	}
	target, merged, live := draft("https://a.example/1"), draft("https://b.example/2"), draft("https://c.example/3")
	pub, err := s.Approve(target, "alice", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Merge(merged, pub.ID, "alice", ""); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, draft, into string
		want              error
	}{
		{"merged draft into its case again", merged, pub.ID, ErrConflict},
		{"approved draft into its own case", target, pub.ID, ErrConflict},
		{"published case as the draft", pub.ID, pub.ID, ErrConflict},
		{"live draft into itself", live, live, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Merge(tc.draft, tc.into, "alice", "")
			if !errors.Is(err, tc.want) {
				t.Fatalf("Merge(%s, %s) = %v, want %v", tc.draft, tc.into, err, tc.want)
			}
		})
	}
}

// TestFlaggedDraftReason: a flagged draft's submission says why it is in the
// flagged lane: the gate was unsure, or it judged the post no incident and a
// person asked for it anyway (never "uncertain" for that).
func TestFlaggedDraftReason(t *testing.T) {
	s := openTemp(t)
	for i, tc := range []struct {
		band    string
		score   float64
		want    string
		notWant string
	}{
		{"uncertain", 0.2, "flagged: relevance 0.20 uncertain (gate says)", ""},
		{"not-incident", 0.02, "flagged: relevance 0.02 judged no incident, drafted as asked (gate says)", "uncertain"},
	} {
		t.Run(tc.band, func(t *testing.T) {
			u := fmt.Sprintf("https://flag.example/%d", i)
			rec, _, err := s.CreateSubmission(u, u, "manual", "")
			if err != nil {
				t.Fatal(err)
			}
			c := draftCase("Flagged " + u)
			c.Sources = []casebook.Source{{URL: u, SHA256: u}}
			c.Relevance = casebook.Relevance{Score: tc.score, Flagged: true, Band: tc.band, Reason: "gate says"}
			if _, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: u, ContentHash: u, Case: c, Text: "text " + u}); err != nil {
				t.Fatal(err)
			}
			got, err := s.GetSubmission(rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Reason != tc.want || (tc.notWant != "" && strings.Contains(got.Reason, tc.notWant)) {
				t.Errorf("reason %q, want %q", got.Reason, tc.want)
			}
		})
	}
}
