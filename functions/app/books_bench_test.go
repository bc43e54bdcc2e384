package app_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/fleetsim"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/internal/cputime"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// BenchmarkMonthBooks measures the month's report of a simulated fleet
// generated into the embedded store (fleetsim: GPUSLA_BOOKS_NODES nodes,
// default 100; GPUSLA_BOOKS_STORE keeps the store file between runs), built
// two ways in the same run: the JSON round trip the monthly job made (the
// store exported to a log file, the file read back into one builder) and
// the store's own records node by node (app.Books, GPUSLA_BOOKS_WORKERS
// workers, default GOMAXPROCS). It reports CPU seconds per node-month of
// each (the process's user + system time: wall time on a shared machine
// measures the neighbours), their ratio, the wall time of each, and the
// largest live heap each reached (after a collection, sampled every
// 10 ms). The two reports must be the same bytes. GPUSLA_BOOKS_STORE_ONLY=1
// builds the store's way alone (a fleet whose JSON round trip would not
// fit the run). GPUSLA_BOOKS_DIGESTS=1 builds the store's way from the
// days' digests (benchBooks).
func BenchmarkMonthBooks(b *testing.B) {
	nodes := envInt("GPUSLA_BOOKS_NODES", 100)
	st, tm := benchFleet(b, nodes)
	asOf := time.Date(2026, 4, 1, 6, 0, 0, 0, time.UTC)
	workers := envInt("GPUSLA_BOOKS_WORKERS", runtime.GOMAXPROCS(0))
	bk, sealed := benchBooks(b, st, tm, workers, asOf)
	b.ResetTimer()
	for range b.N {
		var viaLog, viaStore []byte
		storeOnly := os.Getenv("GPUSLA_BOOKS_STORE_ONLY") == "1"
		resetPeakRSS()
		logCPU, logWall, logHeap := measure(func() {
			if !storeOnly {
				viaLog = benchLogReport(b, st, tm, asOf)
			}
		})
		logRSS := peakRSS()
		runtime.GC()
		debug.FreeOSMemory()
		resetPeakRSS()
		storeCPU, storeWall, storeHeap := measure(func() {
			r, err := bk.Month(context.Background(), 2026, 3, asOf)
			if err != nil {
				b.Fatal(err)
			}
			var buf bytes.Buffer
			if err := report.JSON(&buf, r); err != nil {
				b.Fatal(err)
			}
			viaStore = buf.Bytes()
		})
		n := float64(nodes)
		b.ReportMetric(storeCPU.Seconds()/n, "store-cpu-s/node-month")
		b.ReportMetric(storeWall.Seconds(), "store-wall-s")
		b.ReportMetric(float64(storeHeap)/(1<<20), "store-peak-heap-MiB")
		b.ReportMetric(float64(peakRSS())/(1<<20), "store-peak-rss-MiB")
		b.ReportMetric(float64(workers), "workers")
		sealed.report(b, nodes)
		if storeOnly {
			continue
		}
		if !bytes.Equal(viaLog, viaStore) {
			b.Fatal("the store's books and the log's report differ")
		}
		b.ReportMetric(logCPU.Seconds()/n, "log-cpu-s/node-month")
		b.ReportMetric(logCPU.Seconds()/storeCPU.Seconds(), "cpu-ratio")
		b.ReportMetric(logWall.Seconds(), "log-wall-s")
		b.ReportMetric(float64(logHeap)/(1<<20), "log-peak-heap-MiB")
		b.ReportMetric(float64(logRSS)/(1<<20), "log-peak-rss-MiB")
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// benchFleet opens the simulated fleet's store of March 2026, writing it
// first unless GPUSLA_BOOKS_STORE names one already written.
func benchFleet(b *testing.B, nodes int) (*bolt.Store, []*terms.Terms) {
	return simFleet(b, nodes, 3, 1, 8)
}

// simFleet opens the simulated fleet's store of months months from month
// first of 2026, written by workers, writing it first unless
// GPUSLA_BOOKS_STORE names one already written.
func simFleet(b *testing.B, nodes int, first time.Month, months, workers int) (*bolt.Store, []*terms.Terms) {
	path := os.Getenv("GPUSLA_BOOKS_STORE")
	if path == "" {
		path = filepath.Join(b.TempDir(), "fleet.db")
	}
	_, statErr := os.Stat(path)
	st, err := bolt.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if statErr != nil {
		st.SetNoSync(true)
		// Written as ingest writes: each batch before its day is over (a
		// record stored after its day voids the day's digest).
		start := time.Date(2026, first, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
		st.SetClock(func() time.Time { return start })
		defer st.SetClock(time.Now)
		sh, _ := time.LoadLocation("Asia/Shanghai")
		t0, c0 := time.Now(), cputime.Total()
		s, err := fleetsim.Write(context.Background(), st, fleetsim.Config{Nodes: nodes, Prefix: "gz-", Contract: "cn-example", Loc: sh,
			From: time.Date(2026, first, 1, 0, 0, 0, 0, sh), Months: months, Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		st.SetNoSync(false)
		b.Logf("wrote %d nodes × %d months, %d runs, %d batches (%d MB of bodies) in %s, %s CPU", s.Nodes, months, s.Runs, s.Batches, s.BodyBytes>>20,
			time.Since(t0).Round(time.Second), (cputime.Total() - c0).Round(time.Second))
	}
	tm, err := terms.ReadFile(filepath.Join("..", "..", "testdata", "terms", "cn-example.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	return st, tm
}

// benchBooks are the books the benchmarks build: with
// GPUSLA_BOOKS_DIGESTS=1 reading the days' digests, which a build before
// the timed ones seals (its CPU returned; a store kept from an earlier
// run has them already, and the build reads them); with
// GPUSLA_BOOKS_DIGESTS=daily reading the digests the daily sealer wrote
// (app.Books.SealDay, every day of the month's receive window that is
// over at asOf, one day at a time as its run each night would: its CPU
// returned, and its figures per node-day reported).
func benchBooks(b *testing.B, st *bolt.Store, tm []*terms.Terms, workers int, asOf time.Time) (app.Books, sealFigures) {
	bk := app.Books{Store: st, Status: st, Terms: tm, Workers: workers}
	how := os.Getenv("GPUSLA_BOOKS_DIGESTS")
	if how != "1" && how != "daily" {
		return bk, sealFigures{}
	}
	bk = bk.WithDigests(st, func() time.Time { return asOf })
	if how == "daily" {
		sealer := app.Books{Store: st, Workers: workers}.WithDigests(st, nil)
		from, _ := report.Window(2026, 3)
		var days, sealed, batches int
		resetPeakRSS()
		cpu, wall, heap := measure(func() {
			for d := store.DayOf(from.Add(-events.MaxObservationLead)); !d.Add(24*time.Hour + app.DigestSealDelay).After(asOf); d = d.Add(24 * time.Hour) {
				s, err := sealer.SealDay(context.Background(), d, asOf)
				if err != nil {
					b.Fatal(err)
				}
				days++
				sealed += s.Sealed
				batches += s.Batches
			}
		})
		return bk, sealFigures{cpu: cpu, wall: wall, heap: heap, rss: peakRSS(), days: days, sealed: sealed, batches: batches}
	}
	cpu, _, _ := measure(func() {
		if _, err := bk.Month(context.Background(), 2026, 3, asOf); err != nil {
			b.Fatal(err)
		}
	})
	return bk, sealFigures{cpu: cpu}
}

// sealFigures are what sealing the digests took (benchBooks).
type sealFigures struct {
	cpu, wall             time.Duration
	heap, rss             uint64
	days, sealed, batches int
}

// report reports them, per node-month (nodes) and, for the daily sealer,
// per node-day sealed.
func (f sealFigures) report(b *testing.B, nodes int) {
	b.ReportMetric(f.cpu.Seconds()/float64(nodes), "seal-cpu-s/node-month")
	if f.sealed == 0 {
		return
	}
	nd := float64(f.sealed)
	b.ReportMetric(f.cpu.Seconds()/nd, "sealer-cpu-s/node-day")
	b.ReportMetric(float64(f.batches)/nd, "sealer-batches/node-day")
	b.ReportMetric(f.wall.Seconds()/float64(f.days), "sealer-wall-s/day")
	b.ReportMetric(float64(f.heap)/(1<<20), "sealer-peak-heap-MiB")
	b.ReportMetric(float64(f.rss)/(1<<20), "sealer-peak-rss-MiB")
}

// resetPeakRSS sets the process's peak resident set (VmHWM) to what it
// holds now (Linux: 5 to /proc/self/clear_refs), so peakRSS reads the peak
// of what runs after; elsewhere it does nothing.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's peak resident set since the last resetPeakRSS
// (0 where /proc/self/status has none). It counts the pages of the
// store's file mapped and read, as the kernel does.
func peakRSS() uint64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// benchLogReport is the JSON round trip: the month exported to a file as
// the monthly job exports it, and read back.
func benchLogReport(b *testing.B, st *bolt.Store, tm []*terms.Terms, asOf time.Time) []byte {
	ctx := context.Background()
	f, err := os.CreateTemp(b.TempDir(), "export-*.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	from, to := report.Window(2026, 3)
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
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		b.Fatal(err)
	}
	rb, err := report.NewBuilder(tm, report.Options{Year: 2026, Month: 3, AsOf: asOf})
	if err != nil {
		b.Fatal(err)
	}
	if err := rb.ReadLog(f.Name(), f); err != nil {
		b.Fatal(err)
	}
	r, err := rb.Build()
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.JSON(&buf, r); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// measure runs fn and returns its CPU time (the process's), its wall time
// and the largest live heap (what the last collection found reachable)
// sampled every 10 ms while it ran.
func measure(fn func()) (cpu, wall time.Duration, peak uint64) {
	runtime.GC()
	done := make(chan struct{})
	peaked := make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var top uint64
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			top = max(top, s[0].Value.Uint64())
			select {
			case <-done:
				peaked <- top
				return
			case <-tick.C:
			}
		}
	}()
	c0, t0 := cputime.Total(), time.Now()
	fn()
	cpu, wall = cputime.Total()-c0, time.Since(t0)
	close(done)
	return cpu, wall, <-peaked
}

// chanQueue hands the work items to the benchmark's workers.
type chanQueue chan app.WorkItem

func (q chanQueue) Send(_ context.Context, bodies []string) error {
	for _, b := range bodies {
		it, err := app.ParseWorkItem(b)
		if err != nil {
			return err
		}
		q <- it
	}
	return nil
}

// BenchmarkMonthFanOut measures the month of the same simulated fleet
// built apart, as the parts function and the reports function build it
// (app.FanOut: the plan, the node-months on GPUSLA_BOOKS_WORKERS workers,
// the assembly), with a local folder for the bucket: the CPU of each step
// per node-month, the wall time of the whole and of each step, and the
// largest live heap of the workers' step (one worker: what one parts
// function holds) and of the assembly (what the reports function holds).
// Unless GPUSLA_BOOKS_STORE_ONLY=1 the JSON round trip is measured in the
// same run, and the reports must be the same bytes.
func BenchmarkMonthFanOut(b *testing.B) {
	nodes := envInt("GPUSLA_BOOKS_NODES", 100)
	st, tm := benchFleet(b, nodes)
	asOf := time.Date(2026, 4, 1, 6, 0, 0, 0, time.UTC)
	workers := envInt("GPUSLA_BOOKS_WORKERS", runtime.GOMAXPROCS(0))
	ctx := context.Background()
	bk, sealed := benchBooks(b, st, tm, workers, asOf)
	b.ResetTimer()
	for i := range b.N {
		blobs, err := blob.NewDir(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		q := make(chanQueue, nodes)
		f := &app.FanOut{Books: bk, Blobs: blobs, Queue: q, Wait: time.Hour}
		prefix := "fanout/2026-03/" + strconv.Itoa(i)
		t0 := time.Now()
		startCPU, startWall, _ := measure(func() {
			if err := f.Start(ctx, prefix, 2026, 3, asOf, asOf); err != nil {
				b.Fatal(err)
			}
			close(q)
		})
		runtime.GC()
		debug.FreeOSMemory()
		resetPeakRSS()
		workCPU, workWall, workHeap := measure(func() {
			var g errgroup.Group
			for range workers {
				g.Go(func() error {
					for it := range q {
						if err := f.Work(ctx, it); err != nil {
							return err
						}
					}
					return nil
				})
			}
			if err := g.Wait(); err != nil {
				b.Fatal(err)
			}
		})
		workRSS := peakRSS()
		var viaParts []byte
		runtime.GC()
		debug.FreeOSMemory()
		resetPeakRSS()
		asmCPU, asmWall, asmHeap := measure(func() {
			r, err := f.Assemble(ctx, prefix, asOf)
			if err != nil {
				b.Fatal(err)
			}
			var buf bytes.Buffer
			if err := report.JSON(&buf, r); err != nil {
				b.Fatal(err)
			}
			viaParts = buf.Bytes()
		})
		whole := time.Since(t0)
		asmRSS := peakRSS()
		n := float64(nodes)
		all := startCPU + workCPU + asmCPU
		b.ReportMetric(all.Seconds()/n, "cpu-s/node-month")
		b.ReportMetric(workCPU.Seconds()/n, "worker-cpu-s/node-month")
		b.ReportMetric(startCPU.Seconds(), "start-cpu-s")
		b.ReportMetric(asmCPU.Seconds(), "assemble-cpu-s")
		b.ReportMetric(whole.Seconds(), "fan-out-wall-s")
		b.ReportMetric(startWall.Seconds(), "start-wall-s")
		b.ReportMetric(workWall.Seconds(), "workers-wall-s")
		b.ReportMetric(asmWall.Seconds(), "assemble-wall-s")
		b.ReportMetric(float64(workHeap)/(1<<20), "workers-peak-heap-MiB")
		b.ReportMetric(float64(asmHeap)/(1<<20), "assemble-peak-heap-MiB")
		b.ReportMetric(float64(workRSS)/(1<<20), "workers-peak-rss-MiB")
		b.ReportMetric(float64(asmRSS)/(1<<20), "assemble-peak-rss-MiB")
		b.ReportMetric(float64(workers), "workers")
		sealed.report(b, nodes)
		if os.Getenv("GPUSLA_BOOKS_STORE_ONLY") == "1" {
			continue
		}
		var viaLog []byte
		runtime.GC()
		debug.FreeOSMemory()
		resetPeakRSS()
		logCPU, logWall, logHeap := measure(func() { viaLog = benchLogReport(b, st, tm, asOf) })
		b.ReportMetric(logWall.Seconds(), "log-wall-s")
		b.ReportMetric(float64(logHeap)/(1<<20), "log-peak-heap-MiB")
		b.ReportMetric(float64(peakRSS())/(1<<20), "log-peak-rss-MiB")
		if !bytes.Equal(viaLog, viaParts) {
			b.Fatal("the month built apart and the log's report differ")
		}
		b.ReportMetric(logCPU.Seconds()/n, "log-cpu-s/node-month")
		b.ReportMetric(logCPU.Seconds()/all.Seconds(), "cpu-ratio")
	}
}
