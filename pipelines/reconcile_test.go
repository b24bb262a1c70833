package pipelines_test

import (
	"context"
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
