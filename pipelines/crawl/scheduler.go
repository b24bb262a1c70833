package crawl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/api"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/sinks"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// SchedulerConfig configures the crawl scheduler. It runs in the store
// process only: it writes the seen-set and the crawl history to bbolt.
type SchedulerConfig struct {
	// Metrics counts runs and outcomes per source; nil counts nothing.
	Metrics   Metrics
	Sources   []Source
	Store     *sinks.Store
	Submitter api.Submitter
	Fetch     *PoliteFetcher
	// MaxNewPerRun caps the submissions of one run (newest items first);
	// the rest stay unseen and come in later runs. Default 100.
	MaxNewPerRun int
	Parallel     int           // sources crawled at once, default 4
	RetryBase    time.Duration // wait after a first failure, default 5m
	MaxBackoff   time.Duration // cap of the exponential backoff, default 24h
	// MaxFresh caps how far Cache-Control, Expires or a feed's TTL may push
	// the next run beyond the interval. Default 7 days.
	MaxFresh time.Duration
	// FirstRunSpread spreads the first runs of never-crawled sources over
	// this much time after start, default 5m.
	FirstRunSpread time.Duration
	// MaxResubmits bounds how often a failed item is retried by later
	// crawls, default 3.
	MaxResubmits int
	// HostWait bounds how long a source fetch waits for its host, default 10m.
	HostWait time.Duration
	Log      *slog.Logger
}

func (c *SchedulerConfig) defaults() {
	if c.MaxNewPerRun <= 0 {
		c.MaxNewPerRun = 100
	}
	if c.Parallel <= 0 {
		c.Parallel = 4
	}
	if c.RetryBase <= 0 {
		c.RetryBase = 5 * time.Minute
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 24 * time.Hour
	}
	if c.MaxFresh <= 0 {
		c.MaxFresh = 7 * 24 * time.Hour
	}
	if c.FirstRunSpread <= 0 {
		c.FirstRunSpread = 5 * time.Minute
	}
	if c.MaxResubmits <= 0 {
		c.MaxResubmits = 3
	}
	if c.HostWait <= 0 {
		c.HostWait = 10 * time.Minute
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
}

// Metrics is what the scheduler reports (pipelines.Metrics has it).
type Metrics interface {
	ObserveCrawl(source, outcome string, found, fresh int)
}

// Scheduler crawls each source on its interval, with jitter, and on demand.
type Scheduler struct {
	cfg     SchedulerConfig
	sources map[string]*Source
	order   []string

	mu      sync.Mutex
	running map[string]*sinks.CrawlRun
	ctx     context.Context
	wake    chan struct{}
	sem     chan struct{}
	wg      sync.WaitGroup
}

// NewScheduler validates the sources and builds a scheduler.
func NewScheduler(cfg SchedulerConfig) (*Scheduler, error) {
	cfg.defaults()
	if cfg.Store == nil || cfg.Submitter == nil || cfg.Fetch == nil {
		return nil, errors.New("scheduler: store, submitter and fetcher are required")
	}
	s := &Scheduler{cfg: cfg, sources: map[string]*Source{}, running: map[string]*sinks.CrawlRun{},
		ctx: context.Background(), wake: make(chan struct{}, 1), sem: make(chan struct{}, cfg.Parallel)}
	for i := range cfg.Sources {
		src := cfg.Sources[i]
		if err := src.validate(); err != nil {
			return nil, fmt.Errorf("source %q: %w", src.Name, err)
		}
		if _, dup := s.sources[src.Name]; dup {
			return nil, fmt.Errorf("source %q listed twice", src.Name)
		}
		s.sources[src.Name] = &src
		s.order = append(s.order, src.Name)
	}
	return s, nil
}

// Run crawls due sources until ctx ends, then waits for running crawls.
func (s *Scheduler) Run(ctx context.Context) error {
	s.mu.Lock()
	s.ctx = ctx
	s.mu.Unlock()
	defer s.wg.Wait()
	for {
		next := s.startDue(ctx)
		wait := time.Until(next)
		t := time.NewTimer(max(wait, 10*time.Millisecond))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-s.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// startDue starts every due source that has a free slot and returns when
// the next one is due.
func (s *Scheduler) startDue(ctx context.Context) time.Time {
	now := time.Now()
	next := now.Add(time.Minute)
	states, err := s.cfg.Store.ListSourceStates()
	if err != nil {
		s.cfg.Log.Error("crawl states unreadable", "err", err)
		return next
	}
	for _, name := range s.order {
		src := s.sources[name]
		st, ok := states[name]
		if !ok {
			st = sinks.SourceState{Name: name}
		}
		if st.NextRun.IsZero() {
			// First sight: spread first runs so a restart with many new
			// sources does not hit them all at once.
			st.NextRun = now.Add(time.Duration(mrand.Int64N(int64(min(s.cfg.FirstRunSpread, src.Interval)) + 1)))
			if err := s.cfg.Store.PutSourceState(st); err != nil {
				s.cfg.Log.Error("crawl state not saved", "source", name, "err", err)
			}
		}
		if st.NextRun.After(now) {
			if st.NextRun.Before(next) {
				next = st.NextRun
			}
			continue
		}
		if s.isRunning(name) {
			continue
		}
		select {
		case s.sem <- struct{}{}:
		default:
			return now.Add(time.Second) // all slots busy: look again soon
		}
		if _, err := s.start(ctx, name, "schedule", true); err != nil {
			s.cfg.Log.Error("crawl not started", "source", name, "err", err)
		}
	}
	return next
}

func (s *Scheduler) isRunning(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[name] != nil
}

// start records a run and crawls it in the background. holding says the
// caller already took a parallelism slot.
func (s *Scheduler) start(ctx context.Context, name, trigger string, holding bool) (*sinks.CrawlRun, error) {
	s.mu.Lock()
	if r := s.running[name]; r != nil {
		s.mu.Unlock()
		if holding {
			<-s.sem
		}
		cp := *r
		return &cp, nil
	}
	run := &sinks.CrawlRun{Source: name, Trigger: trigger, StartedAt: time.Now().UTC(), Outcome: "running"}
	if err := s.cfg.Store.StartRun(run); err != nil {
		s.mu.Unlock()
		if holding {
			<-s.sem
		}
		return nil, err
	}
	s.running[name] = run
	s.mu.Unlock()
	cp := *run
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if !holding {
			select {
			case s.sem <- struct{}{}:
			case <-ctx.Done():
				s.finish(run, nil, fmt.Errorf("stopped before the crawl began: %w", ctx.Err()), nil)
				return
			}
		}
		defer func() { <-s.sem }()
		s.execute(ctx, run)
	}()
	return &cp, nil
}

// Crawl starts a crawl of name now (POST /api/v1/sources/{name}/crawl). A
// crawl already running is returned instead of a second one.
func (s *Scheduler) Crawl(_ context.Context, name string) (*sinks.CrawlRun, error) {
	if s.sources[name] == nil {
		return nil, fmt.Errorf("source %q: %w", name, sinks.ErrNotFound)
	}
	s.mu.Lock()
	ctx := s.ctx
	s.mu.Unlock()
	return s.start(ctx, name, "manual", false)
}

// CrawlNow crawls name and returns when discovery and submission are done
// (the submissions themselves go on through the pipeline).
func (s *Scheduler) CrawlNow(ctx context.Context, name string) (*sinks.CrawlRun, error) {
	if s.sources[name] == nil {
		return nil, fmt.Errorf("source %q: %w", name, sinks.ErrNotFound)
	}
	run := &sinks.CrawlRun{Source: name, Trigger: "manual", StartedAt: time.Now().UTC(), Outcome: "running"}
	if err := s.cfg.Store.StartRun(run); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.running[name] = run
	s.mu.Unlock()
	s.execute(ctx, run)
	return run, nil
}

// Sources lists the sources with their crawl state (GET /api/v1/sources).
func (s *Scheduler) Sources(context.Context) ([]api.SourceView, error) {
	states, err := s.cfg.Store.ListSourceStates()
	if err != nil {
		return nil, err
	}
	out := make([]api.SourceView, 0, len(s.order))
	for _, name := range s.order {
		src := s.sources[name]
		st, ok := states[name]
		if !ok {
			st = sinks.SourceState{Name: name}
		}
		out = append(out, api.SourceView{Name: name, Kind: src.Kind, URL: src.URL, Interval: src.Interval.String(),
			Organization: src.Organization, Language: src.Language, Running: s.isRunning(name), State: st})
	}
	return out, nil
}

// Wait waits for the crawls started so far (Run does on its way out).
func (s *Scheduler) Wait() { s.wg.Wait() }

// Wake makes Run look at the schedule now (tests, after editing state).
func (s *Scheduler) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// crawlResult is what one crawl of a source document learnt.
type crawlResult struct {
	outcome  string
	page     *fetch.Page // the source document as last fetched (validators, freshness)
	ttl      time.Duration
	resolved string
}

func (s *Scheduler) execute(ctx context.Context, run *sinks.CrawlRun) {
	src := s.sources[run.Source]
	log := s.cfg.Log.With("source", src.Name, "run", run.ID)
	st, err := s.cfg.Store.GetSourceState(src.Name)
	if err != nil && !errors.Is(err, sinks.ErrNotFound) {
		s.finish(run, &st, err, nil)
		return
	}
	st.Name = src.Name
	res, items, err := s.discover(ctx, src, &st)
	if err == nil && res.outcome == "ok" {
		err = s.submitItems(ctx, src, run, items)
	}
	if err != nil {
		log.Warn("crawl failed", "err", err, "consecutive_errors", st.ErrorCount+1)
	} else {
		log.Info("crawled", "outcome", res.outcome, "found", run.Found, "new", run.New, "submitted", len(run.Submissions))
	}
	s.finish(run, &st, err, res)
}

// finish records the run and the source's next run: the interval with
// jitter (or later, while the source says it is fresh) after a success,
// exponential backoff with jitter after a failure.
func (s *Scheduler) finish(run *sinks.CrawlRun, st *sinks.SourceState, err error, res *crawlResult) {
	src := s.sources[run.Source]
	now := time.Now().UTC()
	if st == nil {
		got, _ := s.cfg.Store.GetSourceState(src.Name)
		st = &got
		st.Name = src.Name
	}
	run.FinishedAt = now
	st.LastRun, st.Runs, st.LastRunID = now, st.Runs+1, run.ID
	if err != nil && errors.Is(err, context.Canceled) {
		// Stopped by a shutdown, not the source's fault: no backoff, and
		// the next start crawls it again soon.
		run.Outcome, run.Error = "interrupted", err.Error()
		st.LastOutcome, st.LastError = "interrupted", err.Error()
		st.NextRun = now.Add(jitter(time.Minute, 0.5))
	} else if err != nil {
		run.Outcome, run.Error = "failed", err.Error()
		st.LastOutcome, st.LastError = "failed", err.Error()
		st.ErrorCount++
		st.Failures++
		st.NextRun = now.Add(s.backoff(st.ErrorCount, err))
	} else {
		run.Outcome = res.outcome
		st.LastOutcome, st.LastError, st.ErrorCount, st.LastSuccess = res.outcome, "", 0, now
		next := now.Add(jitter(src.Interval, 0.1))
		if res.page != nil {
			if fresh := res.page.FreshUntil(res.ttl); fresh.After(next) {
				next = minTime(fresh, now.Add(s.cfg.MaxFresh))
			}
		}
		st.NextRun = next
	}
	if s.cfg.Metrics != nil {
		s.cfg.Metrics.ObserveCrawl(src.Name, run.Outcome, run.Found, run.New)
	}
	if err := s.cfg.Store.SaveRun(run); err != nil {
		s.cfg.Log.Error("crawl run not saved", "source", src.Name, "err", err)
	}
	if err := s.cfg.Store.PutSourceState(*st); err != nil {
		s.cfg.Log.Error("crawl state not saved", "source", src.Name, "err", err)
	}
	s.mu.Lock()
	delete(s.running, run.Source)
	s.mu.Unlock()
	s.Wake()
}

// backoff is RetryBase doubling per consecutive failure up to MaxBackoff,
// with ±20% jitter; a Retry-After or a host's next-allowed time that is
// later wins.
func (s *Scheduler) backoff(failures int, err error) time.Duration {
	d := s.cfg.RetryBase
	for i := 1; i < failures && d < s.cfg.MaxBackoff; i++ {
		d *= 2
	}
	d = jitter(min(d, s.cfg.MaxBackoff), 0.2)
	if fe, ok := fetch.AsError(err); ok && fe.RetryAfter > d {
		d = fe.RetryAfter
	}
	var de *DeferError
	if errors.As(err, &de) {
		d = max(d, time.Until(de.Until))
	}
	return d
}

func jitter(d time.Duration, frac float64) time.Duration {
	return time.Duration(float64(d) * (1 - frac + 2*frac*mrand.Float64()))
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// fetchDoc fetches a source document politely, conditionally when the
// validators belong to target.
func (s *Scheduler) fetchDoc(ctx context.Context, target string, st *sinks.SourceState) (*fetch.Page, error) {
	req := fetch.Request{URL: target}
	if st != nil {
		req.ETag, req.LastModified = st.ETag, st.LastModified
	}
	if req.URL != "" && strings.Contains(req.URL, ".xml.gz") {
		req.MaxBytes = fetch.MaxSitemapBytes
	}
	page, err := s.cfg.Fetch.Fetch(ctx, req, true, s.cfg.HostWait)
	if err != nil {
		if sk, ok := casebook.AsSkip(err); ok {
			return nil, fmt.Errorf("%s: %s", target, sk.Reason)
		}
		return nil, err
	}
	return page, nil
}

// discover fetches the source document and lists its items. The state's
// validators, body hash and resolved URL are updated on the way.
func (s *Scheduler) discover(ctx context.Context, src *Source, st *sinks.SourceState) (*crawlResult, []fetch.Item, error) {
	target := src.URL
	if st.ResolvedURL != "" {
		target = st.ResolvedURL
	}
	page, err := s.fetchDoc(ctx, target, st)
	if err != nil {
		if fe, ok := fetch.AsError(err); ok && fe.Status == 404 && st.ResolvedURL != "" {
			st.ResolvedURL, st.ETag, st.LastModified = "", "", "" // discover afresh next time
		}
		return nil, nil, err
	}
	res := &crawlResult{page: page, resolved: st.ResolvedURL}
	if page.NotModified {
		res.outcome = "not_modified"
		return res, nil, nil
	}
	st.ETag, st.LastModified = page.ETag, page.LastModified
	if page.RawSHA256 == st.BodyHash {
		res.outcome = "unchanged"
		if src.Kind == KindFeed {
			if f, err := fetch.ParseFeed(page.Body, page.URL); err == nil {
				res.ttl = f.TTL
			}
		}
		return res, nil, nil
	}
	var items []fetch.Item
	switch src.Kind {
	case KindFeed:
		items, err = s.feedItems(ctx, src, st, res)
	case KindSitemap:
		items, err = s.sitemapItems(ctx, src, st, res)
	case KindPage:
		items, err = fetch.ParseListing(page.Body, page.URL, src.Link)
	}
	if err != nil {
		return nil, nil, err
	}
	st.BodyHash = res.page.RawSHA256
	res.outcome = "ok"
	return res, items, nil
}

func (s *Scheduler) feedItems(ctx context.Context, src *Source, st *sinks.SourceState, res *crawlResult) ([]fetch.Item, error) {
	page := res.page
	f, err := fetch.ParseFeed(page.Body, page.URL)
	if err != nil && isHTMLType(page.ContentType) {
		// A page, not a feed: follow its <link rel="alternate"> to the feed.
		link := FeedLink(page.Body, page.URL)
		if link == "" {
			return nil, fmt.Errorf("%s is a page that links no feed", page.URL)
		}
		fp, ferr := s.fetchDoc(ctx, link, nil)
		if ferr != nil {
			return nil, fmt.Errorf("feed %s found on %s: %w", link, page.URL, ferr)
		}
		if f, err = fetch.ParseFeed(fp.Body, fp.URL); err == nil {
			st.ResolvedURL, st.ETag, st.LastModified = link, fp.ETag, fp.LastModified
			res.page, res.resolved = fp, link
		}
	}
	if err != nil {
		return nil, err
	}
	res.ttl = f.TTL
	return f.Items, nil
}

// maxChildSitemaps bounds how many sitemaps of an index one run reads
// (the most recently modified first).
const maxChildSitemaps = 20

func (s *Scheduler) sitemapItems(ctx context.Context, src *Source, st *sinks.SourceState, res *crawlResult) ([]fetch.Item, error) {
	page := res.page
	sm, err := fetch.ParseSitemap(page.Body, page.URL)
	if err != nil {
		// Not a sitemap: find one in robots.txt, else at /sitemap.xml.
		var cands []string
		if s.cfg.Fetch.Robots != nil {
			if rules := s.cfg.Fetch.Robots.Rules(ctx, page.URL); rules != nil {
				cands = append(cands, rules.Sitemaps...)
			}
		}
		if u, perr := url.Parse(page.URL); perr == nil {
			cands = append(cands, u.Scheme+"://"+u.Host+"/sitemap.xml")
		}
		var lastErr error = err
		for _, c := range cands {
			fp, ferr := s.fetchDoc(ctx, c, nil)
			if ferr != nil {
				lastErr = ferr
				continue
			}
			found, perr := fetch.ParseSitemap(fp.Body, fp.URL)
			if perr != nil {
				lastErr = perr
				continue
			}
			sm, err = found, nil
			st.ResolvedURL, st.ETag, st.LastModified = c, fp.ETag, fp.LastModified
			res.page, res.resolved = fp, c
			break
		}
		if err != nil {
			return nil, fmt.Errorf("no sitemap found for %s: %w", page.URL, lastErr)
		}
	}
	items := sm.Items
	children := append([]fetch.Item(nil), sm.Sitemaps...)
	sort.SliceStable(children, func(i, j int) bool { return children[i].Updated.After(children[j].Updated) })
	for i, c := range children {
		if i >= maxChildSitemaps {
			break
		}
		fp, err := s.fetchDoc(ctx, c.URL, nil)
		if err != nil {
			s.cfg.Log.Warn("child sitemap failed", "source", src.Name, "url", c.URL, "err", err)
			continue
		}
		child, err := fetch.ParseSitemap(fp.Body, fp.URL)
		if err != nil {
			s.cfg.Log.Warn("child sitemap unreadable", "source", src.Name, "url", c.URL, "err", err)
			continue
		}
		items = append(items, child.Items...)
	}
	return items, nil
}

// submitItems submits the items not in the seen-set, newest first, up to
// MaxNewPerRun. A seen item whose submission failed is retried a few times.
func (s *Scheduler) submitItems(ctx context.Context, src *Source, run *sinks.CrawlRun, items []fetch.Item) error {
	var kept []fetch.Item
	for _, it := range items {
		if src.Match(it.URL) {
			kept = append(kept, it)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return itemTime(kept[i]).After(itemTime(kept[j])) })
	run.Found = len(kept)
	origin := "crawl:" + src.Name
	for i, it := range kept {
		canon, err := fetch.CanonicalURL(it.URL)
		if err != nil {
			continue
		}
		seen, err := s.cfg.Store.SeenURL(canon)
		if err != nil {
			return fmt.Errorf("seen-set: %w", err)
		}
		resubmits := 0
		if seen != nil {
			if !s.worthRetry(seen) {
				continue
			}
			resubmits = seen.Resubmits + 1
		}
		run.New++
		if len(run.Submissions) >= s.cfg.MaxNewPerRun {
			run.Deferred++
			continue
		}
		rec, existing, err := s.cfg.Submitter.Submit(ctx, it.URL, origin, src.Name)
		if err != nil {
			if casebook.IsPermanent(err) { // a URL the pipeline will never take
				_ = s.cfg.Store.MarkSeen(canon, sinks.SeenEntry{URL: canon, Source: src.Name})
				continue
			}
			return fmt.Errorf("submit %s: %w", it.URL, err)
		}
		if err := s.cfg.Store.MarkSeen(canon, sinks.SeenEntry{URL: canon, Source: src.Name, SubmissionID: rec.ID, Resubmits: resubmits}); err != nil {
			return fmt.Errorf("seen-set: %w", err)
		}
		if existing {
			run.New-- // submitted before, by hand or by another source
			continue
		}
		run.Submissions = append(run.Submissions, rec.ID)
		if i%20 == 19 {
			_ = s.cfg.Store.SaveRun(run) // progress for `casebook crawl`
		}
	}
	return nil
}

// worthRetry reports whether a seen item's earlier submission failed and
// may be tried again.
func (s *Scheduler) worthRetry(e *sinks.SeenEntry) bool {
	if e.SubmissionID == "" || e.Resubmits >= s.cfg.MaxResubmits {
		return false
	}
	rec, err := s.cfg.Store.GetSubmission(e.SubmissionID)
	return err == nil && rec.State == casebook.StateFailed
}

func itemTime(it fetch.Item) time.Time {
	if it.Published.After(it.Updated) {
		return it.Published
	}
	return it.Updated
}

func isHTMLType(ct string) bool { return ct == "text/html" || ct == "application/xhtml+xml" }

// FeedLink finds the feed a page announces with <link rel="alternate"
// type="application/rss+xml|atom+xml|feed+json">, resolved against the page.
func FeedLink(page []byte, base string) string {
	z := html.NewTokenizer(bytes.NewReader(page))
	b, _ := url.Parse(base)
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Body {
				return ""
			}
			if a == atom.Base && hasAttr {
				for {
					k, v, more := z.TagAttr()
					if string(k) == "href" {
						if ref, err := url.Parse(string(v)); err == nil && b != nil {
							b = b.ResolveReference(ref)
						}
					}
					if !more {
						break
					}
				}
				continue
			}
			if a != atom.Link || !hasAttr {
				continue
			}
			var rel, typ, href string
			for {
				k, v, more := z.TagAttr()
				switch string(k) {
				case "rel":
					rel = strings.ToLower(string(v))
				case "type":
					typ = strings.ToLower(strings.TrimSpace(string(v)))
				case "href":
					href = strings.TrimSpace(string(v))
				}
				if !more {
					break
				}
			}
			if !strings.Contains(" "+rel+" ", " alternate ") || href == "" {
				continue
			}
			switch typ {
			case "application/rss+xml", "application/atom+xml", "application/feed+json", "application/json":
			default:
				continue
			}
			ref, err := url.Parse(href)
			if err != nil || b == nil {
				continue
			}
			abs := b.ResolveReference(ref)
			if abs.Scheme == "http" || abs.Scheme == "https" {
				return abs.String()
			}
		}
	}
}
