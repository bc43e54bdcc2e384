package scorecard

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/cputime"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
)

// yearLog is the backend's export of nodes nodes over 2026: a registration,
// the acceptance results, heartbeat runs broken by one 40-minute outage a
// month, every day's stress results (8 GPUs × 3 burn precisions, 3 copy
// bandwidths and the power test) and iperf3 run, a failing gateway check a
// week, and two answered tickets a month.
func yearLog(tb testing.TB, nodes int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := events.NewWriter(&buf)
	id := 0
	write := func(e events.Event) {
		id++
		e.ID = fmt.Sprintf("ev-%d", id)
		if err := w.Write(&e); err != nil {
			tb.Fatal(err)
		}
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	num := func(v float64) *float64 { return &v }
	for n := range nodes {
		node := fmt.Sprintf("node-%03d", n)
		contract := []string{"cn-example", "us-example"}[n%2]
		ordered := start.Add(-time.Hour)
		write(events.Event{Type: events.TypeNodeRegistered, Node: node, Contract: contract, OrderedAt: ordered,
			Hardware: &events.Hardware{GPUModel: "H200", GPUCount: 8}})
		recv := func(t time.Time) time.Time { return t.Add(time.Second) }
		check := func(at time.Time, cs ...events.Check) {
			write(events.Event{Type: events.TypeObservation, Node: node, At: at, ReceivedAt: recv(at), Kind: events.KindCheck, Checks: cs})
		}
		check(start.Add(-30*time.Minute), events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: events.Pass})
		from := start.Add(-30 * time.Minute)
		for m := range 12 {
			down := time.Date(2026, time.Month(m+1), 10+n%10, 3, 0, 0, 0, time.UTC)
			write(events.Event{Type: events.TypeHeartbeatRun, Node: node, At: from, LastAt: down, ReceivedAt: recv(from), LastReceivedAt: recv(down),
				Count: int64(down.Sub(from)/time.Minute) + 1, HeartbeatIntervalS: 60, MaxGapMS: 60000, MaxDelayMS: 1000})
			from = down.Add(40 * time.Minute)
		}
		write(events.Event{Type: events.TypeHeartbeatRun, Node: node, At: from, LastAt: end, ReceivedAt: recv(from), LastReceivedAt: recv(end),
			Count: int64(end.Sub(from)/time.Minute) + 1, HeartbeatIntervalS: 60, MaxGapMS: 60000, MaxDelayMS: 1000})
		for day := start; day.Before(end); day = day.AddDate(0, 0, 1) {
			at := day.Add(3 * time.Hour)
			var cs []events.Check
			for g := range 8 {
				gpu := g
				f := 1 - 0.0001*float64(n%7) - 0.00002*float64(day.YearDay())*float64(n%3)
				for _, p := range []struct {
					name, unit string
					v          float64
				}{{"gpu.burn.fp32", "TFLOP/s", 51}, {"gpu.burn.bf16", "TFLOP/s", 690}, {"gpu.burn.fp16", "TFLOP/s", 700},
					{"gpu.bw.h2d", "GB/s", 55}, {"gpu.bw.d2h", "GB/s", 55}, {"gpu.bw.d2d", "GB/s", 3900}, {"gpu.power", "W", 690}} {
					cs = append(cs, events.Check{Name: p.name, Category: events.CategoryPerformance, Verdict: events.Pass, Number: num(p.v * f), Unit: p.unit, GPU: &gpu})
				}
			}
			check(at, cs...)
			check(at.Add(30*time.Minute), events.Check{Name: "net.iperf3.peer", Category: events.CategoryNetwork, Verdict: events.Pass,
				Number: num(9000 - float64(n%5)*100), Unit: "Mbit/s", Criterion: "≥ 70 % of 10000 Mbit/s"})
			if day.Weekday() == time.Wednesday {
				check(day.Add(14*time.Hour), events.Check{Name: "net.gateway.rtt", Category: events.CategoryNetwork, Verdict: events.Fail, Number: num(2.5 + float64(n%4)), Unit: "ms"},
					events.Check{Name: "net.gateway.loss", Category: events.CategoryNetwork, Verdict: events.Pass, Number: num(0), Unit: "%"})
			}
			if day.Day() == 5 || day.Day() == 19 {
				t := fmt.Sprintf("T-%s-%s", node, day.Format("0102"))
				p := map[string]string{"cn-example": "P2", "us-example": "sev2"}[contract]
				write(events.Event{Type: events.TypeTicketOpened, Ticket: t, Node: node, At: day.Add(22 * time.Hour), Priority: p})
				write(events.Event{Type: events.TypeProviderResponded, Ticket: t, At: day.Add(22*time.Hour + time.Duration(20+n%50)*time.Minute)})
			}
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func benchTerms(tb testing.TB) []*terms.Terms {
	var all []*terms.Terms
	for _, f := range []string{"cn-example.yaml", "us-example.yaml"} {
		ts, err := terms.ReadFile(filepath.Join("..", "..", "testdata", "terms", f))
		if err != nil {
			tb.Fatal(err)
		}
		all = append(all, ts...)
	}
	return all
}

// peakHeap samples the live heap every few milliseconds until stop.
func peakHeap() (stop func() uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak }
}

// BenchmarkScorecardYear: 100 nodes × 12 months (docs/BENCHMARKS.md).
// With GPUSLA_BENCH_LOG=FILE it only writes the log to FILE, for timing
// `gpusla scorecard --events FILE` on its own (peak RSS).
func BenchmarkScorecardYear(b *testing.B) {
	log := yearLog(b, benchNodes)
	if out := os.Getenv("GPUSLA_BENCH_LOG"); out != "" {
		if err := os.WriteFile(out, log, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Skipf("wrote the log to %s", out)
	}
	size := len(log)
	// Read from a file, as the command does: the heap holds only what the
	// scorecard keeps.
	path := filepath.Join(b.TempDir(), "year.jsonl")
	if err := os.WriteFile(path, log, 0o644); err != nil {
		b.Fatal(err)
	}
	log = nil
	tm := benchTerms(b)
	b.ReportAllocs()
	b.SetBytes(int64(size))
	runtime.GC()
	stop := peakHeap()
	cpu0 := cputime.Total()
	for b.Loop() {
		sb, err := NewBuilder(tm, Options{From: Month{2026, time.January}, To: Month{2026, time.December}, AsOf: time.Date(2027, 1, 5, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		err = sb.ReadLog(path, f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		sc, err := sb.Build()
		if err != nil {
			b.Fatal(err)
		}
		if len(sc.Providers) != 2 || sc.Providers[0].Nodes != benchNodes/2 {
			b.Fatalf("providers %+v", sc.Providers)
		}
	}
	if cpu := cputime.Total() - cpu0; cpu > 0 {
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	}
	b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(size)/(1<<20), "log-MB")
}

// benchNodes is the benchmark's fleet; the figure is for 100.
var benchNodes = envInt("GPUSLA_BENCH_NODES", 100)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
