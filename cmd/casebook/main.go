// Command casebook runs the casebook service and talks to it.
//
// Subcommands: serve, worker, submit, status, review, reviewer, cases,
// extract, eval, backup. `casebook help` lists them.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
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
		{"submit", "submit a URL: casebook submit URL", runSubmit},
		{"status", "show a submission: casebook status ID", runStatus},
		{"review", "review drafts: list | show ID | approve ID | reject ID --reason R", runReview},
		{"reviewer", "manage reviewer tokens (admin): add NAME | list | revoke ID", runReviewer},
		{"cases", "read published cases: list | show ID", runCases},
		{"crawl", "crawl sources now and show progress: crawl [--source NAME] | crawl --list", runCrawl},
		{"extract", "print the case (or --main-text) for one local document", runExtract},
		{"dead", "dead letters (reviewer): list | retry ID", runDead},
		{"backup", "write a consistent copy of the running server's store: casebook backup FILE", runBackup},
		{"eval", "score extraction: eval content --aeb DIR --daniel DIR | eval cases --gold DIR", runEval},
	}
}

// usageError makes main print the subcommand's usage and exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:]))
}

func run(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage()
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(ctx, args[1:])
			if err == nil {
				return 0
			}
			var ue *usageError
			if errors.As(err, &ue) {
				fmt.Fprintf(os.Stderr, "casebook %s: %s\nusage: %s\n", c.name, ue.msg, c.usage)
				return 2
			}
			fmt.Fprintf(os.Stderr, "casebook %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(os.Stderr, "casebook: unknown command %q\n", args[0])
	usage()
	return 2
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: casebook COMMAND [flags]\n\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(os.Stderr, "  %-9s %s\n", c.name, c.usage)
	}
	fmt.Fprintln(os.Stderr, "\nRun 'casebook COMMAND -h' for a command's flags.")
}
