package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/incident"
)

// testRace: many concurrent ingests and watchdog runs on one node end with
// exactly one incident of each kind and one alert of each kind. It drives
// the real application (app.Service) over the store under test, so it
// checks the store's conditional writes where they matter.
func testRace(t *testing.T, s app.Store) {
	clock := apptest.NewClock(t0)
	notif := &apptest.Notifier{}
	svc, err := app.New(app.Config{Store: s, Notifier: notif, Box: apptest.Box(t), Clock: clock,
		Thresholds: func(n app.Node) incident.Thresholds {
			return incident.Thresholds{Grace: n.Grace, FailureThreshold: 1, SuccessThreshold: 1}
		}})
	must(t, err, "app.New")
	p := apptest.AddNode(t, svc, "race-1")
	_, err = svc.BackendStart(ctx())
	must(t, err, "BackendStart")
	_, body := p.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
	_, err = svc.Ingest(ctx(), p.Request(t0, body))
	must(t, err, "first ingest")

	// Phase 1: the node falls silent; the watchdog ticks every minute, and
	// once the grace period has passed 12 runs race to open the unreachable
	// incident.
	clock.Advance(time.Minute)
	_, err = svc.Watchdog(ctx())
	must(t, err, "watchdog")
	clock.Advance(90 * time.Second)
	parallel(t, 12, func(int) error { _, err := svc.Watchdog(ctx()); return err })
	incs, err := s.ListIncidents(ctx(), "race-1", t0, t0.Add(time.Hour))
	must(t, err, "ListIncidents")
	if len(incs) != 1 || incs[0].Kind != "unreachable" || !incs[0].Open() {
		t.Fatalf("after racing watchdogs: %d incidents %+v, want one open unreachable", len(incs), incs)
	}
	if want := t0.Add(30 * time.Second); !incs[0].Start.Equal(want) {
		t.Fatalf("unreachable starts %s, want it backdated to last heartbeat + interval %s", incs[0].Start, want)
	}
	if n := notif.Count(app.AlertUnreachable); n != 1 {
		t.Fatalf("%d unreachable alerts, want 1", n)
	}

	// Phase 2: the node is back. 10 batches (each carrying a failing GPU
	// count check), each sent twice (a retry, re-signed), race with 10
	// watchdog runs.
	now := clock.Now()
	type req struct{ r app.IngestRequest }
	var reqs []req
	for i := 0; i < 10; i++ {
		at := now.Add(time.Duration(i) * time.Second)
		_, body := p.Batch(at, wire.Observation{At: at, Kind: wire.KindHeartbeat},
			apptest.Check(at, wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "7", Criterion: "8"}))
		reqs = append(reqs, req{p.Request(now, body)}, req{p.Request(now.Add(time.Second), body)})
	}
	parallel(t, len(reqs)+10, func(i int) error {
		if i >= len(reqs) {
			_, err := svc.Watchdog(ctx())
			return err
		}
		ack, err := svc.Ingest(ctx(), reqs[i].r)
		if err == nil && ack.Status != wire.AckStored && ack.Status != wire.AckDuplicate {
			return errors.New("bad ack status " + ack.Status)
		}
		return err
	})
	incs, _ = s.ListIncidents(ctx(), "race-1", t0, t0.Add(time.Hour))
	kinds := map[string]int{}
	for _, i := range incs {
		kinds[i.Kind]++
	}
	if len(incs) != 2 || kinds["unreachable"] != 1 || kinds["gpu_lost"] != 1 {
		t.Fatalf("after racing ingests: incidents by kind %v, want one unreachable and one gpu_lost", kinds)
	}
	for _, i := range incs {
		if i.Kind == "unreachable" && i.Open() {
			t.Fatalf("unreachable still open after the node came back: %+v", i)
		}
	}
	for k, want := range map[app.AlertKind]int{app.AlertUnreachable: 1, app.AlertRecovered: 1, app.AlertDegraded: 1} {
		if n := notif.Count(k); n != want {
			t.Fatalf("%d %s alerts, want %d (all: %+v)", n, k, want, notif.Sent())
		}
	}
	st, err := s.GetState(ctx(), "race-1")
	must(t, err, "GetState")
	if st.LastSeq != 11 {
		t.Fatalf("last seq %d, want 11", st.LastSeq)
	}
}

// parallel runs fn(0..n-1) at once and fails the test on any error.
func parallel(t *testing.T, n int, fn func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if err := fn(i); err != nil {
				errs <- err
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
}
