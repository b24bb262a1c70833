package pipelines

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// EmbeddedConfig configures the in-process NATS server of the all-in-one mode.
type EmbeddedConfig struct {
	StoreDir string
	// Listen is host:port for other processes (workers) to connect; port 0
	// picks a free one. Empty means in-process connections only.
	Listen string
	// SyncInterval 0 fsyncs every JetStream write before acknowledging it
	// (sync_always); a positive value fsyncs on that interval instead.
	// JetStream's own default, two minutes, can lose acknowledged messages
	// on power loss; casebook never uses it implicitly.
	SyncInterval time.Duration
}

// DefaultNATSSync is the embedded server's fsync policy for `casebook
// serve`: 0, fsync every write (sync_always). Measured on the pipeline
// benchmark it costs little once page bodies are in the KV bucket and stages
// run 16 at a time, so durability is the default.
const DefaultNATSSync time.Duration = 0

// StartEmbedded starts a nats-server with JetStream in this process.
func StartEmbedded(cfg EmbeddedConfig) (*server.Server, error) {
	opts := &server.Options{
		ServerName:   "casebook-embedded",
		JetStream:    true,
		StoreDir:     cfg.StoreDir,
		NoSigs:       true,
		NoLog:        true,
		SyncAlways:   cfg.SyncInterval <= 0,
		SyncInterval: max(cfg.SyncInterval, 0),
		MaxPayload:   8 << 20,
	}
	if cfg.Listen == "" {
		opts.DontListen = true
	} else {
		host, port, err := net.SplitHostPort(cfg.Listen)
		if err != nil {
			return nil, fmt.Errorf("nats listen address %q: %w", cfg.Listen, err)
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			return nil, fmt.Errorf("nats listen port %q: %w", port, err)
		}
		if p == 0 {
			p = server.RANDOM_PORT
		}
		opts.Host, opts.Port = host, p
	}
	// JetStream needs to write its store: say so, naming the directory and
	// the cause, rather than wait for a server that will never be ready.
	if err := probeWritable(cfg.StoreDir); err != nil {
		return nil, fmt.Errorf("embedded nats: JetStream store %s: %w", cfg.StoreDir, err)
	}
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded nats: %w", err)
	}
	errs := &lastError{}
	ns.SetLoggerV2(errs, false, false, false)
	go ns.Start()
	if !ns.ReadyForConnections(15 * time.Second) {
		ns.Shutdown()
		if e := errs.get(); e != "" {
			return nil, fmt.Errorf("embedded nats: %s", e)
		}
		return nil, errors.New("embedded nats: not ready after 15s")
	}
	return ns, nil
}

// probeWritable makes dir if needed and writes and removes a file in it.
func probeWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".casebook-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	err = f.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	return err
}

// lastError keeps the embedded server's last error or fatal line, so a
// start that fails can say why; everything else is dropped (NoLog).
type lastError struct {
	mu  sync.Mutex
	msg string
}

func (l *lastError) set(format string, v ...any) {
	l.mu.Lock()
	l.msg = fmt.Sprintf(format, v...)
	l.mu.Unlock()
}

func (l *lastError) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.msg
}

func (l *lastError) Noticef(string, ...any)         {}
func (l *lastError) Warnf(string, ...any)           {}
func (l *lastError) Debugf(string, ...any)          {}
func (l *lastError) Tracef(string, ...any)          {}
func (l *lastError) Errorf(format string, v ...any) { l.set(format, v...) }
func (l *lastError) Fatalf(format string, v ...any) { l.set(format, v...) }

// Bus is a JetStream connection with casebook's streams, consumers and object store.
type Bus struct {
	NC    *nats.Conn
	JS    jetstream.JetStream
	Pages jetstream.ObjectStore
	// Bodies holds page bodies small enough for one message: a key-value get
	// is one direct read, where an object-store get sets up a consumer.
	Bodies jetstream.KeyValue
	// Deferrals counts politeness deferrals per fetch message (DeferralsBucket).
	Deferrals jetstream.KeyValue
	log       *slog.Logger
}

// BusConfig configures Connect.
type BusConfig struct {
	URL      string         // nats URL(s), comma-separated; ignored when Embedded is set
	Embedded *server.Server // connect in-process to this server
	Name     string         // connection name, shown in NATS monitoring
	Replicas int            // stream replicas; 0 picks 3 on a cluster of three or more, else 1
	Log      *slog.Logger
}

// Connect connects and makes sure every stream, consumer and bucket exists.
// It is idempotent, so every process runs it at start.
func Connect(ctx context.Context, cfg BusConfig) (*Bus, error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	opts := []nats.Option{
		nats.Name(cfg.Name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				cfg.Log.Warn("nats disconnected", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { cfg.Log.Info("nats reconnected", "url", nc.ConnectedUrl()) }),
		// Asynchronous errors (a subscription dropping messages as a slow
		// consumer, a permissions error) reach no caller: say them.
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			subject := ""
			if sub != nil {
				subject = sub.Subject
			}
			cfg.Log.Warn("nats asynchronous error", "subject", subject, "err", err)
		}),
	}
	url := cfg.URL
	if cfg.Embedded != nil {
		opts = append(opts, nats.InProcessServer(cfg.Embedded))
		url = ""
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to nats %s: %w", cfg.URL, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	b := &Bus{NC: nc, JS: js, log: cfg.Log}
	replicas := cfg.Replicas
	if replicas == 0 {
		replicas = 1
		if n := len(nc.Servers()); n >= 3 {
			replicas = 3
		}
	}
	if err := b.ensure(ctx, replicas); err != nil {
		nc.Close()
		return nil, err
	}
	return b, nil
}

// Close drains the connection.
func (b *Bus) Close() {
	if err := b.NC.Drain(); err != nil {
		b.NC.Close()
	}
}

// AckWait per stage: the runner sends InProgress every third of it while a
// handler runs, so a slow fetch is never redelivered meanwhile, and a message
// held by a crashed worker (or in flight when a worker stopped) comes back
// within this time.
var ackWait = map[string]time.Duration{
	StageFetch: 30 * time.Second, StageExtract: 10 * time.Second,
	StageClassify: 10 * time.Second, StageSink: 10 * time.Second, ConsumerEvent: 10 * time.Second,
}

func (b *Bus) ensure(ctx context.Context, replicas int) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	streams := []jetstream.StreamConfig{
		{Name: StreamWork, Subjects: []string{"casebook.work.>"}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute, Replicas: replicas},
		{Name: StreamEvents, Subjects: []string{SubjectEvents}, Retention: jetstream.LimitsPolicy,
			Storage: jetstream.FileStorage, MaxAge: 7 * 24 * time.Hour, Duplicates: 10 * time.Minute, Replicas: replicas},
		{Name: StreamDead, Subjects: []string{"casebook.dead.>"}, Retention: jetstream.LimitsPolicy,
			Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute, Replicas: replicas},
	}
	for _, sc := range streams {
		if err := retryCtx(ctx, func(ctx context.Context) error { _, err := b.JS.CreateOrUpdateStream(ctx, sc); return err }); err != nil {
			return fmt.Errorf("stream %s: %w", sc.Name, err)
		}
	}
	for _, stage := range Stages {
		cc := jetstream.ConsumerConfig{
			Durable:       stage,
			FilterSubject: StageSubject[stage],
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       ackWait[stage],
			// Unlimited at the server: the runner counts attempts itself and
			// dead-letters past its limit, even when every attempt crashed the worker.
			MaxDeliver:    -1,
			MaxAckPending: 1000,
		}
		if err := retryCtx(ctx, func(ctx context.Context) error {
			_, err := b.JS.CreateOrUpdateConsumer(ctx, StreamWork, cc)
			return err
		}); err != nil {
			return fmt.Errorf("consumer %s: %w", stage, err)
		}
	}
	rc := jetstream.ConsumerConfig{Durable: ConsumerEvent, FilterSubject: SubjectEvents,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait[ConsumerEvent], MaxDeliver: -1, MaxAckPending: 5000}
	if err := retryCtx(ctx, func(ctx context.Context) error {
		_, err := b.JS.CreateOrUpdateConsumer(ctx, StreamEvents, rc)
		return err
	}); err != nil {
		return fmt.Errorf("consumer %s: %w", ConsumerEvent, err)
	}
	if err := retryCtx(ctx, func(ctx context.Context) error {
		var err error
		b.Bodies, err = b.JS.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: BodiesBucket, Storage: jetstream.FileStorage, TTL: 7 * 24 * time.Hour,
			Replicas: replicas, MaxValueSize: MaxKVBody, Compression: true,
		})
		return err
	}); err != nil {
		return fmt.Errorf("bucket %s: %w", BodiesBucket, err)
	}
	// On disk: a restart that forgot the counts would take every deferral
	// since for a failed attempt and dead-letter fetches that only waited.
	if err := retryCtx(ctx, func(ctx context.Context) error {
		var err error
		b.Deferrals, err = b.JS.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: DeferralsBucket, Description: "casebook politeness deferrals per fetch message", History: 1,
			Storage: jetstream.FileStorage, TTL: 7 * 24 * time.Hour, Replicas: replicas,
		})
		return err
	}); err != nil {
		return fmt.Errorf("bucket %s: %w", DeferralsBucket, err)
	}
	return retryCtx(ctx, func(ctx context.Context) error {
		var err error
		b.Pages, err = b.JS.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
			Bucket: PagesBucket, Storage: jetstream.FileStorage, TTL: 7 * 24 * time.Hour, Replicas: replicas, Compression: true,
		})
		return err
	})
}

// MaxKVBody is the largest page body kept in the key-value bucket; larger
// ones go to the object store. It stays under NATS's default 1 MB message
// limit, so it holds on clusters with default settings too.
const MaxKVBody = 900 << 10

// PutBody stores a page body under key (a sha256-derived name).
func (b *Bus) PutBody(ctx context.Context, key string, body []byte) error {
	if len(body) <= MaxKVBody {
		_, err := b.Bodies.Put(ctx, kvKey(key), body)
		return err
	}
	_, err := b.Pages.PutBytes(ctx, key, body)
	return err
}

// GetBody loads a page body stored by PutBody. A body that is in neither
// place answers jetstream.ErrObjectNotFound.
func (b *Bus) GetBody(ctx context.Context, key string) ([]byte, error) {
	e, err := b.Bodies.Get(ctx, kvKey(key))
	if err == nil {
		return e.Value(), nil
	}
	if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, err
	}
	return b.Pages.GetBytes(ctx, key)
}

// kvKey maps "page/<hex>" to a key-value key ("/" is allowed, but keep it plain).
func kvKey(key string) string { return strings.ReplaceAll(key, "/", ".") }

// retry repeats f, each attempt with its own timeout, while a cluster is
// still electing leaders at start-up.
func retry(ctx context.Context, f func() error) error {
	return retryCtx(ctx, func(context.Context) error { return f() })
}

func retryCtx(ctx context.Context, f func(ctx context.Context) error) error {
	var err error
	for delay := 100 * time.Millisecond; ; delay = min(delay*2, 2*time.Second) {
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err = f(actx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
		case <-time.After(delay):
		}
	}
}
