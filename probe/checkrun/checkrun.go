// Package checkrun runs groups of checks once — on the live machine or on
// a recorded snapshot — and renders the result as a table or JSON with a
// documented exit code. It is what `gpuprobe check` and `gpuprobe
// snapshot` are made of; the check groups themselves (GPU, host, stress…)
// are plain values, so adding one is adding an element to a list.
//
// Steps 1 and 2 of the observation pipeline (read, judge, observe, spool,
// push), run once: it reads and judges, then prints the checks where the
// daemon would observe, spool and push them.
package checkrun

import (
	"context"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/probe/crosscheck"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/host"
	"github.com/gpusla/gpusla/probe/kmsg"
	"github.com/gpusla/gpusla/probe/pcisys"
	"github.com/gpusla/gpusla/probe/wire"
)

// SnapshotFormat is the version of the snapshot file layout.
const SnapshotFormat = 1

// Snapshot is every raw reading of one machine at one moment: what
// `gpuprobe snapshot` writes and `gpuprobe check --snapshot` judges.
type Snapshot struct {
	Format   int       `json:"format"`
	Probe    string    `json:"probe"` // probe version that recorded it
	Hostname string    `json:"hostname,omitempty"`
	TakenAt  time.Time `json:"taken_at"`
	Note     string    `json:"note,omitempty"` // what a crafted snapshot represents
	// Expected is the order the machine was recorded against, used when
	// judging the snapshot without --expect or --config.
	Expected *expect.Expected `json:"expected,omitempty"`
	GPU      *gpu.Snapshot    `json:"gpu,omitempty"`
	// GPUError says why the GPUs could not be read (no driver, …).
	GPUError string         `json:"gpu_error,omitempty"`
	Kernel   *kmsg.Log      `json:"kernel_log,omitempty"`
	Host     *host.Snapshot `json:"host,omitempty"`
	// PCI and CUDA are the kernel's and the CUDA driver's views of the
	// GPUs, which NVML's answers are held to (probe/crosscheck).
	PCI  *pcisys.Snapshot     `json:"pci,omitempty"`
	CUDA *crosscheck.CUDAView `json:"cuda,omitempty"`
}

// Group is a set of checks run together.
type Group struct {
	Name string
	// Read takes the group's raw readings from the live machine into the
	// snapshot. An error is recorded by the group itself in the snapshot
	// (so that it is judged); the returned error aborts the run.
	Read func(ctx context.Context, s *Snapshot) error
	// Judge turns the snapshot's readings into checks; it runs on live and
	// recorded snapshots alike.
	Judge func(s *Snapshot) []wire.Check
	// Run is for groups that measure rather than read (stress and
	// bandwidth tests): live runs only; judging a recorded snapshot
	// reports the group as skipped.
	Run func(ctx context.Context) []wire.Check
	// Skip, when set, lists the rows Run would give, each skipped with
	// why: judging a recorded snapshot then names every check it could
	// not make (the network group's) instead of one row for the group.
	Skip func(why string) []wire.Check
	// Curves, when set, returns the per-second curves the last Run
	// recorded (the soak's throughput), carried in the --json report.
	Curves func() []Curve
}

// Curve is one per-second series a measuring group recorded.
type Curve struct {
	// Name is the check the curve belongs to, e.g. gpu.soak.bf16.
	Name string `json:"name"`
	GPU  *int   `json:"gpu,omitempty"`
	Unit string `json:"unit"`
	// PerSecond holds one figure for each second, in order.
	PerSecond []float64 `json:"per_second"`
}

// Progress is told how far a run is; see TerminalProgress.
type Progress interface {
	Start(steps int)
	Step(name string)
	Done()
}

type noProgress struct{}

func (noProgress) Start(int)   {}
func (noProgress) Step(string) {}
func (noProgress) Done()       {}

// Runner runs groups.
type Runner struct {
	Groups   []Group
	Progress Progress
	Probe    string
	Now      func() time.Time
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now().UTC()
	}
	return time.Now().UTC()
}

func (r *Runner) progress() Progress {
	if r.Progress == nil {
		return noProgress{}
	}
	return r.Progress
}

// Take reads every group's raw readings from the live machine.
func (r *Runner) Take(ctx context.Context) (*Snapshot, error) {
	s := &Snapshot{Format: SnapshotFormat, Probe: r.Probe, TakenAt: r.now()}
	p := r.progress()
	steps := 0
	for _, g := range r.Groups {
		if g.Read != nil {
			steps++
		}
	}
	p.Start(steps)
	defer p.Done()
	for _, g := range r.Groups {
		if g.Read == nil {
			continue
		}
		p.Step("reading " + g.Name)
		if err := g.Read(ctx, s); err != nil {
			return nil, fmt.Errorf("%s: %w", g.Name, err)
		}
	}
	return s, nil
}

// Live reads the machine, judges it and runs the measuring groups.
func (r *Runner) Live(ctx context.Context) (*Snapshot, *Report, error) {
	start := time.Now()
	p := r.progress()
	steps := 0
	for _, g := range r.Groups {
		for _, f := range []bool{g.Read != nil, g.Judge != nil, g.Run != nil} {
			if f {
				steps++
			}
		}
	}
	p.Start(steps)
	defer p.Done()
	s := &Snapshot{Format: SnapshotFormat, Probe: r.Probe, TakenAt: r.now()}
	var checks []wire.Check
	var curves []Curve
	for _, g := range r.Groups {
		if g.Read != nil {
			p.Step("reading " + g.Name)
			if err := g.Read(ctx, s); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", g.Name, err)
			}
		}
		if g.Judge != nil {
			p.Step("judging " + g.Name)
			checks = append(checks, g.Judge(s)...)
		}
		if g.Run != nil {
			p.Step("running " + g.Name)
			checks = append(checks, g.Run(ctx)...)
			if g.Curves != nil {
				curves = append(curves, g.Curves()...)
			}
		}
	}
	rep := newReport(r.Probe, "live", s.TakenAt, time.Since(start), checks)
	rep.Curves = curves
	return s, rep, nil
}

// Recorded judges a recorded snapshot.
func (r *Runner) Recorded(s *Snapshot, source string) *Report {
	start := time.Now()
	var checks []wire.Check
	for _, g := range r.Groups {
		if g.Judge != nil {
			checks = append(checks, g.Judge(s)...)
			continue
		}
		if g.Run != nil && g.Skip != nil {
			checks = append(checks, g.Skip("a recorded snapshot holds no measurements to judge")...)
			continue
		}
		if g.Run != nil {
			checks = append(checks, wire.Check{Name: g.Name, Category: wire.CategoryPerformance, Verdict: wire.Skipped,
				Value: "-", Criterion: "measured on the live machine", Detail: "a recorded snapshot holds no measurements to judge"})
		}
	}
	return newReport(r.Probe, source, s.TakenAt, time.Since(start), checks)
}
