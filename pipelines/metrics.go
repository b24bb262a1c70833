package pipelines

import (
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/casebook/casebook/pipelines/crawl"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
)

// Metrics counts stage outcomes, fetches and crawls for /metrics, on its
// own Prometheus registry (no global state). A nil *Metrics records
// nothing, so stages need no special case when metrics are off.
//
// No label value comes from user input: stages, outcomes and configured
// crawl sources are fixed sets, and a fetch's host is named only when it is
// a crawl source's host ("other" for every submitted URL's host), so an
// anonymous submitter cannot grow the series without bound.
type Metrics struct {
	Registry *prometheus.Registry

	stageMsgs  *prometheus.CounterVec
	stageSecs  *prometheus.HistogramVec
	fetches    *prometheus.CounterVec
	fetchSecs  *prometheus.HistogramVec
	crawlRuns  *prometheus.CounterVec
	crawlItems *prometheus.CounterVec

	mu    sync.RWMutex
	hosts map[string]bool
}

var latencyBounds = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// OtherHost is the fetch host label of every host that is not a crawl
// source's.
const OtherHost = "other"

// NewMetrics returns a registry with the pipeline's metrics and the Go
// runtime and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		stageMsgs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "casebook_stage_messages_total",
			Help: "Messages handled per stage and outcome."}, []string{"stage", "outcome"}),
		stageSecs: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "casebook_stage_seconds",
			Help: "Stage handling latency.", Buckets: latencyBounds}, []string{"stage"}),
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "casebook_fetch_total",
			Help: "Fetch outcomes per host (crawl sources' hosts; \"other\" for the rest)."}, []string{"host", "outcome"}),
		fetchSecs: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "casebook_fetch_seconds",
			Help:    "Time of the HTTP fetch itself, without the wait for the host's politeness slot, per host (as casebook_fetch_total).",
			Buckets: latencyBounds}, []string{"host"}),
		crawlRuns: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "casebook_crawl_runs_total",
			Help: "Crawl runs per source and outcome (ok, not_modified, unchanged, failed, interrupted)."}, []string{"source", "outcome"}),
		crawlItems: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "casebook_crawl_items_total",
			Help: "Items crawl runs found in a source's listing, and how many of them were new (submitted or deferred)."}, []string{"source", "kind"}),
		hosts: map[string]bool{},
	}
	m.Registry.MustRegister(m.stageMsgs, m.stageSecs, m.fetches, m.fetchSecs, m.crawlRuns, m.crawlItems,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// KnownHosts sets the hosts a fetch is labelled by: the crawl sources'.
func (m *Metrics) KnownHosts(sources []crawl.Source) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range sources {
		for _, raw := range []string{s.URL, s.Link} {
			if u, err := url.Parse(raw); err == nil && u.Hostname() != "" {
				m.hosts[strings.ToLower(u.Hostname())] = true
			}
		}
	}
}

func (m *Metrics) hostLabel(host string) string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if h := strings.ToLower(host); m.hosts[h] {
		return h
	}
	return OtherHost
}

func (m *Metrics) observe(stage, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.stageMsgs.WithLabelValues(stage, outcome).Inc()
	m.stageSecs.WithLabelValues(stage).Observe(d.Seconds())
}

// ObserveFetch counts a fetch outcome for a host.
func (m *Metrics) ObserveFetch(host, outcome string) {
	if m == nil {
		return
	}
	m.fetches.WithLabelValues(m.hostLabel(host), outcome).Inc()
}

// ObserveFetchTime records how long the HTTP fetch itself took.
func (m *Metrics) ObserveFetchTime(host string, d time.Duration) {
	if m == nil {
		return
	}
	m.fetchSecs.WithLabelValues(m.hostLabel(host)).Observe(d.Seconds())
}

// ObserveCrawl counts a finished crawl run of a configured source.
func (m *Metrics) ObserveCrawl(source, outcome string, found, fresh int) {
	if m == nil {
		return
	}
	m.crawlRuns.WithLabelValues(source, outcome).Inc()
	m.crawlItems.WithLabelValues(source, "found").Add(float64(found))
	m.crawlItems.WithLabelValues(source, "new").Add(float64(fresh))
}

// Gather implements prometheus.Gatherer; nil gathers nothing.
func (m *Metrics) Gather() ([]*dto.MetricFamily, error) {
	if m == nil {
		return nil, nil
	}
	return m.Registry.Gather()
}
