package stress

// Spec holds, for one GPU model, the official figures (to show the % of
// the datasheet beside every result) and the thresholds a healthy card of
// that model meets, each with its source. Thresholds are calibrated to
// measurements of healthy cards, not to the datasheet: a genuine H200's
// best copy reaches 89 % of its 4.8 TB/s, so "≥ 90 % of the official
// figure" would fail a good card.
//
// Keys: fp32, fp64, tf32, bf16, fp16 (TFLOP/s, dense); d2d (device memory
// copy, GB/s counting read + write); h2d, d2h (pinned, GB/s); p2p (GB/s one
// way between two GPUs of the machine).
type Spec struct {
	Model    string
	Official map[string]float64
	// Min is the lowest figure a healthy card of this model shows, with
	// the reason for each number in Source.
	Min    map[string]float64
	Source map[string]string
}

// specs by 16-bit PCI device id. Official figures: the vendor's datasheet
// (REFERENCE.md). Calibrations: gpuprobe stress on two genuine H200 SXM,
// driver 580.159.04, 2026-11-30 (docs/BENCHMARKS.md, "GPU stress and
// bandwidth"), and published health-check minimums where named.
var specs = map[uint16]Spec{
	0x2335: h200("NVIDIA H200 SXM 141GB"),
	0x233b: h200("NVIDIA H200 NVL"),
	0x2330: h100sxm("NVIDIA H100 SXM5 80GB"),
	0x2339: h100sxm("NVIDIA H100 SXM5 94GB"),
}

func h200(model string) Spec {
	return Spec{
		Model: model,
		Official: map[string]float64{
			"fp32": 66.9, "fp64": 66.9, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4,
			"d2d": 4800, "h2d": 63, "d2h": 63, "p2p": 478,
		},
		Min: map[string]float64{
			"fp32": 58.8, "fp64": 57.1, "tf32": 291, "bf16": 587, "fp16": 587,
			"d2d": 4077, "h2d": 48, "d2h": 48, "p2p": 335,
		},
		Source: map[string]string{
			"fp32": "0.9 × 65.3 TFLOP/s, this burn on two healthy H200s at 1980 MHz; 0.9 leaves room for board spread, a card clocked 10 % down fails",
			"fp64": "0.9 × 63.5 TFLOP/s, this burn (DMMA m16n8k16) on two healthy H200s",
			"tf32": "0.9 × 324 TFLOP/s, this burn (mma.sync m16n8k8) on two healthy H200s",
			"bf16": "0.9 × 652 TFLOP/s, this burn (mma.sync m16n8k16) on two healthy H200s",
			"fp16": "0.9 × 652 TFLOP/s, this burn (mma.sync m16n8k16) on two healthy H200s",
			"d2d":  "0.95 × 4292 GB/s, cuMemcpyDtoD on two healthy H200s (89 % of the datasheet: no copy reaches 90 %)",
			"h2d":  "48 GB/s, Azure's H100/H200 node health check",
			"d2h":  "48 GB/s, Azure's H100/H200 node health check",
			"p2p":  "335 GB/s, Azure's H100/H200 GPU-to-GPU health check (healthy NV18 pair: 394)",
		},
	}
}

// h100sxm: same SM count and clocks as the H200, so the compute thresholds
// carry over; memory scaled by the datasheet ratio 3350/4800 from the
// H200 measurement (not yet measured on an H100 here).
func h100sxm(model string) Spec {
	s := h200(model)
	s.Official["d2d"] = 3350
	s.Min["d2d"] = 2830
	s.Source["d2d"] = "0.95 × 4274 × 3350/4800 GB/s: the H200 calibration scaled by datasheet bandwidth (not yet measured on an H100)"
	return s
}

// SpecFor returns the spec of a PCI device id, if one is known.
func SpecFor(deviceID uint16) (Spec, bool) {
	s, ok := specs[deviceID]
	return s, ok
}
