package sinks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/casebook/casebook"
	bolt "go.etcd.io/bbolt"
)

func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		text     string
		forIndex bool
		want     []string
	}{
		{"Failing deployments failed", false, []string{"fail", "deploy", "fail"}},
		{"The database and the cache", false, []string{"databas", "cach"}},
		{"k8s S3 http2", false, []string{"k8s", "s3", "http2"}},
		{"Отказ дисков", false, []string{"отказ", "диск"}},
		{"отказов диски", false, []string{"отказ", "диск"}},
		{"ёлка", false, []string{"елк"}},
		{"数据库故障", false, []string{"数据", "据库", "库故", "故障"}},
		{"数据库", true, []string{"数", "数据", "据", "据库", "库"}},
		{"库", false, []string{"库"}},
		{"DNS超时 timeout", false, []string{"dns", "超时", "timeout"}},
		{"", false, nil},
	} {
		if got := Tokens(tc.text, tc.forIndex); !slices.Equal(got, tc.want) {
			t.Errorf("Tokens(%q, %v) = %q, want %q", tc.text, tc.forIndex, got, tc.want)
		}
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range []string{"Failing deployments", "Отказ дисков", "数据库故障", "a\x00b", strings.Repeat("x", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range Tokens(s, true) {
			if tok == "" || strings.ContainsRune(tok, 0) || !utf8.ValidString(tok) && utf8.ValidString(s) {
				t.Fatalf("bad token %q from %q", tok, s)
			}
			if len(tok) > maxTermBytes*2 {
				t.Fatalf("token %d bytes", len(tok))
			}
		}
	})
}

func sample(title, org, lang, cat string, year int, comps, tags []string, summary string) *casebook.Case {
	return &casebook.Case{
		Title: title, Organization: org, Language: lang, Published: fmt.Sprintf("%d-03-01", year),
		Summary: summary, Components: comps, Tags: tags,
		RootCause: casebook.RootCause{Category: cat, Description: summary},
		Sources:   []casebook.Source{{URL: "https://" + strings.ToLower(strings.ReplaceAll(org, " ", "")) + ".example/" + strings.ReplaceAll(strings.ToLower(title), " ", "-"), SHA256: "h-" + title}},
	}
}

func seed(t *testing.T, s *Store) []string {
	t.Helper()
	ids, err := s.Import([]*casebook.Case{
		sample("Queue outage after broker upgrade", "Acme", "en", "software-defect", 2021, []string{"message-queue"}, []string{"rabbitmq"}, "The message broker crashed after an upgrade and consumers stalled."),
		sample("Диск переполнился на сервере базы данных", "Рога и копыта", "ru", "capacity", 2022, []string{"database", "storage"}, []string{"postgresql"}, "Отказ базы данных: диски переполнились журналами, запись остановилась."),
		sample("DNS解析超时导致服务不可用", "美团", "zh", "network", 2023, []string{"dns"}, []string{"kubernetes"}, "集群内DNS解析超时，导致大量请求失败，数据库连接也受到影响。"),
		sample("Database failover stalled writes", "Acme", "en", "capacity", 2022, []string{"database"}, []string{"postgresql", "kubernetes"}, "A full disk on the primary database stopped writes; failover was slow."),
		sample("Cache stampede", "Other Co", "en", "capacity", 2021, []string{"cache"}, []string{"redis"}, "The cache expired at once and the database was overloaded."),
	}, "test")
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func ids(cs []casebook.Case) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func TestListCasesFilters(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	for _, tc := range []struct {
		f    Filter
		want []string
	}{
		{Filter{}, []string{"CB-0005", "CB-0004", "CB-0003", "CB-0002", "CB-0001"}},
		{Filter{Tag: "postgresql"}, []string{"CB-0004", "CB-0002"}},
		{Filter{Tag: "postgresql", Language: "en"}, []string{"CB-0004"}},
		{Filter{Category: "capacity", Year: 2022}, []string{"CB-0004", "CB-0002"}},
		{Filter{Organization: "acme"}, []string{"CB-0004", "CB-0001"}},
		{Filter{Organization: "  ACME "}, []string{"CB-0004", "CB-0001"}},
		{Filter{Component: "database", Organization: "Рога и копыта"}, []string{"CB-0002"}},
		{Filter{Tag: "nope"}, []string{}},
		{Filter{Year: 1999}, []string{}},
	} {
		got, _, err := s.ListCases(tc.f, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), tc.want) {
			t.Errorf("ListCases(%+v) = %v, want %v", tc.f, ids(got), tc.want)
		}
	}
	// Paging under a filter: stable cursors, no repeats.
	var seen []string
	cursor := ""
	for i := 0; i < 5; i++ {
		page, next, err := s.ListCases(Filter{Category: "capacity"}, cursor, 1)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, ids(page)...)
		if next == "" {
			break
		}
		cursor = next
	}
	if want := []string{"CB-0005", "CB-0004", "CB-0002"}; !slices.Equal(seen, want) {
		t.Fatalf("paged = %v, want %v", seen, want)
	}
	if _, _, err := s.ListCases(Filter{Tag: "x"}, "zzz", 1); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad cursor: %v", err)
	}
	if n := s.Count("tag", "postgresql"); n != 2 {
		t.Fatalf("count = %d", n)
	}
}

func TestSearch(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	for _, tc := range []struct {
		q    string
		want []string // exactly these, in this order when len > 1 matters
	}{
		{"database", []string{"CB-0004", "CB-0005"}},
		{"databases overloaded", []string{"CB-0005"}},
		{"stalled", []string{"CB-0004", "CB-0001"}},
		{"дисков", []string{"CB-0002"}},            // word form of "диски"
		{"переполнение базы", []string{"CB-0002"}}, // OR fallback: "базы" matches
		{"数据库", []string{"CB-0003"}},
		{"超时", []string{"CB-0003"}},
		{"DNS解析", []string{"CB-0003"}},
		{"Acme", []string{"CB-0004", "CB-0001"}},
		{"zzzunknownword", []string{}},
		{"the and", []string{}},
	} {
		res, err := s.Search(tc.q, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		got := ids(res.Items)
		if len(tc.want) == 1 || len(tc.want) == 0 {
			if !slices.Equal(got, tc.want) {
				t.Errorf("Search(%q) = %v, want %v (terms %q)", tc.q, got, tc.want, res.Terms)
			}
			continue
		}
		slices.Sort(got)
		w := slices.Clone(tc.want)
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("Search(%q) = %v, want %v", tc.q, ids(res.Items), tc.want)
		}
	}
	// The title outweighs the body.
	res, _ := s.Search("database", "", 10)
	if ids(res.Items)[0] != "CB-0004" {
		t.Errorf("title match not first: %v", ids(res.Items))
	}
	// Paging by offset.
	p1, _ := s.Search("database", "", 1)
	p2, _ := s.Search("database", p1.NextCursor, 1)
	if p1.NextCursor != "1" || len(p2.Items) != 1 || p2.Items[0].ID == p1.Items[0].ID || p2.NextCursor != "" || p1.Total != 2 {
		t.Fatalf("paging: %+v / %+v", p1, p2)
	}
}

func TestSimilarAndRelated(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	sim, err := s.SimilarTo("CB-0004", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(sim) != 1 || sim[0].ID != "CB-0002" || sim[0].Relation != "same-root-cause" || !slices.Contains(sim[0].Shared, "database") || !slices.Contains(sim[0].Shared, "postgresql") {
		t.Fatalf("similar = %+v", sim)
	}
	if !strings.Contains(sim[0].Reason, "same root cause (capacity)") {
		t.Fatalf("reason = %q", sim[0].Reason)
	}
	// CB-0005 shares only the root cause and no label: not related.
	for _, x := range sim {
		if x.ID == "CB-0005" || x.ID == "CB-0004" {
			t.Fatalf("unexpected %s in %+v", x.ID, sim)
		}
	}
	c, _, err := s.GetPublished("CB-0004", 5)
	if err != nil || len(c.Related) == 0 || c.Related[0].ID != "CB-0002" || c.Related[0].Year != 2022 {
		t.Fatalf("related: %v %+v", err, c)
	}
	if _, _, err := s.GetPublished("CB-0404", 5); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

func TestEditReindexesAndMerge(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	c, changed, err := s.EditCase("CB-0001", "alice", "retag", func(c *casebook.Case) error {
		c.Tags = []string{"kafka"}
		c.Title = "Kafka consumers stalled"
		return nil
	})
	if err != nil || !slices.Equal(changed, []string{"title", "tags"}) || c.Status != casebook.StatusPublished {
		t.Fatalf("edit: %v %v %+v", err, changed, c)
	}
	if h, _ := s.History("CB-0001"); len(h) != 2 || h[1].Action != "edited" || h[1].By != "alice" ||
		string(h[1].Values["tags"].Before) != `["rabbitmq"]` || string(h[1].Values["tags"].After) != `["kafka"]` {
		t.Fatalf("edit history %+v", h)
	}
	if got, _, _ := s.ListCases(Filter{Tag: "rabbitmq"}, "", 10); len(got) != 0 {
		t.Fatalf("old tag still indexed: %v", ids(got))
	}
	if got, _, _ := s.ListCases(Filter{Tag: "kafka"}, "", 10); !slices.Equal(ids(got), []string{"CB-0001"}) {
		t.Fatalf("new tag: %v", ids(got))
	}
	if res, _ := s.Search("kafka", "", 10); !slices.Equal(ids(res.Items), []string{"CB-0001"}) {
		t.Fatalf("search after edit: %v", ids(res.Items))
	}
	if res, _ := s.Search("queue", "", 10); len(res.Items) != 0 {
		t.Fatalf("old title still searchable: %v", ids(res.Items))
	}
	// No change: no history entry.
	if _, changed, _ := s.EditCase("CB-0001", "alice", "", func(*casebook.Case) error { return nil }); len(changed) != 0 {
		t.Fatalf("no-op edit changed %v", changed)
	}

	// Merge a draft into CB-0004: the case gains the source, the draft redirects.
	rec, _, _ := s.CreateSubmission("https://mirror.example/db", "https://mirror.example/db", "manual", "")
	d := sample("Database failover stalled writes (mirror)", "Acme", "en", "capacity", 2022, []string{"database"}, nil, "Copy.")
	d.Sources = []casebook.Source{{URL: "https://mirror.example/db", SHA256: "mirror"}}
	res, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: "https://mirror.example/db", ContentHash: "mirror", Case: d, Text: "source text"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Merge(res.DraftID, "CB-0404", "alice", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("merge into missing: %v", err)
	}
	if _, err := s.Merge(res.DraftID, res.DraftID, "alice", ""); !errors.Is(err, ErrInvalid) {
		t.Fatalf("merge into itself: %v", err)
	}
	merged, err := s.Merge(res.DraftID, "CB-0004", "alice", "same incident")
	if err != nil || len(merged.Sources) != 2 || merged.Sources[1].URL != "https://mirror.example/db" {
		t.Fatalf("merge: %v %+v", err, merged)
	}
	got, resolved, err := s.GetCase(res.DraftID)
	if err != nil || resolved != "CB-0004" || got.ID != "CB-0004" {
		t.Fatalf("draft id after merge: %s %v", resolved, err)
	}
	sub, _ := s.GetSubmission(rec.ID)
	if sub.Reason != "merged into case CB-0004" {
		t.Fatalf("submission reason %q", sub.Reason)
	}
	if _, err := s.Merge(res.DraftID, "CB-0001", "alice", ""); !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrConflict) {
		t.Fatalf("merging twice: %v", err)
	}
	hist, _ := s.History("CB-0004")
	var actions []string
	for _, h := range hist {
		actions = append(actions, h.Action)
	}
	if !slices.Contains(actions, "merged") || !slices.Contains(actions, "source-added") || !slices.Contains(actions, "drafted") {
		t.Fatalf("history actions %v", actions)
	}
	if s.SourceText(res.DraftID) != "source text" {
		t.Fatalf("source text lost")
	}
	if _, _, err := s.EditCase("CB-0404", "a", "", func(*casebook.Case) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Fatalf("edit missing: %v", err)
	}
}

func TestDuplicates(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	long := "The primary database ran out of disk because write-ahead logs were never archived. Writes stopped for forty minutes until operators freed space and promoted a replica. Archiving is now monitored."
	pub, _ := s.Import([]*casebook.Case{sample("Disk full on the primary", "Acme", "en", "capacity", 2024, []string{"database"}, nil, long)}, "t")

	mk := func(url, hash, title, text string) string {
		rec, _, _ := s.CreateSubmission(url, url, "manual", "")
		c := sample(title, "Blog", "en", "capacity", 2024, nil, nil, text)
		c.Sources = []casebook.Source{{URL: url, SHA256: hash}}
		res, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: url, ContentHash: hash, Case: c})
		if err != nil || res.DraftID == "" {
			t.Fatalf("draft: %v %+v", err, res)
		}
		return res.DraftID
	}
	near := mk("https://syndicated.example/p", "other", "Disk full on the primary (repost)", long+" Thanks for reading.")
	unrelated := mk("https://else.example/q", "else", "Unrelated", "A certificate expired on the load balancer and every TLS handshake failed for an hour until it was renewed by hand.")
	d, err := s.Duplicates(near)
	if err != nil || len(d) != 1 || d[0].ID != pub[0] || d[0].Reason != "near-duplicate-text" || d[0].Similarity < NearDuplicate {
		t.Fatalf("near duplicates: %v %+v", err, d)
	}
	if d, _ := s.Duplicates(unrelated); len(d) != 0 {
		t.Fatalf("unrelated flagged: %+v", d)
	}
	// A draft whose source URL is already another case's.
	rec, _, _ := s.CreateSubmission("https://x.example/1", "https://x.example/1", "manual", "")
	c := sample("Copy", "X", "en", "capacity", 2024, nil, nil, "short")
	c.Sources = []casebook.Source{{URL: "https://x.example/1", SHA256: "h-Cache stampede"}}
	res, _ := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: "https://x.example/1", Case: c})
	if d, _ := s.Duplicates(res.DraftID); len(d) != 1 || d[0].ID != "CB-0005" || d[0].Reason != "same-content-hash" {
		t.Fatalf("hash duplicate: %+v", d)
	}
	// Rejecting the near duplicate drops its signature.
	if _, err := s.Reject(near, "a", "repost"); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.Duplicates(pub[0]); slices.ContainsFunc(d, func(x Duplicate) bool { return x.ID == near }) {
		t.Fatalf("rejected draft still flagged: %+v", d)
	}
}

func TestQueue(t *testing.T) {
	s := openTemp(t)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	for i, lang := range []string{"en", "ru", "zh", "en"} {
		u := fmt.Sprintf("https://site%d.example/p", i%2)
		u += fmt.Sprint(i)
		rec, _, _ := s.CreateSubmission(u, u, "manual", "")
		c := draftCase(fmt.Sprint("q", i))
		c.Language = lang
		c.Relevance = casebook.Relevance{Score: 0.2 * float64(i+1), Flagged: i == 0}
		c.Sources = []casebook.Source{{URL: u, Site: "Site"}}
		if _, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: u, ContentHash: u, Case: c}); err != nil {
			t.Fatal(err)
		}
		now = now.Add(24 * time.Hour)
	}
	yes := true
	for _, tc := range []struct {
		f    QueueFilter
		want []string
	}{
		{QueueFilter{}, []string{"q3", "q2", "q1", "q0"}},
		{QueueFilter{Language: "en"}, []string{"q3", "q0"}},
		{QueueFilter{Source: "site1"}, []string{"q3", "q1"}},
		{QueueFilter{MinRelevance: 0.5}, []string{"q3", "q2"}},
		{QueueFilter{MaxRelevance: 0.5}, []string{"q1", "q0"}},
		{QueueFilter{Flagged: &yes}, []string{"q0"}},
		{QueueFilter{OlderThan: 60 * time.Hour}, []string{"q1", "q0"}},
		{QueueFilter{NewerThan: 60 * time.Hour}, []string{"q3", "q2"}},
	} {
		items, _, counts, err := s.ListQueue(tc.f, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range items {
			got = append(got, c.Title)
		}
		if !slices.Equal(got, tc.want) || counts.Matched != len(tc.want) || counts.Total != 4 {
			t.Errorf("queue %+v = %v (counts %+v), want %v", tc.f, got, counts, tc.want)
		}
	}
	_, _, counts, _ := s.ListQueue(QueueFilter{}, "", 1)
	if counts.ByLanguage["en"] != 2 || counts.Flagged != 1 || counts.BySource["site0.example"] != 2 {
		t.Fatalf("counts %+v", counts)
	}
}

func TestSessions(t *testing.T) {
	s := openTemp(t)
	tok, rv, _ := s.AddToken("rita", RoleReviewer)
	if _, _, err := s.CreateSession("cbk_bad", time.Hour); !errors.Is(err, ErrNotFound) {
		t.Fatalf("bad token login: %v", err)
	}
	id, sess, err := s.CreateSession(tok, time.Hour)
	if err != nil || sess.CSRF == "" || sess.Reviewer.Name != "rita" {
		t.Fatalf("login: %v %+v", err, sess)
	}
	if got, ok := s.GetSession(id); !ok || got.CSRF != sess.CSRF {
		t.Fatalf("get session: %v %+v", ok, got)
	}
	if _, ok := s.GetSession(id + "x"); ok {
		t.Fatal("wrong session id accepted")
	}
	// Expiry.
	real := s.now
	s.now = func() time.Time { return real().Add(2 * time.Hour) }
	if _, ok := s.GetSession(id); ok {
		t.Fatal("expired session accepted")
	}
	s.now = real
	// Revoking the token ends its sessions.
	if err := s.RevokeToken(rv.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.GetSession(id); ok {
		t.Fatal("session of a revoked token accepted")
	}
	tok2, _, _ := s.AddToken("sam", RoleReviewer)
	id2, _, _ := s.CreateSession(tok2, time.Hour)
	if err := s.DeleteSession(id2); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.GetSession(id2); ok {
		t.Fatal("logged-out session accepted")
	}
}

func TestTopHits(t *testing.T) {
	var hits []hit
	for i := 0; i < 1000; i++ {
		hits = append(hits, hit{seq: uint64(i), score: float64((i * 37) % 101)})
	}
	all := slices.Clone(hits)
	slices.SortFunc(all, func(a, b hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	for _, k := range []int{1, 7, 20, 250, 1000, 2000} {
		got := topHits(slices.Clone(hits), k)
		if !slices.Equal(got, all[:min(k, len(all))]) {
			t.Fatalf("top %d differs", k)
		}
	}
}

// TestSearchANDMatchesBruteForce checks the cursor-walking intersection
// against a plain set intersection over many random small documents.
func TestSearchANDMatchesBruteForce(t *testing.T) {
	s := openTemp(t)
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"}
	r := rand.New(rand.NewPCG(1, 2))
	var batch []*casebook.Case
	docs := map[string]map[string]bool{}
	for i := 0; i < 400; i++ {
		var w []string
		set := map[string]bool{}
		for j := 0; j < 1+r.IntN(4); j++ {
			x := words[r.IntN(len(words))]
			w = append(w, x)
			set[x] = true
		}
		c := &casebook.Case{Title: strings.Join(w, " "), Language: "en"}
		batch = append(batch, c)
		docs[fmt.Sprintf("CB-%04d", i+1)] = set
	}
	if _, err := s.Import(batch, "t"); err != nil {
		t.Fatal(err)
	}
	for qi := 0; qi < 60; qi++ {
		q := []string{words[r.IntN(len(words))], words[r.IntN(len(words))]}
		if qi%3 == 0 {
			q = append(q, words[r.IntN(len(words))])
		}
		want := map[string]bool{}
		for id, set := range docs {
			all := true
			for _, w := range q {
				all = all && set[w]
			}
			if all {
				want[id] = true
			}
		}
		res, err := s.Search(strings.Join(q, " "), "", 400)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			continue // the OR fallback answers; not what this test checks
		}
		got := map[string]bool{}
		for _, c := range res.Items {
			got[c.ID] = true
		}
		if len(got) != len(want) {
			t.Fatalf("query %v: %d hits, want %d", q, len(got), len(want))
		}
		for id := range want {
			if !got[id] {
				t.Fatalf("query %v: missing %s", q, id)
			}
		}
	}
}

func TestGetPublishedJSONSplicesRelated(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	raw, resolved, err := s.GetPublishedJSON("CB-0004", 5)
	if err != nil || resolved != "CB-0004" {
		t.Fatal(err)
	}
	var c casebook.Case
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, raw)
	}
	want, _, _ := s.GetPublished("CB-0004", 5)
	if c.Title != want.Title || len(c.Related) != 1 || c.Related[0].ID != want.Related[0].ID {
		t.Fatalf("spliced %+v, want %+v", c.Related, want.Related)
	}
	// A case stored with a related list (an older writer) is still served.
	if err := s.db.Update(func(tx *bolt.Tx) error {
		var old casebook.Case
		getJSON(tx.Bucket(bCases), []byte("CB-0004"), &old)
		old.Related = []casebook.Related{{ID: "CB-0001", Title: "stale"}}
		return putJSON(tx.Bucket(bCases), []byte("CB-0004"), old)
	}); err != nil {
		t.Fatal(err)
	}
	raw, _, err = s.GetPublishedJSON("CB-0004", 5)
	if err != nil || json.Unmarshal(raw, &c) != nil || len(c.Related) != 1 || c.Related[0].ID != "CB-0002" {
		t.Fatalf("fallback: %v %+v", err, c.Related)
	}
	if _, _, err := s.GetPublishedJSON("CB-0404", 5); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

// TestOpenReindexes: a store whose indexes are missing (written before
// them) is re-indexed when opened, and only once.
func TestOpenReindexes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	seed(t, s)
	// Forget the indexes, as a store from before them would look.
	if err := s.db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bIdx, bIdxCount, bTerms, bTermDF, bCards} {
			if err := tx.DeleteBucket(b); err != nil {
				return err
			}
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		return tx.Bucket(bMeta).Delete(metaIndexVersion)
	}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.ListCases(Filter{Tag: "postgresql"}, "", 10); len(got) != 0 {
		t.Fatalf("indexes not cleared: %v", ids(got))
	}
	s.Close()
	s, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, _, _ := s.ListCases(Filter{Tag: "postgresql"}, "", 10); !slices.Equal(ids(got), []string{"CB-0004", "CB-0002"}) {
		t.Fatalf("after reopen: %v", ids(got))
	}
	if res, _ := s.Search("дисков", "", 10); !slices.Equal(ids(res.Items), []string{"CB-0002"}) {
		t.Fatalf("search after reopen: %v", ids(res.Items))
	}
	if n := s.Count("all", ""); n != 5 {
		t.Fatalf("count after reopen = %d", n)
	}
}

// A store written when evidence lists could be null serves them as [] once
// reopened: the API hands out the stored bytes as they are.
func TestNullRecordsRewrittenOnUpgrade(t *testing.T) {
	s := openTemp(t)
	ids, err := s.Import([]*casebook.Case{{Title: "Disk filled", Language: "en", Sources: []casebook.Source{{URL: "https://n.example/1"}}}}, "t")
	if err != nil {
		t.Fatal(err)
	}
	old := []byte(`"evidence":{"components":null,"tags":null}`)
	if err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bCases)
		raw := bytes.Replace(b.Get([]byte(ids[0])), []byte(`"evidence":{}`), old, 1)
		if !bytes.Contains(raw, old) {
			t.Fatalf("fixture: no empty evidence in %s", raw)
		}
		return b.Put([]byte(ids[0]), raw)
	}); err != nil {
		t.Fatal(err)
	}
	s2 := reopenAsOlder(t, s, metaRecordsVersion)
	raw, _, err := s2.GetPublishedJSON(ids[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("null")) {
		t.Fatalf("after upgrade the record still holds null: %s", raw)
	}
}

// SearchWith: filters, sort orders, tag aliases, -word and "phrases".
func TestSearchWith(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	for _, tc := range []struct {
		q    string
		o    SearchOptions
		want []string // in order
	}{
		{"database", SearchOptions{Sort: SortNewest}, []string{"CB-0005", "CB-0004"}},
		{"database", SearchOptions{Sort: SortOldest}, []string{"CB-0004", "CB-0005"}},
		{"database", SearchOptions{Filter: Filter{Tag: "redis"}}, []string{"CB-0005"}},
		{"database", SearchOptions{Filter: Filter{Year: 2022, Organization: "acme"}}, []string{"CB-0004"}},
		{"database", SearchOptions{Filter: Filter{Language: "ru"}}, []string{}},
		{"database", SearchOptions{Filter: Filter{Component: "dns"}}, []string{}},
		// Cases hold both words but not the tag: nothing, not the OR fallback.
		{"database failover", SearchOptions{Filter: Filter{Tag: "redis"}}, []string{}},
		{"database failover -slow", SearchOptions{}, []string{}},
		{"stalled", SearchOptions{Filter: Filter{Category: "software-defect"}}, []string{"CB-0001"}},
		// An alias finds the cases carrying its tag, in any language.
		{"k8s", SearchOptions{Sort: SortNewest}, []string{"CB-0004", "CB-0003"}},
		{"k8s database", SearchOptions{}, []string{"CB-0004"}},
		{"k8s", SearchOptions{Filter: Filter{Language: "zh"}}, []string{"CB-0003"}},
		// Exclusion, of a word and of an alias's tag.
		{"database -overloaded", SearchOptions{}, []string{"CB-0004"}},
		{"database -k8s", SearchOptions{}, []string{"CB-0005"}},
		{"database -zzznothing", SearchOptions{Sort: SortNewest}, []string{"CB-0005", "CB-0004"}},
		// Phrases: the words in that order, in one field.
		{`"full disk"`, SearchOptions{}, []string{"CB-0004"}},
		{`"disk full"`, SearchOptions{}, []string{}},
		{`database -"full disk"`, SearchOptions{}, []string{"CB-0005"}},
		{`"cache expired" database`, SearchOptions{}, []string{"CB-0005"}},
	} {
		res, err := s.SearchWith(tc.q, tc.o, "", 10)
		if err != nil {
			t.Fatalf("%q: %v", tc.q, err)
		}
		if got := ids(res.Items); !slices.Equal(got, tc.want) {
			t.Errorf("SearchWith(%q, %+v) = %v, want %v (terms %q)", tc.q, tc.o, got, tc.want, res.Terms)
		}
		if res.Total != len(tc.want) {
			t.Errorf("SearchWith(%q) total %d, want %d", tc.q, res.Total, len(tc.want))
		}
	}
	if _, err := s.SearchWith("database", SearchOptions{Sort: "best"}, "", 10); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown sort: %v", err)
	}
	// Paging an ordered search goes on where the first page stopped.
	p1, _ := s.SearchWith("database", SearchOptions{Sort: SortOldest}, "", 1)
	p2, _ := s.SearchWith("database", SearchOptions{Sort: SortOldest}, p1.NextCursor, 1)
	if ids(p1.Items)[0] != "CB-0004" || len(p2.Items) != 1 || p2.Items[0].ID != "CB-0005" {
		t.Fatalf("oldest paging: %v then %v", ids(p1.Items), ids(p2.Items))
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{`k8s -redis "full disk"`, `-"a b`, `"`, `--`, `- x`, `"数据库 故障" -超时`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		p := parseQuery(q)
		if len(p.must) != len(p.aliasOf) || len(p.must) > maxQueryTerms {
			t.Fatalf("plan %+v", p)
		}
		for _, m := range p.must {
			if len(m) != 1 || m[0] == "" {
				t.Fatalf("clause %q", m)
			}
		}
	})
}

// Listings oldest first page by cursor like newest first; Skip passes over
// matches (the web UI's page numbers).
func TestListCasesWith(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	for _, tc := range []struct {
		f    Filter
		o    ListOptions
		want []string
	}{
		{Filter{}, ListOptions{Sort: SortOldest}, []string{"CB-0001", "CB-0002", "CB-0003", "CB-0004", "CB-0005"}},
		{Filter{Category: "capacity"}, ListOptions{Sort: SortOldest}, []string{"CB-0002", "CB-0004", "CB-0005"}},
		{Filter{Category: "capacity"}, ListOptions{Skip: 1}, []string{"CB-0004", "CB-0002"}},
		{Filter{}, ListOptions{Sort: SortOldest, Skip: 3}, []string{"CB-0004", "CB-0005"}},
		{Filter{Tag: "kubernetes", Language: "en"}, ListOptions{Sort: SortOldest}, []string{"CB-0004"}},
	} {
		got, _, err := s.ListCasesWith(tc.f, tc.o, "", 10)
		if err != nil || !slices.Equal(ids(got), tc.want) {
			t.Errorf("ListCasesWith(%+v, %+v) = %v %v, want %v", tc.f, tc.o, ids(got), err, tc.want)
		}
	}
	var all []string
	cursor := ""
	for range 10 {
		page, next, err := s.ListCasesWith(Filter{Category: "capacity"}, ListOptions{Sort: SortOldest}, cursor, 1)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ids(page)...)
		if next == "" {
			break
		}
		cursor = next
	}
	if !slices.Equal(all, []string{"CB-0002", "CB-0004", "CB-0005"}) {
		t.Fatalf("oldest-first pages: %v", all)
	}
	if _, _, err := s.ListCasesWith(Filter{}, ListOptions{Sort: "relevance"}, "", 1); !errors.Is(err, ErrInvalid) {
		t.Fatalf("relevance sort of a listing: %v", err)
	}
}

// Facets count the matching cases only: a search, a filtered list, or (no
// query, no filter) every published case.
func TestFacetsOf(t *testing.T) {
	s := openTemp(t)
	seed(t, s)
	count := func(fs []Facet, v string) int {
		for _, f := range fs {
			if f.Value == v {
				return f.Count
			}
		}
		return 0
	}
	all, err := s.FacetsOf("", SearchOptions{})
	if err != nil || all.Total != 5 || count(all.Categories, "capacity") != 3 || count(all.Languages, "en") != 3 || count(all.Years, "2021") != 2 {
		t.Fatalf("global facets: %+v %v", all, err)
	}
	capac, _ := s.FacetsOf("", SearchOptions{Filter: Filter{Category: "capacity"}})
	if capac.Total != 3 || count(capac.Languages, "en") != 2 || count(capac.Languages, "ru") != 1 || count(capac.Tags, "postgresql") != 2 || count(capac.Categories, "network") != 0 {
		t.Fatalf("capacity facets: %+v", capac)
	}
	if capac.Organizations[0].Value != "acme" || capac.Organizations[0].Label != "Acme" {
		t.Fatalf("organization facet: %+v", capac.Organizations)
	}
	found, _ := s.FacetsOf("database", SearchOptions{Filter: Filter{Year: 2022}})
	if found.Total != 1 || count(found.Tags, "kubernetes") != 1 || count(found.Years, "2022") != 1 || len(found.Years) != 1 {
		t.Fatalf("search facets: %+v", found)
	}
}
