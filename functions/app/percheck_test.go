package app_test

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/incident"
)

func gpu(i int) *int { return &i }

// A burn that finds wrong values on two GPUs opens one incident per GPU at
// that result and alerts while the batch is being ingested (no watchdog
// tick needed), although the temperature check of the same category passes
// in the same batch and before it (hysteresis is per check, not per
// category).
func TestDefinitiveFailureAlertsAtIngest(t *testing.T) {
	w := newWorld(t)
	for i := 0; i < 5; i++ {
		now := w.clock.Now()
		w.push(append(heartbeatsAt(now), checkObs(now, wire.Check{Name: "gpu.temperature", Category: wire.CategoryGPUDegraded, Verdict: wire.Pass, GPU: gpu(0)}))...)
		w.clock.Advance(time.Minute)
	}
	now := w.clock.Now()
	w.push(append(heartbeatsAt(now), checkObs(now,
		wire.Check{Name: "gpu.temperature", Category: wire.CategoryGPUDegraded, Verdict: wire.Pass, GPU: gpu(0)},
		wire.Check{Name: "gpu.burn.fp32.errors", Category: wire.CategoryGPUDegraded, Verdict: wire.Fail, GPU: gpu(0), Value: "3 wrong of 1000"},
		wire.Check{Name: "gpu.burn.fp32.errors", Category: wire.CategoryGPUDegraded, Verdict: wire.Fail, GPU: gpu(1), Value: "1 wrong of 1000"}))...)
	incs := w.incidents()
	if len(incs) != 2 {
		t.Fatalf("want 2 incidents (one per GPU), got %+v", incs)
	}
	for i, inc := range incs {
		want := []string{"gpu.burn.fp32.errors/gpu0", "gpu.burn.fp32.errors/gpu1"}[i]
		if inc.Kind != string(incident.GPUDegraded) || inc.Check != want || !inc.Start.Equal(now) || !inc.Open() || len(inc.Failed) != 1 {
			t.Fatalf("incident %d: %+v, want open %s since %s with its failing check", i, inc, want, now)
		}
	}
	if n := w.notif.Count(notify.AlertDegraded); n != 2 {
		t.Fatalf("%d degraded alerts sent during ingest, want 2: %+v", n, w.notif.Sent())
	}
}

func heartbeatsAt(now time.Time) []wire.Observation {
	return []wire.Observation{{At: now.Add(-30 * time.Second), Kind: wire.KindHeartbeat}, {At: now, Kind: wire.KindHeartbeat}}
}

func checkObs(at time.Time, checks ...wire.Check) wire.Observation {
	return wire.Observation{At: at, Kind: wire.KindCheck, Checks: checks}
}
