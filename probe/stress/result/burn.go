package result

import "fmt"

// Precision names a compute burn.
type Precision string

// The burns gpuprobe runs, in this order.
const (
	FP32 Precision = "fp32"
	FP64 Precision = "fp64"
	TF32 Precision = "tf32"
	BF16 Precision = "bf16"
	FP16 Precision = "fp16"
	// FP8 runs E4M3 and E5M2 products in every launch (burn.cu's
	// burn_wg_fp8); it needs the wgmma kernels, so compute capability 9.0.
	FP8 Precision = "fp8"
)

// AllPrecisions lists every burn in run order.
var AllPrecisions = []Precision{FP32, FP64, TF32, BF16, FP16, FP8}

// WgmmaPrecisions are the burns that have a wgmma kernel (sm_90a PTX).
var WgmmaPrecisions = []Precision{TF32, BF16, FP16, FP8}

// IsWgmma reports whether p has a wgmma kernel.
func (p Precision) IsWgmma() bool {
	for _, q := range WgmmaPrecisions {
		if q == p {
			return true
		}
	}
	return false
}

// Mismatch is one output element that differed from the host reference.
type Mismatch struct {
	Launch int     `json:"launch"`
	Index  uint64  `json:"index"`
	Got    float64 `json:"got"`
	Want   float64 `json:"want"`
}

// Burn is one precision's burn on one GPU.
type Burn struct {
	GPU       int       `json:"gpu"`
	Precision Precision `json:"precision"`
	Engine    string    `json:"engine"`
	Kernel    string    `json:"kernel"`
	// Fallback says why a tensor burn ran on mma.sync where the card's
	// wgmma kernel would have run (it failed the sanity burn, or the
	// sm_90a PTX did not load); the throughput is then judged against the
	// mma.sync threshold.
	Fallback string  `json:"fallback,omitempty"`
	Skipped  string  `json:"skipped,omitempty"`
	Error    string  `json:"error,omitempty"`
	Seconds  float64 `json:"seconds"`
	Launches int     `json:"launches"`
	Grid     int     `json:"grid_blocks"`
	// Checked counts output elements compared with the host reference.
	Checked    uint64     `json:"checked"`
	Mismatches uint64     `json:"mismatches"`
	FirstBad   []Mismatch `json:"first_bad,omitempty"`
	Injected   bool       `json:"fault_injected,omitempty"`
	// Samples are TFLOP/s per second of burn; the first (clocks ramping)
	// is left out of the statistics when there are three or more.
	Samples []float64 `json:"samples_tflops"`
	Median  float64   `json:"median_tflops"`
	Min     float64   `json:"min_tflops"`
	CV      float64   `json:"cv"`
	Monitor *Monitor  `json:"monitor,omitempty"`
	// Interrupted says why the burn stopped before it finished (the run
	// was cancelled: SIGTERM, SIGINT, the job's timeout): its partial
	// figures are no measurement, and only the faults it found are judged.
	Interrupted string `json:"interrupted,omitempty"`
}

// Sanity is one wgmma kernel's sanity burn: one short launch on the whole
// grid, every output element checked against the host reference, before
// the kernel is used.
type Sanity struct {
	Precision  Precision  `json:"precision"`
	Kernel     string     `json:"kernel"`
	Passed     bool       `json:"passed"`
	Checked    uint64     `json:"checked"`
	Mismatches uint64     `json:"mismatches"`
	FirstBad   []Mismatch `json:"first_bad,omitempty"`
	Error      string     `json:"error,omitempty"`
}

// Why says in a few words why a kernel did not pass.
func (s Sanity) Why() string {
	switch {
	case s.Passed:
		return "passed"
	case s.Error != "":
		return s.Error
	case s.Mismatches > 0:
		return fmt.Sprintf("%d wrong of %d values", s.Mismatches, s.Checked)
	}
	return "nothing checked"
}

// Monitor is what the once-a-second sampling saw during one burn.
type Monitor struct {
	Samples    int     `json:"samples"`
	PowerMeanW float64 `json:"power_mean_w"`
	PowerMinW  float64 `json:"power_min_w"`
	PowerMaxW  float64 `json:"power_max_w"`
	// PowerFluctPct is the largest distance of a sample of the steady part
	// from its mean, in % of the mean (the seed checklist's "within ±5 %").
	PowerFluctPct float64 `json:"power_fluct_pct"`
	// SteadyFrom is the index in PowerSamples where the steady part
	// begins (after the ramp); SteadySamples how many readings it has.
	// The power statistics above cover only it. PowerUnjudged says why the
	// burn has no steady part to judge (empty: judged).
	SteadyFrom    int     `json:"steady_from"`
	SteadySamples int     `json:"steady_samples"`
	PowerUnjudged string  `json:"power_unjudged,omitempty"`
	PowerLimitW   float64 `json:"power_limit_w,omitempty"`
	TempPeakC     float64 `json:"temp_peak_c"`
	SlowdownC     float64 `json:"slowdown_c,omitempty"`
	SMClockMedian float64 `json:"sm_clock_median_mhz"`
	SMClockMin    float64 `json:"sm_clock_min_mhz"`
	MaxSMClockMHz float64 `json:"max_sm_clock_mhz,omitempty"`
	// ClockEvents ORs the reason bits seen; EventSamples counts, per
	// named reason, the samples it was active in.
	ClockEvents  uint64         `json:"clock_events"`
	EventSamples map[string]int `json:"event_samples,omitempty"`
	XIDs         []uint64       `json:"xids,omitempty"`
	Errors       []string       `json:"errors,omitempty"`
	// PowerSamples are all readings in order, warm-up included (W).
	PowerSamples []float64 `json:"power_samples_w,omitempty"`
}

// Clock-event reason bits (nvmlClocksEventReason*).
const (
	ClockIdle          = 0x1
	ClockAppSetting    = 0x2
	ClockSWPowerCap    = 0x4
	ClockHWSlowdown    = 0x8
	ClockSyncBoost     = 0x10
	ClockSWThermal     = 0x20
	ClockHWThermal     = 0x40
	ClockHWPowerBrake  = 0x80
	ClockDisplayClocks = 0x100
)
