package api

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func TestMetricsEndpoint(t *testing.T) {
	f := newFixture(t, Config{})
	ids := f.seedCases()
	for _, p := range []string{"/api/v1/cases", "/api/v1/cases/" + ids[0], "/api/v1/cases/CB-9999", "/api/v1/no/such/thing-7f3a", "/zz-unrouted-91b2"} {
		do(t, "GET", f.srv.URL+p, "", nil)
	}
	resp, body := do(t, "GET", f.srv.URL+"/metrics", "", nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, body)
	}
	series := map[string]bool{}
	for _, m := range mfs["casebook_http_request_duration_seconds"].GetMetric() {
		l := map[string]string{}
		for _, lp := range m.Label {
			l[lp.GetName()] = lp.GetValue()
		}
		series[l["route"]+" "+l["status"]] = true
	}
	for _, want := range []string{"GET /api/v1/cases 200", "GET /api/v1/cases/{id} 200", "GET /api/v1/cases/{id} 404", "/api/ 404"} {
		if !series[want] {
			t.Errorf("no series %q in %v", want, series)
		}
	}
	if strings.Contains(body, "thing-7f3a") || strings.Contains(body, "91b2") || strings.Contains(body, ids[0]) {
		t.Errorf("a request path became a label value")
	}
	if mfs["casebook_store_bytes"].GetMetric()[0].GetGauge().GetValue() <= 0 || len(mfs["casebook_cases"].GetMetric()) != 4 {
		t.Errorf("store metrics: %v %v", mfs["casebook_store_bytes"], mfs["casebook_cases"])
	}
	if bin, err := exec.LookPath("promtool"); err == nil {
		cmd := exec.Command(bin, "check", "metrics")
		cmd.Stdin = strings.NewReader(body)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	}
}
