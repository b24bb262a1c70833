// Command casebook runs the casebook service and talks to it.
//
// Subcommands: serve, worker, submit, status, review, reviewer, cases,
// crawl, extract, dead, backup, eval, version. `casebook help` lists them.
//
// Exit codes: 0 success (and -h/--help), 1 an error, 2 a usage error, 3
// `submit --wait` ended skipped.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

type command struct {
	name, usage string
	run         func(ctx context.Context, args []string) error
}

func commands() []command {
	return []command{
		{"serve", "run the service: embedded NATS, stage workers, store and HTTP API", runServe},
		{"worker", "run one stage worker against a NATS cluster", runWorker},
		{"submit", "submit URLs: casebook submit [--wait] URL | --file FILE (- for stdin)", runSubmit},
		{"status", "show a submission: casebook status ID", runStatus},
		{"review", "review drafts: list [--flagged] | show ID | approve ID | reject ID --reason R | merge ID --into CB-NNNN | skipped | draft SUBMISSION", runReview},
		{"reviewer", "manage reviewer tokens (admin): add NAME | list | revoke ID", runReviewer},
		{"cases", "read published cases: list | show ID", runCases},
		{"crawl", "crawl sources now and show progress: crawl [--source NAME] | crawl --list", runCrawl},
		{"extract", "print the case (or --main-text) for one local document", runExtract},
		{"dead", "dead letters (reviewer): list | retry ID", runDead},
		{"backup", "write a consistent copy of the running server's store: casebook backup FILE", runBackup},
		{"store", "check a store file for damage: casebook store check [--data DIR] [--file FILE]", runStore},
		{"eval", "score extraction: eval content --aeb DIR --daniel DIR | eval cases --gold DIR", runEval},
		{"version", "print the version and the commit it was built from (also --version)", runVersion},
	}
}

// usageError makes main print the subcommand's usage and exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// exitError ends the command with its code; msg, when set, goes to stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// flagError turns a flag parse error into a usage error; -h and --help
// (flag.ErrHelp, the flags already printed) pass through to exit 0.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &usageError{err.Error()}
}

// newFlagSet makes a command's flag set whose -h output starts with the
// command's usage line.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		for _, c := range commands() {
			if c.name == strings.Fields(name)[0] {
				fmt.Fprintf(fs.Output(), "usage: casebook %s: %s\n", name, c.usage)
			}
		}
		fmt.Fprintln(fs.Output(), "\nflags:")
		fs.PrintDefaults()
	}
	return fs
}

// wantsHelp reports whether args ask for help (-h, -help, --help).
func wantsHelp(args []string) bool {
	return len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help")
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:]))
}

func run(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] == "help" || wantsHelp(args) {
		if len(args) == 2 && args[0] == "help" {
			return run(ctx, []string{args[1], "-h"})
		}
		usage(os.Stdout)
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = []string{"version"}
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(ctx, args[1:])
			if err == nil || errors.Is(err, flag.ErrHelp) {
				return 0
			}
			var ue *usageError
			if errors.As(err, &ue) {
				fmt.Fprintf(os.Stderr, "casebook %s: %s\nusage: casebook %s: %s\n", c.name, ue.msg, c.name, c.usage)
				return 2
			}
			var ee *exitError
			if errors.As(err, &ee) {
				if ee.msg != "" {
					fmt.Fprintf(os.Stderr, "casebook %s: %s\n", c.name, ee.msg)
				}
				return ee.code
			}
			fmt.Fprintf(os.Stderr, "casebook %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(os.Stderr, "casebook: unknown command %q\n", args[0])
	usage(os.Stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: casebook COMMAND [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.usage)
	}
	fmt.Fprintln(w, "\nRun 'casebook COMMAND -h' for a command's flags; 'casebook --version' for the build.")
}
