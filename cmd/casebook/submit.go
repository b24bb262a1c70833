package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/api"
)

// Exit codes of `submit --wait` for one URL.
const (
	exitFailed  = 1
	exitSkipped = 3
)

func runSubmit(ctx context.Context, args []string) error {
	var cf clientFlags
	wait := false
	file := ""
	poll := 500 * time.Millisecond
	fs, err := parseWith("submit", args, &cf, func(fs *flag.FlagSet) {
		fs.BoolVar(&wait, "wait", false, "wait until drafted (exit 0), failed (exit 1) or skipped (exit 3)")
		fs.StringVar(&file, "file", "", "submit every URL in FILE, one a line (- for standard input; blank lines and # comments are ignored)")
		fs.DurationVar(&poll, "poll", poll, "how often --wait asks for progress")
	})
	if err != nil {
		return err
	}
	c := cf.client()
	if file != "" {
		if fs.NArg() != 0 {
			return &usageError{"give URLs either as an argument or with --file, not both"}
		}
		return submitFile(ctx, c, file, wait, poll, cf.jsonOut)
	}
	if fs.NArg() != 1 {
		return &usageError{"want exactly one URL (or --file FILE)"}
	}
	sub, status, err := submitOne(ctx, c, fs.Arg(0))
	if err != nil {
		return err
	}
	if wait {
		if sub, err = waitTerminal(ctx, c, sub, poll); err != nil {
			return err
		}
	}
	if cf.jsonOut {
		printJSON(sub)
	} else {
		if status == http.StatusOK && !wait {
			fmt.Printf("already submitted: %s\n", sub.ID)
		}
		printSubmission(sub)
	}
	if !wait {
		return nil
	}
	switch sub.State {
	case casebook.StateFailed:
		return &exitError{exitFailed, "failed: " + orNone(sub.Error)}
	case casebook.StateSkipped:
		return &exitError{exitSkipped, "skipped: " + orNone(sub.Reason)}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}

// submitOne posts a URL. A 429 (the per-IP limit; a reviewer token lifts
// it) is waited out as Retry-After says, up to maxRateWait in all.
func submitOne(ctx context.Context, c *api.Client, u string) (casebook.Submission, int, error) {
	const maxRateWait = 5 * time.Minute
	deadline := time.Now().Add(maxRateWait)
	for {
		var sub casebook.Submission
		status, err := c.Do(ctx, "POST", "/api/v1/submissions", map[string]string{"url": u}, &sub)
		var ae *api.Error
		if err == nil || !errors.As(err, &ae) || ae.Status != http.StatusTooManyRequests || time.Now().After(deadline) {
			return sub, status, err
		}
		select {
		case <-ctx.Done():
			return sub, status, ctx.Err()
		case <-time.After(max(ae.RetryAfter, time.Second)):
		}
	}
}

func waitTerminal(ctx context.Context, c *api.Client, sub casebook.Submission, poll time.Duration) (casebook.Submission, error) {
	for !sub.Terminal() {
		select {
		case <-ctx.Done():
			return sub, ctx.Err()
		case <-time.After(poll):
		}
		if _, err := c.Do(ctx, "GET", "/api/v1/submissions/"+sub.ID, nil, &sub); err != nil {
			return sub, err
		}
	}
	return sub, nil
}

// readURLs reads one URL a line; blank lines and lines starting with # are
// skipped.
func readURLs(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out, sc.Err()
}

// batchCounts tallies a --file run.
type batchCounts struct {
	total, done                        int
	queued, already, refused           int
	drafted, skipped, failed, inFlight int
}

func (b batchCounts) line(waiting bool) string {
	s := fmt.Sprintf("submitted %d/%d: %d new, %d already submitted, %d refused", b.done, b.total, b.queued, b.already, b.refused)
	if waiting {
		s += fmt.Sprintf("; drafted %d, skipped %d, failed %d, pending %d", b.drafted, b.skipped, b.failed, b.inFlight)
	}
	return s
}

// submitFile submits a list of URLs one after the other, with a progress
// line on standard error and one result line a URL on standard output.
// Exit 1 when a URL was refused or (with --wait) failed, else 0.
func submitFile(ctx context.Context, c *api.Client, name string, wait bool, poll time.Duration, jsonOut bool) error {
	var r io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		defer f.Close()
		r = f
	}
	urls, err := readURLs(r)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if len(urls) == 0 {
		return &usageError{name + " has no URLs"}
	}
	p := newProgress(os.Stderr)
	p.every = 5 * time.Second // the summary line ends the run in any case
	b := batchCounts{total: len(urls)}
	var pending []casebook.Submission
	report := func(s casebook.Submission) {
		if jsonOut {
			printJSON(s)
			return
		}
		p.println(os.Stdout, submissionLine(s))
	}
	for _, u := range urls {
		sub, status, err := submitOne(ctx, c, u)
		b.done++
		var ae *api.Error
		switch {
		case errors.As(err, &ae) && ae.Status < 500 && ae.Status != http.StatusUnauthorized:
			b.refused++
			p.println(os.Stdout, fmt.Sprintf("-\trefused\t%s\terror=%q", u, ae.Message))
		case err != nil:
			p.done()
			return fmt.Errorf("after %d of %d URLs: %w", b.done-1, b.total, err)
		default:
			if status == http.StatusOK {
				b.already++
			} else {
				b.queued++
			}
			if wait && !sub.Terminal() {
				pending = append(pending, sub)
			} else {
				b.count(sub)
				report(sub)
			}
		}
		b.inFlight = len(pending)
		p.status(b.line(wait))
	}
	for wait && len(pending) > 0 {
		select {
		case <-ctx.Done():
			p.done()
			return ctx.Err()
		case <-time.After(poll):
		}
		still := pending[:0]
		for _, s := range pending {
			if _, err := c.Do(ctx, "GET", "/api/v1/submissions/"+s.ID, nil, &s); err != nil {
				p.done()
				return err
			}
			if s.Terminal() {
				b.count(s)
				report(s)
			} else {
				still = append(still, s)
			}
		}
		pending = still
		b.inFlight = len(pending)
		p.status(b.line(wait))
	}
	p.done()
	fmt.Fprintf(os.Stderr, "done: %s\n", b.line(wait))
	if b.refused > 0 || b.failed > 0 {
		return &exitError{code: exitFailed}
	}
	return nil
}

func (b *batchCounts) count(s casebook.Submission) {
	switch s.State {
	case casebook.StateDrafted:
		b.drafted++
	case casebook.StateSkipped:
		b.skipped++
	case casebook.StateFailed:
		b.failed++
	}
}
