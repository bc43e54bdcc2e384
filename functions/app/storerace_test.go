package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store/storetest"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
)

// TestStoreRace runs the race below on both stores: the embedded one and
// DynamoDB (dynalite). It lives here, beside the application it drives, and
// not in infra/store/storetest, so that no adapter depends on the app.
func TestStoreRace(t *testing.T) { onEachStore(t, testRace) }

// testRace: many concurrent ingests and watchdog runs on one node end with
// exactly one incident of each kind and one alert of each kind. It drives
// the real application (app.Service) over the store under test, so it
// checks the store's conditional writes where they matter.
func testRace(t *testing.T, s store.Store) {
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	clock := apptest.NewClock(t0)
	notif := &apptest.Notifier{}
	book := apptest.Terms(t)
	book["acme-std"].Detection.FailureThreshold, book["acme-std"].Detection.SuccessThreshold = 1, 1
	svc, err := app.New(app.Config{Store: s, Notifier: notif, Box: apptest.Box(t), Clock: clock, Terms: book})
	raceMust(t, err, "app.New")
	p := apptest.AddNode(t, svc, "race-1")
	_, err = svc.BackendStart(context.Background())
	raceMust(t, err, "BackendStart")
	_, body := p.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
	_, err = svc.Ingest(context.Background(), p.Request(t0, body))
	raceMust(t, err, "first ingest")

	// Phase 1: the node falls silent; the watchdog ticks every minute, and
	// once the grace period has passed 12 runs race to open the unreachable
	// incident.
	clock.Advance(time.Minute)
	_, err = svc.Watchdog(context.Background())
	raceMust(t, err, "watchdog")
	clock.Advance(90 * time.Second)
	storetest.Parallel(t, 12, func(int) error { _, err := svc.Watchdog(context.Background()); return err })
	incs, err := s.ListIncidents(context.Background(), "race-1", t0, t0.Add(time.Hour))
	raceMust(t, err, "ListIncidents")
	if len(incs) != 1 || incs[0].Kind != "unreachable" || !incs[0].Open() {
		t.Fatalf("after racing watchdogs: %d incidents %+v, want one open unreachable", len(incs), incs)
	}
	if want := t0.Add(30 * time.Second); !incs[0].Start.Equal(want) {
		t.Fatalf("unreachable starts %s, want it backdated to last heartbeat + interval %s", incs[0].Start, want)
	}
	if n := notif.Count(notify.AlertUnreachable); n != 1 {
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
	storetest.Parallel(t, len(reqs)+10, func(i int) error {
		if i >= len(reqs) {
			_, err := svc.Watchdog(context.Background())
			return err
		}
		ack, err := svc.Ingest(context.Background(), reqs[i].r)
		if err == nil && ack.Status != wire.AckStored && ack.Status != wire.AckDuplicate {
			return errors.New("bad ack status " + ack.Status)
		}
		return err
	})
	incs, _ = s.ListIncidents(context.Background(), "race-1", t0, t0.Add(time.Hour))
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
	for k, want := range map[notify.AlertKind]int{notify.AlertUnreachable: 1, notify.AlertRecovered: 1, notify.AlertDegraded: 1} {
		if n := notif.Count(k); n != want {
			t.Fatalf("%d %s alerts, want %d (all: %+v)", n, k, want, notif.Sent())
		}
	}
	st, err := s.GetState(context.Background(), "race-1")
	raceMust(t, err, "GetState")
	if st.LastSeq != 11 {
		t.Fatalf("last seq %d, want 11", st.LastSeq)
	}
}

func raceMust(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
