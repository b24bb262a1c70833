package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/casebook/casebook/pipelines"
	"github.com/casebook/casebook/sinks"
)

// runStore is `casebook store check [--data DIR] [--file F]`: the same
// checks serve runs at start (header, size, freelist, then bbolt's
// page-by-page check), on demand, without serving anything.
func runStore(ctx context.Context, args []string) error {
	check := len(args) > 0 && args[0] == "check"
	if check {
		args = args[1:]
	}
	fs := newFlagSet("store")
	data := fs.String("data", envOr("CASEBOOK_DATA", "./data"), "data directory holding "+pipelines.StoreFile)
	file := fs.String("file", "", "a store file to check instead (a `casebook backup` copy)")
	timeout := fs.Duration("timeout", 10*time.Minute, "give up the page-by-page check after this long")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if !check {
		return &usageError{"want: store check [--data DIR] [--file FILE]"}
	}
	path := *file
	if path == "" {
		path = filepath.Join(*data, pipelines.StoreFile)
	}
	start := time.Now()
	pages, err := sinks.CheckFile(path, *timeout)
	if err != nil {
		return &exitError{code: 1, msg: err.Error()}
	}
	st, _ := os.Stat(path)
	fmt.Printf("store %s is sound: %d bytes, %d pages checked in %s\n", path, st.Size(), pages, time.Since(start).Round(time.Millisecond))
	return nil
}
