package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/api"
	"github.com/casebook/casebook/pipelines"
	"github.com/casebook/casebook/sinks"
)

// clientFlags are shared by every command that talks to a running server.
type clientFlags struct {
	server, token, data string
	jsonOut             bool
}

func (c *clientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.server, "server", envOr("CASEBOOK_SERVER", "http://127.0.0.1:8080"), "casebook server URL (env CASEBOOK_SERVER)")
	fs.StringVar(&c.token, "token", os.Getenv("CASEBOOK_TOKEN"), "reviewer token (env CASEBOOK_TOKEN; default: DATA/admin.token when readable)")
	fs.StringVar(&c.data, "data", envOr("CASEBOOK_DATA", "./data"), "data directory, to find admin.token when no token is given")
	fs.BoolVar(&c.jsonOut, "json", false, "print raw JSON")
}

func (c *clientFlags) client() *api.Client {
	tok := c.token
	if tok == "" {
		if raw, err := os.ReadFile(filepath.Join(c.data, pipelines.AdminTokenFile)); err == nil {
			tok = strings.TrimSpace(string(raw))
		}
	}
	return &api.Client{BaseURL: c.server, Token: tok}
}

func printJSON(v any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func parseWith(name string, args []string, cf *clientFlags, extra func(*flag.FlagSet)) (*flag.FlagSet, error) {
	fs := newFlagSet(name)
	cf.register(fs)
	if extra != nil {
		extra(fs)
	}
	// Flags may follow positional arguments ("review reject ID --reason R").
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, flagError(err)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	_ = fs.Parse(pos) // leaves pos as the positional args
	return fs, nil
}

func terminal(state string) bool {
	s := casebook.Submission{State: state}
	return s.Terminal()
}

func printSubmission(s casebook.Submission) { fmt.Println(submissionLine(s)) }

// submissionLine is a submission as one tab-separated line.
func submissionLine(s casebook.Submission) string {
	line := s.ID + "\t" + s.State + "\t" + s.URL
	if s.DraftID != "" {
		line += "\tdraft=" + s.DraftID
	}
	if s.Reason != "" {
		line += fmt.Sprintf("\treason=%q", s.Reason)
	}
	if s.Attempts > 0 {
		line += fmt.Sprintf("\tattempts=%d", s.Attempts)
	}
	if s.Error != "" {
		line += fmt.Sprintf("\terror=%q", s.Error)
	}
	return line
}

func runStatus(ctx context.Context, args []string) error {
	var cf clientFlags
	fs, err := parseWith("status", args, &cf, nil)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return &usageError{"want a submission id"}
	}
	var sub casebook.Submission
	if _, err := cf.client().Do(ctx, "GET", "/api/v1/submissions/"+url.PathEscape(fs.Arg(0)), nil, &sub); err != nil {
		return err
	}
	if cf.jsonOut {
		printJSON(sub)
	} else {
		printSubmission(sub)
	}
	return nil
}

type caseList struct {
	Items      []casebook.Case `json:"items"`
	NextCursor string          `json:"next_cursor"`
}

func printCases(l caseList) {
	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLANG\tRELEVANCE\tCATEGORY\tTITLE")
	for _, c := range l.Items {
		flag := ""
		if c.Relevance.Flagged {
			flag = " (flagged)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f%s\t%s\t%s\n", c.ID, c.Language, c.Relevance.Score, flag, c.RootCause.Category, c.Title)
	}
	tw.Flush()
	if l.NextCursor != "" {
		fmt.Printf("more: --cursor %s\n", l.NextCursor)
	}
}

// listCases prints one page of a case list endpoint.
func listCases(ctx context.Context, c *api.Client, path string, limit int, cursor string, jsonOut bool) error {
	var l caseList
	if _, err := c.Do(ctx, "GET", path+listQuery(limit, cursor), nil, &l); err != nil {
		return err
	}
	if jsonOut {
		printJSON(l)
	} else {
		printCases(l)
	}
	return nil
}

// showCase prints one case (or draft) as JSON.
func showCase(ctx context.Context, c *api.Client, prefix, id string) error {
	var cs casebook.Case
	if _, err := c.Do(ctx, "GET", prefix+url.PathEscape(id), nil, &cs); err != nil {
		return err
	}
	printJSON(cs)
	return nil
}

func listQuery(limit int, cursor string) string { return listQueryWith(url.Values{}, limit, cursor) }

// listQueryWith adds the page parameters to a list's own filters q.
func listQueryWith(q url.Values, limit int, cursor string) string {
	if limit > 0 {
		q.Set("limit", fmt.Sprint(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

func runReview(ctx context.Context, args []string) error {
	var cf clientFlags
	var reason, note, cursor, into, source, language, order string
	var limit int
	var flagged bool
	fs, err := parseWith("review", args, &cf, func(fs *flag.FlagSet) {
		fs.StringVar(&reason, "reason", "", "why the draft is rejected (reject)")
		fs.StringVar(&note, "note", "", "a note kept with the decision (approve, merge)")
		fs.StringVar(&into, "into", "", "the published case that absorbs the draft (merge)")
		fs.BoolVar(&flagged, "flagged", false, "only the flagged lane: drafts the relevance gate was unsure of (list)")
		fs.StringVar(&source, "source", "", "list: a source's host or site name (substring); skipped: a crawl source's name")
		fs.StringVar(&language, "language", "", "only drafts in this language: en, ru, zh or und (list)")
		fs.StringVar(&order, "sort", "", "newest (default) or relevance: the gate's score, highest first (list)")
		fs.IntVar(&limit, "limit", 20, "page size (list, skipped)")
		fs.StringVar(&cursor, "cursor", "", "page cursor (list, skipped)")
	})
	if err != nil {
		return err
	}
	c := cf.client()
	switch {
	case fs.Arg(0) == "list" && fs.NArg() == 1:
		q := url.Values{}
		if flagged {
			q.Set("flagged", "true")
		}
		if source != "" {
			q.Set("source", source)
		}
		if language != "" {
			q.Set("language", language)
		}
		if order != "" {
			q.Set("sort", order)
		}
		var l caseList
		if _, err := c.Do(ctx, "GET", "/api/v1/review/drafts"+listQueryWith(q, limit, cursor), nil, &l); err != nil {
			return err
		}
		if cf.jsonOut {
			printJSON(l)
		} else {
			printCases(l)
		}
		return nil
	case fs.Arg(0) == "show" && fs.NArg() == 2:
		return showCase(ctx, c, "/api/v1/review/drafts/", fs.Arg(1))
	case fs.Arg(0) == "approve" && fs.NArg() == 2:
		var cs casebook.Case
		if _, err := c.Do(ctx, "POST", "/api/v1/review/drafts/"+url.PathEscape(fs.Arg(1))+"/approve", map[string]string{"note": note}, &cs); err != nil {
			return err
		}
		if cf.jsonOut {
			printJSON(cs)
		} else {
			fmt.Printf("published %s: %s\n", cs.ID, cs.Title)
		}
		return nil
	case fs.Arg(0) == "reject" && fs.NArg() == 2:
		if reason == "" {
			return &usageError{"reject needs --reason"}
		}
		var cs casebook.Case
		if _, err := c.Do(ctx, "POST", "/api/v1/review/drafts/"+url.PathEscape(fs.Arg(1))+"/reject", map[string]string{"reason": reason}, &cs); err != nil {
			return err
		}
		fmt.Printf("rejected %s: %s\n", cs.ID, reason)
		return nil
	case fs.Arg(0) == "merge" && fs.NArg() == 2:
		if into == "" {
			return &usageError{"merge needs --into CB-NNNN"}
		}
		var cs casebook.Case
		if _, err := c.Do(ctx, "POST", "/api/v1/review/drafts/"+url.PathEscape(fs.Arg(1))+"/merge", map[string]string{"into": into, "note": note}, &cs); err != nil {
			return err
		}
		if cf.jsonOut {
			printJSON(cs)
		} else {
			fmt.Printf("merged %s into %s: %s\n", fs.Arg(1), cs.ID, cs.Title)
		}
		return nil
	case fs.Arg(0) == "skipped" && fs.NArg() == 1:
		q := url.Values{}
		if source != "" {
			q.Set("source", source)
		}
		var raw json.RawMessage
		if _, err := c.Do(ctx, "GET", "/api/v1/review/skipped"+listQueryWith(q, limit, cursor), nil, &raw); err != nil {
			return err
		}
		if cf.jsonOut {
			printJSON(raw) // the answer as it came, counts and all
			return nil
		}
		var l struct {
			Items       []sinks.SubmissionRecord `json:"items"`
			NextCursor  string                   `json:"next_cursor"`
			Total       int                      `json:"total"`
			SourceTotal *int                     `json:"source_total"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			return fmt.Errorf("skipped list: %w", err)
		}
		total := l.Total
		if l.SourceTotal != nil {
			total = *l.SourceTotal
		}
		fmt.Printf("%d skipped\n", total)
		tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSCORE\tSOURCE\tURL\tREASON")
		for _, r := range l.Items {
			fmt.Fprintf(tw, "%s\t%.2f\t%s\t%s\t%s\n", r.ID, r.Score, r.Source, r.URL, r.Reason)
		}
		tw.Flush()
		if l.NextCursor != "" {
			fmt.Printf("more: --cursor %s\n", l.NextCursor)
		}
		return nil
	case fs.Arg(0) == "draft" && fs.NArg() == 2:
		// "Draft it": the skipped post goes through the pipeline again.
		var rec sinks.SubmissionRecord
		if _, err := c.Do(ctx, "POST", "/api/v1/review/skipped/"+url.PathEscape(fs.Arg(1))+"/draft", nil, &rec); err != nil {
			return err
		}
		if cf.jsonOut {
			printJSON(rec)
		} else {
			fmt.Printf("%s\t%s\t%s\n", rec.ID, rec.State, rec.URL)
		}
		return nil
	}
	return &usageError{reviewUsage}
}

const reviewUsage = "want list [--flagged] [--source S] [--language L] | show ID | approve ID | reject ID --reason R | merge ID --into CB-NNNN | skipped [--source NAME] | draft SUBMISSION"

func runReviewer(ctx context.Context, args []string) error {
	var cf clientFlags
	role := ""
	fs, err := parseWith("reviewer", args, &cf, func(fs *flag.FlagSet) {
		fs.StringVar(&role, "role", "reviewer", "reviewer or admin (add)")
	})
	if err != nil {
		return err
	}
	c := cf.client()
	switch {
	case fs.Arg(0) == "add" && fs.NArg() == 2:
		var out struct {
			Token    string `json:"token"`
			Reviewer struct {
				ID   string `json:"id"`
				Name string `json:"name"`
				Role string `json:"role"`
			} `json:"reviewer"`
		}
		if _, err := c.Do(ctx, "POST", "/api/v1/review/reviewers", map[string]string{"name": fs.Arg(1), "role": role}, &out); err != nil {
			return err
		}
		if cf.jsonOut {
			printJSON(out)
			return nil
		}
		fmt.Fprintf(os.Stderr, "token for %s (%s, id %s); it is shown once:\n", out.Reviewer.Name, out.Reviewer.Role, out.Reviewer.ID)
		fmt.Println(out.Token)
		return nil
	case fs.Arg(0) == "list" && fs.NArg() == 1:
		var out struct {
			Items []map[string]string `json:"items"`
		}
		if _, err := c.Do(ctx, "GET", "/api/v1/review/reviewers", nil, &out); err != nil {
			return err
		}
		tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tROLE\tCREATED\tREVOKED")
		for _, r := range out.Items {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r["id"], r["name"], r["role"], r["created_at"], r["revoked_at"])
		}
		return tw.Flush()
	case fs.Arg(0) == "revoke" && fs.NArg() == 2:
		_, err := c.Do(ctx, "DELETE", "/api/v1/review/reviewers/"+url.PathEscape(fs.Arg(1)), nil, nil)
		return err
	}
	return &usageError{"want add NAME [--role admin] | list | revoke ID"}
}

func runCases(ctx context.Context, args []string) error {
	var cf clientFlags
	var cursor string
	var limit int
	fs, err := parseWith("cases", args, &cf, func(fs *flag.FlagSet) {
		fs.IntVar(&limit, "limit", 20, "page size (list)")
		fs.StringVar(&cursor, "cursor", "", "page cursor (list)")
	})
	if err != nil {
		return err
	}
	c := cf.client()
	switch {
	case fs.Arg(0) == "list" && fs.NArg() == 1:
		return listCases(ctx, c, "/api/v1/cases", limit, cursor, cf.jsonOut)
	case fs.Arg(0) == "show" && fs.NArg() == 2:
		return showCase(ctx, c, "/api/v1/cases/", fs.Arg(1))
	}
	return &usageError{"want list | show ID"}
}
