package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/casebook/casebook/api"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines"
	"github.com/casebook/casebook/pipelines/crawl"
)

// fetchFlags are shared by serve and worker.
type fetchFlags struct {
	allowPrivate bool
	allowAddr    string
	allowPorts   string
	userAgent    string
	minRate      int64
	stallAfter   time.Duration
}

func (f *fetchFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.allowPrivate, "allow-private-networks", envBool("CASEBOOK_ALLOW_PRIVATE_NETWORKS"),
		"allow fetching loopback, private and other special-purpose addresses (env CASEBOOK_ALLOW_PRIVATE_NETWORKS=true)")
	fs.StringVar(&f.allowAddr, "allow-addr", os.Getenv("CASEBOOK_ALLOW_ADDR"), "comma-separated IPs, CIDRs or ip:port the fetcher may reach although special-purpose")
	fs.StringVar(&f.allowPorts, "allow-ports", os.Getenv("CASEBOOK_ALLOW_PORTS"), "comma-separated ports allowed besides 80 and 443")
	fs.Int64Var(&f.minRate, "fetch-min-rate", fetch.DefaultMinRate, "cut off a page body arriving slower than this many bytes a second over a --fetch-stall-after window (negative: no limit)")
	fs.DurationVar(&f.stallAfter, "fetch-stall-after", fetch.DefaultStallAfter, "the window --fetch-min-rate is judged over")
	fs.StringVar(&f.userAgent, "user-agent", os.Getenv("CASEBOOK_USER_AGENT"), "User-Agent for fetches (default names casebook and a contact URL)")
}

func (f *fetchFlags) config() (fetch.Config, error) {
	cfg := fetch.Config{AllowPrivateNetworks: f.allowPrivate, UserAgent: f.userAgent, MinRate: f.minRate, StallAfter: f.stallAfter}
	if f.allowAddr != "" {
		addrs, err := fetch.ParseAllowAddrs(f.allowAddr)
		if err != nil {
			return cfg, &usageError{err.Error()}
		}
		cfg.AllowAddrs = addrs
	}
	for _, p := range strings.Split(f.allowPorts, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return cfg, &usageError{fmt.Sprintf("--allow-ports: %q is not a port", p)}
		}
		cfg.AllowPorts = append(cfg.AllowPorts, n)
	}
	return cfg, nil
}

func envBool(name string) bool {
	v, _ := strconv.ParseBool(os.Getenv(name))
	return v
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

func parseStages(s string) ([]string, error) {
	if s == "" || s == "all" {
		return pipelines.Stages, nil
	}
	var out []string
	for _, st := range strings.Split(s, ",") {
		st = strings.TrimSpace(st)
		if _, ok := pipelines.StageSubject[st]; !ok {
			return nil, &usageError{fmt.Sprintf("unknown stage %q (fetch, extract, classify, sink)", st)}
		}
		out = append(out, st)
	}
	return out, nil
}

func runServe(ctx context.Context, args []string) error {
	fs := newFlagSet("serve")
	data := fs.String("data", envOr("CASEBOOK_DATA", "./data"), "data directory (bbolt store, embedded NATS, admin token)")
	httpAddr := fs.String("http", envOr("CASEBOOK_HTTP", "127.0.0.1:8080"), "HTTP listen address")
	natsURL := fs.String("nats", os.Getenv("CASEBOOK_NATS"), "external NATS URL(s), comma-separated; empty starts the embedded server")
	natsListen := fs.String("nats-listen", "127.0.0.1:4222", "embedded NATS client address for worker processes; empty for in-process only")
	natsSync := fs.String("nats-sync", "always", "embedded JetStream fsync policy: \"always\" (every write, slowest) or an interval such as 1s (see the README's Durability section)")
	stages := fs.String("stages", "all", "stage workers to run in this process: all or a list of fetch,extract,classify,sink")
	concurrency := fs.Int("concurrency", 16, "messages each stage handles at once (stages mostly wait on the network and on fsyncs)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	sourcesFile := fs.String("sources", os.Getenv("CASEBOOK_SOURCES"), "YAML file of crawl sources; empty: the built-in list; \"none\": no crawling")
	hostDelay := fs.Duration("host-delay", crawl.DefaultHostDelay, "least time between two requests to one host, across all fetch workers")
	hostConc := fs.Int("host-concurrency", crawl.DefaultHostConcurrency, "requests one host may have in flight, across all fetch workers")
	submitRate := fs.Float64("submit-rate", 0, "public submissions allowed per second per client IP (default 0.5)")
	submitBurst := fs.Int("submit-burst", 0, "burst of public submissions per client IP (default 30)")
	authFailures := fs.Int("auth-failures", 0, "failed token checks (bearer or login) allowed per client IP per --auth-window before 429 (default 10)")
	authWindow := fs.Duration("auth-window", 0, "the window --auth-failures refill over, evenly (default 5m)")
	publicURL := fs.String("public-url", os.Getenv("CASEBOOK_PUBLIC_URL"), "the site's external base URL for links in feeds, exports and MCP results (env CASEBOOK_PUBLIC_URL; default http://ADDR of --http)")
	var ff fetchFlags
	ff.register(fs)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	fc, err := ff.config()
	if err != nil {
		return err
	}
	var sources []crawl.Source
	switch *sourcesFile {
	case "":
		sources = crawl.DefaultSources()
	case "none":
	default:
		if sources, err = crawl.LoadSources(*sourcesFile); err != nil {
			return err
		}
	}
	st, err := parseStages(*stages)
	if err != nil {
		return err
	}
	if *publicURL != "" {
		if *publicURL, err = api.ParsePublicURL(*publicURL); err != nil {
			return &usageError{"--public-url: " + err.Error()}
		}
	}
	syncPolicy := time.Duration(0)
	if *natsSync != "always" {
		if syncPolicy, err = time.ParseDuration(*natsSync); err != nil || syncPolicy <= 0 {
			return &usageError{fmt.Sprintf("--nats-sync %q: want always or a positive duration", *natsSync)}
		}
	}
	if *authFailures < 0 || *authWindow < 0 {
		return &usageError{"--auth-failures and --auth-window must not be negative"}
	}
	log := newLogger(*logLevel)
	svc, err := pipelines.Start(ctx, pipelines.ServeConfig{
		DataDir: *data, HTTPAddr: *httpAddr, NATSURL: *natsURL, NATSListen: *natsListen,
		NATSSync: syncPolicy, Stages: st, Fetch: fc, SubmitRate: *submitRate, SubmitBurst: *submitBurst, PublicURL: *publicURL,
		AuthFailures: *authFailures, AuthFailWindow: *authWindow,
		Runner: pipelines.RunnerConfig{Concurrency: *concurrency}, Log: log,
		Sources: sources, Politeness: crawl.Politeness{Concurrency: *hostConc, MinDelay: *hostDelay},
	})
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		log.Info("shutting down: draining in-flight messages")
	case err = <-svc.Errors():
		log.Error("fatal", "err", err)
	}
	svc.Close()
	log.Info("stopped")
	return err
}

func runWorker(ctx context.Context, args []string) error {
	fs := newFlagSet("worker")
	stage := fs.String("stage", "", "fetch, extract or classify (the sink runs in the store process: serve --stages sink)")
	natsURL := fs.String("nats", envOr("CASEBOOK_NATS", "nats://127.0.0.1:4222"), "NATS server URL(s), comma-separated")
	concurrency := fs.Int("concurrency", 16, "messages handled at once")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	var ff fetchFlags
	ff.register(fs)
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if *stage == "" || *stage == pipelines.StageSink {
		return &usageError{"--stage must be fetch, extract or classify"}
	}
	st, err := parseStages(*stage)
	if err != nil {
		return err
	}
	fc, err := ff.config()
	if err != nil {
		return err
	}
	log := newLogger(*logLevel).With("stage", *stage)
	return pipelines.RunWorker(ctx, pipelines.WorkerConfig{
		NATSURL: *natsURL, Stages: st, Fetch: fc,
		Runner: pipelines.RunnerConfig{Concurrency: *concurrency, Log: log}, Log: log,
	})
}
