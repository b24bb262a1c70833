package pipelines

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"time"
)

// Metrics counts stage outcomes and latencies for /metrics. A nil *Metrics
// records nothing, so stages need no special case when metrics are off.
type Metrics struct {
	mu       sync.Mutex
	outcomes map[[2]string]uint64 // stage, outcome
	latSum   map[string]float64
	latCount map[string]uint64
	buckets  map[string][]uint64
	fetches  map[[2]string]uint64 // host, outcome
	// Gauges, when set, writes gauges read at scrape time (consumer lag,
	// dead letters), outside the lock since it may ask NATS.
	Gauges func(w io.Writer)
}

var latencyBounds = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// NewMetrics returns an empty registry.
func NewMetrics() *Metrics {
	return &Metrics{outcomes: map[[2]string]uint64{}, latSum: map[string]float64{},
		latCount: map[string]uint64{}, buckets: map[string][]uint64{}, fetches: map[[2]string]uint64{}}
}

func (m *Metrics) observe(stage, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.outcomes[[2]string{stage, outcome}]++
	s := d.Seconds()
	m.latSum[stage] += s
	m.latCount[stage]++
	b := m.buckets[stage]
	if b == nil {
		b = make([]uint64, len(latencyBounds))
		m.buckets[stage] = b
	}
	for i, bound := range latencyBounds {
		if s <= bound {
			b[i]++
		}
	}
}

// ObserveFetch counts a fetch outcome for a host.
func (m *Metrics) ObserveFetch(host, outcome string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.fetches[[2]string{host, outcome}]++
	m.mu.Unlock()
}

// WriteTo writes the Prometheus text format.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	if m == nil {
		return 0, nil
	}
	if m.Gauges != nil {
		m.Gauges(w)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	p := func(format string, a ...any) {
		k, _ := fmt.Fprintf(w, format, a...)
		n += int64(k)
	}
	p("# HELP casebook_stage_messages_total Messages handled per stage and outcome.\n# TYPE casebook_stage_messages_total counter\n")
	for _, k := range sortedKeys(m.outcomes) {
		p("casebook_stage_messages_total{stage=%q,outcome=%q} %d\n", k[0], k[1], m.outcomes[k])
	}
	p("# HELP casebook_stage_seconds Stage handling latency.\n# TYPE casebook_stage_seconds histogram\n")
	stages := make([]string, 0, len(m.latCount))
	for s := range m.latCount {
		stages = append(stages, s)
	}
	sort.Strings(stages)
	for _, s := range stages {
		for i, bound := range latencyBounds {
			p("casebook_stage_seconds_bucket{stage=%q,le=\"%g\"} %d\n", s, bound, m.buckets[s][i])
		}
		p("casebook_stage_seconds_bucket{stage=%q,le=\"+Inf\"} %d\n", s, m.latCount[s])
		p("casebook_stage_seconds_sum{stage=%q} %g\ncasebook_stage_seconds_count{stage=%q} %d\n", s, m.latSum[s], s, m.latCount[s])
	}
	p("# HELP casebook_fetch_total Fetch outcomes per host.\n# TYPE casebook_fetch_total counter\n")
	for _, k := range sortedKeys(m.fetches) {
		p("casebook_fetch_total{host=%q,outcome=%q} %d\n", k[0], k[1], m.fetches[k])
	}
	return n, nil
}

func sortedKeys(m map[[2]string]uint64) [][2]string {
	keys := make([][2]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	return keys
}
