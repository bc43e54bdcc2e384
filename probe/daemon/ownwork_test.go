package daemon

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/gpu/gputest"
	"github.com/gpusla/gpusla/probe/gpu/nvmlread"
	"github.com/gpusla/gpusla/probe/ownwork"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
)

// inQuietWindow is a clock inside the default quiet window (02:00-05:00 UTC).
func inQuietWindow() time.Time { return time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC) }

// The daemon's health runs taken while its own stress job burns do not
// call the probe's own load a noisy neighbour (on an H200, 6 of 7 such
// runs warned gpu.processes and 5 gpu.utilization): the idleness checks say
// the stress job was running and are skipped; the other health checks run.
func TestHealthDuringOwnStressSkipsIdlenessChecks(t *testing.T) {
	snap, err := checkrun.ReadSnapshot("../checkrun/testdata/snapshots/h200x1-real.json")
	if err != nil {
		t.Fatal(err)
	}
	// What NVML shows while the probe burns: its own process, 100 %.
	d := &snap.GPU.Devices[0]
	d.UtilizationGPU = func(v uint32) *uint32 { return &v }(100)
	d.Processes = []gpu.Proc{{PID: uint32(os.Getpid()), UsedMemoryMiB: 120000, Kind: "compute"}}

	h := newHarness(t)
	h.write("schedules:\n  heartbeat: 1h\n  health: 100ms\n  network: \"off\"\n  stress: 100ms\n  jitter: 1ms\n")
	own := ownwork.New("", nil)
	var during atomic.Int32
	twice := make(chan struct{})
	var once, closeOnce sync.Once
	h.start(func(*config.Config) (Jobs, error) {
		return Jobs{
			Health: func(ctx context.Context) []wire.Check {
				// Only the runs that start during the stress job are
				// under test; after it, the mock's 100 % would be a tenant.
				if !own.State().Running {
					return nil
				}
				src := &nvmlread.NVML{Lib: gputest.Library(snap.GPU), Own: own.State}
				cs := checkrun.CollectGPU(ctx, src, nil, specdb.Default(), expect.Expected{})
				if during.Add(1) >= 2 {
					closeOnce.Do(func() { close(twice) })
				}
				return cs
			},
			Stress: func(ctx context.Context) []wire.Check {
				end := own.Begin()
				defer end()
				select {
				case <-twice:
				case <-ctx.Done():
				}
				var out []wire.Check
				once.Do(func() {
					out = []wire.Check{{Name: "gpu.burn.fp32", Category: wire.CategoryPerformance, Verdict: wire.Pass}}
				})
				return out
			},
			GPUsIdle: func(context.Context, float64) (bool, string, error) { return true, "", nil },
		}, nil
	}, inQuietWindow)
	h.waitFor("health runs during the stress job", func() bool {
		return len(h.checks()["gpu.burn.fp32"]) > 0 && len(h.checks()["gpu.utilization"]) >= 2
	})
	skipped := 0
	for _, name := range []string{"gpu.processes", "gpu.utilization", "gpu.memory_in_use"} {
		for _, c := range h.checks()[name] {
			switch {
			case c.Verdict == wire.Skipped && c.Detail == "the probe's own stress job was running":
				skipped++
			case c.Verdict == wire.Warn || c.Verdict == wire.Fail:
				t.Errorf("%s: %s %s (%s)", name, c.Verdict, c.Value, c.Detail)
			}
		}
	}
	if skipped < 6 {
		t.Errorf("%d idleness checks skipped for the own stress job, want at least 6 (two health runs)", skipped)
	}
	if cs := h.checks()["gpu.temperature"]; len(cs) == 0 || cs[0].Verdict != wire.Pass {
		t.Errorf("the other health checks must still run: %+v", cs)
	}
}

// A stress job stopped by SIGTERM pushes the results of the tests it
// finished: they are spooled as a batch before the daemon exits and
// delivered at its next start. A health job stopped half-way is still
// dropped.
func TestStoppedStressJobKeepsFinishedResults(t *testing.T) {
	h := newHarness(t)
	h.write("schedules:\n  heartbeat: 1h\n  health: \"off\"\n  network: \"off\"\n  stress: 100ms\n  jitter: 1ms\n")
	inJob := make(chan struct{})
	var once sync.Once
	h.start(func(*config.Config) (Jobs, error) {
		return Jobs{
			Stress: func(ctx context.Context) []wire.Check {
				// FP32 finished; the FP64 burn is running when SIGTERM comes.
				done := []wire.Check{{Name: "gpu.burn.fp32", Category: wire.CategoryPerformance, Verdict: wire.Pass}}
				once.Do(func() { close(inJob) })
				<-ctx.Done()
				return append(done, wire.Check{Name: "gpu.stress.run", Category: wire.CategoryGPUDegraded, Verdict: wire.Skipped,
					Detail: "stopped before it finished (context canceled): 1 test(s) finished and are reported, 1 interrupted"})
			},
			GPUsIdle: func(context.Context, float64) (bool, string, error) { return true, "", nil },
		}, nil
	}, inQuietWindow)
	<-inJob
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	// Next start, with nothing scheduled: the spooled batch goes out.
	h.start(func(*config.Config) (Jobs, error) { return Jobs{}, nil }, inQuietWindow)
	h.waitFor("the stopped job's results", func() bool { return len(h.checks()["gpu.burn.fp32"]) == 1 })
	if c := h.checks()["gpu.stress.run"]; len(c) != 1 || c[0].Verdict != wire.Skipped || !strings.Contains(c[0].Detail, "1 test(s) finished") {
		t.Errorf("stop report: %+v", c)
	}
	if _, err := h.recv.CheckChain(); err != nil {
		t.Fatalf("chain: %v", err)
	}
}
