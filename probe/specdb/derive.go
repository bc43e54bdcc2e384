package specdb

import (
	"fmt"
	"strconv"
	"strings"
)

// CC is the compute capability as major x 10 + minor (90 for "9.0"); 0
// when it is not given.
func (m *Model) CC() int {
	major, minor, _ := strings.Cut(m.ComputeCapability, ".")
	a, err1 := strconv.Atoi(major)
	b, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return 0
	}
	return 10*a + b
}

// Where no healthy card of a model was measured, its performance
// thresholds are derived from its datasheet: fail below Fail x the
// datasheet figure, warn below Warn x. The ratios come from what a healthy
// H200 reached in gpuprobe's own tests (REFERENCE.md, docs/BENCHMARKS.md)
// with a margin, as DCGM fails below ~0.75 x what a healthy card achieves:
// a derived threshold must never fail a genuine card, so it is looser than
// a measured one and says where it comes from (docs/probe-check.md lists
// them).
type ratio struct {
	Fail, Warn float64
	Why        string
}

var (
	// FFMA/DFMA chains and DMMA run at 0.95-0.98 of the peak on a healthy
	// H200; 0.70 leaves room for cards that cannot hold their boost clock
	// under a full burn.
	computeRatio = ratio{0.70, 0.85, "gpuprobe's FMA and FP64 tensor burns reach 0.95-0.98 of the peak on a healthy H200"}
	// mma.sync is the tensor cores' native path before Hopper.
	tensorRatio = ratio{0.70, 0.85, "mma.sync is the native tensor-core path on this architecture"}
	// On Hopper mma.sync reaches 0.66 of the dense datasheet rate (the
	// rest needs wgmma): healthy H200, TF32 326 of 494.7, BF16 652 of 989.
	// It is the threshold of the mma.sync fallback (stress.*.mma_sync).
	hopperTensorRatio = ratio{0.50, 0.58, "gpuprobe's mma.sync burns reach 0.66 of Hopper's dense tensor rate on a healthy H200 (the rest needs wgmma)"}
	// The wgmma burns (sm_90a) reach 0.85-0.99 of the dense rate on a
	// healthy 700 W H200 (BF16 0.91, FP16 0.85, FP8 0.87 at its power cap;
	// TF32 0.99 at 1980 MHz; docs/BENCHMARKS.md). Parts with a
	// lower power limit (PCIe, NVL: 350-600 W) are capped harder, so the
	// derived level stays as loose as mma.sync's.
	hopperWgmmaRatio = ratio{0.50, 0.60, "gpuprobe's wgmma burns reach 0.85-0.99 of Hopper's dense tensor rate on a healthy 700 W H200; cards of lower power limits are capped harder"}
	// Cards of 75 W or less (T4, L4) run burns at their power cap, far
	// below the boost clock the datasheet rates assume.
	lowPowerRatio = ratio{0.50, 0.70, "a card of 75 W or less runs a burn at its power cap, below the datasheet's boost clock"}
	// The best device copy of a healthy H200 reaches 0.89 of its datasheet.
	copyRatio = ratio{0.75, 0.85, "the best device-memory copy of a healthy H200 reaches 0.89 of the datasheet bandwidth"}
	// Pinned copies of a healthy H200 reach 0.88 of PCIe 5.0 x16.
	pcieRatio = ratio{0.60, 0.70, "pinned copies of a healthy H200 reach 0.88 of PCIe 5.0 x16"}
	// A healthy NV18 H200 pair copies at 0.875 of 450 GB/s one way; Azure
	// fails H100/H200 below 335 (0.74).
	peerRatio = ratio{0.60, 0.70, "a healthy H200 pair copies at 0.875 of NVLink's one-way bandwidth; Azure fails H100/H200 pairs below 0.74"}
	// A ring all-reduce's bus bandwidth approaches the one-way NVLink
	// bandwidth of each GPU (nccl-tests on NVLink machines: about 0.8 of
	// it at 1 GiB with NVLink SHARP off); half of it is far below any
	// healthy NVLink node and far above any PCIe path, so a fabric that
	// fell back to PCIe or lost most of its links fails, a healthy one
	// never does.
	allReduceRatio = ratio{0.50, 0.60, "a ring all-reduce on healthy NVLink reaches about 0.8 of each GPU's one-way NVLink bandwidth (nccl-tests, NVLS off); PCIe paths reach a small fraction of it"}
	// The power test draws 0.986 of the limit on a healthy H200.
	powerRatio = ratio{0.80, 0.90, "gpuprobe's power test draws 0.986 of the power limit on a healthy H200"}
)

// pcieGBps is the one-way bandwidth of a PCIe link (after 128b/130b
// encoding for gen 3 and later), 0 for generations the probe does not know.
func pcieGBps(gen, width int) float64 {
	per16 := map[int]float64{3: 15.75, 4: 31.5, 5: 63, 6: 126}[gen]
	return per16 * float64(width) / 16
}

// derive adds a datasheet-derived threshold for every measurement the
// model has a datasheet figure for and no threshold of its own.
func derive(m *Model) {
	if m.Thresholds == nil {
		m.Thresholds = map[string]Threshold{}
	}
	add := func(name string, official float64, unit, what string, r ratio) {
		if _, ok := m.Thresholds[name]; ok || official <= 0 {
			return
		}
		m.Thresholds[name] = Threshold{
			Min: round3(r.Fail * official), Warn: round3(r.Warn * official), Official: official, Unit: unit, Derived: true,
			Source: fmt.Sprintf("derived from datasheet: fail below %.2f x, warn below %.2f x the %s %g %s (%s); no healthy %s measured yet",
				r.Fail, r.Warn, what, official, unit, r.Why, m.DisplayName()),
		}
	}
	cc := m.CC()
	compute, tensor := computeRatio, tensorRatio
	switch {
	case cc >= 90 && cc < 100:
		tensor = hopperTensorRatio
	case cc >= 100 && cc < 120:
		// mma.sync on Blackwell's datacenter parts does not use tcgen05;
		// how far it reaches is unknown until one is measured, so no
		// tensor threshold is derived (the checks say so).
		tensor = ratio{}
	}
	if m.DefaultPowerW > 0 && m.DefaultPowerW <= 75 {
		compute, tensor = lowPowerRatio, lowPowerRatio
	}
	add("stress.fp32", m.FP32, "TFLOP/s", "datasheet FP32", compute)
	// gpuprobe's FP64 burn is the DMMA tensor path from compute capability
	// 8.0, FMA chains before; GeForce parts have no FP64 tensor figure and
	// run DMMA at their FP64 rate.
	fp64, what := m.FP64, "datasheet FP64"
	if m.FP64Tensor > 0 && cc >= 80 {
		fp64, what = m.FP64Tensor, "datasheet FP64 tensor"
	}
	add("stress.fp64", fp64, "TFLOP/s", what, compute)
	// Compute capability 9.0 exactly runs the wgmma burns (sm_90a PTX),
	// and mma.sync only as the fallback when a wgmma kernel fails its
	// sanity burn; FP8 has a burn there alone.
	if cc == 90 && tensor.Fail > 0 {
		wg := hopperWgmmaRatio
		if tensor == lowPowerRatio {
			wg = lowPowerRatio
		}
		add("stress.tf32.mma_sync", m.TF32, "TFLOP/s", "datasheet dense TF32", tensor)
		add("stress.bf16.mma_sync", m.BF16, "TFLOP/s", "datasheet dense BF16", tensor)
		add("stress.fp16.mma_sync", m.FP16, "TFLOP/s", "datasheet dense FP16 (FP32 accumulate)", tensor)
		tensor = wg
		add("stress.fp8", m.FP8, "TFLOP/s", "datasheet dense FP8", wg)
	}
	if tensor.Fail > 0 && cc >= 80 {
		add("stress.tf32", m.TF32, "TFLOP/s", "datasheet dense TF32", tensor)
		add("stress.bf16", m.BF16, "TFLOP/s", "datasheet dense BF16", tensor)
		add("stress.fp16", m.FP16, "TFLOP/s", "datasheet dense FP16 (FP32 accumulate)", tensor)
	}
	add("bw.d2d", m.MemoryBandwidth, "GB/s", "datasheet memory bandwidth", copyRatio)
	pcie := pcieGBps(m.PCIeGen, m.PCIeWidth)
	add("bw.h2d", pcie, "GB/s", fmt.Sprintf("PCIe %d.0 x%d one-way", m.PCIeGen, m.PCIeWidth), pcieRatio)
	add("bw.d2h", pcie, "GB/s", fmt.Sprintf("PCIe %d.0 x%d one-way", m.PCIeGen, m.PCIeWidth), pcieRatio)
	add("bw.p2p", m.NVLinkGBps, "GB/s", "datasheet NVLink one-way", peerRatio)
	add("nccl.allreduce", m.NVLinkGBps, "GB/s", "datasheet NVLink one-way", allReduceRatio)
	add("stress.power", m.DefaultPowerW, "W", "default power limit", powerRatio)
}

func round3(v float64) float64 {
	// Three significant figures are plenty for a threshold and read well.
	s := fmt.Sprintf("%.3g", v)
	var f float64
	fmt.Sscan(s, &f)
	return f
}
