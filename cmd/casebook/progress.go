package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// progress shows a status line. On a terminal the line is redrawn in place
// and lines printed through it go above it; elsewhere (a pipe, a log file)
// each changed status is one plain line, so logs read top to bottom.
type progress struct {
	w    io.Writer
	tty  bool
	last string
	open bool // a redrawn line is on screen
	// every, when set, spaces plain lines (not a terminal) at least this
	// far apart, so a long batch does not log a line per item.
	every   time.Duration
	printed time.Time
}

func newProgress(f *os.File) *progress {
	return &progress{w: f, tty: term.IsTerminal(int(f.Fd()))}
}

// status shows line as the current state; an unchanged line is not repeated.
func (p *progress) status(line string) {
	if line == p.last {
		return
	}
	p.last = line
	if p.tty {
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
		p.open = true
		return
	}
	if p.every > 0 && time.Since(p.printed) < p.every {
		return
	}
	p.printed = time.Now()
	fmt.Fprintln(p.w, line)
}

// println prints a permanent line to out (above the status line when both
// share a terminal).
func (p *progress) println(out io.Writer, line string) {
	if p.open {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	fmt.Fprintln(out, line)
	if p.open {
		fmt.Fprint(p.w, p.last)
	}
}

// done ends the status line, leaving its last state on screen.
func (p *progress) done() {
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}
