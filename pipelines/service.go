package pipelines

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/casebook/casebook/api"
	"github.com/casebook/casebook/classify"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines/crawl"
	"github.com/casebook/casebook/sinks"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/prometheus/client_golang/prometheus"
)

// ServeConfig is everything `casebook serve` needs.
type ServeConfig struct {
	DataDir    string
	HTTPAddr   string
	NATSURL    string // external NATS; "" starts the embedded server
	NATSListen string // embedded server's client address for other processes; "" = in-process only
	// NATSSync is the embedded JetStream's fsync policy: 0 fsyncs every
	// write before acknowledging it (sync_always); a positive duration
	// fsyncs on that interval. See the README's Durability section.
	NATSSync time.Duration
	Stages   []string // stage workers this process runs; default all
	// ReconcileAfter is how long a submission may sit unfinished without
	// any progress before its fetch task is re-published (default 2 h: past
	// the longest politeness deferral, an hour).
	ReconcileAfter time.Duration
	// SubmitRate (per second) and SubmitBurst bound public submissions per
	// client IP; zero keeps the API's defaults.
	SubmitRate  float64
	SubmitBurst int
	// AuthFailures failed token checks per client IP are allowed per
	// AuthFailWindow before 429; zero keeps the API's defaults (10 per 5 min).
	AuthFailures   int
	AuthFailWindow time.Duration
	// PublicURL is the site's external base URL, for the absolute links in
	// feeds, exports and MCP results; "" means http:// and the bound HTTP
	// address.
	PublicURL string
	Fetch     fetch.Config
	Runner    RunnerConfig
	// Sources are crawled on their intervals; none means no crawling.
	Sources []crawl.Source
	// Politeness is the per-host policy every fetch worker follows.
	Politeness crawl.Politeness
	Log        *slog.Logger
	// Started, if set, is called with the bound HTTP address once serving.
	Started func(httpAddr string)
}

// Service is a running casebook serve process.
type Service struct {
	cfg     ServeConfig
	Store   *sinks.Store
	Bus     *Bus
	NS      *server.Server
	HTTP    *http.Server
	Addr    string
	Metrics *Metrics
	// Scheduler crawls the sources; nil without sources.
	Scheduler *crawl.Scheduler
	// Submitter is the one the API uses (its enqueued marks are coalesced).
	Submitter *Submitter
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	errs      chan error
}

// AdminTokenFile is where the first admin token is written, inside the data dir.
const AdminTokenFile = "admin.token"

// StoreFile is the bbolt store's name inside the data dir.
const StoreFile = "casebook.db"

// Start brings the service up: store, NATS, stage workers, HTTP.
func Start(ctx context.Context, cfg ServeConfig) (*Service, error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if len(cfg.Stages) == 0 {
		cfg.Stages = Stages
	}
	if cfg.ReconcileAfter <= 0 {
		cfg.ReconcileAfter = 2 * time.Hour
	}
	for _, st := range cfg.Stages {
		if !slices.Contains(Stages, st) {
			return nil, fmt.Errorf("unknown stage %q (want %v)", st, Stages)
		}
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	s := &Service{cfg: cfg, Metrics: NewMetrics(), errs: make(chan error, 8)}
	cfg.Runner.Metrics = s.Metrics
	if cfg.Runner.Log == nil {
		cfg.Runner.Log = cfg.Log
	}
	var err error
	// The file is checked before anything is served from it: a damaged
	// store refuses the start with one line, never becomes a new one.
	s.Store, err = sinks.Open(filepath.Join(cfg.DataDir, StoreFile), sinks.Options{Verify: true})
	if err != nil {
		return nil, err
	}
	if err := s.ensureAdmin(); err != nil {
		s.Store.Close()
		return nil, err
	}
	bc := BusConfig{URL: cfg.NATSURL, Name: "casebook-serve", Log: cfg.Log}
	if cfg.NATSURL == "" {
		s.NS, err = StartEmbedded(EmbeddedConfig{StoreDir: filepath.Join(cfg.DataDir, "nats"), Listen: cfg.NATSListen, SyncInterval: cfg.NATSSync})
		if err != nil {
			s.Store.Close()
			return nil, err
		}
		bc.Embedded = s.NS
		if cfg.NATSListen != "" {
			cfg.Log.Info("embedded nats listening", "url", s.NS.ClientURL())
		}
	}
	s.Bus, err = Connect(ctx, bc)
	if err != nil {
		s.shutdownInfra()
		return nil, err
	}
	sub := &Submitter{Store: s.Store, Bus: s.Bus, Log: cfg.Log}
	s.Submitter = sub
	if n, err := sub.Replay(ctx); err != nil {
		cfg.Log.Warn("replay of unenqueued submissions failed; will retry", "err", err)
	} else if n > 0 {
		cfg.Log.Info("re-published submissions a previous run had not enqueued", "count", n)
	}
	// Work the streams lost (their directory gone, a power loss) is asked
	// again now, not after ReconcileAfter.
	if _, err := sub.ReconcileLost(ctx); err != nil {
		cfg.Log.Warn("start-up reconcile against the work stream failed; the periodic one will catch up", "err", err)
	}

	runners, err := BuildRunners(s.Bus, cfg.Stages, s.Store, cfg.Fetch, cfg.Runner)
	if err != nil {
		s.shutdownInfra()
		return nil, err
	}
	runners = append(runners, WireRecorder(s.Bus, s.Store, storeWriter(cfg.Runner)))
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	s.wg.Add(1)
	go func() { defer s.wg.Done(); sub.Run(rctx) }()
	progress := NewProgressRecorder(s.Bus, s.Store, cfg.Log, 0)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := progress.Run(rctx); err != nil {
			s.errs <- err
		}
	}()
	for _, r := range runners {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if err := r.Run(rctx); err != nil {
				s.errs <- err
			}
		}()
	}
	if err := s.startCrawl(rctx); err != nil {
		s.Close()
		return nil, err
	}
	s.wg.Add(1)
	go func() { // keep the promises of Replay and Reconcile while running
		defer s.wg.Done()
		t := time.NewTicker(30 * time.Second)
		defer t.Stop()
		for n := 0; ; n++ {
			select {
			case <-rctx.Done():
				return
			case <-t.C:
				_, _ = sub.Replay(rctx)
				if n%10 == 0 { // every 5 minutes: a full scan of submissions
					if _, err := sub.Reconcile(rctx, time.Now().Add(-cfg.ReconcileAfter)); err != nil {
						cfg.Log.Warn("reconcile failed; will retry", "err", err)
					}
				}
			}
		}
	}()

	s.Metrics.KnownHosts(cfg.Sources)
	s.Metrics.Registry.MustRegister(busCollector{s.Bus})
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("http listen %s: %w", cfg.HTTPAddr, err)
	}
	s.Addr = ln.Addr().String()
	if cfg.PublicURL == "" {
		cfg.PublicURL = api.DefaultPublicURL(s.Addr)
	}
	handler := api.New(api.Config{Store: s.Store, Submitter: sub, Metrics: s.Metrics, Log: cfg.Log, Ready: s.ready, Crawler: s.crawler(),
		Dead: &DeadLetters{Bus: s.Bus, Store: s.Store}, SubmitRate: cfg.SubmitRate, SubmitBurst: cfg.SubmitBurst, PublicURL: cfg.PublicURL,
		AuthFailures: cfg.AuthFailures, AuthFailWindow: cfg.AuthFailWindow})
	s.HTTP = &http.Server{Handler: handler, ReadHeaderTimeout: api.ReadHeaderTimeout, ReadTimeout: api.ReadTimeout,
		WriteTimeout: api.WriteTimeout, IdleTimeout: api.IdleTimeout}
	go func() {
		if err := s.HTTP.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.errs <- err
		}
	}()
	cfg.Log.Info("casebook serving", "http", "http://"+s.Addr, "data", cfg.DataDir, "stages", cfg.Stages)
	if cfg.Started != nil {
		cfg.Started(s.Addr)
	}
	return s, nil
}

// BuildRunners makes the stage runners for stages. store may be nil when the
// sink stage is not among them.
func BuildRunners(bus *Bus, stages []string, store *sinks.Store, fc fetch.Config, rc RunnerConfig) ([]*Runner, error) {
	var out []*Runner
	for _, st := range stages {
		switch st {
		case StageFetch:
			f, err := fetch.New(fc)
			if err != nil {
				return nil, err
			}
			fs, err := newFetchStage(bus, f)
			if err != nil {
				return nil, err
			}
			out = append(out, WireFetch(bus, fs, rc))
		case StageExtract:
			out = append(out, WireExtract(bus, &ExtractStage{}, rc))
		case StageClassify:
			out = append(out, WireClassify(bus, &ClassifyStage{Classifier: classify.New(classify.Config{})}, rc))
		case StageSink:
			if store == nil {
				return nil, errors.New("the sink stage runs only in the process that owns the store")
			}
			out = append(out, WireSink(bus, &SinkStage{Store: store}, storeWriter(rc)))
		default:
			return nil, fmt.Errorf("unknown stage %q", st)
		}
	}
	return out, nil
}

// storeWriter raises the concurrency of the stages that write bbolt: their
// handlers are cheap and concurrent writes share one commit (db.Batch), so
// more of them in flight means fewer fsyncs per document.
func storeWriter(rc RunnerConfig) RunnerConfig {
	rc.Concurrency = max(rc.Concurrency, 32)
	return rc
}

// busCollector reads the queues at scrape time: consumer lag, dead
// letters, and the age of the oldest unfinished message per stage.
type busCollector struct{ bus *Bus }

var (
	descPending    = prometheus.NewDesc("casebook_consumer_pending", "Messages not yet delivered, per consumer.", []string{"consumer"}, nil)
	descAckPending = prometheus.NewDesc("casebook_consumer_ack_pending", "Messages delivered, not yet acknowledged.", []string{"consumer"}, nil)
	descDead       = prometheus.NewDesc("casebook_dead_letters", "Dead letters waiting.", nil, nil)
	descQueueAge   = prometheus.NewDesc("casebook_queue_oldest_seconds", "Age of the oldest message waiting in a stage's work queue (0 when empty).", []string{"stage"}, nil)
)

func (c busCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPending, descAckPending, descDead, descQueueAge} {
		ch <- d
	}
}

func (c busCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if lag, err := c.bus.ConsumerLag(ctx); err == nil {
		for _, name := range append(append([]string{}, Stages...), ConsumerEvent) {
			ch <- prometheus.MustNewConstMetric(descPending, prometheus.GaugeValue, float64(lag[name][0]), name)
			ch <- prometheus.MustNewConstMetric(descAckPending, prometheus.GaugeValue, float64(lag[name][1]), name)
		}
	}
	if n, err := c.bus.DeadCount(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(descDead, prometheus.GaugeValue, float64(n))
	}
	for _, stage := range Stages {
		if age, err := c.bus.OldestAge(ctx, StageSubject[stage]); err == nil {
			ch <- prometheus.MustNewConstMetric(descQueueAge, prometheus.GaugeValue, age.Seconds(), stage)
		}
	}
}

func (s *Service) ready() error {
	if s.Bus == nil || !s.Bus.NC.IsConnected() {
		return errors.New("not connected to nats")
	}
	return nil
}

func (s *Service) ensureAdmin() error {
	if s.Store.HasAdmin() {
		return nil
	}
	tok, _, err := s.Store.AddToken("admin", sinks.RoleAdmin)
	if err != nil {
		return err
	}
	path := filepath.Join(s.cfg.DataDir, AdminTokenFile)
	// An admin.token already there belongs to a store moved away or lost;
	// it is kept (it works again if that store is restored) and the new
	// token goes beside it.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		old := path
		path = filepath.Join(s.cfg.DataDir, AdminTokenFile+"."+time.Now().UTC().Format("20060102T150405Z"))
		s.cfg.Log.Warn("a new store: its admin token is written beside the existing admin.token, which is left as it was", "kept", old, "new", path)
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	}
	if err != nil {
		return fmt.Errorf("write admin token: %w", err)
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("write admin token: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write admin token: %w", err)
	}
	s.cfg.Log.Info("created the admin token; only its hash is stored", "path", path)
	return nil
}

// Errors reports fatal errors of background parts.
func (s *Service) Errors() <-chan error { return s.errs }

// Close stops accepting HTTP, lets in-flight messages finish and ack, then
// closes NATS and the store.
func (s *Service) Close() error {
	if s.HTTP != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = s.HTTP.Shutdown(ctx)
		cancel()
	}
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
	s.shutdownInfra()
	return nil
}

func (s *Service) shutdownInfra() {
	if s.Bus != nil {
		s.Bus.Close()
	}
	if s.NS != nil {
		s.NS.Shutdown()
		s.NS.WaitForShutdown()
	}
	if s.Store != nil {
		s.Store.Close()
	}
}
