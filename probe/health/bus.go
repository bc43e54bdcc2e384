package health

import (
	"fmt"
	"strings"

	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/wire"
)

// PCIeReplayLimit is DCGM's: more replays than this since boot means a
// bad link (riser, slot, cable).
const PCIeReplayLimit = 80

// PCIeReplays: link-level retransmissions.
type PCIeReplays struct{}

func (PCIeReplays) Name() string { return "pcie_replays" }

func (PCIeReplays) Check(in Input) []wire.Check {
	return perGPU(in, func(d *gpu.Device) []wire.Check {
		crit := fmt.Sprintf("<= %d replays", PCIeReplayLimit)
		if d.PCIeReplayCounter == nil {
			return []wire.Check{skipped("gpu.pcie.replays", crit, "PCIe replay counter not readable")}
		}
		n := *d.PCIeReplayCounter
		c := wire.Check{Name: "gpu.pcie.replays", Verdict: wire.Pass, Value: fmt.Sprintf("%d", n), Number: num(float64(n)), Unit: "replays", Criterion: crit}
		if n > PCIeReplayLimit {
			c.Verdict, c.Detail = wire.Fail, fmt.Sprintf("%d PCIe replays: the link is retransmitting (bad riser, slot or signal)", n)
		}
		return []wire.Check{c}
	})
}

// NVLink: every link of a GPU that has NVLink should be up. A single GPU
// in a VM reports NVLink as not supported, which is skipped.
type NVLink struct{}

func (NVLink) Name() string { return "nvlink" }

func (NVLink) Check(in Input) []wire.Check {
	return perGPU(in, func(d *gpu.Device) []wire.Check {
		crit := "every NVLink active"
		if len(d.NVLinks) == 0 {
			return []wire.Check{skipped("gpu.nvlink", crit, "NVLink not supported or not exposed on this GPU")}
		}
		var down []string
		for i, up := range d.NVLinks {
			if !up {
				down = append(down, fmt.Sprintf("%d", i))
			}
		}
		c := wire.Check{Name: "gpu.nvlink", Verdict: wire.Pass, Criterion: crit, Unit: "links",
			Value: fmt.Sprintf("%d of %d active", len(d.NVLinks)-len(down), len(d.NVLinks)), Number: num(float64(len(d.NVLinks) - len(down)))}
		switch {
		case len(down) == len(d.NVLinks):
			// All down on a single GPU is normal; with peers it is not, but
			// the probe cannot tell from one device, so it warns.
			c.Verdict, c.Detail = wire.Warn, "no NVLink is active (normal only for a GPU without NVLink peers)"
		case len(down) > 0:
			c.Verdict, c.Detail = wire.Fail, "NVLink down: link "+strings.Join(down, ", ")
		}
		return []wire.Check{c}
	})
}

// Idle limits for a fresh rental: anything busier is a noisy neighbour
// or a leftover tenant.
const (
	IdleUtilizationPct = 5
	// Memory in use with no process visible (another VM or container):
	// more than the driver's own reservation.
	IdleMemoryMiB = 2048
)

// Tenants: other processes, utilisation and memory in use on a GPU that
// should be idle.
type Tenants struct{}

func (Tenants) Name() string { return "tenants" }

func (Tenants) Check(in Input) []wire.Check {
	return perGPU(in, func(d *gpu.Device) []wire.Check {
		var out []wire.Check
		p := wire.Check{Name: "gpu.processes", Verdict: wire.Pass, Criterion: "no other process on the GPU", Unit: "processes",
			Number: num(float64(len(d.Processes))), Value: fmt.Sprintf("%d", len(d.Processes))}
		switch {
		case !d.ProcessesReadable:
			p.Verdict, p.Value, p.Detail = wire.Skipped, "-", "process list not readable"
		case len(d.Processes) > 0:
			var ps []string
			for _, pr := range d.Processes {
				ps = append(ps, fmt.Sprintf("pid %d (%s, %d MiB)", pr.PID, pr.Kind, pr.UsedMemoryMiB))
			}
			p.Verdict, p.Detail = wire.Warn, "processes on the GPU: "+strings.Join(ps, ", ")+" (a leftover tenant, or your own jobs)"
		}
		out = append(out, p)
		if d.UtilizationGPU != nil {
			u := float64(*d.UtilizationGPU)
			c := wire.Check{Name: "gpu.utilization", Verdict: wire.Pass, Value: fmt.Sprintf("%.0f %%", u), Number: num(u), Unit: "%",
				Criterion: fmt.Sprintf("< %d %% when idle", IdleUtilizationPct)}
			if u >= IdleUtilizationPct {
				c.Verdict, c.Detail = wire.Warn, "the GPU is busy: a noisy neighbour or leftover tenant, unless your own jobs are running"
			}
			out = append(out, c)
		}
		if d.MemoryUsedMiB != nil && len(d.Processes) == 0 {
			m := float64(*d.MemoryUsedMiB)
			c := wire.Check{Name: "gpu.memory_in_use", Verdict: wire.Pass, Value: fmt.Sprintf("%.0f MiB", m), Number: num(m), Unit: "MiB",
				Criterion: fmt.Sprintf("< %d MiB with no process", IdleMemoryMiB)}
			if m >= IdleMemoryMiB {
				c.Verdict, c.Detail = wire.Warn, "GPU memory is in use by processes this machine cannot see (another VM or container)"
			}
			out = append(out, c)
		}
		return out
	})
}
