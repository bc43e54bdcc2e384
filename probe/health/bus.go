package health

import (
	"fmt"
	"slices"
	"strings"
	"time"

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
		crit := wire.T("<= %d replays", PCIeReplayLimit)
		if d.PCIeReplayCounter == nil {
			return []wire.Check{skippedSaid("gpu.pcie.replays", crit, "PCIe replay counter not readable")}
		}
		n := *d.PCIeReplayCounter
		c := wire.Check{Name: "gpu.pcie.replays", Verdict: wire.Pass, Value: fmt.Sprintf("%d", n), Number: num(float64(n)), Unit: "replays"}
		c.Criterion, c.CriterionText = wire.Put(crit)
		if n > PCIeReplayLimit {
			c.Verdict = wire.Fail
			c.SetDetail("%d PCIe replays: the link is retransmitting (bad riser, slot or signal)", n)
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
		c := wire.Check{Name: "gpu.nvlink", Verdict: wire.Pass, Criterion: crit, Unit: "links", Number: num(float64(len(d.NVLinks) - len(down)))}
		c.SetValue("%d of %d active", len(d.NVLinks)-len(down), len(d.NVLinks))
		switch {
		case len(down) == len(d.NVLinks):
			// All down on a single GPU is normal; with peers it is not, but
			// the probe cannot tell from one device, so it warns.
			c.Verdict, c.Detail = wire.Warn, "no NVLink is active (normal only for a GPU without NVLink peers)"
		case len(down) > 0:
			c.Verdict = wire.Fail
			c.SetDetail("NVLink down: link %s", strings.Join(down, ", "))
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

// OwnStressRunning is the reason the idleness checks give when the probe's
// own GPU work overlapped the read.
const OwnStressRunning = "the probe's own stress job was running"

// Tenants: other processes, utilisation and memory in use on a GPU that
// should be idle. The probe's own work is never a tenant: its own
// processes (gpu.OwnWork.PIDs) are left out, a read that overlapped its own
// GPU work (its stress job, or another probe process's burn) skips all
// three checks, and utilisation is judged only over samples taken after
// its own last GPU work had settled.
type Tenants struct{}

func (Tenants) Name() string { return "tenants" }

func (Tenants) Check(in Input) []wire.Check {
	var own gpu.OwnWork
	if in.GPU != nil && in.GPU.OwnWork != nil {
		own = *in.GPU.OwnWork
	}
	return perGPU(in, func(d *gpu.Device) []wire.Check {
		if own.Running {
			return []wire.Check{
				skipped("gpu.processes", "no other process on the GPU", OwnStressRunning),
				skippedSaid("gpu.utilization", wire.T("< %d %% when idle", IdleUtilizationPct), OwnStressRunning),
				skippedSaid("gpu.memory_in_use", wire.T("< %d MiB with no process", IdleMemoryMiB), OwnStressRunning),
			}
		}
		var out []wire.Check
		others, ownMiB, nOwn := tenantsOf(d.Processes, own.PIDs)
		others, podMiB, nPod := renterPods(others)
		p := wire.Check{Name: "gpu.processes", Verdict: wire.Pass, Criterion: "no other process on the GPU", Unit: "processes",
			Number: num(float64(len(others))), Value: fmt.Sprintf("%d", len(others))}
		switch {
		case nOwn > 0 && nPod > 0:
			p.SetValue("%d (the probe's own %d left out) (%d of the renter's own Kubernetes pods left out)", len(others), nOwn, nPod)
		case nOwn > 0:
			p.SetValue("%d (the probe's own %d left out)", len(others), nOwn)
		case nPod > 0:
			p.SetValue("%d (%d of the renter's own Kubernetes pods left out)", len(others), nPod)
		}
		switch {
		case !d.ProcessesReadable:
			p.Verdict, p.Value, p.Detail = wire.Skipped, "-", "process list not readable"
		case len(others) > 0:
			var ps []string
			for _, pr := range others {
				ps = append(ps, fmt.Sprintf("pid %d (%s, %d MiB)", pr.PID, pr.Kind, pr.UsedMemoryMiB))
			}
			p.Verdict = wire.Warn
			p.SetDetail("processes on the GPU: %s (a leftover tenant, or your own jobs)", strings.Join(ps, ", "))
		}
		out = append(out, p)
		if nPod > 0 {
			// The renter's own pods are using the GPU: its utilisation
			// and memory say nothing of a tenant.
			return append(out, skippedSaid("gpu.utilization", wire.T("< %d %% when idle", IdleUtilizationPct), RenterPodsRunning),
				skippedSaid("gpu.memory_in_use", wire.T("< %d MiB with no process", IdleMemoryMiB), RenterPodsRunning))
		}
		if c, ok := utilization(d, own, in.GPU.TakenAt); ok {
			out = append(out, c)
		}
		if d.MemoryUsedMiB != nil && len(others) == 0 {
			m := float64(*d.MemoryUsedMiB) - float64(ownMiB) - float64(podMiB)
			c := wire.Check{Name: "gpu.memory_in_use", Verdict: wire.Pass, Value: fmt.Sprintf("%.0f MiB", m), Number: num(m), Unit: "MiB"}
			c.SetCriterion("< %d MiB with no process", IdleMemoryMiB)
			if nOwn > 0 {
				c.SetValue("%.0f MiB (the probe's own %d MiB left out)", m, ownMiB)
			}
			if m >= IdleMemoryMiB {
				c.Verdict, c.Detail = wire.Warn, "GPU memory is in use by processes this machine cannot see (another VM or container)"
			}
			out = append(out, c)
		}
		return out
	})
}

// RenterPodsRunning is the reason the utilisation and memory checks give
// when the renter's own Kubernetes pods use the GPU (probe/kube).
const RenterPodsRunning = "the renter's own Kubernetes pods are using this GPU"

// renterPods splits processes into others' and those of the renter's own
// Kubernetes pods (gpu.Proc.Pod), with the pods' memory.
func renterPods(ps []gpu.Proc) (others []gpu.Proc, podMiB uint64, nPod int) {
	for _, pr := range ps {
		if pr.Pod != "" {
			podMiB += pr.UsedMemoryMiB
			nPod++
			continue
		}
		others = append(others, pr)
	}
	return others, podMiB, nPod
}

// tenantsOf splits a GPU's processes into others' and the probe's own.
func tenantsOf(ps []gpu.Proc, own []uint32) (others []gpu.Proc, ownMiB uint64, nOwn int) {
	for _, pr := range ps {
		if slices.Contains(own, pr.PID) {
			ownMiB += pr.UsedMemoryMiB
			nOwn++
			continue
		}
		others = append(others, pr)
	}
	return others, ownMiB, nOwn
}

// utilization judges a GPU's utilisation over NVML's timestamped samples
// of the read's window (the last gpu.UtilWindow, none taken before the
// probe's own last GPU work had settled), or, where the driver has no
// samples, NVML's latest rate; the value says which. A rate read too soon
// after the probe's own work is skipped rather than judged.
func utilization(d *gpu.Device, own gpu.OwnWork, takenAt time.Time) (wire.Check, bool) {
	c := wire.Check{Name: "gpu.utilization", Verdict: wire.Pass, Unit: "%"}
	c.SetCriterion("< %d %% when idle", IdleUtilizationPct)
	clean := time.Time{}
	if !own.EndedAt.IsZero() {
		clean = own.EndedAt.Add(gpu.OwnWorkSettle)
	}
	var judged []gpu.UtilSample
	for _, s := range d.UtilizationSamples {
		if s.At.After(clean) {
			judged = append(judged, s)
		}
	}
	var u float64
	switch {
	case len(judged) > 0:
		u = gpu.MeanUtil(judged)
		span := judged[len(judged)-1].At.Sub(judged[0].At)
		v := wire.T("%.0f %% (mean of %d NVML samples over %.1f s)", u, len(judged), span.Seconds())
		if !clean.IsZero() {
			v = wire.T("%.0f %% (mean of %d NVML samples over %.1f s, all after the probe's own GPU work had settled)", u, len(judged), span.Seconds())
		}
		if e := d.UtilizationEarlier; len(e) > 0 {
			v = wire.T("%s; the %s before averaged %.0f %%, so it was read again", v, gpu.UtilWindow.String(), gpu.MeanUtil(e))
		}
		c.Value, c.ValueText = wire.Put(v)
		c.SetCriterion("< %d %% when idle (mean of NVML's utilisation samples of the last %s; a busy window is confirmed by the next)",
			IdleUtilizationPct, gpu.UtilWindow.String())
	case d.UtilizationGPU != nil:
		u = float64(*d.UtilizationGPU)
		c.SetValue("%.0f %% (NVML's utilisation rate; no timestamped samples)", u)
		if !clean.IsZero() && !takenAt.IsZero() && takenAt.Before(clean) {
			c.Verdict, c.Value = wire.Skipped, "-"
			c.SetDetail("the rate still covers the probe's own GPU work, which ended %s before the read (it needs %s)",
				takenAt.Sub(own.EndedAt).Round(time.Millisecond).String(), gpu.OwnWorkSettle.String())
			return c, true
		}
	default:
		return c, false
	}
	c.Number = num(u)
	if u >= IdleUtilizationPct {
		c.Verdict, c.Detail = wire.Warn, "the GPU is busy: a noisy neighbour or leftover tenant, unless your own jobs are running"
	}
	return c, true
}
