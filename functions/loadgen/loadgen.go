// Package loadgen measures the ingest throughput of the serve stack
// (httpapi, application, embedded store) against a no-op HTTP handler with
// the same closed-loop generator on loopback: real signed, hash-chained
// heartbeat batches, every node's in order, as probes send them
// (`gpusla loadgen`).
package loadgen

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/serve"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/probe/wire"
)

// loadResult is one measured run.
type loadResult struct {
	Name      string
	Batches   int64
	Errors    int64
	Elapsed   time.Duration
	P50, P99  time.Duration
	Max       time.Duration
	PerSecond float64
	// CPU is the process's user+system CPU time during the run (server and
	// generator together); CPUPerBatch = CPU / Batches. On a shared machine
	// the wall-clock rate depends on what else runs; 2 cores / CPUPerBatch
	// is what two dedicated cores would sustain.
	CPU         time.Duration
	CPUPerBatch time.Duration
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Options are what one loadgen run measures.
type Options struct {
	Nodes, MaxBatches, Rounds int
	Workers                   []int
	Duration                  time.Duration
	// Data is a fresh folder for the store; "" uses a temp folder,
	// removed after.
	Data string
}

// Check names the option that is out of range.
func (o Options) Check() error {
	if o.Nodes < 1 || len(o.Workers) == 0 || slices.Min(o.Workers) < 1 || o.MaxBatches < 1 || o.Rounds < 1 || o.Duration <= 0 {
		return fmt.Errorf("--nodes, --workers, --max-batches, --rounds and --duration must be positive")
	}
	return nil
}

// Run registers the simulated nodes, measures every round and level and
// prints every run, each level's medians and ratio to the no-op handler,
// each round's peak and the store operations per batch to out.
func Run(ctx context.Context, out io.Writer, o Options) error {
	if err := o.Check(); err != nil {
		return err
	}
	nodes, workers, maxBatches, nrounds, duration := o.Nodes, o.Workers, o.MaxBatches, o.Rounds, o.Duration
	dir := o.Data
	if dir == "" {
		d, err := os.MkdirTemp("", "gpusla-loadgen-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		return fmt.Errorf("--data %s is not empty; loadgen needs a fresh folder", dir)
	}
	bench, err := newLoadBench(ctx, dir, nodes)
	if err != nil {
		return err
	}
	defer bench.Close()
	procs := runtime.GOMAXPROCS(0)
	fmt.Fprintf(out, "loadgen: GOMAXPROCS=%d, %d CPUs, %d nodes, workers %v, %d rounds each, each run ≤ %s or ≤ %d batches\n",
		procs, runtime.NumCPU(), nodes, workers, nrounds, duration, maxBatches)
	results, err := bench.sweep(ctx, workers, maxBatches, nrounds, duration)
	if err != nil {
		return err
	}
	var served, failed int64
	for r := range nrounds {
		for li, w := range workers {
			rd := results[li][r]
			for _, x := range []loadResult{rd.Serve, rd.Noop} {
				fmt.Fprintf(out, "round %d %3d workers %-6s %7d batches %3d errors in %5.2fs: %6.0f batches/s  p50 %6.2fms  p99 %6.2fms  max %6.2fms  CPU %5.1fµs/batch\n",
					r+1, w, x.Name, x.Batches, x.Errors, x.Elapsed.Seconds(), x.PerSecond, ms(x.P50), ms(x.P99), ms(x.Max),
					float64(x.CPUPerBatch.Nanoseconds())/1000)
				failed += x.Errors
			}
			served += rd.Serve.Batches
			fmt.Fprintf(out, "round %d %3d workers serve / no-op: %.1f %% by wall clock, %.1f %% by CPU per batch\n", r+1, w, 100*rd.WallRatio(), 100*rd.CPURatio())
		}
	}
	fmt.Fprintf(out, "\nmedians of %d rounds:\n%7s %14s %10s %14s %10s %22s %10s\n", nrounds, "workers", "serve/s", "p99", "no-op/s", "p99", "serve/no-op (range)", "by CPU")
	for li, w := range workers {
		l := summarize(w, results[li])
		fmt.Fprintf(out, "%7d %14.0f %8.2fms %14.0f %8.2fms %9.1f %% (%.1f–%.1f) %8.1f %%\n",
			l.Workers, l.Serve, ms(l.ServeP99), l.Noop, ms(l.NoopP99), 100*l.Wall, 100*l.WallMin, 100*l.WallMax, 100*l.CPU)
	}
	var ratios []float64
	for r, p := range peaks(workers, results) {
		fmt.Fprintf(out, "round %d peak: serve %.0f batches/s (%d workers, p99 %.2fms), no-op %.0f batches/s (%d workers): %.1f %%\n",
			r+1, p.Serve.PerSecond, p.ServeW, ms(p.Serve.P99), p.Noop.PerSecond, p.NoopW, 100*p.Ratio())
		ratios = append(ratios, p.Ratio())
	}
	fmt.Fprintf(out, "peak throughput, serve / no-op: median %.1f %% over %d rounds (%.1f–%.1f)\n",
		100*median(ratios), nrounds, 100*slices.Min(ratios), 100*slices.Max(ratios))
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(out, "load average after the run: %s", la)
	}
	if served > 0 {
		fmt.Fprintf(out, "store ops per ingested batch: %.3f writes, %.3f reads (%s)\n",
			float64(bench.ops.Total("/write"))/float64(served), float64(bench.ops.Total("/read"))/float64(served), bench.ops)
	}
	if failed > 0 {
		return fmt.Errorf("loadgen: %d requests failed", failed)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// loadRound is one serve run and one no-op run, back to back.
type loadRound struct{ Serve, Noop loadResult }

// WallRatio is serve's throughput as a share of the no-op handler's.
func (r loadRound) WallRatio() float64 { return r.Serve.PerSecond / r.Noop.PerSecond }

// CPURatio is the no-op handler's CPU per batch as a share of serve's.
func (r loadRound) CPURatio() float64 {
	return r.Noop.CPUPerBatch.Seconds() / r.Serve.CPUPerBatch.Seconds()
}

// loadBench is a store with registered simulated nodes and the two handlers
// under test, reused across concurrency levels.
type loadBench struct {
	store       *bolt.Store
	serve, noop http.Handler
	// sims push to serve; noopSims have their own sequence numbers (the
	// no-op handler checks nothing).
	sims, noopSims []*simNode
	ops            store.OpCounts
}

func newLoadBench(ctx context.Context, dir string, nodes int) (*loadBench, error) {
	st, box, err := wiring.OpenData(dir, true)
	if err != nil {
		return nil, err
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := app.New(app.Config{Store: st, Notifier: &slack.Console{W: io.Discard}, Box: box, Log: quiet, BackendID: "loadgen"})
	if err != nil {
		st.Close()
		return nil, err
	}
	b := &loadBench{store: st, serve: httpapi.New(svc, quiet), ops: store.OpCounts{},
		sims: make([]*simNode, nodes), noopSims: make([]*simNode, nodes)}
	b.noop = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"x","status":"stored","server_time":"2026-01-01T00:00:00Z"}`))
	})
	for i := range b.sims {
		n, secret, err := svc.AddNode(ctx, app.NewNode{ID: fmt.Sprintf("load-%05d", i), Provider: "load", Contract: "load",
			OrderedAt: svc.Now(), GPUModel: "H100", GPUCount: 8})
		if err != nil {
			st.Close()
			return nil, err
		}
		b.sims[i] = &simNode{id: n.ID, secret: secret}
		b.noopSims[i] = &simNode{id: n.ID, secret: secret}
	}
	return b, nil
}

func (b *loadBench) Close() error { return b.store.Close() }

// pair measures the serve stack and the no-op handler with workers clients,
// back to back, in the order given: callers alternate it, so that a slow
// stretch of a shared machine lands on both sides instead of on one.
func (b *loadBench) pair(ctx context.Context, workers, maxBatches int, duration time.Duration, noopFirst bool) (loadRound, error) {
	var out loadRound
	runServe := func() error {
		before := b.store.Ops()
		res, err := drive(ctx, "serve", b.serve, b.sims, workers, maxBatches, duration)
		for k, v := range b.store.Ops() {
			b.ops[k] += v - before[k]
		}
		out.Serve = res
		return err
	}
	runNoop := func() (err error) {
		out.Noop, err = drive(ctx, "no-op", b.noop, b.noopSims, workers, maxBatches, duration)
		return err
	}
	first, second := runServe, runNoop
	if noopFirst {
		first, second = runNoop, runServe
	}
	if err := first(); err != nil {
		return out, err
	}
	return out, second()
}

// sweep runs n rounds; each round measures every concurrency level (a pair
// per level), so a round's best serve level and best no-op level are
// measured within seconds of each other. It returns results[level][round].
func (b *loadBench) sweep(ctx context.Context, levels []int, maxBatches, n int, duration time.Duration) ([][]loadRound, error) {
	out := make([][]loadRound, len(levels))
	for r := range n {
		for li, w := range levels {
			rd, err := b.pair(ctx, w, maxBatches, duration, (r+li)%2 == 1)
			if err != nil {
				return nil, err
			}
			out[li] = append(out[li], rd)
		}
	}
	return out, nil
}

// level is the median of one concurrency level's rounds.
type level struct {
	Workers           int
	Serve, Noop       float64 // batches/s
	ServeP99, NoopP99 time.Duration
	Wall, CPU         float64 // serve / no-op
	WallMin, WallMax  float64
}

func summarize(workers int, rounds []loadRound) level {
	var serve, noop, sp99, np99, wall, cpu []float64
	for _, rd := range rounds {
		serve, noop = append(serve, rd.Serve.PerSecond), append(noop, rd.Noop.PerSecond)
		sp99, np99 = append(sp99, float64(rd.Serve.P99)), append(np99, float64(rd.Noop.P99))
		wall, cpu = append(wall, rd.WallRatio()), append(cpu, rd.CPURatio())
	}
	return level{Workers: workers, Serve: median(serve), Noop: median(noop),
		ServeP99: time.Duration(median(sp99)), NoopP99: time.Duration(median(np99)),
		Wall: median(wall), CPU: median(cpu), WallMin: slices.Min(wall), WallMax: slices.Max(wall)}
}

// roundPeak is one round's saturated throughput of each target: its best
// level. A closed-loop generator measures throughput only where the target
// is saturated, and the fsync-bound serve stack needs more clients for that
// than the no-op handler does.
type roundPeak struct {
	Serve, Noop   loadResult
	ServeW, NoopW int
}

func (p roundPeak) Ratio() float64 { return p.Serve.PerSecond / p.Noop.PerSecond }

// peaks returns every round's peak from results[level][round].
func peaks(levels []int, results [][]loadRound) []roundPeak {
	var out []roundPeak
	for r := range results[0] {
		var p roundPeak
		for li, w := range levels {
			rd := results[li][r]
			if rd.Serve.PerSecond > p.Serve.PerSecond {
				p.Serve, p.ServeW = rd.Serve, w
			}
			if rd.Noop.PerSecond > p.Noop.PerSecond {
				p.Noop, p.NoopW = rd.Noop, w
			}
		}
		out = append(out, p)
	}
	return out
}

// median of xs (xs is reordered).
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

type simNode struct {
	id     string
	secret []byte
	seq    uint64
	prev   string
}

// next builds the node's next heartbeat batch (two heartbeats).
func (n *simNode) next(now time.Time) []byte {
	n.seq++
	b := &wire.Batch{V: wire.Version, ID: fmt.Sprintf("%s-%d", n.id, n.seq), Node: n.id, Probe: "loadgen", Seq: n.seq, Prev: n.prev,
		CreatedAt: now, Observations: []wire.Observation{{At: now.Add(-30 * time.Second), Kind: wire.KindHeartbeat}, {At: now, Kind: wire.KindHeartbeat}}}
	body, err := wire.Encode(b)
	if err != nil {
		panic(err) // a well-formed batch always encodes
	}
	n.prev = wire.BodyHash(body)
	return body
}

// drive serves h on a loopback port with serve's server settings and runs
// the generator against it.
func drive(ctx context.Context, name string, h http.Handler, sims []*simNode, workers, maxBatches int, duration time.Duration) (loadResult, error) {
	// Goroutines inherit the label (server, connections, clients), so
	// --cpuprofile can be read per run: pprof -tagfocus run=serve.
	ctx = pprof.WithLabels(ctx, pprof.Labels("run", name))
	pprof.SetGoroutineLabels(ctx)
	defer pprof.SetGoroutineLabels(context.Background())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return loadResult{}, err
	}
	srv := serve.NewHTTPServer(h)
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String() + httpapi.PathBatches
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConns: workers, MaxIdleConnsPerHost: workers}}
	defer client.CloseIdleConnections()

	ctx, cancel := context.WithTimeout(ctx, duration)
	defer cancel()
	var count, errs atomic.Int64
	lat := make([][]time.Duration, workers)
	var wg sync.WaitGroup
	cpu0 := cpuTime()
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Worker w owns nodes w, w+workers, …: each node's batches go
			// out in order, one at a time, as from a real probe.
			var mine []*simNode
			for i := w; i < len(sims); i += workers {
				mine = append(mine, sims[i])
			}
			if len(mine) == 0 {
				return
			}
			for i := 0; ctx.Err() == nil; i++ {
				if count.Add(1) > int64(maxBatches) {
					count.Add(-1)
					return
				}
				n := mine[i%len(mine)]
				now := time.Now().UTC()
				body := n.next(now)
				req, _ := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodPost, url, bytes.NewReader(body))
				wire.SetHeaders(req.Header, n.id, n.secret, now, body)
				t := time.Now()
				resp, err := client.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				lat[w] = append(lat[w], time.Since(t))
				if err != nil {
					errs.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	all := slices.Concat(lat...)
	slices.Sort(all)
	q := func(p float64) time.Duration {
		if len(all) == 0 {
			return 0
		}
		return all[int(math.Ceil(p*float64(len(all))))-1]
	}
	r := loadResult{Name: name, Batches: count.Load(), Errors: errs.Load(), Elapsed: elapsed, P50: q(0.50), P99: q(0.99)}
	if len(all) > 0 {
		r.Max = all[len(all)-1]
	}
	r.PerSecond = float64(r.Batches) / elapsed.Seconds()
	r.CPU = cpu
	if r.Batches > 0 {
		r.CPUPerBatch = cpu / time.Duration(r.Batches)
	}
	return r, nil
}
