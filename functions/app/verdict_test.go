package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/incident"
)

// A kind the contract does not count (acme-std counts
// unreachable and gpu_lost) is recorded and alerted as not counted, with
// the report's reason; a kind it counts is counted.
func TestIncidentRecordAndAlertCarryTheContractsVerdict(t *testing.T) {
	w := newWorld(t)
	for i := 0; i < 3; i++ {
		now := w.clock.Now()
		w.push(append(heartbeatsAt(now), checkObs(now,
			wire.Check{Name: "gpu.model", Category: wire.CategoryInventory, Verdict: wire.Fail, GPU: gpu(0), Value: "RTX 4090 D"},
			wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "7 of 8"}))...)
		w.clock.Advance(time.Minute)
	}
	inv, lost := w.only(string(incident.InventoryMismatch)), w.only(string(incident.GPULost))
	if inv.Counted || !strings.Contains(inv.Reason, "does not count inventory_mismatch") {
		t.Errorf("inventory_mismatch recorded counted %v, reason %q; acme-std does not count it", inv.Counted, inv.Reason)
	}
	if !lost.Counted || lost.Reason != "" {
		t.Errorf("gpu_lost recorded counted %v, reason %q; acme-std counts it", lost.Counted, lost.Reason)
	}
	for _, a := range w.notif.Sent() {
		if a.Kind != notify.AlertDegraded {
			continue
		}
		// The first alert tells the verdict so far: a counted
		// kind opened a minute ago is "not yet", under acme-std's 1-minute
		// minimum; a kind not counted says why, in readable words.
		if want := a.IncidentKind == string(incident.GPULost); want && !a.Counted &&
			!(a.NotYet && a.Reason == "counts once it lasts 1 minute, the contract's minimum outage") {
			t.Errorf("%s alert says counted %v, not yet %v (%q); want counted, or not yet under the minimum", a.IncidentKind, a.Counted, a.NotYet, a.Reason)
		} else if !want && (a.Counted || a.Reason != "the contract does not count hardware not as ordered as unavailable") {
			t.Errorf("%s alert: counted %v, reason %q; want not counted, the record's reason in words", a.IncidentKind, a.Counted, a.Reason)
		}
	}
	js, err := w.svc.JudgedIncidents(t.Context(), "gz-01", t0.Add(-time.Hour), w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range js {
		switch j.Kind {
		case string(incident.InventoryMismatch):
			if j.Counted || j.CountedSeconds != 0 || j.Reason != inv.Reason {
				t.Errorf("API inventory_mismatch: counted %v, %d s, %q", j.Counted, j.CountedSeconds, j.Reason)
			}
		case string(incident.GPULost):
			if !j.Counted || j.CountedSeconds != j.Seconds || j.Seconds != int64(w.clock.Now().Sub(j.Start)/time.Second) {
				t.Errorf("API gpu_lost: counted %v, %d of %d s", j.Counted, j.CountedSeconds, j.Seconds)
			}
		}
	}
}
