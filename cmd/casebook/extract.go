package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/classify"
	"github.com/casebook/casebook/extract"
	"github.com/casebook/casebook/pipelines"
)

// maxExtractInput bounds what the command reads, as the fetcher bounds pages.
const maxExtractInput = 32 << 20

func runExtract(ctx context.Context, args []string) error {
	fs := newFlagSet("extract")
	pageURL := fs.String("url", "", "the page's address (organisation, canonical source, site rules)")
	format := fs.String("format", "", "html, markdown or text (default: from the file name, then the content)")
	mainText := fs.Bool("main-text", false, "print only the extracted article text, one block per line")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() != 1 {
		return &usageError{"want one FILE (or - for standard input)"}
	}
	switch *format {
	case "", extract.FormatHTML, extract.FormatMarkdown, extract.FormatText:
	default:
		return &usageError{fmt.Sprintf("--format %q: want html, markdown or text", *format)}
	}
	name := fs.Arg(0)
	var r io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		defer f.Close()
		r = f
	}
	raw, err := io.ReadAll(io.LimitReader(r, maxExtractInput+1))
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if len(raw) > maxExtractInput {
		return fmt.Errorf("read %s: larger than %d bytes", name, maxExtractInput)
	}
	if *format == "" && name != "-" {
		*format = extract.SniffFormat(filepath.Base(name), "", raw)
	}
	sum := sha256.Sum256(raw)
	page := pipelines.PageRef{URL: *pageURL, SHA256: hex.EncodeToString(sum[:])}
	doc, err := (&pipelines.ExtractStage{}).Process(ctx, pipelines.ExtractInput{Page: page, Body: raw, Format: *format})
	if skip, ok := casebook.AsSkip(err); ok && !*mainText {
		fmt.Fprintf(os.Stderr, "casebook extract: warning: %s\n", skip.Reason)
		doc = &extract.Document{URL: *pageURL, Format: *format}
	} else if err != nil && !ok {
		return err
	}
	if *mainText {
		if doc != nil {
			// One block per line: a code block's own line breaks become spaces
			// here, so line counts match blocks for benchmark scripts.
			w := bufio.NewWriter(os.Stdout)
			for _, b := range doc.Blocks() {
				fmt.Fprintln(w, strings.ReplaceAll(b.Text, "\n", " "))
			}
			return w.Flush()
		}
		return nil
	}
	st := &pipelines.ClassifyStage{Classifier: classify.New(classify.Config{})}
	c, _ := st.Draft(doc, page)
	c.ID = "draft-" + page.SHA256[:12]
	c.Status = casebook.StatusDraft
	now := time.Now().UTC().Format(time.RFC3339)
	c.CreatedAt, c.UpdatedAt = now, now
	if c.Language == "und" {
		fmt.Fprintf(os.Stderr, "casebook extract: warning: language is %s; casebook drafts only en, ru and zh\n", pipelines.SeenLanguage(st.Classifier, doc))
	}
	printJSON(c)
	return nil
}
