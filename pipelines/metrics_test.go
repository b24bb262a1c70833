package pipelines

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/casebook/casebook/pipelines/crawl"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape gathers m as the Prometheus text format and parses it back.
func scrape(t *testing.T, m *Metrics) (string, map[string][]map[string]string) {
	t.Helper()
	mfs, err := m.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
			t.Fatal(err)
		}
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	parsed, err := parser.TextToMetricFamilies(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	labels := map[string][]map[string]string{}
	for name, mf := range parsed {
		for _, mt := range mf.Metric {
			l := map[string]string{}
			for _, lp := range mt.Label {
				l[lp.GetName()] = lp.GetValue()
			}
			labels[name] = append(labels[name], l)
		}
	}
	return buf.String(), labels
}

// promtoolCheck runs `promtool check metrics` (Debian's prometheus package)
// when it is installed.
func promtoolCheck(t *testing.T, text string) {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		t.Log("promtool not installed; parsed with expfmt only")
		return
	}
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

func TestMetricsLabelsAreBounded(t *testing.T) {
	m := NewMetrics()
	m.KnownHosts([]crawl.Source{{Name: "blog", URL: "https://Blog.Example.com/feed.xml"}, {Name: "arch", URL: "https://archive.example.net/sitemap.xml", Link: "https://posts.example.net/"}})
	m.ObserveFetch("blog.example.com", "ok")
	m.ObserveFetch("posts.example.net", "ok")
	// Anonymous submissions to a thousand hosts: one "other" series.
	for i := 0; i < 1000; i++ {
		m.ObserveFetch("attacker-"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+".example", "failed")
		m.ObserveFetchTime("attacker.example", time.Millisecond)
	}
	m.observe(StageFetch, "ok", 20*time.Millisecond)
	m.ObserveCrawl("blog", "ok", 12, 3)
	text, labels := scrape(t, m)
	hosts := map[string]bool{}
	for _, l := range labels["casebook_fetch_total"] {
		hosts[l["host"]] = true
	}
	if len(hosts) != 3 || !hosts["blog.example.com"] || !hosts["posts.example.net"] || !hosts[OtherHost] {
		t.Errorf("fetch hosts %v, want the two source hosts and %q", hosts, OtherHost)
	}
	for _, name := range []string{"casebook_stage_messages_total", "casebook_stage_seconds", "casebook_fetch_seconds",
		"casebook_crawl_runs_total", "casebook_crawl_items_total", "go_goroutines", "go_memstats_heap_alloc_bytes", "process_cpu_seconds_total"} {
		if len(labels[name]) == 0 {
			t.Errorf("%s missing", name)
		}
	}
	if !strings.Contains(text, `casebook_crawl_items_total{kind="new",source="blog"} 3`) || !strings.Contains(text, `casebook_crawl_runs_total{outcome="ok",source="blog"} 1`) {
		t.Errorf("crawl metrics:\n%s", text)
	}
	promtoolCheck(t, text)
	var nilM *Metrics // metrics off: nothing recorded, nothing gathered
	nilM.ObserveFetch("x", "ok")
	if mfs, err := nilM.Gather(); err != nil || len(mfs) != 0 {
		t.Errorf("nil metrics gathered %v %v", mfs, err)
	}
}
