package checkrun

import (
	"context"
	"errors"

	"github.com/gpusla/gpusla/probe/authn"
	"github.com/gpusla/gpusla/probe/crosscheck"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/health"
	"github.com/gpusla/gpusla/probe/host"
	"github.com/gpusla/gpusla/probe/kmsg"
	"github.com/gpusla/gpusla/probe/pcisys"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
)

// GPUGroup reads the GPUs through src and the kernel log through klog, and
// judges inventory, authenticity and health. exp points at the order, so
// the command can settle it (flags, config, or the snapshot's own) after
// building its groups.
func GPUGroup(src gpu.Source, klog health.KernelLog, db *specdb.DB, exp *expect.Expected) Group {
	return Group{
		Name: "gpu",
		Read: func(ctx context.Context, s *Snapshot) error {
			g, err := src.Read(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				s.GPUError = err.Error()
			}
			s.GPU = g
			if klog != nil {
				// A failed read is kept in the log's Error and judged.
				s.Kernel, _ = klog.Read(ctx)
			}
			return nil
		},
		Judge: func(s *Snapshot) []wire.Check { return JudgeGPU(s, db, *exp) },
	}
}

// JudgeGPU is the GPU group's verdicts on a snapshot.
func JudgeGPU(s *Snapshot, db *specdb.DB, exp expect.Expected) []wire.Check {
	var out []wire.Check
	switch {
	case s.GPU != nil:
		out = append(out, authn.Judge(s.GPU, db, exp)...)
	case s.GPUError != "":
		out = append(out, authn.DriverCheck(errors.New(s.GPUError)))
	default:
		out = append(out, wire.Check{Name: "gpu.driver", Category: wire.CategoryGPULost, Verdict: wire.Skipped,
			Value: "-", Criterion: "NVML answers", Detail: "the snapshot holds no GPU readings"})
	}
	return append(out, health.Judge(health.Input{GPU: s.GPU, Kernel: s.Kernel})...)
}

// CrossCheckGroup reads the kernel's view of the GPUs under root (/sys,
// /proc/driver/nvidia) and, with readCUDA, the CUDA driver's, and holds
// NVML's answers to them (gpu.identity.consistent). It must come after
// the GPU group, whose NVML readings it compares.
func CrossCheckGroup(root string, readCUDA func(context.Context) *crosscheck.CUDAView) Group {
	return Group{
		Name: "crosscheck",
		Read: func(ctx context.Context, s *Snapshot) error {
			s.PCI = pcisys.Read(root)
			if readCUDA != nil {
				s.CUDA = readCUDA(ctx)
			}
			return nil
		},
		Judge: JudgeCrossCheck,
	}
}

// JudgeCrossCheck is the cross-check group's verdicts on a snapshot.
func JudgeCrossCheck(s *Snapshot) []wire.Check {
	if s.GPU == nil {
		return nil
	}
	if s.PCI == nil && s.CUDA == nil {
		return []wire.Check{{Name: "gpu.identity.consistent", Category: wire.CategoryInventory, Verdict: wire.Skipped, Value: "-",
			Criterion: "NVML agrees with the PCI bus, the driver's /proc and CUDA", Detail: "the snapshot holds no PCI or CUDA view to compare NVML with"}}
	}
	return crosscheck.Judge(crosscheck.Input{NVML: s.GPU, Kernel: s.PCI, CUDA: s.CUDA})
}

// HostGroup reads and judges the host.
func HostGroup(r host.Reader, exp *expect.Expected) Group {
	return Group{
		Name: "host",
		Read: func(ctx context.Context, s *Snapshot) error {
			h, err := r.Read(ctx)
			if err != nil {
				return err
			}
			s.Host = h
			return nil
		},
		Judge: func(s *Snapshot) []wire.Check {
			if s.Host == nil {
				return []wire.Check{{Name: "host.read", Category: wire.CategoryHost, Verdict: wire.Skipped,
					Value: "-", Criterion: "host readings", Detail: "the snapshot holds no host readings"}}
			}
			return host.Judge(s.Host, *exp)
		},
	}
}

// KernelLogReader is kmsg's live reader, named here so a command needs
// no kmsg import to build the GPU group.
func KernelLogReader() health.KernelLog { return kmsg.Reader{} }

// CollectGPU reads the GPUs and the kernel log once and judges inventory,
// authenticity and health: the GPU half of the daemon's scheduled health
// job (host.Collect is the other half).
func CollectGPU(ctx context.Context, src gpu.Source, klog health.KernelLog, db *specdb.DB, exp expect.Expected) []wire.Check {
	return Collect(ctx, GPUGroup(src, klog, db, &exp))
}

// Collect reads the groups into one snapshot and judges it, so that later
// groups (the cross-check) judge the readings of earlier ones.
func Collect(ctx context.Context, groups ...Group) []wire.Check {
	s := &Snapshot{}
	var out []wire.Check
	for _, g := range groups {
		if err := g.Read(ctx, s); err != nil {
			return append(out, wire.Check{Name: g.Name + ".read", Category: wire.CategoryGPULost, Verdict: wire.Fail,
				Criterion: "the " + g.Name + " readings can be taken", Detail: err.Error()})
		}
	}
	for _, g := range groups {
		out = append(out, g.Judge(s)...)
	}
	return out
}
