package sinks

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/casebook/casebook"
)

// BenchmarkReviewQueue lists the first page of a 5,000-draft queue (a large
// crawl's worth) with its counts, newest first and by relevance, next to the
// peer: the same page without counts (ListDrafts), from the same store.
//
//	go test -run '^$' -bench ReviewQueue ./sinks
func BenchmarkReviewQueue(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "casebook.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n = 5000
	// Saved from 16 goroutines, as the sink does, so bbolt batches commits.
	var wg sync.WaitGroup
	next := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				saveBenchDraft(b, s, i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	b.Run("ListQueue", func(b *testing.B) {
		for b.Loop() {
			items, _, counts, err := s.ListQueue(QueueFilter{Language: "ru"}, "", 50)
			if err != nil || len(items) != 50 || counts.Total != n {
				b.Fatalf("%d items, %+v, %v", len(items), counts, err)
			}
		}
	})
	b.Run("ListQueue-by-relevance", func(b *testing.B) {
		for b.Loop() {
			items, _, counts, err := s.ListQueue(QueueFilter{Language: "ru", ByRelevance: true}, "", 50)
			if err != nil || len(items) != 50 || counts.Total != n {
				b.Fatalf("%d items, %+v, %v", len(items), counts, err)
			}
		}
	})
	b.Run("ListDrafts-peer", func(b *testing.B) {
		for b.Loop() {
			items, _, err := s.ListDrafts("", 50, func(c *casebook.Case) bool { return c.Language == "ru" })
			if err != nil || len(items) != 50 {
				b.Fatalf("%d items, %v", len(items), err)
			}
		}
	})
}

var benchWords = strings.Fields("order queue worker retry disk cache shard replica leader quorum timeout latency socket kernel thread pool lock index query schema proxy route certificate token session cluster node pod volume backup snapshot")

// saveBenchDraft saves draft i: distinct from the others, as a crawl of
// many blogs yields, except that every tenth repeats an earlier one's text
// (mirrors), so the queue has duplicates to count.
func saveBenchDraft(b *testing.B, s *Store, i int) {
	u := fmt.Sprintf("https://blog%d.example/posts/%d", i%200, i)
	rec, _, err := s.CreateSubmission(u, u, "crawl:bench", "bench")
	if err != nil {
		b.Fatal(err)
	}
	k := i
	if i%10 == 9 {
		k = i - 9
	}
	var sb strings.Builder
	for j := range 400 {
		sb.WriteString(benchWords[(k*7+j*j*13+j*k)%len(benchWords)])
		sb.WriteByte(' ')
	}
	body := sb.String()
	c := &casebook.Case{
		Title: fmt.Sprintf("Incident %d: queue backlog in service %d", k, k%97), Language: []string{"en", "ru", "zh"}[i%3],
		Summary:     body[:300],
		Symptoms:    fmt.Sprintf("Requests to service %d timed out for %d minutes. %s", k%97, k%60, body[:400]),
		RootCause:   casebook.RootCause{Category: "configuration", Description: fmt.Sprintf("Prefetch of pool %d was set to one. %s", k, body)},
		Remediation: []string{fmt.Sprintf("Reverted change %d.", k), "Restarted the pool."},
		Sources:     []casebook.Source{{URL: u}},
		Relevance:   casebook.Relevance{Score: float64(i%10) / 10, Flagged: i%10 < 4},
	}
	if _, err := s.SaveDraft(DraftInput{SubmissionID: rec.ID, CanonicalURL: u, ContentHash: fmt.Sprint("h", i), Case: c}); err != nil {
		b.Fatal(err)
	}
}
