package document

import (
	"github.com/gpusla/gpusla/internal/cputime"

	"bytes"
	"io"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/document/documenttest"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
)

// BenchmarkMonthlyReport100Nodes is the figure: the report for 100
// nodes over a month (minute heartbeats and GPU checks every 15 minutes:
// 4.8 million events as JSON lines, read from memory), rendered as JSON,
// HTML and PDF. Run with -cpu 2 to match the 2-core target.
func BenchmarkMonthlyReport100Nodes(b *testing.B) {
	benchMonthly(b, documenttest.Fleet(100, 2026, time.March))
}

// BenchmarkMonthlyReport100NodesRuns is the same month in the form the
// backend exports it: heartbeats as heartbeat_run events, GPU checks as
// they are. Same report (TestFleetRunsSameReport), far fewer lines.
func BenchmarkMonthlyReport100NodesRuns(b *testing.B) {
	benchMonthly(b, documenttest.FleetRuns(100, 2026, time.March))
}

func benchMonthly(b *testing.B, l *documenttest.Log) {
	tm, err := documenttest.Terms()
	if err != nil {
		b.Fatal(err)
	}
	var log bytes.Buffer
	w := events.NewWriter(&log)
	for i := range l.Events {
		if err := w.Write(&l.Events[i]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	nEvents := len(l.Events)
	l = nil
	b.ResetTimer()
	cpu0 := cputime.Total()
	for i := 0; i < b.N; i++ {
		bd, err := report.NewBuilder(tm, report.Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			b.Fatal(err)
		}
		if err := bd.ReadLog("fleet", bytes.NewReader(log.Bytes())); err != nil {
			b.Fatal(err)
		}
		r, err := bd.Build()
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Nodes) != 100 {
			b.Fatalf("nodes = %d", len(r.Nodes))
		}
		for _, f := range []string{"json", "html", "pdf"} {
			if err := Render(io.Discard, r, f, Extras{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	// After the loop: ResetTimer would drop them. CPU time (user + system of
	// the whole process, per report) is the figure to quote when the shared
	// machine disturbs wall time.
	if cpu := cputime.Total() - cpu0; cpu > 0 {
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	}
	b.ReportMetric(float64(nEvents), "events")
	b.ReportMetric(float64(log.Len())/1e6, "log-MB")
}
