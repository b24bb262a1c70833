package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/sinks"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// httpMetrics are the server's own metrics, on a registry of its own.
type httpMetrics struct {
	reg      *prometheus.Registry
	duration *prometheus.HistogramVec
}

func newHTTPMetrics(store *sinks.Store) *httpMetrics {
	m := &httpMetrics{
		reg: prometheus.NewRegistry(),
		// route is the ServeMux pattern that matched ("GET /api/v1/cases/{id}"),
		// never the path: label values must not come from the request.
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "casebook_http_request_duration_seconds",
			Help:    "HTTP requests by route pattern and status code.",
			Buckets: []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}}, []string{"route", "status"}),
	}
	m.reg.MustRegister(m.duration, storeCollector{store})
	return m
}

// statusWriter records the status code; Unwrap keeps
// http.ResponseController (deadlines, flushing) working through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// serveMeasured routes r and observes its duration by pattern and status.
func (s *Server) serveMeasured(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	s.mux.ServeHTTP(sw, r)
	route := r.Pattern // set by the mux on r itself
	if route == "" {
		route = "unmatched"
	}
	if sw.status == 0 {
		sw.status = http.StatusOK
	}
	s.httpMetrics.duration.WithLabelValues(route, strconv.Itoa(sw.status)).Observe(time.Since(start).Seconds())
}

// storeCollector reads the store's size and case counts at scrape time.
type storeCollector struct{ store *sinks.Store }

var (
	descStoreBytes = prometheus.NewDesc("casebook_store_bytes", "Size of the bbolt file.", nil, nil)
	descCases      = prometheus.NewDesc("casebook_cases", "Cases by status.", []string{"status"}, nil)
)

func (c storeCollector) Describe(ch chan<- *prometheus.Desc) { ch <- descStoreBytes; ch <- descCases }

func (c storeCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(descStoreBytes, prometheus.GaugeValue, float64(c.store.Size()))
	if counts, err := c.store.CountCases(); err == nil {
		for _, st := range []string{casebook.StatusDraft, casebook.StatusPublished, casebook.StatusRejected, casebook.StatusMerged} {
			ch <- prometheus.MustNewConstMetric(descCases, prometheus.GaugeValue, float64(counts[st]), st)
		}
	}
}

func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	if !onlyParams(w, r) {
		return
	}
	g := prometheus.Gatherers{s.httpMetrics.reg}
	if s.cfg.Metrics != nil {
		g = append(g, s.cfg.Metrics)
	}
	promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}).ServeHTTP(w, r)
}
