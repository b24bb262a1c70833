package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/casebook/casebook/api"
)

func runDead(ctx context.Context, args []string) error {
	var cf clientFlags
	fs, err := parseWith("dead", args, &cf, nil)
	if err != nil {
		return err
	}
	c := cf.client()
	switch {
	case fs.Arg(0) == "list" && fs.NArg() == 1:
		var l struct {
			Items []api.DeadEntry `json:"items"`
		}
		if _, err := c.Do(ctx, "GET", "/api/v1/review/dead?limit=200", nil, &l); err != nil {
			return err
		}
		if cf.jsonOut {
			printJSON(l)
			return nil
		}
		tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTAGE\tSUBMISSION\tATTEMPTS\tAT\tERROR")
		for _, e := range l.Items {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\n", e.ID, e.Stage, e.SubmissionID, e.Attempts, e.At.Format(time.RFC3339), e.Error)
		}
		return tw.Flush()
	case fs.Arg(0) == "retry" && fs.NArg() == 2:
		var e api.DeadEntry
		if _, err := c.Do(ctx, "POST", "/api/v1/review/dead/"+url.PathEscape(fs.Arg(1))+"/retry", nil, &e); err != nil {
			return err
		}
		fmt.Printf("retried dead letter %d: %s goes back to the %s stage\n", e.ID, e.SubmissionID, e.Stage)
		return nil
	}
	return &usageError{"want list | retry ID"}
}

// runBackup asks the running server for a consistent copy of the store (the
// file is locked by the serving process) and writes it atomically.
func runBackup(ctx context.Context, args []string) error {
	var cf clientFlags
	fs, err := parseWith("backup", args, &cf, nil)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return &usageError{"want the FILE to write"}
	}
	c := cf.client()
	req, err := http.NewRequestWithContext(ctx, "GET", strings.TrimRight(c.BaseURL, "/")+"/api/v1/review/backup", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("backup: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	dest := fs.Arg(0)
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".casebook-backup-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, resp.Body)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if want := resp.Header.Get("X-Casebook-Store-Size"); want != "" && want != fmt.Sprint(n) {
		return fmt.Errorf("backup: got %d bytes, the store is %s: incomplete, not written", n, want)
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d bytes)\n", dest, n)
	return nil
}
