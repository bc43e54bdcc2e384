package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/sla/terms"
)

// demoMonth runs the monthly job at the start of December over serve's
// demo node (its contract's terms as serve writes them, functions/demo),
// down ten hours on 10 November; with released set the demo was ended then
// (by serve, as when the renter registers a node) and the renter's ny-01
// runs beside it. It returns the run, the stored months and the job's log.
func demoMonth(t *testing.T, released time.Time) (app.ReportRun, *blob.Dir, string) {
	t.Helper()
	ctx := context.Background()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: apptest.Box(t), Clock: apptest.NewClock(ny(t, "2026-12-01 00:00:00")), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	book, err := wiring.LoadTerms("../../testdata/terms/us-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	demo, err := terms.ReadFile("../demo/terms.yaml")
	if err != nil {
		t.Fatal(err)
	}
	book[demo[0].Contract] = demo[0]
	desk, err := svc.Tickets(book)
	if err != nil {
		t.Fatal(err)
	}
	ordered := time.Date(2026, 10, 31, 9, 0, 0, 0, time.UTC)
	if err := st.CreateNode(ctx, store.Node{ID: "demo-node", Provider: "demo-provider", Contract: "demo", OrderedAt: ordered, Demo: true,
		GPUModel: "H200", GPUCount: 2, HeartbeatInterval: 5 * time.Second, PushInterval: 10 * time.Second, Grace: 15 * time.Second, CreatedAt: ordered}); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]time.Time{{ordered.Add(time.Hour), time.Date(2026, 11, 10, 2, 0, 0, 0, time.UTC)}, {time.Date(2026, 11, 10, 12, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)}} {
		if err := st.PutRun(ctx, store.HeartbeatRun{Node: "demo-node", From: r[0], To: r[1], Count: int64(r[1].Sub(r[0])/(5*time.Second)) + 1,
			ReceivedFrom: r[0].Add(time.Second), ReceivedTo: r[1].Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	if !released.IsZero() {
		tenHourOutage(t, st)
		if _, err := st.ReleaseNode(ctx, "demo-node", store.Release{At: released, RecordedAt: released, By: "serve:demo"}); err != nil {
			t.Fatal(err)
		}
	}
	return runMonthJob(t, desk)
}

// runMonthJob runs the monthly job over desk once, early on 1 December in
// New York, storing md alone; it returns the run, the stored months and
// the job's log.
func runMonthJob(t *testing.T, desk *app.TicketDesk) (app.ReportRun, *blob.Dir, string) {
	t.Helper()
	blobs, err := blob.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	job := &app.ReportJob{Desk: desk, Blobs: blobs, Renderer: bundle.Renderer{}, Formats: []string{"md"}, TempDir: t.TempDir(),
		Log: slog.New(slog.NewTextHandler(&logs, nil))}
	res, err := job.Run(context.Background(), ny(t, "2026-12-01 07:00:00"))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res, blobs, logs.String()
}

func blobText(t *testing.T, b *blob.Dir, name string) string {
	t.Helper()
	raw, err := b.Get(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// While the demo is all that runs, its month is reported and its claim
// drafted as a real node's: that is the demo. Once it is over (its node
// released, the renter's own registered), the month holds no row, credit
// or claim of it, and the log says why; the renter's claim is drafted.
func TestReportJobLeavesTheEndedDemoOut(t *testing.T) {
	res, blobs, _ := demoMonth(t, time.Time{})
	if !slices.Contains(res.Claims, "demo/2026-11") {
		t.Fatalf("the demo alone: claims %v, want demo/2026-11 drafted", res.Claims)
	}
	if md := blobText(t, blobs, "2026-11/demo/report.md"); !strings.Contains(md, "demo-node") {
		t.Fatalf("the demo alone: its month does not report demo-node:\n%.1500s", md)
	}

	res, blobs, logs := demoMonth(t, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	for _, c := range res.Claims {
		if strings.HasPrefix(c, "demo/") {
			t.Fatalf("the demo over: claim %s drafted against the demo's provider (claims %v)", c, res.Claims)
		}
	}
	if !slices.Contains(res.Claims, "us-example/2026-11") {
		t.Fatalf("the demo over: claims %v, want the renter's us-example/2026-11", res.Claims)
	}
	for _, name := range []string{"2026-11/demo/report.json", "2026-11/demo/report.md", "2026-11/us-example/report.json"} {
		if s := blobText(t, blobs, name); strings.Contains(s, "demo-node") || strings.Contains(s, "demo-provider") {
			t.Fatalf("the demo over: %s still holds the demo:\n%.1500s", name, s)
		}
	}
	if s := blobText(t, blobs, "2026-11/us-example/report.json"); !strings.Contains(s, `"ny-01"`) {
		t.Fatalf("the renter's month lost ny-01:\n%.800s", s)
	}
	if !strings.Contains(logs, "node=demo-node") || !strings.Contains(logs, "the demo is over") || !strings.Contains(logs, "serve:demo") {
		t.Fatalf("the log does not say why the demo node is left out:\n%s", logs)
	}
}

// A demo is left out of the months it was over in: released before the
// month ended in its contract's time zone and as of the report's instant.
// Released at the month's last instant's end or later, or after as-of, or
// not at all, the month keeps it; only demo nodes are concerned.
func TestDemoOverEdges(t *testing.T) {
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	cal, err := terms.ReadFile("../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	endUTC := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	endSH := time.Date(2026, 12, 1, 0, 0, 0, 0, sh)
	asOf := endUTC.Add(48 * time.Hour)
	cases := []struct {
		name    string
		n       store.Node
		asOf    time.Time
		leftOut bool
	}{
		{"running", store.Node{ID: "d", Demo: true, Contract: "demo"}, asOf, false},
		{"released in the month", store.Node{ID: "d", Demo: true, Contract: "demo", ReleasedAt: endUTC.Add(-time.Second)}, asOf, true},
		{"released as the month ended", store.Node{ID: "d", Demo: true, Contract: "demo", ReleasedAt: endUTC}, asOf, false},
		{"released before the month", store.Node{ID: "d", Demo: true, Contract: "demo", ReleasedAt: endUTC.AddDate(0, -2, 0)}, asOf, true},
		{"released after as-of", store.Node{ID: "d", Demo: true, Contract: "demo", ReleasedAt: endUTC.Add(-time.Hour)}, endUTC.Add(-2 * time.Hour), false},
		{"a renter's released node", store.Node{ID: "r", Contract: "demo", ReleasedAt: endUTC.Add(-time.Hour)}, asOf, false},
		{"the contract's zone: before its month end", store.Node{ID: "d", Demo: true, Contract: "cn-example", ReleasedAt: endSH.Add(-time.Second)}, asOf, true},
		{"the contract's zone: at its month end", store.Node{ID: "d", Demo: true, Contract: "cn-example", ReleasedAt: endSH}, asOf, false},
	}
	for _, c := range cases {
		got := app.DemoOver([]store.Node{c.n}, cal, 2026, time.November, c.asOf)
		if _, left := got[c.n.ID]; left != c.leftOut {
			t.Errorf("%s: left out %v, want %v (%v)", c.name, left, c.leftOut, got)
		}
	}
}
