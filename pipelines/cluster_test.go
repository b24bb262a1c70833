package pipelines_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/api"
	"github.com/nats-io/nats-server/v2/server"
)

// buildBinary compiles cmd/casebook once per test run.
func buildBinary(t testing.TB) string { return goBuild(t, "casebook", "../cmd/casebook") }

// goBuild builds a main package into the test's temporary directory.
func goBuild(t testing.TB, name, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

var (
	portMu   sync.Mutex
	portNext = 20000 + rand.IntN(10000)
)

// freePort is a port free now and below Linux's ephemeral range
// (32768-60999): a port the kernel hands out for ":0" listeners or
// outgoing connections could be taken by another test process, or by this
// cluster's own route dials, between this check and the server binding it
// (the "nats n2 not ready" of a loaded full suite); ports below that range
// are only ever taken by name.
func freePort(t testing.TB) int {
	t.Helper()
	portMu.Lock()
	defer portMu.Unlock()
	for range 2000 {
		p := portNext
		portNext++
		if portNext >= 32000 {
			portNext = 20000
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		ln.Close()
		return p
	}
	t.Fatal("no free port below the ephemeral range")
	return 0
}

// Ports for test servers come from below the ephemeral range, where no ":0"
// listener of another test process and no outgoing connection can take them
// between the pick and the bind.
func TestFreePortOutsideEphemeralRange(t *testing.T) {
	seen := map[int]bool{}
	for range 50 {
		p := freePort(t)
		if p < 1024 || p >= 32768 || seen[p] {
			t.Fatalf("freePort = %d (seen before: %v), want a fresh port in [1024, 32768)", p, seen[p])
		}
		seen[p] = true
	}
}

// natsCluster is three in-process nats-servers joined by routes.
type natsCluster struct {
	opts    []*server.Options
	servers []*server.Server
}

func startCluster(t testing.TB) *natsCluster {
	t.Helper()
	c := &natsCluster{}
	var routes []string
	clientPorts := make([]int, 3)
	routePorts := make([]int, 3)
	for i := range 3 {
		clientPorts[i], routePorts[i] = freePort(t), freePort(t)
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", routePorts[i]))
	}
	base := t.TempDir()
	for i := range 3 {
		o := &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: clientPorts[i],
			JetStream: true, StoreDir: filepath.Join(base, fmt.Sprintf("n%d", i+1)), NoSigs: true, NoLog: true,
			Cluster: server.ClusterOpts{Name: "casebook-test", Host: "127.0.0.1", Port: routePorts[i]},
			Routes:  server.RoutesFromStr(strings.Join(routes, ",")),
		}
		c.opts = append(c.opts, o)
		c.servers = append(c.servers, nil)
		c.start(t, i)
	}
	c.waitJetStream(t)
	t.Cleanup(func() {
		for _, s := range c.servers {
			if s != nil {
				s.Shutdown()
			}
		}
	})
	return c
}

func (c *natsCluster) start(t testing.TB, i int) {
	t.Helper()
	s, err := server.NewServer(c.opts[i])
	if err != nil {
		t.Fatal(err)
	}
	errs := &serverErrors{}
	s.SetLoggerV2(errs, false, false, false)
	go s.Start()
	// A bound, not a wait: it returns as soon as the server listens.
	if !s.ReadyForConnections(60 * time.Second) {
		t.Fatalf("nats n%d not ready after 60s: %s", i+1, errs.get())
	}
	c.servers[i] = s
}

// serverErrors keeps a test server's error lines, for a start that fails.
type serverErrors struct {
	mu   sync.Mutex
	msgs []string
}

func (l *serverErrors) Errorf(format string, v ...any) {
	l.mu.Lock()
	l.msgs = append(l.msgs, fmt.Sprintf(format, v...))
	l.mu.Unlock()
}
func (l *serverErrors) Fatalf(format string, v ...any) { l.Errorf(format, v...) }
func (l *serverErrors) Noticef(string, ...any)         {}
func (l *serverErrors) Warnf(string, ...any)           {}
func (l *serverErrors) Debugf(string, ...any)          {}
func (l *serverErrors) Tracef(string, ...any)          {}
func (l *serverErrors) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.msgs, "; ")
}

// waitJetStream waits until the cluster has a JetStream meta leader and
// every running server is current with it: clients that create streams
// before that get "JetStream system temporarily unavailable".
func (c *natsCluster) waitJetStream(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		leader, current := false, true
		for _, s := range c.servers {
			if s == nil {
				continue
			}
			leader = leader || s.JetStreamIsLeader()
			current = current && s.JetStreamIsCurrent()
		}
		if leader && current {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("JetStream cluster without a current meta leader after 60s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (c *natsCluster) stop(i int) {
	c.servers[i].Shutdown()
	c.servers[i].WaitForShutdown()
	c.servers[i] = nil
}

func (c *natsCluster) urls() string {
	var u []string
	for _, o := range c.opts {
		u = append(u, fmt.Sprintf("nats://127.0.0.1:%d", o.Port))
	}
	return strings.Join(u, ",")
}

// proc is a casebook child process.
type proc struct {
	name string
	args []string
	cmd  *exec.Cmd
	log  *os.File
}

func startProc(t testing.TB, bin, logDir, name string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, args: args}
	p.start(t, bin, logDir)
	t.Cleanup(func() { p.kill() })
	return p
}

func (p *proc) start(t testing.TB, bin, logDir string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(logDir, p.name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	p.log = f
	p.cmd = exec.Command(bin, p.args...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
}

func (p *proc) kill() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		_, _ = p.cmd.Process.Wait()
	}
	if p.log != nil {
		p.log.Close()
	}
}

// incidentPage writes a distinct, well-structured postmortem in one of the three languages.
func incidentPage(i int) string {
	switch i % 3 {
	case 0:
		return fmt.Sprintf(`<html lang="en"><head><title>Incident %d: queue backlog</title></head><body><article>
<h1>Incident %d: the order queue backed up</h1>
<h2>Symptoms</h2><p>Checkout requests timed out for %d minutes and the error-rate alert paged the on-call engineer.</p>
<h2>Root cause</h2><p>A configuration change set the consumer prefetch of worker pool %d to one, so the queue drained too slowly.</p>
<h2>Resolution</h2><ul><li>We reverted the configuration change.</li><li>We restarted worker pool %d.</li></ul>
</article></body></html>`, i, i, 5+i%40, i, i)
	case 1:
		return fmt.Sprintf(`<html lang="ru"><head><title>Инцидент %d</title></head><body><article>
<h1>Инцидент %d: сервис заказов не отвечал</h1>
<h2>Симптомы</h2><p>Пользователи получали ошибку 502 в течение %d минут, мониторинг показывал рост задержек.</p>
<h2>Корневая причина</h2><p>Причиной стало исчерпание пула соединений к базе данных на узле номер %d из-за медленных запросов.</p>
<h2>Решение</h2><ul><li>Увеличили размер пула соединений.</li><li>Добавили индекс для медленного запроса номер %d.</li></ul>
</article></body></html>`, i, i, 5+i%40, i, i)
	default:
		return fmt.Sprintf(`<html lang="zh"><head><title>故障复盘 %d</title></head><body><article>
<h1>故障复盘 %d：缓存集群雪崩</h1>
<h2>问题描述</h2><p>接口大量超时，持续了 %d 分钟，监控告警不断。</p>
<h2>根本原因</h2><p>根本原因是第 %d 号缓存集群的大量键同时过期，导致请求全部打到数据库。</p>
<h2>解决方案</h2><ul><li>为过期时间增加随机抖动。</li><li>临时扩容第 %d 号数据库。</li></ul>
</article></body></html>`, i, i, 5+i%40, i, i)
	}
}

// TestClusterFaults is the scale-out acceptance test: a three-server NATS
// cluster, two worker processes per stage, a separate store process, 500 URLs,
// and while they flow: kill -9 one worker of each stage, stop and restart one
// NATS server, kill -9 and restart the store process. At the end every URL is
// exactly one draft, one recorded skip or failure, or one dead letter.
func TestClusterFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster fault test skipped in -short mode")
	}
	const total = 500
	bin := buildBinary(t)
	cluster := startCluster(t)
	logDir := t.TempDir()
	t.Cleanup(func() {
		if t.Failed() {
			for _, name := range []string{"store", "fetch-1", "fetch-2", "extract-1", "extract-2", "classify-1", "classify-2"} {
				raw, _ := os.ReadFile(filepath.Join(logDir, name+".log"))
				if len(raw) > 4000 {
					raw = raw[len(raw)-4000:]
				}
				t.Logf("--- %s log tail ---\n%s", name, raw)
			}
		}
	})

	// The local site: mostly incident posts, some 404s (recorded failures) and
	// some that always answer 503 (dead letters after the attempts run out).
	var mu sync.Mutex
	hits := map[string]int{}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		var i int
		switch {
		case strings.HasPrefix(r.URL.Path, "/gone/"):
			http.NotFound(w, r)
		case strings.HasPrefix(r.URL.Path, "/busy/"):
			w.Header().Set("Retry-After", "1")
			http.Error(w, "try later", http.StatusServiceUnavailable)
		default:
			fmt.Sscanf(r.URL.Path, "/post/%d", &i)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, incidentPage(i))
		}
	}))
	defer site.Close()
	// The always-busy pages live on another host name, so the backoff they
	// earn their host does not hold back the rest.
	busyBase := strings.Replace(site.URL, "127.0.0.1", "localhost", 1)

	urls := cluster.urls()
	data := t.TempDir()
	httpAddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	storeArgs := []string{"serve", "--nats", urls, "--stages", "sink", "--data", data, "--http", httpAddr, "--log-level", "info",
		"--submit-rate", "10000", "--submit-burst", "10000", "--sources", "none",
		"--host-delay", "1ms", "--host-concurrency", "16"}
	store := startProc(t, bin, logDir, "store", storeArgs...)
	workers := map[string][]*proc{}
	for _, stage := range []string{"fetch", "extract", "classify"} {
		for n := 1; n <= 2; n++ {
			p := startProc(t, bin, logDir, fmt.Sprintf("%s-%d", stage, n),
				"worker", "--stage", stage, "--nats", urls, "--allow-private-networks", "--concurrency", "4", "--log-level", "info")
			workers[stage] = append(workers[stage], p)
		}
	}
	client := waitForServer(t, "http://"+httpAddr, data)

	var subIDs []string
	var kinds []string
	for i := range total {
		u := fmt.Sprintf("%s/post/%d", site.URL, i)
		kind := "post"
		switch {
		case i%50 == 7:
			u, kind = fmt.Sprintf("%s/gone/%d", site.URL, i), "gone"
		case i%100 == 13:
			u, kind = fmt.Sprintf("%s/busy/%d", busyBase, i), "busy"
		}
		sub := submitRetrying(t, client, u)
		subIDs = append(subIDs, sub.ID)
		kinds = append(kinds, kind)
		switch i {
		case 150:
			for _, stage := range []string{"fetch", "extract", "classify"} {
				workers[stage][0].kill() // kill -9, mid-flight
			}
		case 250:
			cluster.stop(2)
		case 320:
			cluster.start(t, 2)
			cluster.waitJetStream(t)
		case 400:
			store.kill()
			store.start(t, bin, logDir)
			client = waitForServer(t, "http://"+httpAddr, data)
		}
	}

	// Every submission reaches a terminal state.
	final := map[string]casebook.Submission{}
	deadline := time.Now().Add(4 * time.Minute)
	for _, id := range subIDs {
		for {
			var sub casebook.Submission
			_, err := client.Do(context.Background(), "GET", "/api/v1/submissions/"+id, nil, &sub)
			if err == nil && sub.Terminal() {
				final[id] = sub
				break
			}
			if time.Now().After(deadline) {
				var metrics string
				if resp, err := http.Get(client.BaseURL + "/metrics"); err == nil {
					raw, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					metrics = string(raw)
				}
				t.Fatalf("submission %s not terminal in time: %+v %v\n%s", id, sub, err, metrics)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	drafts := allDrafts(t, client)
	byURL := map[string]int{}
	for _, d := range drafts {
		byURL[d.Sources[0].URL]++
	}
	var dead struct {
		Items []api.DeadEntry `json:"items"`
	}
	if _, err := client.Do(context.Background(), "GET", "/api/v1/review/dead?limit=200", nil, &dead); err != nil {
		t.Fatal(err)
	}
	deadBySub := map[string]int{}
	for _, e := range dead.Items {
		deadBySub[e.SubmissionID]++
	}
	counts := map[string]int{}
	for i, id := range subIDs {
		sub := final[id]
		counts[kinds[i]+"/"+sub.State]++
		switch kinds[i] {
		case "post":
			if sub.State != casebook.StateDrafted || sub.DraftID == "" {
				t.Errorf("%s (%s): %+v, want drafted", id, sub.URL, sub)
			}
		case "gone":
			if sub.State != casebook.StateFailed || !strings.Contains(sub.Error, "404") {
				t.Errorf("%s: %+v, want failed with 404", id, sub)
			}
		case "busy":
			if sub.State != casebook.StateFailed || deadBySub[id] != 1 {
				t.Errorf("%s: %+v with %d dead letters, want failed with exactly one", id, sub, deadBySub[id])
			}
		}
	}
	for u, n := range byURL {
		if n != 1 {
			t.Errorf("%s has %d drafts, want 1", u, n)
		}
	}
	if len(drafts) != counts["post/drafted"] {
		t.Errorf("%d drafts for %d drafted submissions", len(drafts), counts["post/drafted"])
	}
	for id, n := range deadBySub {
		if n != 1 {
			t.Errorf("submission %s has %d dead letters", id, n)
		}
	}
	t.Logf("outcomes: %v; drafts %d; dead letters %d; goroutines in test %d", counts, len(drafts), len(dead.Items), runtime.NumGoroutine())
}

func waitForServer(t testing.TB, base, data string) *api.Client {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		tok, err := os.ReadFile(filepath.Join(data, "admin.token"))
		if err == nil {
			c := &api.Client{BaseURL: base, Token: strings.TrimSpace(string(tok)), HTTP: &http.Client{Timeout: 60 * time.Second}}
			var h map[string]string
			if _, err := c.Do(context.Background(), "GET", "/healthz", nil, &h); err == nil && h["status"] == "ok" {
				return c
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("server %s not healthy in time", base)
	return nil
}

// submitRetrying submits like a person whose server is restarting: again
// until accepted. Resubmitting is safe: the same URL answers the same submission.
func submitRetrying(t testing.TB, c *api.Client, u string) casebook.Submission {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var sub casebook.Submission
		_, err := c.Do(context.Background(), "POST", "/api/v1/submissions", map[string]string{"url": u}, &sub)
		if err == nil {
			return sub
		}
		var apiErr *api.Error
		if errors.As(err, &apiErr) && apiErr.Status < 500 {
			t.Fatalf("submit %s: %v", u, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("submit %s: %v", u, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func allDrafts(t testing.TB, c *api.Client) []casebook.Case {
	t.Helper()
	var out []casebook.Case
	cursor := ""
	for {
		var page struct {
			Items      []casebook.Case `json:"items"`
			NextCursor string          `json:"next_cursor"`
		}
		path := "/api/v1/review/drafts?limit=200"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		if _, err := c.Do(context.Background(), "GET", path, nil, &page); err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Items...)
		if page.NextCursor == "" {
			return out
		}
		cursor = page.NextCursor
	}
}
