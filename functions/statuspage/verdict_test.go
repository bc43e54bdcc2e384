package statuspage

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/terms"
)

// The page judges incidents by the contract, as the report
// does. An open inventory_mismatch (cn-example does not count it; a record
// written before the fix says counted) is "degraded", not counted, and
// costs no uptime; a 30 s gpu_lost (below the one-minute minimum) costs
// none either; a 10-minute one costs its 10 minutes.
func TestPageJudgesIncidentsByTheContract(t *testing.T) {
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ctx := context.Background()
	n := store.Node{ID: "gz-01", Provider: "Example", Contract: "cn-example", OrderedAt: now.AddDate(0, 0, -10),
		HeartbeatInterval: 30 * time.Second, Grace: 90 * time.Second, CreatedAt: now.AddDate(0, 0, -10)}
	if err := st.CreateNode(ctx, n); err != nil {
		t.Fatal(err)
	}
	first := now.AddDate(0, 0, -5)
	if _, err := st.PutState(ctx, store.NodeState{Node: n.ID, LastReceivedAt: now, LastHeartbeatAt: now, FirstHeartbeatAt: first}, 0); err != nil {
		t.Fatal(err)
	}
	for _, inc := range []store.Incident{
		{Kind: "inventory_mismatch", Check: "gpu.model/gpu0", Start: now.AddDate(0, 0, -4), Counted: true, Cause: "check_failed"},
		{Kind: "gpu_lost", Check: "gpu.count", Start: now.AddDate(0, 0, -3), End: now.AddDate(0, 0, -3).Add(30 * time.Second), Counted: true, Cause: "check_failed"},
		{Kind: "gpu_lost", Check: "gpu.count", Start: now.AddDate(0, 0, -2), End: now.AddDate(0, 0, -2).Add(10 * time.Minute), Counted: true, Cause: "check_failed"},
	} {
		inc.Node, inc.ID = n.ID, store.CheckIncidentID(inc.Kind, inc.Start, inc.Check)
		if err := st.CreateIncident(ctx, inc); err != nil {
			t.Fatal(err)
		}
	}
	book, err := wiring.LoadTerms("../../testdata/terms")
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Nodes: st, Token: token, Now: func() time.Time { return now },
		Terms: func(c string) (*terms.Terms, bool) { tm, ok := book[c]; return tm, ok }})
	p, err := h.Build(ctx, Request{Mode: Private, Lang: i18n.EN})
	if err != nil {
		t.Fatal(err)
	}
	nv := p.Nodes[0]
	if nv.State != "degraded" {
		t.Errorf("state %q (%s), want degraded: cn-example does not count inventory_mismatch", nv.State, nv.StateText)
	}
	span := now.Sub(first)
	want := 100 * float64(span-10*time.Minute) / float64(span)
	if nv.UptimePct == nil {
		t.Fatalf("no 90-day uptime for a node in service")
	}
	if d := *nv.UptimePct - want; d > 1e-9 || d < -1e-9 {
		t.Errorf("90-day uptime %.6f %%, want %.6f %% (only the 10-minute gpu_lost counts)", *nv.UptimePct, want)
	}
	if len(p.Open) != 1 || p.Open[0].Counted || !strings.Contains(p.Open[0].Reason, "does not count hardware not as ordered") {
		t.Errorf("open incidents %+v, want the inventory_mismatch, not counted, with the contract's reason", p.Open)
	}
}
