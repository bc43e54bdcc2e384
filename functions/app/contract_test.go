package app_test

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/probe/wire"
)

// The live service takes every detection setting from the node's contract
// (none from the service's defaults): with failure_threshold 3 two failures of a measured check
// open nothing and the third does, backdated to the first; with
// heartbeat_grace 4m the node is not unreachable 3 minutes after its
// heartbeat was due, and is at 4.
func TestLiveUsesTheContractsDetectionSettings(t *testing.T) {
	book := apptest.Terms(t)
	d := &book["acme-std"].Detection
	d.FailureThreshold, d.Grace = 3, 4*time.Minute
	w := newWorldWith(t, book)
	hot := wire.Check{Name: "gpu.temperature", Category: wire.CategoryGPUDegraded, Verdict: wire.Fail, GPU: gpu(2), Value: "93 C"}
	for i := 0; i < 3; i++ {
		now := w.clock.Now()
		w.push(append(heartbeatsAt(now), checkObs(now, hot))...)
		if got := len(w.incidents()); i < 2 && got != 0 {
			t.Fatalf("failure %d of 3 opened an incident: %+v", i+1, w.incidents())
		}
		w.tickUntil(now.Add(time.Minute))
	}
	if inc := w.only("gpu_degraded"); !inc.Start.Equal(t0) {
		t.Fatalf("incident %+v: want it backdated to the first failure %s", inc, t0)
	}
	// Silence: the last batch came at t0+2m; the next heartbeat was due
	// 30 s later; the contract's grace is 4 minutes.
	last := t0.Add(2 * time.Minute)
	w.tickUntil(last.Add(30*time.Second + 3*time.Minute))
	for _, inc := range w.incidents() {
		if inc.Kind == "unreachable" {
			t.Fatalf("unreachable inside the contract's 4m grace: %+v", inc)
		}
	}
	w.tickUntil(last.Add(30*time.Second + 5*time.Minute))
	if inc := w.only("unreachable"); !inc.Start.Equal(last.Add(30 * time.Second)) {
		t.Fatalf("unreachable %+v, want it backdated to %s", inc, last.Add(30*time.Second))
	}
}
