package app_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
)

// A probe that lost its state starts a new chain at seq 1.
// Its batches are evidence and signs of life at once: no unreachable
// incident, every batch stored under its own key, the restart kept as
// evidence — for a new probe with a chain id and for an old one without.
func TestChainRestartIsNeverAnOutage(t *testing.T) {
	for _, chains := range [][2]string{{"a1", "b2"}, {"", ""}} {
		t.Run(fmt.Sprintf("chain %q then %q", chains[0], chains[1]), func(t *testing.T) {
			w := newWorld(t)
			w.p.Restart(chains[0])
			for i := 0; i < 30; i++ {
				w.push()
				w.tickUntil(w.clock.Now().Add(time.Minute))
			}
			w.p.Restart(chains[1]) // reinstalled: state and spool wiped
			for i := 0; i < 30; i++ {
				if ack := w.push(); ack.Status != wire.AckStored {
					t.Fatalf("batch %d of the new chain: ack %q, want stored", i+1, ack.Status)
				}
				w.tickUntil(w.clock.Now().Add(time.Minute))
			}
			for _, inc := range w.incidents() {
				t.Errorf("incident after a chain restart: %+v", inc)
			}
			st, err := w.store.GetState(t.Context(), "gz-01")
			if err != nil {
				t.Fatal(err)
			}
			if st.LastSeq != 30 || !st.LastReceivedAt.Equal(w.clock.Now().Add(-time.Minute)) {
				t.Fatalf("state: last seq %d received %s", st.LastSeq, st.LastReceivedAt)
			}
			evs, err := w.store.ListEvidence(t.Context(), "gz-01", t0.Add(-time.Hour), t0.Add(24*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			var restarts []store.Evidence
			for _, e := range evs {
				if e.Kind == store.EvidenceChainRestart {
					restarts = append(restarts, e)
				} else if e.Kind == store.EvidenceOutOfOrder || e.Kind == store.EvidenceSeqReuse {
					t.Errorf("new chain taken for %s: %+v", e.Kind, e)
				}
			}
			if len(restarts) != 1 || !strings.Contains(restarts[0].Detail, "chain restarted at seq 1 after seq 30") {
				t.Fatalf("want one chain_restart evidence 'chain restarted at seq 1 after seq 30', got %+v", restarts)
			}
		})
	}
}
