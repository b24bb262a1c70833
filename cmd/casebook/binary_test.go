package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests here run the real binary (built once into a temp dir) against
// a real `casebook serve` on loopback, as a user would.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

func casebookBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and runs a server")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "casebook-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "casebook")
		out, err := exec.Command("go", "build", "-ldflags", "-X main.commit=0123456789abcdef", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

type result struct {
	code        int
	stdout, err string
}

// runBin runs the binary with args (and stdin) and a bounded time.
func runBin(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, casebookBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("casebook %v: %v", args, err)
	}
	return result{code, out.String(), errb.String()}
}

func TestBinaryVersionAndHelp(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		r := runBin(t, "", nil, args...)
		if r.code != 0 || !regexp.MustCompile(`^casebook \S+ commit [0-9a-f]{16,}\S* .*go1\.`).MatchString(r.stdout) {
			t.Errorf("%v: exit %d, %q", args, r.code, r.stdout)
		}
	}
	for _, c := range commands() {
		for _, h := range []string{"-h", "--help"} {
			if r := runBin(t, "", nil, c.name, h); r.code != 0 || !strings.Contains(r.stdout+r.err, "usage: casebook "+c.name) {
				t.Errorf("%s %s: exit %d, want 0 and the usage\n%s%s", c.name, h, r.code, r.stdout, r.err)
			}
		}
	}
	// Subcommands of subcommands too.
	for _, sub := range []string{"content", "cases", "relevance"} {
		if r := runBin(t, "", nil, "eval", sub, "-h"); r.code != 0 {
			t.Errorf("eval %s -h: exit %d, want 0\n%s", sub, r.code, r.err)
		}
	}
	for _, args := range [][]string{{}, {"--help"}, {"help"}, {"help", "submit"}} {
		if r := runBin(t, "", nil, args...); r.code != 0 {
			t.Errorf("%v: exit %d", args, r.code)
		}
	}
	usageErrors := [][]string{
		{"no-such-command"}, {"submit"}, {"submit", "--no-such-flag", "x"}, {"submit", "--file", "f", "https://a.example/"},
		{"serve", "--public-url", "cases.example.org"}, {"review", "explode"}, {"version", "extra"}, {"crawl", "extra"},
	}
	for _, args := range usageErrors {
		if r := runBin(t, "", nil, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)\n%s", args, r.code, r.err)
		}
	}
}

const germanPage = `<html lang="de"><body><article><h1>Ausfall</h1><p>Gestern Abend fiel unser Bestelldienst aus. Die Ursache war eine volle Festplatte auf dem Datenbankserver, deshalb haben wir den Speicher vergrößert und die Replikation neu gestartet. Danach lief alles wieder normal und wir haben Warnungen eingerichtet.</p></article></body></html>`

// startServe runs `casebook serve` on a free loopback port until the test ends.
func startServe(t *testing.T, extra ...string) (base, data string) {
	t.Helper()
	bin := casebookBinary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	data = t.TempDir()
	args := append([]string{"serve", "--data", data, "--http", addr, "--nats-listen", "", "--allow-private-networks",
		"--host-delay", "10ms", "--log-level", "warn"}, extra...)
	cmd := exec.Command(bin, args...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("serve log:\n%s", logs.String())
		}
	})
	base = "http://" + addr
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return base, data
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready:\n%s", logs.String())
		}
	}
}

// pages serves an incident write-up, a German page, a 404 and a feed.
func pages(t *testing.T) *httptest.Server {
	t.Helper()
	post, err := os.ReadFile(filepath.Join("..", "..", "testdata", "posts", "en-queue-outage.html"))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "User-agent: *\nAllow: /\n") })
	mux.HandleFunc("/post/{n}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		// Each URL a different page, so none is a duplicate of another.
		_, _ = w.Write(bytes.Replace(post, []byte("</body>"), []byte("<p>Post "+r.PathValue("n")+".</p></body>"), 1))
	})
	zh, err := os.ReadFile(filepath.Join("..", "..", "testdata", "posts", "zh-dns-timeout.html"))
	if err != nil {
		t.Fatal(err)
	}
	mux.HandleFunc("/zh", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(zh)
	})
	mux.HandleFunc("/de", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, germanPage)
	})
	mux.HandleFunc("/feed-missing.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>http://%[1]s/</link>
<item><title>gone</title><link>http://%[1]s/gone/1</link></item>
</channel></rss>`, r.Host)
	})
	mux.HandleFunc("/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>http://%[1]s/</link>
<item><title>a</title><link>http://%[1]s/post/feed-1</link><pubDate>Mon, 02 Mar 2026 10:00:00 GMT</pubDate></item>
<item><title>b</title><link>http://%[1]s/de</link><pubDate>Sun, 01 Mar 2026 10:00:00 GMT</pubDate></item>
</channel></rss>`, r.Host)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestBinarySubmit(t *testing.T) {
	site := pages(t)
	// A limit of one anonymous submission: the reviewer token (the admin
	// token in DATA) must lift it, or --file would wait for minutes.
	base, data := startServe(t, "--sources", "none", "--submit-rate", "0.001", "--submit-burst", "1", "--public-url", "https://cases.example.org/")
	env := []string{"CASEBOOK_SERVER=" + base, "CASEBOOK_DATA=" + data, "CASEBOOK_TOKEN="}

	tests := []struct {
		path   string
		code   int
		stderr string
		state  string
	}{
		{"/post/1", 0, "", "drafted"},
		{"/de", 3, "skipped: unsupported language", "skipped"},
		{"/missing", 1, "failed: ", "failed"},
	}
	var draft string
	for _, tc := range tests {
		r := runBin(t, "", env, "submit", "--wait", "--poll", "100ms", site.URL+tc.path)
		if r.code != tc.code || !strings.Contains(r.err, tc.stderr) || !strings.Contains(r.stdout, "\t"+tc.state+"\t") {
			t.Errorf("submit --wait %s: exit %d (want %d)\nstdout %q\nstderr %q", tc.path, r.code, tc.code, r.stdout, r.err)
		}
		if m := regexp.MustCompile(`draft=(\S+)`).FindStringSubmatch(r.stdout); m != nil {
			draft = m[1]
		}
	}

	list := "# known postmortems\n\n" + site.URL + "/post/2\n  " + site.URL + "/post/3  \nnot a url\n" + site.URL + "/post/1\n# end\n"
	r := runBin(t, list, env, "submit", "--file", "-", "--wait", "--poll", "100ms")
	if r.code != 1 || strings.Count(r.stdout, "\n") != 4 || !strings.Contains(r.stdout, "\trefused\tnot a url") {
		t.Errorf("submit --file -: exit %d (want 1: one refused)\nstdout %q\nstderr %q", r.code, r.stdout, r.err)
	}
	if !strings.Contains(r.err, "done: submitted 4/4: 2 new, 1 already submitted, 1 refused; drafted 1, skipped 2, failed 0, pending 0") {
		t.Errorf("summary: %q", r.err)
	}
	file := filepath.Join(t.TempDir(), "urls.txt")
	os.WriteFile(file, []byte(site.URL+"/post/4\n"+site.URL+"/post/5\n"), 0o600)
	if r := runBin(t, "", env, "submit", "--file", file); r.code != 0 || strings.Count(r.stdout, "\n") != 2 || !strings.Contains(r.err, "done: submitted 2/2: 2 new") {
		t.Errorf("submit --file FILE: exit %d\nstdout %q\nstderr %q", r.code, r.stdout, r.err)
	}
	// (/post/2 and /post/3 differ from /post/1 by one sentence: skipped as the same page.)
	// Without a token the limit holds: the burst of one was never spent
	// (every submission above had the admin token), so one passes, the
	// next is refused with 429 until its Retry-After.
	anon := []string{"CASEBOOK_SERVER=" + base, "CASEBOOK_DATA=" + t.TempDir(), "CASEBOOK_TOKEN="}
	if r := runBin(t, "", anon, "submit", site.URL+"/post/6"); r.code != 0 {
		t.Errorf("anonymous submit: exit %d %s", r.code, r.err)
	}
	resp, err := http.Post(base+"/api/v1/submissions", "application/json", strings.NewReader(`{"url":"`+site.URL+`/post/7"}`))
	if err != nil || resp.StatusCode != 429 {
		t.Errorf("second anonymous submission: %v %v, want 429", err, resp.Status)
	}

	// The feed's links come from --public-url, whatever Host the request names.
	if r := runBin(t, "", env, "review", "approve", draft); r.code != 0 {
		t.Fatalf("approve %s: %d %s", draft, r.code, r.err)
	}
	req, _ := http.NewRequest("GET", base+"/api/v1/feed.atom", nil)
	req.Host = "evil.example"
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	resp.Body.Close()
	if strings.Contains(body.String(), "evil.example") || !strings.Contains(body.String(), "<id>https://cases.example.org/cases/CB-") {
		t.Errorf("feed links:\n%s", body.String())
	}
}

func TestBinaryCrawlProgress(t *testing.T) {
	site := pages(t)
	srcFile := filepath.Join(t.TempDir(), "sources.yaml")
	os.WriteFile(srcFile, []byte("sources:\n  - name: local\n    kind: feed\n    url: "+site.URL+"/feed.xml\n    language: en\n    interval: 24h\n"), 0o600)
	base, data := startServe(t, "--sources", srcFile)
	env := []string{"CASEBOOK_SERVER=" + base, "CASEBOOK_DATA=" + data, "CASEBOOK_TOKEN="}
	r := runBin(t, "", env, "crawl", "--poll", "50ms")
	if r.code != 0 {
		t.Fatalf("crawl: exit %d\n%s%s", r.code, r.stdout, r.err)
	}
	// Not a terminal: plain lines, no carriage returns or escapes.
	if strings.ContainsAny(r.stdout, "\r\x1b") {
		t.Errorf("crawl output to a pipe has terminal control characters: %q", r.stdout)
	}
	lineRe := regexp.MustCompile(`(?m)^local: (\S+) found (\d+), new \d+, fetched \d+, skipped \d+, failed \d+, drafted \d+, pending (\d+)$`)
	lines := lineRe.FindAllStringSubmatch(r.stdout, -1)
	if len(lines) == 0 {
		t.Fatalf("no progress lines:\n%s", r.stdout)
	}
	for _, l := range lines {
		if l[1] == "ok" && l[3] != "0" {
			t.Errorf("%q says ok with items pending", l[0])
		}
	}
	if last := lines[len(lines)-1]; last[1] != "ok" || last[3] != "0" || last[2] != "2" {
		t.Errorf("last line %q, want ok, found 2, pending 0", last[0])
	}
}

// TestBinaryCrawlExitCode: a crawl whose source cannot be read, or whose
// items failed, exits 1 naming the source, as `submit --file` does for a
// failed URL; a run that only skipped items exits 0.
func TestBinaryCrawlExitCode(t *testing.T) {
	site := pages(t)
	srcFile := filepath.Join(t.TempDir(), "sources.yaml")
	os.WriteFile(srcFile, []byte("sources:\n"+
		"  - name: good\n    kind: feed\n    url: "+site.URL+"/feed.xml\n    interval: 24h\n"+
		"  - name: gone\n    kind: feed\n    url: "+site.URL+"/no-such-feed.xml\n    interval: 24h\n"+
		"  - name: broken-items\n    kind: feed\n    url: "+site.URL+"/feed-missing.xml\n    interval: 24h\n"), 0o600)
	base, data := startServe(t, "--sources", srcFile)
	env := []string{"CASEBOOK_SERVER=" + base, "CASEBOOK_DATA=" + data, "CASEBOOK_TOKEN="}
	for _, tc := range []struct {
		source string
		code   int
		stderr string // a part of standard error, "" for none
	}{
		{"good", 0, ""},
		{"gone", 1, "gone: crawl failed: "},
		{"broken-items", 1, "broken-items: 1 of 1 items failed"},
	} {
		t.Run(tc.source, func(t *testing.T) {
			r := runBin(t, "", env, "crawl", "--source", tc.source, "--poll", "50ms")
			if r.code != tc.code {
				t.Fatalf("crawl --source %s: exit %d, want %d\n%s%s", tc.source, r.code, tc.code, r.stdout, r.err)
			}
			if tc.stderr == "" && r.err != "" || !strings.Contains(r.err, tc.stderr) {
				t.Errorf("crawl --source %s: stderr %q, want %q", tc.source, r.err, tc.stderr)
			}
		})
	}
}

// TestBinaryReviewLanes: the review lanes from the command line against a
// real server: the queue's filters, the skipped list, "draft it" and merge.
func TestBinaryReviewLanes(t *testing.T) {
	site := pages(t)
	srcFile := filepath.Join(t.TempDir(), "sources.yaml")
	os.WriteFile(srcFile, []byte("sources:\n  - name: local\n    kind: feed\n    url: "+site.URL+"/feed.xml\n    interval: 24h\n"), 0o600)
	base, data := startServe(t, "--sources", srcFile)
	env := []string{"CASEBOOK_SERVER=" + base, "CASEBOOK_DATA=" + data, "CASEBOOK_TOKEN="}
	r := runBin(t, "", env, "crawl", "--poll", "50ms")
	skipped := regexp.MustCompile(`(?m)^(sub-\S+)\s+skipped\s+\S+/de\s`).FindStringSubmatch(r.stdout)
	drafted := regexp.MustCompile(`(?m)^sub-\S+\s+drafted\s+\S+/post/feed-1\s+draft (\S+)`).FindStringSubmatch(r.stdout)
	if r.code != 0 || skipped == nil || drafted == nil {
		t.Fatalf("crawl: exit %d, want one post drafted and /de skipped\n%s%s", r.code, r.stdout, r.err)
	}
	sub, draft := skipped[1], drafted[1]
	other := runBin(t, "", env, "submit", "--wait", "--poll", "100ms", site.URL+"/zh")
	m := regexp.MustCompile(`draft=(\S+)`).FindStringSubmatch(other.stdout)
	if other.code != 0 || m == nil {
		t.Fatalf("submit: exit %d\n%s%s", other.code, other.stdout, other.err)
	}
	second := m[1]
	if r := runBin(t, "", env, "review", "approve", draft); r.code != 0 || !strings.Contains(r.stdout, "published CB-0001") {
		t.Fatalf("approve %s: exit %d %s%s", draft, r.code, r.stdout, r.err)
	}
	for _, tc := range []struct {
		args    []string
		code    int
		want    string // in standard output (or error when code is not 0)
		notWant string // not in standard output, "" for no check
	}{
		{[]string{"review", "list", "--language", "zh"}, 0, second, ""},
		{[]string{"review", "list", "--language", "en"}, 0, "ID", second},
		{[]string{"review", "list", "--flagged"}, 0, "ID", second}, // a confident draft is not in the flagged lane
		{[]string{"review", "list", "--source", "no-such-host"}, 0, "ID", second},
		{[]string{"review", "skipped"}, 0, sub, ""},
		{[]string{"review", "skipped", "--source", "local"}, 0, "1 skipped\n", ""},
		{[]string{"review", "skipped", "--source", "local"}, 0, site.URL + "/de", ""},
		{[]string{"review", "skipped", "--source", "elsewhere"}, 0, "0 skipped\n", sub},
		{[]string{"review", "skipped", "--json"}, 0, `"total": 1`, ""},
		{[]string{"review", "draft", sub}, 0, sub + "\tqueued\t", ""},
		{[]string{"review", "draft", sub}, 1, "not a skipped crawled post", ""},
		{[]string{"review", "merge", second}, 2, "merge needs --into", ""},
		{[]string{"review", "merge", second, "--into", "CB-0001"}, 0, "merged " + second + " into CB-0001", ""},
		{[]string{"review", "merge", second, "--into", "CB-0001"}, 1, "conflict", ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runBin(t, "", env, tc.args...)
			out := r.stdout
			if tc.code != 0 {
				out = r.err
			}
			if r.code != tc.code || !strings.Contains(out, tc.want) || (tc.notWant != "" && strings.Contains(r.stdout, tc.notWant)) {
				t.Errorf("exit %d (want %d), want %q and not %q in\nstdout %q\nstderr %q", r.code, tc.code, tc.want, tc.notWant, r.stdout, r.err)
			}
		})
	}
}

func TestProgressRedraw(t *testing.T) {
	var tty, pipe bytes.Buffer
	for _, p := range []*progress{{w: &tty, tty: true}, {w: &pipe}} {
		p.status("a 1/2")
		p.status("a 1/2") // unchanged: not repeated
		p.println(p.w, "kept")
		p.status("a 2/2")
		p.done()
	}
	if want := "\r\x1b[Ka 1/2\r\x1b[Kkept\na 1/2\r\x1b[Ka 2/2\n"; tty.String() != want {
		t.Errorf("terminal: %q, want %q", tty.String(), want)
	}
	if want := "a 1/2\nkept\na 2/2\n"; pipe.String() != want {
		t.Errorf("pipe: %q, want %q", pipe.String(), want)
	}
	var spaced bytes.Buffer
	p := &progress{w: &spaced, every: time.Hour}
	for i := 0; i < 100; i++ {
		p.status(fmt.Sprintf("item %d", i))
	}
	if spaced.String() != "item 0\n" {
		t.Errorf("spaced plain lines: %q, want the first only", spaced.String())
	}
}

// TestEvalRelevanceAsFitted: `eval relevance --as-fitted` scores the gate on
// the inputs `make fit` reads and prints the figure of record per set; it
// names every input itself, so another input flag beside it is a usage error.
func TestEvalRelevanceAsFitted(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "..", "shared", "eval", "relevance", "labels.tsv")); err != nil {
		t.Skipf("shared tree absent: %v", err)
	}
	r := runBin(t, "", nil, "eval", "relevance", "--as-fitted", "--root", root, "--worst", "1")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.err)
	}
	for _, want := range []string{"set relevance-unseen:", "set relevance:", "set gold:", "the --dir and --gold posts:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output without %q\n%s", want, r.stdout)
		}
	}
	if r := runBin(t, "", nil, "eval", "relevance", "--as-fitted", "--root", root, "--dir", "x"); r.code != 2 {
		t.Errorf("--as-fitted with --dir: exit %d, want 2 (usage)\n%s", r.code, r.err)
	}
}
