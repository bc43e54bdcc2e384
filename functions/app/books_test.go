package app_test

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/fleetsim"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// booksFleet is a month of twelve nodes in the store as the backend keeps
// it (fleetsim: runs, an outage each, usage readings, daily stress figures,
// one node slower than its siblings, an XID), and around it what only some
// nodes have: tickets, a node's own maintenance notice, a release, a chain
// break, a node whose contract no terms define, one registered without a
// GPU count, and the backend's own outage.
func booksFleet(t *testing.T, st booksStore, nodes int) []*terms.Terms {
	t.Helper()
	ctx := t.Context()
	sh, _ := time.LoadLocation("Asia/Shanghai")
	march := time.Date(2026, 3, 1, 0, 0, 0, 0, sh)
	if _, err := fleetsim.Write(ctx, st, fleetsim.Config{Nodes: nodes, Prefix: "gz-", Contract: "cn-example", Loc: sh, From: march, Months: 1,
		FormlessEvery: 4}); err != nil { // a store written before forms and after
		t.Fatal(err)
	}
	at := func(d, h int) time.Time { return march.AddDate(0, 0, d-1).Add(time.Duration(h) * time.Hour).UTC() }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// A P1 ticket answered late on gz-00002, a hardware one on gz-00005.
	must(st.CreateTicket(ctx, store.Ticket{ID: "T-1", Node: "gz-00002", Priority: "P1", Opened: at(5, 23), CreatedAt: at(5, 23), OpenedBy: "cli:ops",
		Events: []store.TicketEvent{{Type: store.EventProviderResponded, At: at(6, 1), RecordedAt: at(6, 1), By: "cli:ops"},
			{Type: store.EventResolved, At: at(6, 3), RecordedAt: at(6, 3), By: "cli:ops"}}, Version: 1}))
	must(st.CreateTicket(ctx, store.Ticket{ID: "T-2", Node: "gz-00005", Priority: "P2", Category: store.CategoryHardware, Opened: at(9, 10), CreatedAt: at(9, 10),
		Events: []store.TicketEvent{{Type: store.EventHardwareReplaced, At: at(9, 18), RecordedAt: at(9, 18)}}, Version: 1}))
	// gz-00004's own notice, recorded after its window began (retroactive).
	must(st.PutMaintenance(ctx, store.Maintenance{ID: store.MaintenanceID("", "gz-00004", at(20, 8)), Node: "gz-00004", Start: at(20, 8), End: at(20, 10),
		AnnouncedAt: at(20, 9), CreatedAt: at(20, 9), Summary: "disk swap", RecordedBy: "cli:ops"}))
	_, err := st.ReleaseNode(ctx, "gz-00006", store.Release{At: at(25, 0), RecordedAt: at(25, 1), By: "cli:ops"})
	must(err)
	must(st.PutEvidence(ctx, store.Evidence{Node: "gz-00001", At: at(3, 4), Kind: store.EvidenceChainBreak, Seq: 4000, ExpectedPrev: "aa", GotPrev: "bb"}))
	must(st.CreateNode(ctx, store.Node{ID: "xx-1", Contract: "nowhere", GPUCount: 8, OrderedAt: at(1, 0), HeartbeatInterval: 30 * time.Second, PushInterval: time.Minute}))
	must(st.CreateTicket(ctx, store.Ticket{ID: "T-3", Node: "xx-1", Priority: "P1", Opened: at(7, 10), CreatedAt: at(7, 10), Version: 1}))
	must(st.CreateNode(ctx, store.Node{ID: "zz-nogpus", Contract: "cn-example", OrderedAt: at(1, 0)}))
	// The backend down for 40 minutes on the 12th.
	_, err = st.PutBackendRun(ctx, store.BackendRun{ID: "r1", Start: at(1, 0).AddDate(0, 0, -10), LastTick: at(12, 5)}, 0)
	must(err)
	_, err = st.PutBackendRun(ctx, store.BackendRun{ID: "r2", Start: at(12, 5).Add(40 * time.Minute), LastTick: at(31, 23)}, 0)
	must(err)
	tm, err := terms.ReadFile(filepath.Join("..", "..", "testdata", "terms", "cn-example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// booksStore is what the month's books and the export read.
type booksStore interface {
	app.BooksStore
	store.ProviderStatusStore
}

// logReport is the month's report the way the monthly job made it: the
// store exported as a JSON log (nodes, tickets, status pages, without the
// skipped nodes) and the log read back.
func logReport(t *testing.T, st booksStore, tm []*terms.Terms, skip map[string]string, asOf time.Time) []byte {
	t.Helper()
	from, to := report.Window(2026, 3)
	buf := exportLog(t, st, skip, from, to)
	b, err := report.NewBuilder(tm, report.Options{Year: 2026, Month: 3, AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ReadLog("export", buf); err != nil {
		t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.JSON(&out, r); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// The month built node by node from the store's own records is the report
// of the store's exported log, byte for byte, on both stores: with the
// skipped node left out as the job leaves it out, and with it named in
// left_out, at an instant after the month and at one inside it (what came
// later is counted as after the as-of instant), on one worker and on
// several.
func TestStoreBooksAreTheLogsReport(t *testing.T) {
	onBothStores(t, testStoreBooks)
}

func testStoreBooks(t *testing.T, st booksStore, nodes int) {
	tm := booksFleet(t, st, nodes)
	for _, c := range []struct {
		name    string
		skip    map[string]string
		asOf    time.Time
		workers int
	}{
		{"after the month, skipped node left out", map[string]string{"xx-1": "nowhere"}, time.Date(2026, 4, 1, 6, 0, 0, 0, time.UTC), 3},
		{"inside the month, every node", nil, time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := logReport(t, st, tm, c.skip, c.asOf)
			r, err := app.Books{Store: st, Status: st, Terms: tm, Workers: c.workers, Skip: c.skip}.Month(t.Context(), 2026, 3, c.asOf)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := report.JSON(&got, r); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("the store's books differ from the log's report:\n--- log\n%.3000s\n--- store\n%.3000s", want, got.Bytes())
			}
			// Without a bill to hold them to, the rows keep no readings; with
			// KeepReadings they keep every one, and the JSON is the same.
			for _, n := range r.Nodes {
				if n.Usage == nil || n.Usage.All != nil {
					t.Fatalf("node %s keeps its readings (%v) without a bill", n.Node, n.Usage)
				}
			}
			kept, err := app.Books{Store: st, Status: st, Terms: tm, Workers: c.workers, Skip: c.skip, KeepReadings: true}.Month(t.Context(), 2026, 3, c.asOf)
			if err != nil {
				t.Fatal(err)
			}
			var keptJSON bytes.Buffer
			if err := report.JSON(&keptJSON, kept); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(keptJSON.Bytes(), want) || kept.Nodes[0].Usage == nil || len(kept.Nodes[0].Usage.All) != kept.Nodes[0].Usage.Readings {
				t.Fatalf("with its readings kept the month is another, or keeps none")
			}
			// The month is what it claims to be: every node in it, the fleet
			// finding, the tickets, the retroactive notice.
			if r.Fleet == nil || len(r.Fleet.Findings) == 0 || len(r.Nodes) < nodes-1 || len(r.Retroactive.Records) == 0 || r.Input.Events == 0 {
				t.Fatalf("a thin month: %d nodes, fleet %v, retroactive %d, input %+v", len(r.Nodes), r.Fleet != nil, len(r.Retroactive.Records), r.Input)
			}
		})
	}
}
