package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// commit is set by `make build` (-ldflags -X main.commit=...) for builds
// the toolchain cannot stamp itself: -buildvcs=false, or a git worktree.
var commit string

// buildVersion describes this binary from the build information the Go
// toolchain embeds: the module version ("(devel)" for a build inside the
// repository) and the VCS commit, its time and whether the tree was
// modified.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "casebook (no build information) " + runtime.Version()
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	v := "casebook " + bi.Main.Version
	if settings["vcs.revision"] == "" && commit != "" {
		settings["vcs.revision"] = commit
	}
	if rev := settings["vcs.revision"]; rev != "" {
		v += " commit " + rev
		if settings["vcs.modified"] == "true" {
			v += "+modified"
		}
		if t := settings["vcs.time"]; t != "" {
			v += " (" + t + ")"
		}
	} else {
		v += " commit unknown"
	}
	return v + " " + bi.GoVersion + " " + runtime.GOOS + "/" + runtime.GOARCH
}

func runVersion(ctx context.Context, args []string) error {
	fs := newFlagSet("version")
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() != 0 {
		return &usageError{"takes no arguments"}
	}
	fmt.Println(buildVersion())
	return nil
}
