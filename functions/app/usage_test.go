package app_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	probeusage "github.com/gpusla/gpusla/probe/usage"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/usage"
)

// TestUsageReadingsReachTheEventLog: the probe's usage collectors read a
// fixture /proc and /sys tree, the readings go through the real ingest as
// a signed batch, the backend keeps each one although every check passes
// (why "measurements"), and the event export carries them in a form
// sla/usage reads back to the same figures — so the offline report can
// hold bill lines to them. Between the two readings eth0 sent 5 GB more.
func TestUsageReadingsReachTheEventLog(t *testing.T) {
	w := newWorld(t)
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("../../probe/usage/testdata/gpu-vm")); err != nil {
		t.Fatal(err)
	}
	read := func() []wire.Check { return probeusage.Reader{Root: root}.Collect() }
	push := func(cs []wire.Check) {
		now := w.clock.Now()
		if ack := w.push(wire.Observation{At: now, Kind: wire.KindHeartbeat}, wire.Observation{At: now, Kind: wire.KindCheck, Checks: cs}); ack.Status != wire.AckStored {
			t.Fatalf("ack %+v", ack)
		}
	}
	push(read())
	dev := filepath.Join(root, "proc/net/dev")
	b, err := os.ReadFile(dev)
	if err != nil {
		t.Fatal(err)
	}
	// eth0's tx counter: 523456789012 → 528456789012.
	if err := os.WriteFile(dev, []byte(strings.Replace(string(b), "523456789012", "528456789012", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(time.Hour)
	push(read())

	recs, err := w.store.ListBatches(t.Context(), "gz-01", 0, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d batches kept, want both readings", len(recs))
	}
	for _, r := range recs {
		if !slices.Contains(r.Why, "measurements") {
			t.Errorf("seq %d kept for %v, want measurements among the reasons", r.Seq, r.Why)
		}
	}

	var rs []usage.Reading
	if _, err := app.Export(t.Context(), w.store, app.ExportSelect{From: t0.Add(-time.Hour), To: t0.Add(3 * time.Hour), Nodes: []string{"gz-01"}}, func(e *events.Event) error {
		if e.Type != events.TypeObservation {
			return nil
		}
		r, ok, err := usage.FromChecks(e.TrueAt(), e.Checks)
		if err != nil {
			return err
		}
		if ok {
			rs = append(rs, r)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("%d usage readings in the export, want 2", len(rs))
	}
	m := usage.Summarize(rs, t0, t0.Add(time.Hour), time.Time{})
	if len(m.Boots) != 1 || m.Boots[0].ID != "5b4e7f2c-8a1d-4c3e-9f60-1d2e3f4a5b6c" || !m.Boots[0].BootTime.Equal(time.Unix(1774990800, 0)) {
		t.Errorf("boots %+v", m.Boots)
	}
	var sizes []string
	for _, d := range m.Disks {
		role := "data"
		if d.System {
			role = "system"
		}
		sizes = append(sizes, d.Name+"="+role)
		if d.Name == "vdb" && (d.SizeBytes != 500<<30 || !d.Virtual || !d.Rotational) {
			t.Errorf("vdb %+v", d)
		}
	}
	if strings.Join(sizes, ",") != "vda=system,vdb=data" {
		t.Errorf("disks %v", sizes)
	}
	if tr := m.Traffic; tr == nil || tr.Tx.Lower != 5e9 || tr.Tx.Upper != 5e9 || strings.Join(tr.UpperIfaces, ",") != "eth0" {
		t.Fatalf("traffic %+v, want exactly 5e9 bytes out on eth0", tr)
	}
}
