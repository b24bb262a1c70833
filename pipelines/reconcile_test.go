package pipelines_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/casebook/casebook"
	"github.com/casebook/casebook/fetch"
	"github.com/casebook/casebook/pipelines"
)

// A fetch task lost in transport (what a power loss inside JetStream's fsync
// interval can do) is re-published from the bbolt record, and the submission
// then completes.
func TestReconcileRepublishesLostWork(t *testing.T) {
	site := fixtureSite(t)
	ctx := context.Background()
	data := t.TempDir()
	// First only the store: nothing consumes the fetch task.
	svc, err := pipelines.Start(ctx, pipelines.ServeConfig{
		DataDir: data, HTTPAddr: "127.0.0.1:0", Stages: []string{pipelines.StageSink},
		Fetch: fetch.Config{AllowPrivateNetworks: true}, Log: testLogger(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	sub := &pipelines.Submitter{Store: svc.Store, Bus: svc.Bus, Log: testLogger(t)}
	rec, _, err := sub.Submit(ctx, site.URL+"/posts/en-queue-outage.html", "manual", "")
	if err != nil {
		t.Fatal(err)
	}
	st, err := svc.Bus.JS.Stream(ctx, pipelines.StreamWork)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Purge(ctx); err != nil { // the task is gone
		t.Fatal(err)
	}
	if n, err := sub.Reconcile(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("reconcile of a fresh submission: %d, %v (want 0)", n, err)
	}
	if n, err := sub.Reconcile(ctx, time.Now().Add(time.Second)); err != nil || n != 1 {
		t.Fatalf("reconcile: %d, %v (want 1)", n, err)
	}
	svc.Close()

	svc, c := startService(t, data)
	defer svc.Close()
	if done := waitTerminal(t, c, rec.ID); done.State != casebook.StateDrafted {
		t.Fatalf("after reconcile: %+v", done)
	}
}

// Losing the JetStream directory with work in flight: at the next start the
// unfinished submissions are asked again at once (not after the two-hour
// reconcile), and the ones whose messages survived are not asked twice.
func TestLostStreamsReconciledAtStart(t *testing.T) {
	site := fixtureSite(t)
	ctx := context.Background()
	data := t.TempDir()
	// Only the store: the fetch tasks wait in the stream.
	svc, _ := startConfigured(t, data, pipelines.ServeConfig{Stages: []string{pipelines.StageSink}})
	var ids []string
	for _, name := range []string{"en-queue-outage.html", "ru-disk-full.md", "zh-dns-timeout.html"} {
		rec, _, err := svc.Submitter.Submit(ctx, site.URL+"/posts/"+name, "manual", "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	// Nothing to re-publish while the stream holds every task.
	if n, err := svc.Submitter.ReconcileLost(ctx); err != nil || n != 0 {
		t.Fatalf("reconcile with the tasks in the stream: %d, %v (want 0)", n, err)
	}
	svc.Close()
	if err := os.RemoveAll(filepath.Join(data, "nats")); err != nil {
		t.Fatal(err)
	}

	svc, c := startService(t, data)
	defer svc.Close()
	for _, id := range ids {
		if done := waitTerminal(t, c, id); done.State != casebook.StateDrafted {
			t.Fatalf("after losing the streams: %+v", done)
		}
	}
}

// readOnlyDir makes dir unwritable: chmod for a user, the immutable
// attribute for root (whom permissions do not stop).
func readOnlyDir(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot make %s read-only as root: %v %s", dir, err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
}

// A data directory or JetStream store that cannot be written fails the
// start at once, naming the path and the cause, not "not ready after 15s".
func TestReadOnlyStoreNamesTheCause(t *testing.T) {
	for _, which := range []string{"data", "nats"} {
		t.Run(which, func(t *testing.T) {
			data := t.TempDir()
			ro := data
			if which == "nats" {
				ro = filepath.Join(data, "nats")
				if err := os.Mkdir(ro, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			readOnlyDir(t, ro)
			start := time.Now()
			svc, err := pipelines.Start(context.Background(), pipelines.ServeConfig{DataDir: data, HTTPAddr: "127.0.0.1:0", Log: testLogger(t)})
			if err == nil {
				svc.Close()
				t.Fatal("started on a read-only store")
			}
			msg := err.Error()
			if !strings.Contains(msg, ro) || !(strings.Contains(msg, "permission denied") || strings.Contains(msg, "operation not permitted")) ||
				time.Since(start) > 10*time.Second {
				t.Fatalf("after %s: %q, want the path and the cause at once", time.Since(start).Round(time.Millisecond), msg)
			}
		})
	}
}
