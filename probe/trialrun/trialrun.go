// Package trialrun is `gpuprobe trial`: the seed's whole battery on a
// freshly delivered node in one run — the four steps after delivery, the
// burns, the 30-minute soak, the power test, bandwidth and the memory test,
// the all-reduce where there are two GPUs or more, iperf3 to a peer —
// with a planned wall time and a progress display. Each step's results are
// pushed like the daemon's (spooled, then sent signed; probe/push), and at
// the end the run writes a local report the renter keeps and the signed
// acceptance record (probe/wire/acceptance), every criterion of the seed
// judged by sla/trial.
//
// The steps are plain values (Battery builds the real ones), so the run
// itself is tested with steps that return recorded results.
package trialrun

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/probe/wire/acceptance"
	"github.com/gpusla/gpusla/sla/trial"
)

// Step is one part of the battery.
type Step struct {
	Name    string
	Planned time.Duration
	// Idle: the step reads the node before any of the trial's GPU work
	// (the four steps after delivery): its readings are the ones held to
	// "idle" (sla/trial).
	Idle   bool
	Run    func(ctx context.Context) []wire.Check
	Curves func() []checkrun.Curve // the soak's per-second curve; may be nil
	// NotRun, when set, is why the step is not run (a replayed snapshot
	// holds nothing the step measures): it is listed with that reason and
	// its criteria are not measured.
	NotRun string
}

// Options are a run's inputs.
type Options struct {
	Steps    []Step
	Probe    string // the probe's version
	Node     string // node id ("" without --config)
	Hostname string
	Order    expect.Expected
	// Soak is the soak's planned length (0: none); the seed's is 30 min.
	Soak time.Duration
	// Out is the folder the report and the record are written to.
	Out string
	Key ed25519.PrivateKey
	// Push delivers the results (nil: not pushed).
	Push     *Pusher
	PushWait time.Duration
	Progress *Progress
	Now      func() time.Time
	// Replayed names the recorded snapshot the steps judge (gpuprobe
	// trial --snapshot); nil for a trial of the live machine.
	Replayed *acceptance.Replayed
}

// SeedSoak is the seed's soak: "gpu_burn 连续运行30分钟无报错".
const SeedSoak = 30 * time.Minute

// StepReport is what one step did.
type StepReport struct {
	Name           string       `json:"name"`
	PlannedSeconds float64      `json:"planned_seconds"`
	Seconds        float64      `json:"seconds"`
	Started        time.Time    `json:"started"`
	NotRun         string       `json:"not_run,omitempty"` // why it did not run (the trial was stopped)
	Checks         []wire.Check `json:"checks"`
}

// ReportFormat is the version of trial.json.
const ReportFormat = 1

// Report is trial.json: the manifest's content with every check.
type Report struct {
	Format int `json:"format"`
	acceptance.Manifest
	Steps  []StepReport     `json:"steps"`
	Curves []checkrun.Curve `json:"curves,omitempty"`
}

// Result is where a run left its files.
type Result struct {
	Report     *Report
	Dir        string
	RecordPath string
	RecordHash string // SHA-256 of the record's manifest
	// Delivered is what the backend had acknowledged when the trial ended,
	// after the push wait; the record's own figure (Report.Pushed) is from
	// before it was signed, so it counts fewer.
	Delivered *acceptance.Pushed
}

// Run runs the steps in order, pushes each step's results, then judges them
// against the seed's criteria and writes trial.json, trial.md and the
// signed acceptance.zip into o.Out. A stopped context ends the battery
// early; what ran is still judged and recorded (its rows not measured).
func Run(ctx context.Context, o Options) (*Result, error) {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %w", o.Out, err)
	}
	rep := &Report{Format: ReportFormat, Manifest: acceptance.Manifest{Node: o.Node, Hostname: o.Hostname, Probe: o.Probe,
		Started: now().UTC(), Order: orderJSON(o.Order),
		Soak: acceptance.Soak{PlannedSeconds: o.Soak.Seconds(), SeedSeconds: SeedSoak.Seconds(), Shortened: o.Soak < SeedSoak}, Replayed: o.Replayed}}
	var planned time.Duration
	for _, s := range o.Steps {
		planned += s.Planned
	}
	rep.PlannedSeconds = planned.Seconds()
	o.Progress.Start(len(o.Steps), planned, now())
	if o.Push != nil {
		o.Push.Observe(wire.Observation{At: now().UTC(), Kind: wire.KindHeartbeat})
	}
	results := runSteps(ctx, o, now, rep)
	rep.Finished = now().UTC()
	rep.WallSeconds = rep.Finished.Sub(rep.Started).Seconds()
	rep.Rows = trial.Judge(trial.Node{Model: o.Order.Model, GPUs: gpuCount(o.Order, results), MemoryMiB: o.Order.GPUMemoryGB * 1024, Results: results})
	rep.Verdict = acceptance.VerdictOf(rep.Rows)
	rep.Counts = counts(rep.Steps)
	if o.Push != nil {
		rep.Pushed = o.Push.Summary()
	}
	res, err := write(o, rep)
	if err != nil {
		return nil, err
	}
	if o.Push != nil {
		o.Push.Observe(wire.Observation{At: now().UTC(), Kind: wire.KindCheck, Checks: []wire.Check{recordCheck(res, rep)}})
		res.Delivered = o.Push.Wait(o.PushWait)
	}
	o.Progress.Done(rep.Verdict, now())
	return res, nil
}

// runSteps runs each step, pushing its results as one observation (or
// more, for a step with more than a batch's checks), and returns every
// result for the judging.
func runSteps(ctx context.Context, o Options, now func() time.Time, rep *Report) []trial.Result {
	var results []trial.Result
	for i, s := range o.Steps {
		sr := StepReport{Name: s.Name, PlannedSeconds: s.Planned.Seconds(), Started: now().UTC(), Checks: []wire.Check{}}
		if s.NotRun != "" {
			sr.NotRun = s.NotRun
			rep.Steps = append(rep.Steps, sr)
			continue
		}
		if err := ctx.Err(); err != nil {
			sr.NotRun = fmt.Sprintf("the trial was stopped (%v)", context.Cause(ctx))
			rep.Steps = append(rep.Steps, sr)
			continue
		}
		o.Progress.Step(i, s.Name, s.Planned, now())
		cs := s.Run(ctx)
		if cs != nil {
			sr.Checks = cs
		}
		sr.Seconds = now().Sub(sr.Started).Seconds()
		if s.Curves != nil {
			rep.Curves = append(rep.Curves, s.Curves()...)
		}
		rep.Steps = append(rep.Steps, sr)
		o.Progress.StepDone(i, s.Name, cs, now())
		at := sr.Started
		for _, c := range cs {
			results = append(results, resultOf(c, at, s.Idle))
		}
		if o.Push != nil {
			o.Push.Observe(wire.Observation{At: at, Kind: wire.KindCheck, Checks: append(markers(s, i, len(o.Steps), o.Replayed), cs...)})
		}
	}
	return results
}

// markers tag a step's observation as the trial's, so the backend's trial
// page knows which readings were taken while the node should be idle, and
// which were replayed from a recording.
func markers(s Step, i, n int, replayed *acceptance.Replayed) []wire.Check {
	step := wire.Check{Name: "probe.trial", Category: wire.CategoryHost, Verdict: wire.Pass, Criterion: "recorded: a step of gpuprobe trial"}
	step.SetValue("step %d of %d: %s", i+1, n, s.Name)
	if replayed != nil {
		// For the backend's reader, not translated: the file is data.
		step.Detail = fmt.Sprintf("replayed from the recorded snapshot %s (sha256 %s, taken %s)", replayed.File, replayed.SHA256, replayed.TakenAt.UTC().Format(time.RFC3339))
	}
	m := []wire.Check{step}
	if s.Idle {
		m = append(m, wire.Check{Name: "probe.trial.idle", Category: wire.CategoryHost, Verdict: wire.Pass,
			Value: "read before the trial's GPU work", Criterion: "recorded: these readings are held to idle"})
	}
	return m
}

// recordCheck names the signed record in the node's own batches: its
// manifest's SHA-256 and the key's fingerprint reach the renter's backend
// signed with the node's secret, which ties the key to the node.
func recordCheck(res *Result, rep *Report) wire.Check {
	return wire.Check{Name: "probe.trial.record", Category: wire.CategoryHost, Verdict: wire.Pass,
		Value:     "sha256 " + res.RecordHash,
		Criterion: "recorded: the signed acceptance record of this trial",
		Detail:    fmt.Sprintf("key %s; verdict %s; %s", rep.KeyID, rep.Verdict, res.RecordPath)}
}

func resultOf(c wire.Check, at time.Time, idle bool) trial.Result {
	return trial.Result{Name: c.Name, Category: c.Category, Verdict: c.Verdict, Value: c.Value, Criterion: c.Criterion,
		Number: c.Number, Unit: c.Unit, GPU: c.GPU, Detail: c.Detail, DetailText: c.DetailText, At: at, Idle: idle, Trial: true}
}

// orderJSON is the order as the record carries it.
func orderJSON(e expect.Expected) json.RawMessage {
	b, err := json.Marshal(e)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

// gpuCount is the GPUs ordered, else the count the node reported.
func gpuCount(order expect.Expected, rs []trial.Result) int {
	if order.GPUs > 0 {
		return order.GPUs
	}
	for _, r := range rs {
		if r.Name == "gpu.count" && r.Number != nil {
			return int(*r.Number)
		}
	}
	return 0
}

func counts(steps []StepReport) map[string]int {
	c := map[string]int{wire.Pass: 0, wire.Warn: 0, wire.Fail: 0, wire.Skipped: 0}
	for _, s := range steps {
		for _, x := range s.Checks {
			c[x.Verdict]++
		}
	}
	return c
}

// RecordName is the record's file name in the output folder.
const RecordName = "acceptance.zip"

// DefaultOut is the output folder when none is given: the run's start in
// the working folder.
func DefaultOut(start time.Time) string {
	return filepath.Join(".", "gpuprobe-trial-"+start.UTC().Format("20060102T150405Z"))
}
