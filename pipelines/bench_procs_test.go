package pipelines_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/casebook/casebook"
)

// BenchmarkPipelineClusterProcesses is the deployment shape of the scale-out
// issue, measured: three nats-server processes joined by routes (streams with
// three replicas), one worker process per stage (`casebook worker`, 16
// handlers each) and the store process (`casebook serve --stages sink`). It
// submits b.N pages over the HTTP API and reports documents per second and
// each process's peak resident memory (VmHWM). Compare its docs/s with
// BenchmarkPipelineDirect from the same run:
//
//	go test -run '^$' -bench 'Pipeline(Direct|ClusterProcesses)' -benchtime 5000x ./pipelines
func BenchmarkPipelineClusterProcesses(b *testing.B) {
	if testing.Short() {
		b.Skip("cluster benchmark skipped in -short mode")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc for per-process peak memory")
	}
	bin := buildBinary(b)
	natsBin := buildNATSServer(b)
	logDir := b.TempDir()
	site := newBenchSite(b)

	var procs []*proc
	clientPorts, routes := make([]int, 3), make([]string, 3)
	routePorts := make([]int, 3)
	for i := range 3 {
		clientPorts[i], routePorts[i] = freePort(b), freePort(b)
		routes[i] = fmt.Sprintf("nats://127.0.0.1:%d", routePorts[i])
	}
	var urls []string
	for i := range 3 {
		name := fmt.Sprintf("nats-%d", i+1)
		procs = append(procs, startProc(b, natsBin, logDir, name,
			"--server_name", name, "-a", "127.0.0.1", "-p", strconv.Itoa(clientPorts[i]),
			"-js", "-sd", filepath.Join(b.TempDir(), name),
			"--cluster_name", "casebook-bench", "--cluster", routes[i], "--routes", strings.Join(routes, ",")))
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", clientPorts[i]))
	}
	natsURLs := strings.Join(urls, ",")
	conc := strconv.Itoa(benchConcurrency(b))
	data := b.TempDir()
	httpAddr := fmt.Sprintf("127.0.0.1:%d", freePort(b))
	procs = append(procs, startProc(b, bin, logDir, "store", "serve", "--nats", natsURLs, "--stages", "sink",
		"--data", data, "--http", httpAddr, "--log-level", "warn", "--sources", "none",
		"--submit-rate", "100000", "--submit-burst", "100000", "--host-delay", "1ms", "--host-concurrency", "4"))
	for _, stage := range []string{"fetch", "extract", "classify"} {
		procs = append(procs, startProc(b, bin, logDir, stage, "worker", "--stage", stage, "--nats", natsURLs,
			"--allow-private-networks", "--concurrency", conc, "--log-level", "warn"))
	}
	b.Cleanup(func() {
		if b.Failed() {
			for _, p := range procs {
				raw, _ := os.ReadFile(filepath.Join(logDir, p.name+".log"))
				b.Logf("--- %s log tail ---\n%s", p.name, tail(raw, 3000))
			}
		}
	})
	client := waitForServer(b, "http://"+httpAddr, data)
	// Let every worker bind its consumer before the clock starts.
	time.Sleep(2 * time.Second)

	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	ids := submitAll(b, func(i int) string { return submitRetrying(b, client, site.url(i)).ID })
	awaitDrafted(b, ids, start, func(id string) (casebook.Submission, error) {
		var sub casebook.Submission
		_, err := client.Do(ctx, "GET", "/api/v1/submissions/"+id, nil, &sub)
		return sub, err
	})
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "docs/s")
	b.ReportMetric(0, "ns/op")
	var natsPeak, natsCPU float64
	for _, p := range procs {
		mib, cpu := peakRSS(b, p.cmd.Process.Pid), cpuSeconds(b, p.cmd.Process.Pid)
		if strings.HasPrefix(p.name, "nats-") {
			natsPeak = max(natsPeak, mib)
			natsCPU += cpu
			continue
		}
		b.ReportMetric(mib, p.name+"-peak-rss-MiB")
		b.ReportMetric(cpu, p.name+"-cpu-s")
	}
	b.ReportMetric(natsPeak, "nats-server-peak-rss-MiB")
	b.ReportMetric(natsCPU, "nats-servers-cpu-s") // the three together
}

// buildNATSServer builds the nats-server release this module depends on, so
// the cluster runs as real separate server processes.
func buildNATSServer(b *testing.B) string {
	return goBuild(b, "nats-server", "github.com/nats-io/nats-server/v2")
}

// peakRSS reads a process's peak resident set (VmHWM) in MiB.
func peakRSS(b *testing.B, pid int) float64 {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatalf("peak RSS of %d: %v", pid, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				b.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb / 1024
		}
	}
	b.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// cpuSeconds is the user plus system CPU time a process has used, from
// /proc/PID/stat (in clock ticks of 1/100 s on Linux).
func cpuSeconds(b *testing.B, pid int) float64 {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatalf("cpu time of %d: %v", pid, err)
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100
}

func tail(raw []byte, n int) []byte {
	if len(raw) > n {
		return raw[len(raw)-n:]
	}
	return raw
}
