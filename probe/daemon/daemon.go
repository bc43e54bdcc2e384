// Package daemon is `gpuprobe run`: it schedules the probe's jobs with
// robfig/cron in the configured time zone, turns what each job saw into
// observations, writes them to the spool, and runs the sender that drains
// the spool to the backend. With a push interval (schedules.push, 60 s by
// default) observations are staged durably and sealed into one batch per
// interval — two 30 s heartbeats a request — except a failing check, which
// is sealed and sent at once. It reloads its config on request (SIGHUP) and
// stops cleanly (SIGTERM), leaving unsent batches safely on disk.
//
// Step 3 of the observation pipeline (read, judge, observe, spool, push): it
// schedules the checks (steps 1 and 2), makes each job's checks an
// observation and hands it to step 4 (probe/spool), and runs step 5
// (probe/push). Beside the jobs it watches the TCP link to the backend
// (probe/linkwatch) and spools each change of it as a check.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/push"
	"github.com/gpusla/gpusla/probe/spool"
	"github.com/gpusla/gpusla/probe/wire"
)

// Job is one scheduled measurement. It returns the judged checks; it must
// honour ctx (the daemon cancels it on stop and after its timeout).
type Job func(ctx context.Context) []wire.Check

// Jobs are the measurements the daemon schedules, built from the config by
// the caller (so the daemon does not import NVML, CUDA, …). A nil job is
// not scheduled.
type Jobs struct {
	Health  Job // every schedules.health
	Network Job // every schedules.network
	Stress  Job // stress and bandwidth, daily in the quiet window
	Usage   Job // every schedules.usage: disks, interface byte counters, boot (probe/usage)
	// GPUsIdle says whether the GPUs are idle enough for the stress job
	// (nil: the node has no way to tell, and stress never runs unattended).
	GPUsIdle func(ctx context.Context, maxUtilPct float64) (idle bool, why string, err error)
}

// Builder makes the jobs for a config; it is called again on every reload.
type Builder func(*config.Config) (Jobs, error)

// Daemon runs until its context is cancelled.
type Daemon struct {
	ConfigPath string
	Version    string
	Build      Builder
	Log        *slog.Logger
	// Reload is signalled to re-read the config (SIGHUP).
	Reload <-chan struct{}
	// Now is the clock, for tests of the quiet window; default time.Now.
	Now func() time.Time
	// Transport carries the pushes; nil means net/http's default. The demo
	// node of `gpusla serve` sets one that fails for a while, to make an
	// outage the real daemon has to ride out with its spool.
	Transport http.RoundTripper
}

// Run loads the config, starts everything and runs until ctx is done. A
// config that fails to load at start is an error; one that fails on reload
// is logged and the running config is kept.
func (d *Daemon) Run(ctx context.Context) error {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	cfg, err := config.Load(d.ConfigPath)
	if err != nil {
		return err
	}
	in, err := d.start(cfg)
	if err != nil {
		return err
	}
	sd := notifier{d.Log}
	sd.send("READY=1")
	// The watchdog is fed from this loop, not from a goroutine of its own:
	// a reload or stop that hangs starves it, and systemd restarts us.
	ping, stopPing := sd.watchdog()
	defer stopPing()
	for {
		select {
		case <-ctx.Done():
			sd.send("STOPPING=1")
			in.stop()
			d.Log.Info("gpuprobe stopped")
			return nil
		case <-ping:
			sd.send("WATCHDOG=1")
			continue
		case <-d.Reload:
		}
		next, err := config.Load(d.ConfigPath)
		if err != nil {
			d.Log.Error("reload refused, keeping the running config", "err", err)
			continue
		}
		d.Log.Info("reloading config", "path", d.ConfigPath)
		sd.send("RELOADING=1")
		in.stop()
		nin, err := d.start(next)
		if err != nil {
			// E.g. the new spool dir belongs to another node: go back to
			// what ran, rather than exit into a restart loop.
			d.Log.Error("new config failed to start, going back to the previous one", "err", err)
			if in, err = d.start(cfg); err != nil {
				return err
			}
			sd.send("READY=1")
			continue
		}
		in, cfg = nin, next
		sd.send("READY=1")
	}
}

// instance is everything that runs for one config.
type instance struct {
	d      *Daemon
	cfg    *config.Config
	jobs   Jobs
	sp     *spool.Spool
	sender *push.Sender
	cron   *cron.Cron
	met    *metrics
	batch  *batcher // nil: each observation is its own batch
	srv    *http.Server
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (d *Daemon) start(cfg *config.Config) (*instance, error) {
	jobs, err := d.Build(cfg)
	if err != nil {
		return nil, fmt.Errorf("build jobs: %w", err)
	}
	sp, err := spool.Open(spool.Options{Dir: cfg.Spool.Dir, MaxBytes: int64(cfg.Spool.MaxBytes),
		Node: cfg.Node, Probe: d.Version, Logger: d.Log, Now: d.Now})
	if err != nil {
		return nil, err
	}
	in := &instance{d: d, cfg: cfg, jobs: jobs, sp: sp}
	in.ctx, in.cancel = context.WithCancel(context.Background())
	in.sender = &push.Sender{URL: cfg.Backend.URL, Node: cfg.Node, Secret: cfg.Secret, Queue: sp,
		Client: push.Client(cfg.Backend.Timeout, cfg.Backend.RootCAs, d.Transport), MinBackoff: cfg.Backend.MinBackoff,
		MaxBackoff: cfg.Backend.MaxBackoff, Log: d.Log}
	if pe := cfg.Schedules.PushEvery; pe > 0 {
		in.batch = &batcher{sp: sp, log: d.Log, every: pe,
			perBatch: max(1, int(pe/max(cfg.Schedules.HeartbeatInterval, time.Millisecond)))}
	}
	in.met = newMetrics(sp, in.sender)
	if cfg.Metrics.Listen != "" {
		ln, err := net.Listen("tcp", cfg.Metrics.Listen)
		if err != nil {
			sp.Close()
			return nil, fmt.Errorf("metrics.listen %s: %w", cfg.Metrics.Listen, err)
		}
		in.srv = &http.Server{Handler: in.met.handler(), ReadHeaderTimeout: 5 * time.Second}
		in.wg.Add(1)
		go func() { defer in.wg.Done(); in.srv.Serve(ln) }()
	}
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		for {
			err := in.sender.Run(in.ctx)
			if err == nil {
				return
			}
			// The spool could not be read or updated (a disk problem):
			// nothing is deleted, so try again after a pause.
			d.Log.Error("sender stopped on a spool error; restarting in 10s", "err", err)
			select {
			case <-in.ctx.Done():
				return
			case <-time.After(10 * time.Second):
			}
		}
	}()

	logger := cronLogger{d.Log}
	in.cron = cron.New(cron.WithLocation(cfg.Location), cron.WithLogger(logger),
		cron.WithChain(cron.Recover(logger), cron.SkipIfStillRunning(logger)))
	s := cfg.Schedules
	in.schedule("heartbeat", s.HeartbeatEvery, 10*time.Second, in.heartbeat)
	if jobs.Health != nil {
		in.schedule("health", s.HealthEvery, 2*time.Minute, in.checks("health", jobs.Health, false))
	}
	if jobs.Network != nil {
		in.schedule("network", s.NetworkEvery, 5*time.Minute, in.checks("network", jobs.Network, false))
	}
	if jobs.Usage != nil {
		in.schedule("usage", s.UsageEvery, time.Minute, in.checks("usage", jobs.Usage, false))
	}
	if jobs.Stress != nil {
		in.schedule("stress", s.StressEvery, cfg.Stress.Timeout, in.stress)
	}
	in.cron.Start()
	if lw := in.linkWatcher(); lw != nil {
		in.wg.Add(1)
		go func() { defer in.wg.Done(); lw.Run(in.ctx) }()
	}
	d.Log.Info("gpuprobe running", "node", cfg.Node, "backend", cfg.Backend.URL, "spool", cfg.Spool.Dir,
		"timezone", cfg.TimeZone, "push_every", cfg.Schedules.PushEvery, "link_check", cfg.Backend.LinkEvery, "version", d.Version)
	// A first heartbeat right away, sent at once, tells the backend we are
	// (back) up without waiting a whole interval.
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		if in.ctx.Err() == nil {
			in.append([]wire.Observation{{At: d.Now().UTC(), Kind: wire.KindHeartbeat}}, true)
		}
		// A usage reading at start too: the first after a reboot counts
		// from the boot, so the sooner it is taken the less of the boot an
		// interface reset could hide from it.
		if in.ctx.Err() == nil && in.usageOn() {
			in.checks("usage", in.jobs.Usage, false)(in.ctx)
		}
	}()
	return in, nil
}

// stop cancels running jobs, waits for them and the sender, and closes the
// spool. Whatever was not delivered stays on disk for the next start.
func (in *instance) stop() {
	// A last usage reading before the jobs stop (a clean shutdown or
	// reboot stops the daemon first): what the interfaces sent up to now is
	// then known, and only the seconds to the power-off are not. Reading
	// /proc and /sys takes milliseconds; it is spooled, sealed below and
	// sent at the next start.
	if in.usageOn() && in.ctx.Err() == nil {
		in.record(in.guard(in.ctx, "usage", in.jobs.Usage))
	}
	in.cancel()
	<-in.cron.Stop().Done()
	if in.srv != nil {
		in.srv.Close()
	}
	in.wg.Wait()
	if in.batch != nil {
		// Seal what is staged now rather than at the next start: a reload
		// may point at another spool dir.
		in.batch.stop()
	}
	in.sp.Close()
}

// schedule adds a job with jitter (at most a quarter of its period, so a
// short test interval is not swallowed) and a timeout.
func (in *instance) schedule(name string, sch cron.Schedule, timeout time.Duration, run func(context.Context)) {
	if sch == nil {
		return
	}
	now := time.Now().In(in.cfg.Location)
	first := sch.Next(now)
	jitter := min(in.cfg.Schedules.Jitter, sch.Next(first).Sub(first)/4)
	in.cron.Schedule(sch, cron.FuncJob(func() {
		if jitter > 0 {
			t := time.NewTimer(rand.N(jitter))
			select {
			case <-in.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		ctx, cancel := context.WithTimeout(in.ctx, timeout)
		defer cancel()
		start := time.Now()
		run(ctx)
		in.met.jobRan(name, start, time.Since(start))
	}))
}

// usageOn: the usage job exists and its schedule is not off.
func (in *instance) usageOn() bool {
	return in.jobs.Usage != nil && in.cfg.Schedules.UsageEvery != nil
}

func (in *instance) heartbeat(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	in.append([]wire.Observation{{At: in.d.Now().UTC(), Kind: wire.KindHeartbeat}}, false)
}

// checks wraps a Job: a panic inside it becomes a failed check (evidence)
// instead of a silent gap, and the result is spooled. A job cut short by
// the daemon's stop is dropped (a half-done measurement is not evidence)
// unless keepOnStop: the stress job's results are one complete test each,
// so those it finished are spooled — made into a batch before the daemon
// exits, sent at the next start — rather than lost with the one it was
// running (which it reports as interrupted).
func (in *instance) checks(name string, job Job, keepOnStop bool) func(context.Context) {
	return func(ctx context.Context) {
		cs := in.guard(ctx, name, job)
		if ctx.Err() != nil && in.ctx.Err() != nil && !keepOnStop {
			return
		}
		in.record(cs)
	}
}

func (in *instance) guard(ctx context.Context, name string, job Job) (cs []wire.Check) {
	defer func() {
		if r := recover(); r != nil {
			in.d.Log.Error("job panicked", "job", name, "panic", r, "stack", string(debug.Stack()))
			cs = append(cs, wire.Check{Name: "probe.job." + name, Category: wire.CategoryHost, Verdict: wire.Fail,
				Detail: fmt.Sprintf("panic: %v", r)})
		}
	}()
	cs = job(ctx)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		cs = append(cs, wire.Check{Name: "probe.job." + name, Category: wire.CategoryHost, Verdict: wire.Warn,
			Detail: "the job ran past its timeout and was cancelled"})
	}
	return cs
}

// stress runs the heavy job only in the quiet window and only when the
// GPUs are idle, so the probe never disturbs the renter's own work; when it
// declines it says why, so a missing daily result is explained.
func (in *instance) stress(ctx context.Context) {
	now := in.d.Now().In(in.cfg.Location)
	w := in.cfg.Stress.Window
	skip := func(why string) {
		in.record([]wire.Check{{Name: "probe.stress.run", Category: wire.CategoryHost, Verdict: wire.Skipped, Detail: why}})
	}
	if !w.Contains(now) {
		skip(fmt.Sprintf("%s is outside the quiet window %s (%s)", now.Format("15:04"), w, in.cfg.TimeZone))
		return
	}
	if in.jobs.GPUsIdle == nil {
		skip("cannot tell whether the GPUs are idle on this node")
		return
	}
	idle, why, err := in.jobs.GPUsIdle(ctx, in.cfg.Stress.MaxGPUUtilPct)
	if err != nil {
		skip("cannot tell whether the GPUs are idle: " + err.Error())
		return
	}
	if !idle {
		skip("GPUs busy: " + why)
		return
	}
	in.checks("stress", in.jobs.Stress, true)(ctx)
}

func (in *instance) record(cs []wire.Check) {
	if len(cs) == 0 {
		return
	}
	in.met.observe(cs)
	// A failure may open an incident: it goes out now, not at the next
	// push, so the alert is not held back by batching.
	urgent := false
	for _, c := range cs {
		urgent = urgent || c.Verdict == wire.Fail
	}
	// One observation holds at most wire.MaxChecks checks.
	var obs []wire.Observation
	at := in.d.Now().UTC()
	for len(cs) > 0 {
		n := min(len(cs), wire.MaxChecks)
		obs = append(obs, wire.Observation{At: at, Kind: wire.KindCheck, Checks: cs[:n]})
		cs = cs[n:]
	}
	in.append(obs, urgent)
}

// append spools observations: as their own batch without a push interval,
// else staged for the next push (sealed at once when urgent).
func (in *instance) append(obs []wire.Observation, urgent bool) {
	if in.batch != nil {
		err := in.sp.Stage(obs)
		if err == nil {
			in.batch.added(obs, urgent)
			return
		}
		// Better a batch of its own than an observation lost.
		in.d.Log.Error("cannot stage observations; spooling them as a batch of their own", "err", err)
	}
	if _, err := in.sp.Append(obs); err != nil {
		in.d.Log.Error("cannot spool observations", "err", err)
	}
}

// cronLogger sends cron's messages (skips, recovered panics) to slog.
type cronLogger struct{ l *slog.Logger }

func (c cronLogger) Info(msg string, kv ...any) {
	// cron logs every start at Info; only skips are worth a line.
	if msg == "skip" {
		c.l.Warn("cron: previous run still running, skipped", kv...)
	}
}

func (c cronLogger) Error(err error, msg string, kv ...any) {
	c.l.Error("cron: "+msg, append(kv, "err", err)...)
}
