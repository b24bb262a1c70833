package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/casebook/casebook/api"
	"github.com/casebook/casebook/sinks"
)

// runCrawl asks the running server to crawl one source (or all) now and
// shows the progress of each run until its items are drafted, skipped or
// failed.
func runCrawl(ctx context.Context, args []string) error {
	var cf clientFlags
	var source string
	var list, noWait bool
	var every time.Duration
	fs, err := parseWith("crawl", args, &cf, func(fs *flag.FlagSet) {
		fs.StringVar(&source, "source", "", "crawl only this source (default: every source)")
		fs.BoolVar(&list, "list", false, "list the sources and their crawl history instead")
		fs.BoolVar(&noWait, "no-wait", false, "start the crawl and return")
		fs.DurationVar(&every, "poll", time.Second, "how often to poll progress")
	})
	if err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return &usageError{"unexpected arguments; use --source NAME"}
	}
	c := cf.client()
	var srcs struct {
		Items []api.SourceView `json:"items"`
	}
	if _, err := c.Do(ctx, "GET", "/api/v1/sources", nil, &srcs); err != nil {
		return err
	}
	if list {
		if cf.jsonOut {
			printJSON(srcs.Items)
			return nil
		}
		printSources(srcs.Items)
		return nil
	}
	var names []string
	for _, s := range srcs.Items {
		if source == "" || s.Name == source {
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		if source != "" {
			return fmt.Errorf("the server has no source named %q (casebook crawl --list)", source)
		}
		return fmt.Errorf("the server crawls no sources")
	}
	for _, n := range names {
		var run sinks.CrawlRun
		if _, err := c.Do(ctx, "POST", "/api/v1/sources/"+url.PathEscape(n)+"/crawl", nil, &run); err != nil {
			return fmt.Errorf("crawl %s: %w", n, err)
		}
		fmt.Printf("%s: crawl %s started\n", n, run.ID)
	}
	if noWait {
		return nil
	}
	// On a terminal one line is redrawn (the sources still running) and a
	// source's final line stays when it ends; elsewhere each change is a line.
	pr := newProgress(os.Stdout)
	last := map[string]string{}
	done := map[string]*api.CrawlProgress{}
	for len(done) < len(names) {
		var running []string
		for _, n := range names {
			if done[n] != nil {
				continue
			}
			var p api.CrawlProgress
			if _, err := c.Do(ctx, "GET", "/api/v1/sources/"+url.PathEscape(n)+"/crawls/latest", nil, &p); err != nil {
				pr.done()
				return err
			}
			line := crawlLine(n, &p)
			if p.Done {
				done[n] = &p
				if pr.tty {
					pr.println(os.Stdout, line)
				}
			} else {
				running = append(running, line)
			}
			if !pr.tty && line != last[n] {
				fmt.Println(line)
			}
			last[n] = line
		}
		if pr.tty && len(running) > 0 {
			pr.status(strings.Join(running, " | "))
		}
		if len(done) == len(names) {
			break
		}
		select {
		case <-ctx.Done():
			pr.done()
			return ctx.Err()
		case <-time.After(every):
		}
	}
	if pr.open {
		fmt.Print("\r\x1b[K")
		pr.open = false
	}
	if cf.jsonOut {
		printJSON(done)
		return crawlProblems(names, done)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	for _, n := range names {
		for _, it := range done[n].Items {
			note := it.Reason
			if it.Error != "" {
				note = it.Error
			}
			if it.DraftID != "" {
				note = "draft " + it.DraftID
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", it.SubmissionID, it.State, it.URL, note)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return crawlProblems(names, done)
}

// crawlProblems is the error (exit 1) for runs that did not succeed or
// items that failed, as `submit --file` fails for a failed URL: a script
// running `casebook crawl` must see a source it cannot read.
func crawlProblems(names []string, done map[string]*api.CrawlProgress) error {
	var problems []string
	for _, n := range names {
		p := done[n]
		switch p.Outcome {
		case "ok", "not_modified", "unchanged":
		default:
			msg := n + ": crawl " + p.Outcome
			if p.Error != "" {
				msg += ": " + p.Error
			}
			problems = append(problems, msg)
		}
		if p.Failed > 0 {
			problems = append(problems, fmt.Sprintf("%s: %d of %d items failed", n, p.Failed, p.New))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// crawlState is the word for a run: "ok" (or the run's other outcome) only
// once discovery ended and no item is pending.
func crawlState(p *api.CrawlProgress) string {
	switch {
	case p.Outcome == "running":
		return "discovering"
	case p.Pending > 0 || !p.Done:
		return "processing"
	}
	return p.Outcome
}

func crawlLine(name string, p *api.CrawlProgress) string {
	line := fmt.Sprintf("%s: %s found %d, new %d, fetched %d, skipped %d, failed %d, drafted %d, pending %d",
		name, crawlState(p), p.Found, p.New, p.Fetched, p.Skipped, p.Failed, p.Drafted, p.Pending)
	if p.Error != "" {
		line += " (" + p.Error + ")"
	}
	return line
}

func printSources(items []api.SourceView) {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tKIND\tLANG\tLAST RUN\tOUTCOME\tNEXT RUN\tERRORS\tURL")
	for _, s := range items {
		lastRun, next := "never", "-"
		if !s.State.LastRun.IsZero() {
			lastRun = s.State.LastRun.Local().Format(time.DateTime)
		}
		if !s.State.NextRun.IsZero() {
			next = s.State.NextRun.Local().Format(time.DateTime)
		}
		outcome := s.State.LastOutcome
		if s.Running {
			outcome = "running"
		}
		if outcome == "" {
			outcome = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", s.Name, s.Kind, s.Language, lastRun, outcome, next, s.State.ErrorCount, s.URL)
	}
	_ = w.Flush()
}
