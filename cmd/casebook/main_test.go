package main

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casebook/casebook"
)

// capture runs the CLI with args and returns its exit code, stdout and stderr.
func capture(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	oldOut, oldErr := os.Stdout, os.Stderr
	rOut, wOut, _ := os.Pipe()
	rErr, wErr, _ := os.Pipe()
	os.Stdout, os.Stderr = wOut, wErr
	outC, errC := make(chan string), make(chan string)
	go func() { b, _ := io.ReadAll(rOut); outC <- string(b) }()
	go func() { b, _ := io.ReadAll(rErr); errC <- string(b) }()
	code := run(context.Background(), args)
	wOut.Close()
	wErr.Close()
	os.Stdout, os.Stderr = oldOut, oldErr
	return code, <-outC, <-errC
}

func TestExtractContract(t *testing.T) {
	post := filepath.Join("..", "..", "testdata", "posts", "en-queue-outage.html")
	code, out, _ := capture(t, "extract", "--url", "https://eng.example.org/blog/checkout-queue-outage?utm_source=x", post)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var c casebook.Case
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("not one case as JSON: %v\n%s", err, out)
	}
	if c.Status != casebook.StatusDraft || c.Language != "en" || c.RootCause.Description == "" || len(c.Remediation) == 0 {
		t.Errorf("case: status %s language %s root cause %q remediation %v", c.Status, c.Language, c.RootCause.Description, c.Remediation)
	}
	if len(c.Sources) != 1 || strings.Contains(c.Sources[0].URL, "utm_") {
		t.Errorf("sources %+v: want the canonical URL", c.Sources)
	}
	// Every field is present, none null.
	var raw map[string]any
	_ = json.Unmarshal([]byte(out), &raw)
	for _, k := range []string{"tags", "components", "remediation", "action_items", "lessons", "sources", "related"} {
		if _, ok := raw[k].([]any); !ok {
			t.Errorf("%s = %v, want a list", k, raw[k])
		}
	}

	mcode, text, _ := capture(t, "extract", "--main-text", post)
	if mcode != 0 {
		t.Fatalf("--main-text exit %d", mcode)
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) < 8 || lines[0] != "Checkout queue outage of March 3" || strings.Contains(text, "All rights reserved") || strings.Contains(text, "How we hire") {
		t.Errorf("--main-text: %d lines, want the article's blocks without the chrome:\n%s", len(lines), text)
	}
}

func TestExtractOtherLanguageAndErrors(t *testing.T) {
	dir := t.TempDir()
	de := filepath.Join(dir, "de.txt")
	os.WriteFile(de, []byte("Gestern Abend fiel unser Bestelldienst aus. Die Ursache war eine volle Festplatte auf dem Datenbankserver, deshalb haben wir den Speicher vergrößert und die Replikation neu gestartet.\n"), 0o600)
	code, out, errOut := capture(t, "extract", de)
	if code != 0 || !strings.Contains(errOut, "warning") {
		t.Fatalf("other language: exit %d, stderr %q", code, errOut)
	}
	var c casebook.Case
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.Language != "und" {
		t.Fatalf("other language: %v, language %q", err, c.Language)
	}
	if code, _, errOut := capture(t, "extract", filepath.Join(dir, "missing.md")); code != 1 || !strings.Contains(errOut, "missing.md") {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
	if code, _, _ := capture(t, "extract", "--format", "pdf", de); code != 2 {
		t.Errorf("bad --format: exit %d, want 2", code)
	}
	if code, _, _ := capture(t, "no-such-command"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
}

func TestParseWithFlagsAfterArguments(t *testing.T) {
	var cf clientFlags
	var reason string
	fs, err := parseWith("review", []string{"reject", "draft-000001", "--reason", "not an incident"}, &cf, func(fs *flag.FlagSet) {
		fs.StringVar(&reason, "reason", "", "")
	})
	if err != nil || fs.NArg() != 2 || fs.Arg(1) != "draft-000001" || reason != "not an incident" {
		t.Fatalf("parse: %v %v %q", err, fs.Args(), reason)
	}
}

func TestServeRefusesNegativeAuthLimits(t *testing.T) {
	for _, args := range [][]string{{"serve", "--data", t.TempDir(), "--auth-failures", "-1"}, {"serve", "--data", t.TempDir(), "--auth-window", "-1s"}} {
		if code, _, errOut := capture(t, args...); code != 2 || !strings.Contains(errOut, "--auth-failures and --auth-window") {
			t.Errorf("%v: exit %d, stderr %q, want 2 naming the flags", args, code, errOut)
		}
	}
}
