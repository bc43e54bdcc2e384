package app_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

// raceRepair is the real store with one interleaving forced: the first
// time ingest goes to create an incident record — after its state write
// committed — a watchdog run happens first, finds the state's open
// incident without a record and repairs it.
type raceRepair struct {
	store.Store
	watchdog func()
	fired    atomic.Bool
	lose     bool // the forced record write fails instead
}

func (r *raceRepair) CreateIncident(ctx context.Context, inc store.Incident) error {
	if r.watchdog != nil && r.fired.CompareAndSwap(false, true) {
		r.watchdog()
		if r.lose {
			return errors.New("the writer died")
		}
	}
	return r.Store.CreateIncident(ctx, inc)
}

// The e2e flake "repaired incident record loses failed checks": the
// watchdog's repair ran between ingest's state write and its record
// write, created the record from the state alone (no failed checks), and
// ingest's put-if-absent then found it and kept nothing of its own.
// Now the repair leaves a state written less than RepairGrace ago alone,
// and an ingest slower than that adds its failed checks to the record the
// repair made; a record lost for good (the writer died) is still repaired.
func TestRepairRacingIngestKeepsFailedChecks(t *testing.T) {
	for _, c := range []struct {
		name string
		// stall is how long ingest stalls between its state write and
		// its record write while the watchdog runs.
		stall time.Duration
		// lost: the record write fails (the writer died); the watchdog
		// after the grace must recreate it.
		lost       bool
		wantFailed bool
	}{
		{name: "watchdog at once", stall: 0, wantFailed: true},
		{name: "ingest stalled past the grace", stall: app.RepairGrace + time.Second, wantFailed: true},
		{name: "record lost", lost: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			clock := apptest.NewClock(t0)
			st.SetClock(clock.Now)
			rs := &raceRepair{Store: st}
			notif := &apptest.Notifier{}
			svc, err := app.New(app.Config{Store: rs, Notifier: notif, Box: apptest.Box(t), Clock: clock, Terms: apptest.Terms(t), Log: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			p := apptest.AddNode(t, svc, "gz-01")
			ctx := t.Context()
			_, body := p.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
			if _, err := svc.Ingest(ctx, p.Request(t0, body)); err != nil {
				t.Fatal(err)
			}
			rs.watchdog = func() {
				clock.Advance(c.stall)
				if _, err := svc.Watchdog(ctx); err != nil {
					t.Errorf("watchdog: %v", err)
				}
			}
			rs.lose = c.lost
			now := t0.Add(time.Minute)
			clock.Set(now)
			g := 1
			obs := append(apptest.Heartbeats(now, 30*time.Second, 2), apptest.Check(now,
				wire.Check{Name: "gpu.xid.kernel_log", Category: events.CategoryGPULost, Verdict: wire.Fail, Value: "79 GPU has fallen off the bus", GPU: &g}))
			_, body = p.Batch(now, obs...)
			if _, err := svc.Ingest(ctx, p.Request(now, body)); err != nil {
				t.Fatal(err)
			}
			if !rs.fired.Load() {
				t.Fatal("the watchdog never ran between the state write and the record write: the test forces nothing")
			}
			if c.lost {
				// The next runs: within the grace nothing, after it the repair.
				clock.Advance(30 * time.Second)
				if _, err := svc.Watchdog(ctx); err != nil {
					t.Fatal(err)
				}
				if incs, _ := st.ListIncidents(ctx, "gz-01", t0, now.Add(time.Hour)); len(incs) != 0 {
					t.Fatalf("repaired within the grace: %+v", incs)
				}
				clock.Advance(app.RepairGrace)
				if _, err := svc.Watchdog(ctx); err != nil {
					t.Fatal(err)
				}
			}
			incs, err := st.ListIncidents(ctx, "gz-01", t0, now.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if len(incs) != 1 || incs[0].Kind != "gpu_lost" || !incs[0].Open() {
				t.Fatalf("incidents %+v, want the one open gpu_lost", incs)
			}
			f := incs[0].Failed
			if got := len(f) == 1 && f[0].Name == "gpu.xid.kernel_log" && f[0].Value == "79 GPU has fallen off the bus"; got != c.wantFailed {
				t.Errorf("incident's failed checks %+v; want them there: %v", f, c.wantFailed)
			}
			if n := notif.Count("degraded"); n != 1 {
				t.Errorf("%d opening alerts, want 1", n)
			}
			if c.stall == 0 && !c.lost {
				if a := notif.Sent(); len(a) != 1 || len(a[0].Failed) != 1 {
					t.Errorf("opening alert %+v, want it with the failed check", a)
				}
			}
		})
	}
}
