package document

import (
	"bytes"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/document/documenttest"
	"github.com/gpusla/gpusla/sla/report"
)

// The benchmark's two forms of the fleet month give the same report: the
// heartbeat_run form measures the same work, not an easier one. Only input
// (lines and events read) differs.
func TestFleetRunsSameReport(t *testing.T) {
	tm, err := documenttest.Terms()
	if err != nil {
		t.Fatal(err)
	}
	build := func(l *documenttest.Log) (*report.Report, []byte) {
		var log bytes.Buffer
		if err := l.WriteLog(&log); err != nil {
			t.Fatal(err)
		}
		b, err := report.NewBuilder(tm, report.Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.ReadLog("fleet", &log); err != nil {
			t.Fatal(err)
		}
		r, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		in := r.Input
		r.Input = report.Input{}
		var out bytes.Buffer
		if err := report.JSON(&out, r); err != nil {
			t.Fatal(err)
		}
		r.Input = in
		return r, out.Bytes()
	}
	hr, hb := build(documenttest.Fleet(3, 2026, time.March))
	rr, rb := build(documenttest.FleetRuns(3, 2026, time.March))
	if !bytes.Equal(hb, rb) {
		t.Fatalf("reports differ:\nheartbeats: %.2000s\nruns:       %.2000s", hb, rb)
	}
	if rr.Input.Events*10 > hr.Input.Events {
		t.Errorf("run form read %d events, heartbeat form %d: expected far fewer", rr.Input.Events, hr.Input.Events)
	}
	if len(hr.Nodes) != 3 || hr.Nodes[0].Uptime.ObservedOutageSeconds == 0 {
		t.Fatalf("fleet report has no outage to compare: %+v", hr.Nodes)
	}
}
