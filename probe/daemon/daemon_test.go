package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/push/pushtest"
	"github.com/gpusla/gpusla/probe/wire"
)

const secret = "daemon-test-secret-0123456789"

type harness struct {
	t      *testing.T
	dir    string
	cfg    string
	recv   *pushtest.Receiver
	reload chan struct{}
	cancel context.CancelFunc
	done   chan error
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	recv, err := pushtest.Start("daemon-test", []byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(recv.Close)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "secret"), []byte(secret), 0o600)
	return &harness{t: t, dir: dir, cfg: filepath.Join(dir, "probe.yaml"), recv: recv, reload: make(chan struct{}, 1)}
}

// write writes a config; extra is appended YAML (schedules etc.).
func (h *harness) write(extra string) {
	doc := fmt.Sprintf("node: daemon-test\nbackend:\n  url: %s\n  min_backoff: 20ms\n  max_backoff: 100ms\nsecret_file: secret\nspool:\n  dir: %s\n%s",
		h.recv.URL(), filepath.Join(h.dir, "spool"), extra)
	if err := os.WriteFile(h.cfg, []byte(doc), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) start(build Builder, now func() time.Time) {
	d := &Daemon{ConfigPath: h.cfg, Version: "test", Build: build, Reload: h.reload, Now: now,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.done = make(chan error, 1)
	go func() { h.done <- d.Run(ctx) }()
	h.t.Cleanup(func() { h.stop() })
}

func (h *harness) stop() error {
	if h.cancel == nil {
		return nil
	}
	h.cancel()
	h.cancel = nil
	select {
	case err := <-h.done:
		return err
	case <-time.After(10 * time.Second):
		h.t.Fatal("daemon did not stop within 10s of cancellation")
		return nil
	}
}

// checks returns every check the receiver stored, by name.
func (h *harness) checks() map[string][]wire.Check {
	out := map[string][]wire.Check{}
	for _, b := range h.recv.Batches() {
		for _, o := range b.Observations {
			for _, c := range o.Checks {
				out[c.Name] = append(out[c.Name], c)
			}
		}
	}
	return out
}

func (h *harness) heartbeats() int {
	n := 0
	for _, b := range h.recv.Batches() {
		for _, o := range b.Observations {
			if o.Kind == wire.KindHeartbeat {
				n++
			}
		}
	}
	return n
}

func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	waitfor.True(h.t, what, cond)
}

func check(name, verdict string, v float64) wire.Check {
	return wire.Check{Name: name, Category: wire.CategoryNetwork, Verdict: verdict, Number: &v, Unit: "ms"}
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestJobsAreScheduledSpooledAndExported(t *testing.T) {
	h := newHarness(t)
	metrics := freeAddr(t)
	h.write(fmt.Sprintf("schedules:\n  heartbeat: 100ms\n  network: 150ms\n  health: \"off\"\n  stress: \"off\"\nmetrics:\n  listen: %s\n", metrics))
	h.start(func(*config.Config) (Jobs, error) {
		return Jobs{Network: func(context.Context) []wire.Check {
			return []wire.Check{check("net.gateway.rtt", wire.Pass, 0.25), check("net.gateway.loss", wire.Fail, 20)}
		}}, nil
	}, nil)
	h.waitFor("heartbeats and network checks", func() bool {
		return h.heartbeats() >= 3 && len(h.checks()["net.gateway.rtt"]) >= 2
	})
	resp, err := http.Get("http://" + metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`gpuprobe_check_verdict{category="network_degraded",check="net.gateway.rtt",gpu="",uuid="",verdict="pass"} 1`,
		`gpuprobe_check_verdict{category="network_degraded",check="net.gateway.loss",gpu="",uuid="",verdict="fail"} 1`,
		`gpuprobe_check_verdict{category="network_degraded",check="net.gateway.loss",gpu="",uuid="",verdict="pass"} 0`,
		`gpuprobe_check_seconds{check="net.gateway.rtt",gpu="",uuid=""} 0.00025`,
		`gpuprobe_delivery_acked_total`, `gpuprobe_spool_batches`, `gpuprobe_job_last_run_timestamp_seconds{job="network"}`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if err := h.stop(); err != nil {
		t.Fatalf("clean stop: %v", err)
	}
	if _, err := h.recv.CheckChain(); err != nil {
		t.Fatal(err)
	}
}

func TestPanicBecomesEvidenceAndOverlapIsSkipped(t *testing.T) {
	h := newHarness(t)
	h.write("schedules:\n  heartbeat: 1h\n  health: 100ms\n  network: 100ms\n  stress: \"off\"\n")
	var running, maxRunning, runs atomic.Int32
	h.start(func(*config.Config) (Jobs, error) {
		return Jobs{
			Health: func(context.Context) []wire.Check { panic("nvml exploded") },
			Network: func(ctx context.Context) []wire.Check {
				n := running.Add(1)
				defer running.Add(-1)
				if n > maxRunning.Load() {
					maxRunning.Store(n)
				}
				runs.Add(1)
				select { // three periods long
				case <-time.After(350 * time.Millisecond):
				case <-ctx.Done():
				}
				return []wire.Check{check("net.slow", wire.Pass, 1)}
			},
		}, nil
	}, nil)
	h.waitFor("two panics recorded and two slow runs", func() bool {
		return len(h.checks()["probe.job.health"]) >= 2 && len(h.checks()["net.slow"]) >= 2
	})
	c := h.checks()["probe.job.health"][0]
	if c.Verdict != wire.Fail || !strings.Contains(c.Detail, "nvml exploded") {
		t.Fatalf("panic recorded as %+v", c)
	}
	if maxRunning.Load() != 1 {
		t.Fatalf("%d network runs overlapped; cron.SkipIfStillRunning must skip", maxRunning.Load())
	}
}

func TestStressOnlyInQuietWindowAndWhenIdle(t *testing.T) {
	at := func(hhmm string) func() time.Time {
		return func() time.Time {
			t, _ := time.ParseInLocation("2006-01-02 15:04", "2026-11-30 "+hhmm, time.FixedZone("CST", 8*3600))
			return t
		}
	}
	cases := []struct {
		name, now string
		busy      bool
		want      string // detail of the skip, or "" when stress ran
	}{
		{"outside window", "14:00", false, "outside the quiet window 02:00-05:00"},
		{"in window, GPUs busy", "03:00", true, "GPUs busy: GPU 3 at 97 %"},
		{"in window, idle", "03:00", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("timezone: Asia/Shanghai\nschedules:\n  heartbeat: 1h\n  health: \"off\"\n  network: \"off\"\n  stress: 100ms\n")
			var ran atomic.Bool
			h.start(func(*config.Config) (Jobs, error) {
				return Jobs{
					Stress: func(context.Context) []wire.Check {
						ran.Store(true)
						return []wire.Check{{Name: "gpu.stress.fp32", Category: wire.CategoryPerformance, Verdict: wire.Pass}}
					},
					GPUsIdle: func(_ context.Context, max float64) (bool, string, error) {
						if c.busy {
							return false, fmt.Sprintf("GPU 3 at 97 %% utilisation (idle means ≤ %g %%)", max), nil
						}
						return true, "", nil
					},
				}, nil
			}, at(c.now))
			if c.want == "" {
				h.waitFor("stress result", func() bool { return len(h.checks()["gpu.stress.fp32"]) > 0 })
				return
			}
			h.waitFor("stress skip", func() bool { return len(h.checks()["probe.stress.run"]) > 0 })
			got := h.checks()["probe.stress.run"][0]
			if got.Verdict != wire.Skipped || !strings.Contains(got.Detail, c.want) || ran.Load() {
				t.Fatalf("got %+v (ran=%v), want skipped with %q", got, ran.Load(), c.want)
			}
		})
	}
}

func TestReloadAppliesGoodConfigAndKeepsOldOnBad(t *testing.T) {
	h := newHarness(t)
	h.write("schedules:\n  heartbeat: 100ms\n  health: \"off\"\n  network: \"off\"\n  stress: \"off\"\n")
	var builds atomic.Int32
	h.start(func(*config.Config) (Jobs, error) {
		builds.Add(1)
		return Jobs{Health: func(context.Context) []wire.Check {
			return []wire.Check{{Name: "host.ok", Category: wire.CategoryHost, Verdict: wire.Pass}}
		}}, nil
	}, nil)
	h.waitFor("first heartbeats", func() bool { return h.heartbeats() >= 2 })
	if len(h.checks()["host.ok"]) > 0 {
		t.Fatal("health ran while its schedule was off")
	}
	// A broken config is refused; the daemon keeps running the old one.
	os.WriteFile(h.cfg, []byte("node: daemon-test\nbackend: {url: nope}\n"), 0o600)
	h.reload <- struct{}{}
	before := h.heartbeats()
	h.waitFor("heartbeats after a refused reload", func() bool { return h.heartbeats() >= before+3 })
	if builds.Load() != 1 {
		t.Fatalf("a refused reload rebuilt the jobs")
	}
	h.write("schedules:\n  heartbeat: 100ms\n  health: 100ms\n  network: \"off\"\n  stress: \"off\"\n")
	h.reload <- struct{}{}
	h.waitFor("health after reload", func() bool { return len(h.checks()["host.ok"]) >= 2 })
	// A valid config that cannot start (its spool holds another node's
	// chain) is abandoned for the previous one; the daemon does not exit.
	good, _ := os.ReadFile(h.cfg)
	os.WriteFile(h.cfg, []byte(strings.Replace(string(good), "node: daemon-test", "node: other-node", 1)), 0o600)
	h.reload <- struct{}{}
	before = h.heartbeats()
	h.waitFor("heartbeats after a failed start", func() bool { return h.heartbeats() >= before+3 })
	select {
	case err := <-h.done:
		t.Fatalf("daemon exited: %v", err)
	default:
	}
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.recv.CheckChain(); err != nil {
		t.Fatalf("chain across the reload: %v", err)
	}
}

// SIGTERM (context cancellation) stops a long job at once and keeps what
// was not delivered on disk.
func TestStopCancelsRunningJobAndKeepsSpool(t *testing.T) {
	h := newHarness(t)
	h.write("schedules:\n  heartbeat: 100ms\n  health: 100ms\n  network: \"off\"\n  stress: \"off\"\n")
	var started sync.Once
	inJob := make(chan struct{})
	h.start(func(*config.Config) (Jobs, error) {
		return Jobs{Health: func(ctx context.Context) []wire.Check {
			started.Do(func() { close(inJob) })
			<-ctx.Done()
			return nil
		}}, nil
	}, nil)
	<-inJob
	h.recv.SetMode(pushtest.Refused)
	h.waitFor("a heartbeat piled up in the spool", func() bool {
		left, _ := filepath.Glob(filepath.Join(h.dir, "spool", "*.batch"))
		return len(left) > 0
	})
	t0 := time.Now()
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Fatalf("stop took %v with a job running", d)
	}
	left, _ := filepath.Glob(filepath.Join(h.dir, "spool", "*.batch"))
	if len(left) == 0 {
		t.Fatal("nothing left in the spool although the backend was down")
	}
}

// With a push interval twice the heartbeat's, a batch after the first (the
// start-up heartbeat, sent at once) is sealed when it holds two heartbeats;
// the backend still sees one every heartbeat interval. A heartbeat that
// comes more than an interval late (a busy CPU) finds its batch sealed by
// the push interval with one: never more than two, and two as soon as the
// heartbeats come in time.
func TestHeartbeatsAreBatchedAtThePushInterval(t *testing.T) {
	h := newHarness(t)
	h.write("schedules:\n  heartbeat: 200ms\n  push: 400ms\n  jitter: 1ms\n  health: \"off\"\n  network: \"off\"\n  stress: \"off\"\n")
	h.start(func(*config.Config) (Jobs, error) { return Jobs{}, nil }, nil)
	heartbeats := func(b *wire.Batch) int {
		hb := 0
		for _, o := range b.Observations {
			if o.Kind == wire.KindHeartbeat {
				hb++
			}
		}
		return hb
	}
	h.waitFor("4 batches, one after the first holding two heartbeats", func() bool {
		bs := h.recv.Batches()
		return len(bs) >= 4 && slices.ContainsFunc(bs[1:], func(b *wire.Batch) bool { return heartbeats(b) == 2 })
	})
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	bs := h.recv.Batches()
	if n := len(bs[0].Observations); n != 1 {
		t.Errorf("batch 1 (start-up) holds %d observations, want 1", n)
	}
	// The last batch may be the partial one sealed on stop.
	for _, b := range bs[1 : len(bs)-1] {
		if hb := heartbeats(b); hb < 1 || hb > 2 {
			t.Errorf("batch %d holds %d heartbeats, want two (one when the second came late)", b.Seq, hb)
		}
	}
	if _, err := h.recv.CheckChain(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "spool", "pending.jsonl")); !os.IsNotExist(err) {
		t.Errorf("a clean stop leaves a pending file: %v", err)
	}
}

// A passing check waits for the next push; a failing one is sealed and
// pushed at once, taking whatever was staged with it.
func TestFailingCheckIsPushedAtOnce(t *testing.T) {
	h := newHarness(t)
	// Heartbeats and pushes far apart: only the start-up heartbeat and the
	// failure can cause a push within the test.
	h.write("schedules:\n  heartbeat: 5m\n  push: 10m\n  network: 300ms\n  jitter: 1ms\n  health: \"off\"\n  stress: \"off\"\n")
	var runs atomic.Int32
	release := make(chan struct{})
	h.start(func(*config.Config) (Jobs, error) {
		return Jobs{Network: func(ctx context.Context) []wire.Check {
			switch runs.Add(1) {
			case 1:
				return []wire.Check{check("net.gateway.loss", wire.Pass, 0)}
			case 2:
				// Held until the test has looked for the pass: the
				// failure comes when the test says, never early.
				select {
				case <-release:
					return []wire.Check{check("net.gateway.loss", wire.Fail, 40)}
				case <-ctx.Done():
					return nil
				}
			}
			<-ctx.Done() // later runs add nothing: only one failure is pushed
			return nil
		}}, nil
	}, nil)
	h.waitFor("the start-up heartbeat", func() bool { return h.heartbeats() == 1 })
	// The second run begins a network period after the first: the pass has
	// been staged and had that long to be pushed, wrongly. (A loaded
	// machine makes the wait longer, never a failure.)
	h.waitFor("the second network run", func() bool { return runs.Load() >= 2 })
	if got := h.checks()["net.gateway.loss"]; len(got) != 0 {
		t.Fatalf("a passing check was pushed before the push interval: %+v", got)
	}
	close(release)
	h.waitFor("the failing check", func() bool { return len(h.checks()["net.gateway.loss"]) >= 2 })
	bs := h.recv.Batches()
	last := bs[len(bs)-1]
	verdicts := ""
	for _, o := range last.Observations {
		for _, c := range o.Checks {
			verdicts += c.Verdict + " "
		}
	}
	if len(bs) != 2 || verdicts != "pass fail " {
		t.Fatalf("%d batches, the last with verdicts %q; want 2, the second carrying the staged pass and the fail", len(bs), verdicts)
	}
}

// The usage reading is taken at start and at stop besides its schedule: a
// reboot's last counters before it and first after it are what bound the
// traffic across it (docs/bills.md). The one taken at stop is spooled and
// arrives with the next start.
func TestUsageReadingAtStartAndStop(t *testing.T) {
	h := newHarness(t)
	h.write("schedules:\n  heartbeat: 100ms\n  health: \"off\"\n  network: \"off\"\n  stress: \"off\"\n  usage: 1h\n")
	var n atomic.Int32
	build := func(*config.Config) (Jobs, error) {
		return Jobs{Usage: func(context.Context) []wire.Check {
			return []wire.Check{{Name: "usage.boot", Category: wire.CategoryHost, Verdict: wire.Pass, Detail: fmt.Sprintf("reading=%d", n.Add(1))}}
		}}, nil
	}
	h.start(build, nil)
	h.waitFor("the reading at start", func() bool { return len(h.checks()["usage.boot"]) == 1 })
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 2 {
		t.Fatalf("%d readings taken by the stop, want 2 (start and stop)", n.Load())
	}
	h.start(build, nil)
	h.waitFor("the stop's reading and the next start's", func() bool { return len(h.checks()["usage.boot"]) == 3 })
	// With the schedule off, none at all.
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	h.write("schedules:\n  heartbeat: 100ms\n  health: \"off\"\n  network: \"off\"\n  stress: \"off\"\n  usage: \"off\"\n")
	before := n.Load()
	h.start(build, nil)
	h.waitFor("heartbeats", func() bool { return h.heartbeats() >= 8 })
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	if n.Load() != before {
		t.Fatalf("usage off, yet %d readings taken", n.Load()-before)
	}
}
