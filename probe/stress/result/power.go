package result

import "fmt"

// PowerMix is one way of loading the card: how often each thread copies
// a vector through device memory, and whether the tensor operands are
// reloaded from shared memory every iteration.
type PowerMix struct {
	// MemEvery: a copy every MemEvery-th loop iteration (0: none).
	MemEvery  int  `json:"mem_every"`
	SharedOps bool `json:"shared_ops"`
}

func (m PowerMix) String() string {
	s := "no copy"
	if m.MemEvery > 0 {
		s = fmt.Sprintf("copy every %d iterations", m.MemEvery)
	}
	if m.SharedOps {
		s += ", operands from shared memory"
	}
	return s
}

// PowerTrial is one mix tried while tuning.
type PowerTrial struct {
	PowerMix
	PowerW  float64 `json:"power_w"`
	TFLOPS  float64 `json:"tflops"`
	CopyGBs float64 `json:"copy_gbs"`
	Seconds float64 `json:"seconds"`
}

// Power is the power test on one GPU.
type Power struct {
	GPU     int    `json:"gpu"`
	Engine  string `json:"engine"`
	Kernel  string `json:"kernel"`
	Skipped string `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
	// Tuning lists the mixes tried, Mix the one kept and Tuned how it
	// was chosen.
	Tuning []PowerTrial `json:"tuning,omitempty"`
	Mix    PowerMix     `json:"mix"`
	Tuned  string       `json:"tuned"`
	// TuneEvents counts, per clock-event reason, the tuning readings
	// (TuneSamples, 5 a second) it was active in.
	TuneEvents  map[string]int `json:"tune_events,omitempty"`
	TuneSamples int            `json:"tune_samples,omitempty"`
	Seconds     float64        `json:"seconds"`
	Launches    int            `json:"launches"`
	Grid        int            `json:"grid_blocks"`
	// Checked and Mismatches count tensor-burn output elements compared
	// with the host reference (every launch, tuning included).
	Checked    uint64     `json:"checked"`
	Mismatches uint64     `json:"mismatches"`
	FirstBad   []Mismatch `json:"first_bad,omitempty"`
	// CopyBytes is the size of each of the two copy buffers; CopyChecked
	// and CopyBad count 32-bit words of the destination checked after each
	// launch and found wrong; CopyFirstBad their word offsets.
	CopyBytes    uint64   `json:"copy_buffer_bytes"`
	CopyChecked  uint64   `json:"copy_words_checked"`
	CopyBad      uint64   `json:"copy_bad_words"`
	CopyFirstBad []uint64 `json:"copy_first_bad,omitempty"`
	Injected     bool     `json:"fault_injected,omitempty"`
	// Samples are TFLOP/s per second of the main phase; CopyGBs the
	// median copy rate (read + write) over its launches.
	Samples []float64 `json:"samples_tflops"`
	Median  float64   `json:"median_tflops"`
	CopyGBs float64   `json:"copy_gbs"`
	Monitor *Monitor  `json:"monitor,omitempty"`
	// Interrupted: as Burn's.
	Interrupted string `json:"interrupted,omitempty"`
}
