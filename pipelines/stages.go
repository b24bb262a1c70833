package pipelines

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/classify"
	"github.com/casebook/casebook/extract"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines/crawl"
	"github.com/casebook/casebook/sinks"
)

// Stage is one step of the pipeline, free of NATS: unit-testable on its own,
// wired to subjects by the Wire* functions.
type Stage[In, Out any] interface {
	Process(ctx context.Context, in In) (Out, error)
	Close() error
}

// FetchStage downloads a submission's URL. With Polite set, every fetch
// waits its turn for the host and crawled URLs obey robots.txt (a manual
// submission is a person's request and skips it); with Seen set, a crawled
// page whose content or rel=canonical URL was already seen is skipped.
type FetchStage struct {
	Fetcher *fetch.Fetcher
	Polite  *crawl.PoliteFetcher
	Seen    crawl.SeenClaimer
}

// Process fetches the task's URL. A host that cannot take the request within
// the policy's in-process wait yields a *DeferError.
func (s *FetchStage) Process(ctx context.Context, in FetchTask) (*fetch.Page, error) {
	req := fetch.Request{URL: in.URL}
	if s.Polite == nil {
		return s.Fetcher.Fetch(ctx, req)
	}
	page, err := s.Polite.Fetch(ctx, req, isCrawl(in.Origin), 0)
	if err != nil || s.Seen == nil || !isCrawl(in.Origin) {
		return page, err
	}
	canonical, cerr := fetch.CanonicalForPage(page)
	if cerr != nil {
		canonical = ""
	}
	dup, err := s.Seen.Claim(ctx, crawl.SeenClaim{SubmissionID: in.SubmissionID, Source: sourceOf(in.Origin), URL: canonical, SHA256: page.RawSHA256})
	if err != nil {
		// The sink still deduplicates by URL and content; go on without.
		return page, nil
	}
	if dup != "" {
		return nil, &casebook.SkipError{Reason: "already seen: same page as " + dup, DuplicateOf: dup}
	}
	return page, nil
}

// MaxPoliteWait is how long a deferred task may wait in-process.
func (s *FetchStage) MaxPoliteWait(ctx context.Context) time.Duration {
	if s.Polite == nil || s.Polite.Limiter == nil {
		return crawl.DefaultMaxWait
	}
	return s.Polite.Limiter.Policy(ctx).MaxWait
}

// Close releases nothing; the fetcher's connections idle out.
func (s *FetchStage) Close() error { return nil }

// newFetchStage is the fetch stage of a worker or serve process: polite,
// robots-aware for crawls, and deduplicating crawled pages against the
// store process's seen-set.
func newFetchStage(bus *Bus, f *fetch.Fetcher) (*FetchStage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pf, err := crawl.NewPoliteFetcher(ctx, bus.JS, f)
	if err != nil {
		return nil, err
	}
	return &FetchStage{Fetcher: f, Polite: pf, Seen: crawl.NewSeenClient(bus.NC)}, nil
}

// sourceOf is the source name of a "crawl:<source>" origin.
func sourceOf(origin string) string {
	s, _ := strings.CutPrefix(origin, "crawl:")
	return s
}

func isCrawl(origin string) bool { return strings.HasPrefix(origin, "crawl") }

// ExtractInput is a page reference with its body loaded.
type ExtractInput struct {
	Page   PageRef
	Body   []byte
	Format string // "" sniffs from the content type, URL and bytes
}

// ExtractStage finds the article in a page.
type ExtractStage struct{}

// Process extracts the document; a page with no article text is skipped.
func (s *ExtractStage) Process(ctx context.Context, in ExtractInput) (*extract.Document, error) {
	doc, err := extract.Extract(in.Body, extract.Options{URL: in.Page.URL, ContentType: in.Page.ContentType, Format: in.Format})
	if err != nil {
		return nil, casebook.Permanent(fmt.Errorf("extract %s: %w", in.Page.URL, err))
	}
	if strings.TrimSpace(doc.Text) == "" {
		return nil, casebook.Skip("no article text found on the page")
	}
	return doc, nil
}

// Close implements Stage.
func (s *ExtractStage) Close() error { return nil }

// ClassifyStage drafts the case fields and decides skip or draft.
type ClassifyStage struct {
	Classifier *classify.Classifier
}

// Process classifies; other languages and, for crawls, posts the gate is
// confident are not incidents (under the band's low end) are skipped.
func (s *ClassifyStage) Process(ctx context.Context, in DocTask) (*SinkTask, error) {
	if in.Doc == nil {
		return nil, casebook.Permanentf("classify: task without a document")
	}
	c, canonical := s.Draft(in.Doc, in.Page)
	if c.Language == "und" {
		return nil, casebook.Skip("unsupported language: %s", SeenLanguage(s.Classifier, in.Doc))
	}
	// The skip edge is the low end of the post's language's band, under the
	// is_postmortem threshold: a skipped post is lost, a flagged one is seen.
	if c.Relevance.Band == classify.BandNotIncident && isCrawl(in.Page.Origin) {
		low, _ := s.Classifier.BandFor(c.Language)
		skip := casebook.Skip("not an incident write-up (relevance %.2f below %.2f; %s)", c.Relevance.Score, low, c.Relevance.Reason).(*casebook.SkipError)
		skip.Score, skip.Scored = c.Relevance.Score, true // listed beside the reason on the skipped list
		return nil, skip
	}
	if !c.Relevance.IsPostmortem || c.Relevance.Band == classify.BandUncertain {
		// nothing lost at the margin: the reviewer decides, in the flagged
		// lane (a manual submission is drafted even when the gate is
		// confident it is no incident: a person asked for it)
		c.Relevance.Flagged = true
	}
	return &SinkTask{SubmissionID: in.Page.SubmissionID, CanonicalURL: canonical, ContentHash: in.Page.SHA256, Case: c, Text: in.Doc.Text}, nil
}

// Draft classifies doc and records its source; `casebook extract` calls it
// directly, so the command and the pipeline share one code path.
func (s *ClassifyStage) Draft(doc *extract.Document, page PageRef) (*casebook.Case, string) {
	c := s.Classifier.Classify(doc)
	// A page's word about its own URL counts only on its own site; a claim
	// on another site is kept as a note for the reviewer, not as the source.
	canonical, claimed := fetch.SourceURL(page.URL, doc.CanonicalURL)
	fetched := ""
	if !page.FetchedAt.IsZero() {
		fetched = page.FetchedAt.UTC().Format(time.RFC3339)
	}
	c.Sources = []casebook.Source{{
		URL: canonical, Title: doc.Title, Site: doc.Site, Language: c.Language,
		Published: doc.Published, FetchedAt: fetched, SHA256: page.SHA256,
		ClaimedURL: claimed,
	}}
	return c, canonical
}

// Close implements Stage.
func (s *ClassifyStage) Close() error { return nil }

// SeenLanguage names what the detector saw, for the skip reason.
func SeenLanguage(c *classify.Classifier, doc *extract.Document) string {
	if _, seen := c.DetectLanguage(doc); seen != "" {
		return seen
	}
	if doc.DeclaredLang != "" {
		return "not en/ru/zh (page declares " + doc.DeclaredLang + ")"
	}
	return "not en/ru/zh"
}

// SinkStage writes drafts into the store.
type SinkStage struct {
	Store *sinks.Store
}

// Process stores the draft (idempotently) and returns what was done.
func (s *SinkStage) Process(ctx context.Context, in SinkTask) (sinks.DraftResult, error) {
	if in.Case == nil {
		return sinks.DraftResult{}, casebook.Permanentf("sink: task without a case")
	}
	res, err := s.Store.SaveDraft(sinks.DraftInput{
		SubmissionID: in.SubmissionID, CanonicalURL: in.CanonicalURL, ContentHash: in.ContentHash, Case: in.Case,
		Text: in.Text,
	})
	if errors.Is(err, sinks.ErrNotFound) {
		return res, casebook.Permanent(err)
	}
	return res, err
}

// Close implements Stage.
func (s *SinkStage) Close() error { return nil }
