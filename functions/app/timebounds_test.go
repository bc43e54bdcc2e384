package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
)

// One observation dated in year 0001 or an hour ahead (a probe clock step)
// is set aside with evidence: first_heartbeat_at stays the
// node's real first heartbeat, the heartbeat run keeps every other
// heartbeat, no outage opens, and the export leaves it out.
func TestObservationTimeOutsideTheWindowIsSetAside(t *testing.T) {
	w := newWorld(t)
	for i := 0; i < 10; i++ {
		now := w.clock.Now()
		obs := heartbeatsAt(now)
		switch i {
		case 4:
			obs = append(obs, wire.Observation{At: time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC), Kind: wire.KindHeartbeat})
		case 6:
			obs = append(obs, wire.Observation{At: now.Add(time.Hour), Kind: wire.KindHeartbeat})
		}
		w.push(obs...)
		w.tickUntil(now.Add(time.Minute))
	}
	st, err := w.store.GetState(t.Context(), "gz-01")
	if err != nil {
		t.Fatal(err)
	}
	if want := t0.Add(-30 * time.Second); !st.FirstHeartbeatAt.Equal(want) || st.LastHeartbeatAt.After(w.clock.Now()) {
		t.Fatalf("first heartbeat %s (want %s), last %s", st.FirstHeartbeatAt, want, st.LastHeartbeatAt)
	}
	if st.Run.Count != 20 {
		t.Fatalf("heartbeat run counts %d, want all 20 real heartbeats", st.Run.Count)
	}
	for _, inc := range w.incidents() {
		t.Errorf("incident from a wrong clock: %+v", inc)
	}
	evs, err := w.store.ListEvidence(t.Context(), "gz-01", t0.Add(-time.Hour), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if e.Kind == store.EvidenceTimeBounds && strings.Contains(e.Detail, "observations[2].at") {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("want 2 time_bounds evidence records naming observations[2].at, got %+v", evs)
	}
}
