// Package demo is the built-in demo node of `gpusla serve`: the probe's own
// daemon (probe/daemon: scheduler, durable spool, batching, signed push) run
// in-process against serve's HTTP API on a fast schedule, so that a
// newcomer sees heartbeats, an alert and a recovery within three minutes.
//
// Nothing is faked on the backend's side. The outage is made on the wire: a
// flaky transport fails every push for a while, the daemon keeps spooling,
// and the spooled batches arrive late and close (and reclassify) the
// incident. The GPU checks are the probe's verdicts on recorded snapshots
// of real machines, built into the binary, so serve needs no source tree.
package demo

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/daemon"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/host"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/terms"
)

// NodeID is the demo node's id.
const NodeID = "demo-node"

// The recorded machines the demo's GPUs read like.
const (
	healthySnapshot = "h200x2-real.json"
	faultySnapshot  = "h200-remap-pending-xid79.json"
)

// expected is what the demo node "ordered": the recorded machine.
var expected = expect.Expected{Model: "H200", GPUs: 2, GPUMemoryGB: 141}

// Timeline is when the demo does what, counted from the probe's start.
type Timeline struct {
	Heartbeat time.Duration
	Push      time.Duration
	Grace     time.Duration
	// Health is how often the GPU checks run; the host checks run every
	// HostEvery (they are slower, and say little new each time).
	Health    time.Duration
	HostEvery time.Duration
	// From PauseAt for PauseFor every push fails.
	PauseAt, PauseFor time.Duration
	// From FaultAt for FaultFor the GPUs read like a machine whose GPU fell
	// off the bus (XID 79) with a row remap pending.
	FaultAt, FaultFor time.Duration
}

// Default is the timeline serve runs (docs/backend.md describes it).
var Default = Timeline{Heartbeat: 5 * time.Second, Push: 10 * time.Second, Grace: 15 * time.Second,
	Health: 10 * time.Second, HostEvery: 30 * time.Second,
	PauseAt: 40 * time.Second, PauseFor: 50 * time.Second, FaultAt: 100 * time.Second, FaultFor: 30 * time.Second}

// Config says whether the demo runs and where it keeps its files.
type Config struct {
	// Mode: "on", "off", or "auto" (on when no other node is registered).
	Mode string
	// Data is serve's data folder. The probe's config and secret go in
	// demo-probe/ there, its spool in demo-spool/ (where it always was, so
	// a restarted serve continues the demo node's batch sequence).
	Data string
	// TermsDir is the folder serve reads contract terms from (<data>/terms);
	// "" when they come from elsewhere ($GPUSLA_TERMS). When the demo node
	// is first registered, its contract's terms (terms.yaml) are written
	// there as demo.yaml unless that file exists: the demo is judged as a
	// real node is, and the public status page lists it.
	TermsDir string
	// HTTPS says serve speaks https, where the demo probe, which pushes
	// over plain http to loopback, cannot run: auto is then off.
	HTTPS    bool
	Timeline Timeline
}

// Node is a demo node ready to run.
type Node struct {
	cfgPath, secretPath, spoolDir string
	tl                            Timeline
	healthy, faulty               *checkrun.Snapshot
	log                           *slog.Logger
	done                          sync.WaitGroup
	flaky                         *Flaky
	grace                         time.Duration // the watchdog's, for this node
	startMu                       sync.Mutex
	started                       time.Time
}

// Setup registers the demo node when the mode asks for it and writes the
// probe's config and secret into c.Dir; nil when the demo is off.
func Setup(ctx context.Context, c Config, svc *app.Service, st store.Store, box app.SecretBox, log *slog.Logger) (*Node, error) {
	if c.Mode == "off" {
		return nil, nil
	}
	nodes, err := st.ListNodes(ctx)
	if err != nil {
		return nil, err
	}
	var existing *store.Node
	real := 0
	for i := range nodes {
		if nodes[i].ID == NodeID {
			existing = &nodes[i]
		} else {
			real++
		}
	}
	if c.Mode == "auto" && (real > 0 || c.HTTPS) {
		return nil, retire(ctx, svc, existing, real, log)
	}
	if existing != nil && !existing.ReleasedAt.IsZero() {
		if c.Mode == "auto" {
			return nil, nil // the renter released it: the demo is over
		}
		return nil, fmt.Errorf("--demo on: the demo node was released at %s, when the demo ended; "+
			"its observations would be ignored: run the demo on a data folder of its own (--data)",
			existing.ReleasedAt.Format(time.RFC3339))
	}
	tl := c.Timeline
	if tl == (Timeline{}) {
		tl = Default
	}
	d := &Node{log: log.With("demo", true)}
	if d.healthy, err = checkrun.Recorded(healthySnapshot); err != nil {
		return nil, err
	}
	if d.faulty, err = checkrun.Recorded(faultySnapshot); err != nil {
		return nil, err
	}
	var secret []byte
	var reg store.Node
	if existing != nil {
		reg = *existing
	}
	if existing == nil {
		// The model as ordered; that its readings are recorded snapshots is
		// the demo's to say (its log), not the node's.
		reg, secret, err = svc.AddNode(ctx, app.NewNode{ID: NodeID, Provider: "demo-provider", Contract: "demo", OrderedAt: svc.Now(),
			GPUModel: expected.Model, GPUCount: expected.GPUs,
			GPUMemoryMiB:      int(expected.GPUMemoryGB * 1024),
			HeartbeatInterval: tl.Heartbeat, PushInterval: tl.Push, Grace: tl.Grace, Demo: true})
		if err != nil {
			return nil, fmt.Errorf("register demo node: %w", err)
		}
		log.Info("registered the demo node", "node", NodeID, "heartbeat", tl.Heartbeat, "push", tl.Push, "grace", tl.Grace)
		if err := writeTerms(c.TermsDir, log); err != nil {
			return nil, err
		}
	} else if secret, err = box.Open(existing.SealedSecret, existing.ID); err != nil {
		return nil, fmt.Errorf("demo node: %w", err)
	}
	judgeByDemoTerms(svc, c.TermsDir)
	// The grace the watchdog holds the demo node to: the demo contract's
	// detection.heartbeat_grace when terms name one, else the node's own.
	d.grace = svc.Thresholds(reg).Grace
	d.tl = fitPause(tl, d.grace)
	data, err := filepath.Abs(c.Data)
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	dir := filepath.Join(data, "demo-probe")
	d.cfgPath, d.secretPath, d.spoolDir = filepath.Join(dir, "gpuprobe.yaml"), filepath.Join(dir, "secret"), filepath.Join(data, "demo-spool")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("demo probe folder: %w", err)
	}
	// The secret file is written as an operator writes it on a real node;
	// WriteFile keeps the mode of an existing file, and the daemon refuses
	// a secret others can read, hence the Chmod.
	if err := os.WriteFile(d.secretPath, secret, 0o600); err != nil {
		return nil, fmt.Errorf("demo probe secret: %w", err)
	}
	if err := os.Chmod(d.secretPath, 0o600); err != nil {
		return nil, fmt.Errorf("demo probe secret: %w", err)
	}
	// Made here, not in Run, so that whoever holds the Node reads it
	// without a race.
	d.flaky = d.newFlaky()
	return d, nil
}

// retire releases a demo node left registered once the demo is over (a
// node of the renter's own is registered, or serve speaks https): its probe
// no longer runs, and unreleased it would go unreachable, alert, and stand
// on the status page as an outage for good.
func retire(ctx context.Context, svc *app.Service, demo *store.Node, real int, log *slog.Logger) error {
	if demo == nil || !demo.ReleasedAt.IsZero() {
		return nil
	}
	n, err := svc.ReleaseNode(ctx, app.NodeRelease{Node: demo.ID, At: svc.Now(), By: "serve:demo"})
	if err != nil {
		return fmt.Errorf("release the demo node: %w", err)
	}
	why := "serve speaks https, and the demo probe pushes over plain http"
	if real > 0 {
		why = fmt.Sprintf("%d node(s) of your own are registered", real)
	}
	log.Info("the demo is over: released the demo node, whose probe no longer runs, so it raises no alert",
		"node", n.ID, "released_at", n.ReleasedAt, "why", why)
	return nil
}

// newFlaky is the demo's transport: every push fails from PauseAt for
// PauseFor, and the log says so and when the alert is due.
func (d *Node) newFlaky() *Flaky {
	return &Flaky{From: d.tl.PauseAt, For: d.tl.PauseFor, Since: d.elapsed,
		OnFail: func() {
			d.log.Warn(fmt.Sprintf("demo: every push now fails for %s (the probe keeps running and spooling) — watch for an unreachable alert in ~%s (heartbeat %s + grace %s + a watchdog tick) and a recovery after",
				d.tl.PauseFor, alertAfter(d.tl, d.grace), d.tl.Heartbeat, d.grace))
		},
		OnRecover: func() {
			d.log.Info("demo: pushes get through again; the spooled batches arrive late and close the incident")
		}}
}

// watchdogEvery is serve's watchdog schedule while the demo runs
// (functions/serve: @every 10s unless set).
const watchdogEvery = 10 * time.Second

// alertAfter is how long after the pushes stop the unreachable alert
// comes: the last heartbeat's interval, the grace, and a watchdog tick.
func alertAfter(tl Timeline, grace time.Duration) time.Duration {
	return tl.Heartbeat + grace + watchdogEvery
}

// fitPause lengthens the pause in pushes (and moves the GPU fault after
// it) where the grace is too long for the alert to come while the pushes
// fail: a demo contract's terms may give 2m where the demo's own is 15s,
// and a demo that promises an alert must show one.
func fitPause(tl Timeline, grace time.Duration) Timeline {
	need := alertAfter(tl, grace) + 20*time.Second
	if tl.PauseFor >= need {
		return tl
	}
	shift := need - tl.PauseFor
	tl.PauseFor = need
	if tl.FaultAt >= tl.PauseAt {
		tl.FaultAt += shift
	}
	return tl
}

// config is the gpuprobe config for the backend at url, what an operator
// writes on a real node (docs/probe.md). The jitter is kept
// small against the demo's short periods; network and stress are off (the
// demo has no connectivity evidence, which its reclassification shows).
func (d *Node) config(url string) string {
	return fmt.Sprintf(`node: %s
backend:
  url: %s
  timeout: 10s
  min_backoff: 500ms
secret_file: %s
schedules:
  heartbeat: %s
  push: %s
  health: %s
  network: "off"
  stress: "off"
  jitter: 100ms
spool:
  dir: %s
expected:
  model: %s
  gpus: %d
  gpu_memory_gb: %g
`, NodeID, strconv.Quote(url), strconv.Quote(d.secretPath), d.tl.Heartbeat, d.tl.Push, d.tl.Health,
		strconv.Quote(d.spoolDir), expected.Model, expected.GPUs, expected.GPUMemoryGB)
}

// Run runs the probe's daemon against the ingest endpoint url until ctx is
// done.
func (d *Node) Run(ctx context.Context, url string) {
	d.done.Add(1)
	defer d.done.Done()
	if err := writeConfig(d, url); err != nil {
		d.log.Error("demo probe", "err", err)
		return
	}
	d.startMu.Lock()
	d.started = time.Now()
	d.startMu.Unlock()
	d.log.Info("demo probe started: the probe's daemon pushes real signed batches every "+d.tl.Push.String()+
		" (heartbeats, host checks, GPU checks judged on a recorded 2 × H200 snapshot)", "node", NodeID, "url", url)
	dm := &daemon.Daemon{ConfigPath: d.cfgPath, Version: "gpusla-demo", Build: d.jobs, Log: d.log, Transport: d.flaky}
	if err := dm.Run(ctx); err != nil {
		d.log.Error("demo probe", "err", err)
	}
}

func writeConfig(d *Node, url string) error {
	if err := os.WriteFile(d.cfgPath, []byte(d.config(url)), 0o600); err != nil {
		return fmt.Errorf("demo probe config: %w", err)
	}
	return nil
}

// Wait returns once Run has stopped (its spool closed).
func (d *Node) Wait() { d.done.Wait() }

func (d *Node) elapsed() time.Duration {
	d.startMu.Lock()
	defer d.startMu.Unlock()
	return time.Since(d.started)
}

// jobs is the daemon's Builder: a health job that judges the recorded GPU
// snapshot due at this point of the timeline and, every HostEvery, this
// host's own /proc and /sys.
func (d *Node) jobs(cfg *config.Config) (daemon.Jobs, error) {
	var mu sync.Mutex
	var lastHost time.Time
	var faulted bool
	health := func(ctx context.Context) []wire.Check {
		snap := d.snapshot(d.elapsed())
		cs := checkrun.JudgeGPU(snap, specdb.Default(), cfg.Expected)
		mu.Lock()
		defer mu.Unlock()
		if f := snap == d.faulty; f != faulted {
			faulted = f
			if f {
				d.log.Warn("demo: GPU readings now come from a recorded machine whose GPU fell off the bus (XID 79) with a row remap pending — watch for gpu_lost and gpu_degraded alerts after two failing checks")
			} else {
				d.log.Info("demo: GPU readings are healthy again — the incidents close after two passing checks")
			}
		}
		if time.Since(lastHost) >= d.tl.HostEvery {
			// The host running serve was not ordered: its checks are
			// shown, not judged against an expectation.
			cs = append(cs, host.Collect(ctx, host.Reader{}, expect.Expected{})...)
			lastHost = time.Now()
		}
		return cs
	}
	return daemon.Jobs{Health: health}, nil
}

// snapshot is the recorded machine the demo's GPUs read like at el.
func (d *Node) snapshot(el time.Duration) *checkrun.Snapshot {
	if el >= d.tl.FaultAt && el < d.tl.FaultAt+d.tl.FaultFor {
		return d.faulty
	}
	return d.healthy
}

// demoTerms is the demo contract's terms file.
//
//go:embed terms.yaml
var demoTerms []byte

// TermsFile is the name the demo contract's terms are written under.
const TermsFile = "demo.yaml"

// writeTerms writes the demo contract's terms into dir, unless dir is ""
// or the file is there already (the renter's own, kept as it is).
// judgeByDemoTerms installs the demo contract's terms in dir (the file
// serve is about to load with the rest) when the service has none yet, so
// the demo node is judged by its contract from its first instant, without
// a warning that its contract is unknown. A file that does not parse is
// left to serve's loading of the terms, which names its mistake.
func judgeByDemoTerms(svc *app.Service, dir string) {
	book := svc.TermsBook()
	if _, ok := book["demo"]; ok || dir == "" {
		return
	}
	ts, err := terms.ReadFile(filepath.Join(dir, TermsFile))
	if err != nil {
		return
	}
	next := make(app.TermsBook, len(book)+len(ts))
	maps.Copy(next, book)
	for _, tm := range ts {
		next[tm.Contract] = tm
	}
	svc.SetTerms(next)
}

func writeTerms(dir string, log *slog.Logger) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("demo terms: %w", err)
	}
	p := filepath.Join(dir, TermsFile)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("demo terms: %w", err)
	}
	if _, err := f.Write(demoTerms); err != nil {
		f.Close()
		return fmt.Errorf("demo terms: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("demo terms: %w", err)
	}
	log.Info("wrote the demo contract's terms: its node is on the public status page", "terms", p)
	return nil
}
