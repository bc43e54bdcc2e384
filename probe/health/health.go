// Package health judges whether the GPUs still work, one component per
// signal (in the manner of gpud): temperature, power, clock events, ECC,
// remapped rows, retired pages, PCIe replays, XIDs from NVML events and
// from the kernel log, NVLink, and other tenants' processes. Each
// component reads a snapshot and returns wire.Checks; none of them reads
// hardware, so recorded snapshots are judged exactly like live readings.
//
// Step 2 of the observation pipeline (read, judge, observe, spool, push):
// judges the GPU snapshot and the kernel log's XIDs.
package health

import (
	"context"

	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/kmsg"
	"github.com/gpusla/gpusla/probe/wire"
)

// Input is what the components judge.
type Input struct {
	GPU    *gpu.Snapshot
	Kernel *kmsg.Log // nil: the kernel log was not read
}

// Component judges one health signal.
type Component interface {
	Name() string
	Check(in Input) []wire.Check
}

// Components are all health signals, in report order.
var Components = []Component{
	Temperature{}, Power{}, ClockEvents{}, ECC{}, RemappedRows{}, RetiredPages{},
	PCIeReplays{}, XIDEvents{}, KernelXIDs{}, NVLink{}, Tenants{},
}

// Judge runs every component.
func Judge(in Input) []wire.Check {
	var out []wire.Check
	for _, c := range Components {
		out = append(out, c.Check(in)...)
	}
	return out
}

// KernelLog reads the kernel log; kmsg.Reader is the live one.
type KernelLog interface {
	Read(ctx context.Context) (*kmsg.Log, error)
}

// Collect reads the GPUs and the kernel log and judges them: the function
// the daemon schedules. Without NVML the GPU components are not run, but
// the kernel log is still judged: XID 79 there is how a GPU that has
// fallen off the bus shows up when the driver no longer lists it.
func Collect(ctx context.Context, src gpu.Source, klog KernelLog) []wire.Check {
	var in Input
	var out []wire.Check
	s, err := src.Read(ctx)
	if err != nil {
		out = append(out, wire.Check{Name: "gpu.health", Category: wire.CategoryGPULost, Verdict: wire.Fail,
			Value: "unavailable", Criterion: "NVML answers", Detail: err.Error()})
	} else {
		in.GPU = s
	}
	if klog != nil {
		in.Kernel, _ = klog.Read(ctx) // a failed read is carried in Log.Error and judged
	}
	return append(out, Judge(in)...)
}

func num(v float64) *float64 { return &v }
func idx(i int) *int         { return &i }

// perGPU runs f for each device that can be judged.
func perGPU(in Input, f func(d *gpu.Device) []wire.Check) []wire.Check {
	if in.GPU == nil {
		return nil
	}
	var out []wire.Check
	for i := range in.GPU.Devices {
		d := &in.GPU.Devices[i]
		for _, c := range f(d) {
			c.GPU, c.UUID = idx(d.Index), d.UUID
			if c.Category == "" {
				c.Category = wire.CategoryGPUDegraded
			}
			out = append(out, c)
		}
	}
	return out
}

// skipped reports a reading the GPU does not offer.
func skipped(name, criterion, why string) wire.Check {
	return wire.Check{Name: name, Verdict: wire.Skipped, Value: "-", Criterion: criterion, Detail: why}
}

// skippedSaid is skipped with a criterion that is one of the probe's
// sentences with arguments.
func skippedSaid(name string, criterion wire.Text, why string) wire.Check {
	c := skipped(name, "", why)
	c.Criterion, c.CriterionText = wire.Put(criterion)
	return c
}
