package sinks

import (
	"testing"

	"github.com/casebook/casebook"
)

// TestDecidedDraftKeys: what a draft's URL and content-hash keys do when a
// reviewer decides it. A rejected draft releases them (the page may be
// submitted again and drafted anew); a merged draft's source now belongs
// to the case it was merged into, so its keys move there and the page
// submitted again is a duplicate of that case, not a second draft of a
// published incident.
func TestDecidedDraftKeys(t *testing.T) {
	for _, tc := range []struct {
		name   string
		decide func(s *Store, draftID, caseID string) error
		// want: "" a new draft; "case" a duplicate of the merge target
		want string
	}{
		{"rejected", func(s *Store, d, _ string) error { _, err := s.Reject(d, "rita", "not an incident"); return err }, ""},
		{"merged", func(s *Store, d, c string) error { _, err := s.Merge(d, c, "rita", "same incident"); return err }, "case"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openTemp(t)
			// sub is the submitted URL, u the canonical one the page names.
			draft := func(sub, u, hash string) DraftResult {
				t.Helper()
				rec, _, err := s.CreateSubmission(sub, sub, "manual", "")
				if err != nil {
					t.Fatal(err)
				}
				res, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: u, ContentHash: hash,
					Case: &casebook.Case{Title: "Disk full " + u, Language: "en", RootCause: casebook.RootCause{Category: "capacity", Description: "The disk filled up."},
						Sources: []casebook.Source{{URL: u, SHA256: hash}}}})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			first := draft("https://a.example/disk", "https://a.example/disk", "hash-a")
			pub, err := s.Approve(first.DraftID, "rita", "", nil)
			if err != nil {
				t.Fatal(err)
			}
			mirror := draft("https://b.example/disk", "https://b.example/disk", "hash-b")
			if err := tc.decide(s, mirror.DraftID, pub.ID); err != nil {
				t.Fatal(err)
			}
			// The same page reached again by another URL (one submission
			// per URL) that names the same canonical URL and content.
			again := draft("https://b.example/disk?utm=x", "https://b.example/disk", "hash-b")
			byURL, _ := s.db.Begin(false)
			owner := string(byURL.Bucket(bCaseByURL).Get([]byte("https://b.example/disk")))
			_ = byURL.Rollback()
			switch tc.want {
			case "":
				if again.DuplicateOf != "" || again.DraftID == "" || again.DraftID == mirror.DraftID {
					t.Errorf("after %s: %+v, want a new draft", tc.name, again)
				}
				if owner != again.DraftID {
					t.Errorf("after %s the URL key names %q, want the new draft %s", tc.name, owner, again.DraftID)
				}
			case "case":
				if again.DuplicateOf != pub.ID {
					t.Errorf("after %s: %+v, want a duplicate of %s", tc.name, again, pub.ID)
				}
				if owner != pub.ID {
					t.Errorf("after %s the URL key names %q, want %s", tc.name, owner, pub.ID)
				}
			}
		})
	}
}
