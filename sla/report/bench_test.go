package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

// writeBenchLog writes a month (March 2026, Shanghai) of one-minute
// heartbeats for nodes nodes, with a check observation every 15 minutes and
// a few outages, in the order a backend export would have them.
func writeBenchLog(w io.Writer, nodes int) (int, error) {
	ew := events.NewWriter(w)
	start := time.Date(2026, 2, 28, 16, 0, 0, 0, time.UTC) // 2026-03-01 00:00 Shanghai
	end := time.Date(2026, 3, 31, 16, 0, 0, 0, time.UTC)   // 2026-04-01 00:00 Shanghai
	n := 0
	for i := 0; i < nodes; i++ {
		e := events.Event{Type: events.TypeNodeRegistered, ID: fmt.Sprintf("reg-%03d", i), Node: fmt.Sprintf("node-%03d", i),
			Contract: "cn-example", OrderedAt: start.Add(-10 * time.Minute), Hardware: &events.Hardware{GPUModel: "H200 SXM 141GB", GPUCount: 8}}
		if err := ew.Write(&e); err != nil {
			return n, err
		}
		n++
	}
	seq := make([]uint64, nodes)
	for at := start; at.Before(end); at = at.Add(time.Minute) {
		for i := 0; i < nodes; i++ {
			// node i is down for i minutes on day i%28
			downFrom := start.Add(time.Duration(i%28)*24*time.Hour + 10*time.Hour)
			if !at.Before(downFrom) && at.Before(downFrom.Add(time.Duration(i)*time.Minute)) {
				continue
			}
			seq[i]++
			node := fmt.Sprintf("node-%03d", i)
			e := events.Event{Type: events.TypeObservation, ID: fmt.Sprintf("%s/%d/0", node, seq[i]), Node: node,
				Batch: fmt.Sprintf("b%d", seq[i]), Seq: seq[i], At: at, ReceivedAt: at.Add(800 * time.Millisecond), Kind: events.KindHeartbeat}
			if at.Minute()%15 == 0 {
				e.Kind = events.KindCheck
				e.Checks = []events.Check{
					{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: events.Pass, Value: "8"},
					{Name: "net.internet", Category: events.CategoryConnectivity, Verdict: events.Pass},
				}
			}
			if err := ew.Write(&e); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, ew.Flush()
}

// TestWriteBenchLog writes the benchmark's log to $GPUSLA_BENCH_LOG, so the
// real command can be measured on it (docs/BENCHMARKS.md).
func TestWriteBenchLog(t *testing.T) {
	path := os.Getenv("GPUSLA_BENCH_LOG")
	if path == "" {
		t.Skip("set GPUSLA_BENCH_LOG=FILE to write the 100-node benchmark log")
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	n, err := writeBenchLog(bw, 100)
	if err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d events to %s", n, path)
}

// BenchmarkReportMonth100Nodes: a month of minute heartbeats for 100 nodes
// (about 4.46 million events) read from a file and reported.
func BenchmarkReportMonth100Nodes(b *testing.B) {
	tm := loadTerms(b)
	path := filepath.Join(b.TempDir(), "month.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	count, err := writeBenchLog(bw, 100)
	if err != nil {
		b.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bl, err := NewBuilder(tm, Options{Year: 2026, Month: time.March, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := bl.ReadLog(path, f); err != nil {
			b.Fatal(err)
		}
		f.Close()
		r, err := bl.Build()
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Nodes) != 100 || r.Input.Events != count {
			b.Fatalf("report has %d nodes from %d events, want 100 from %d", len(r.Nodes), r.Input.Events, count)
		}
	}
	b.ReportMetric(float64(count), "events/op")
}
