package app_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/document"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/scorecard"
	"github.com/gpusla/gpusla/sla/terms"
)

// BenchmarkScorecardYear measures the provider scorecard of a simulated
// fleet's year (fleetsim: GPUSLA_BOOKS_NODES nodes, default 100, over
// GPUSLA_SCORECARD_BENCH_MONTHS months from January 2026, default 12;
// GPUSLA_BOOKS_STORE keeps the store file between runs) built two ways in
// the same run: from the months' exported log (the store exported to a
// file, as the monthly job did, and the file read into the scorecard's
// builder) and from the store's own records node by node (app.Books.Scorecard,
// GPUSLA_BOOKS_WORKERS workers, default GOMAXPROCS). It reports CPU seconds
// (the process's user + system time) per node-month of each, the export's
// and the log read's apart, their ratio, the wall time of each, and the
// largest live heap each reached (after a collection, sampled every
// 10 ms). The two scorecards must be the same bytes.
// GPUSLA_BOOKS_GENERATE_ONLY=1 writes the store and stops;
// GPUSLA_SCORECARD_BENCH_PATH=store or log builds that way alone (a fleet
// whose two ways would not fit one run).
func BenchmarkScorecardYear(b *testing.B) {
	nodes := envInt("GPUSLA_BOOKS_NODES", 100)
	months := envInt("GPUSLA_SCORECARD_BENCH_MONTHS", 12)
	st, tm := simFleet(b, nodes, time.January, months, envInt("GPUSLA_BOOKS_WORKERS", runtime.GOMAXPROCS(0)))
	if os.Getenv("GPUSLA_BOOKS_GENERATE_ONLY") == "1" {
		b.Skip("store written")
	}
	last := time.Date(2026, time.Month(months), 1, 0, 0, 0, 0, time.UTC)
	o := scorecard.Options{From: scorecard.Month{Year: 2026, Month: 1}, To: scorecard.Month{Year: last.Year(), Month: last.Month()},
		AsOf: last.AddDate(0, 1, 1)}
	workers := envInt("GPUSLA_BOOKS_WORKERS", runtime.GOMAXPROCS(0))
	b.ResetTimer()
	for range b.N {
		path := os.Getenv("GPUSLA_SCORECARD_BENCH_PATH")
		var viaLog, viaStore bytes.Buffer
		nm := float64(nodes * months)
		var logCPU time.Duration
		if path != "store" {
			logCPU = benchLogScorecard(b, st, tm, o, &viaLog)
		}
		if path == "log" {
			continue
		}
		storeCPU, storeWall, storeHeap := measure(func() {
			sc, _, err := app.Books{Store: st, Status: st, Terms: tm, Workers: workers}.Scorecard(context.Background(), o)
			if err != nil {
				b.Fatal(err)
			}
			if err := document.RenderScorecard(&viaStore, sc, "json"); err != nil {
				b.Fatal(err)
			}
		})
		b.ReportMetric(storeCPU.Seconds()/nm, "store-cpu-s/node-month")
		b.ReportMetric(storeWall.Seconds(), "store-wall-s")
		b.ReportMetric(float64(storeHeap)/(1<<20), "store-peak-heap-MiB")
		b.ReportMetric(float64(workers), "workers")
		if path == "store" {
			continue
		}
		if !bytes.Equal(viaLog.Bytes(), viaStore.Bytes()) {
			b.Fatal("the store's scorecard and the log's differ")
		}
		b.ReportMetric(logCPU.Seconds()/storeCPU.Seconds(), "cpu-ratio")
	}
}

// benchLogScorecard builds the scorecard of o from its months' exported
// log into out (JSON), reporting the export's and the read's costs; it
// returns their CPU time.
func benchLogScorecard(b *testing.B, st *bolt.Store, tm []*terms.Terms, o scorecard.Options, out *bytes.Buffer) time.Duration {
	f, err := os.CreateTemp(b.TempDir(), "export-*.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	exportCPU, exportWall, exportHeap := measure(func() { benchExportSpan(b, st, o, f) })
	size, _ := f.Seek(0, io.SeekCurrent)
	readCPU, readWall, readHeap := measure(func() {
		sb, err := scorecard.NewBuilder(tm, o)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			b.Fatal(err)
		}
		if err := sb.ReadLog(f.Name(), f); err != nil {
			b.Fatal(err)
		}
		sc, err := sb.Build()
		if err != nil {
			b.Fatal(err)
		}
		if err := document.RenderScorecard(out, sc, "json"); err != nil {
			b.Fatal(err)
		}
	})
	nm := float64(envInt("GPUSLA_BOOKS_NODES", 100) * envInt("GPUSLA_SCORECARD_BENCH_MONTHS", 12))
	b.ReportMetric((exportCPU+readCPU).Seconds()/nm, "log-cpu-s/node-month")
	b.ReportMetric(exportCPU.Seconds()/nm, "export-cpu-s/node-month")
	b.ReportMetric((exportWall + readWall).Seconds(), "log-wall-s")
	b.ReportMetric(float64(max(exportHeap, readHeap))/(1<<20), "log-peak-heap-MiB")
	b.ReportMetric(float64(size)/(1<<20), "log-MiB")
	return exportCPU + readCPU
}

// benchExportSpan writes the export of o's months to f, as the monthly job
// exported them.
func benchExportSpan(b *testing.B, st *bolt.Store, o scorecard.Options, f *os.File) {
	ctx := context.Background()
	from, _ := report.Window(o.From.Year, o.From.Month)
	_, to := report.Window(o.To.Year, o.To.Month)
	w := events.NewWriter(f)
	if _, err := app.Export(ctx, st, app.ExportSelect{From: from, To: to}, w.Write); err != nil {
		b.Fatal(err)
	}
	if _, err := app.ExportTickets(ctx, st, w.Write); err != nil {
		b.Fatal(err)
	}
	if _, err := app.ExportProviderStatus(ctx, st, from, to, w.Write); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
}
