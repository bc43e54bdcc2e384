package result

// AllReduce is NCCL's sum all-reduce over every tested GPU, one
// communicator per GPU in this process, measured the way nccl-tests'
// all_reduce_perf measures it (out of place, 5 warm-up operations, then a
// host timer around a run of operations and the streams' completion).
type AllReduce struct {
	GPUs    []int  `json:"gpus"` // CUDA ordinals; rank i is GPUs[i]
	Library string `json:"library,omitempty"`
	NCCL    string `json:"nccl_version,omitempty"`
	// NVLS is how NVLink SHARP (multicast) was set: always off, so that
	// a check can never change the fabric's state for the tenant.
	NVLS string         `json:"nvls"`
	Rows []AllReduceRow `json:"rows,omitempty"`
	// Wrong counts result elements that differ from the exact sum, over
	// every row; Checked how many were compared.
	Wrong    int64  `json:"wrong"`
	Checked  int64  `json:"checked"`
	FirstBad string `json:"first_bad,omitempty"`
	Skipped  string `json:"skipped,omitempty"`
	Error    string `json:"error,omitempty"`
	// Interrupted: as Burn's.
	Interrupted string `json:"interrupted,omitempty"`
}

// AllReduceRow is one message size of one data type.
type AllReduceRow struct {
	DType string `json:"dtype"`
	Bytes uint64 `json:"bytes"`
	Count uint64 `json:"count"`
	Iters int    `json:"iters"`
	// Micros is the time of one operation; AlgGBs = bytes / time and
	// BusGBs = AlgGBs × 2(n−1)/n, nccl-tests' formulas (decimal GB/s).
	Micros float64 `json:"time_us"`
	AlgGBs float64 `json:"algbw_gbs"`
	BusGBs float64 `json:"busbw_gbs"`
	Wrong  int64   `json:"wrong"`
}

// TopoPair is how two GPUs reach each other, in nvidia-smi topo -m's
// words: NV# (# NVLinks straight between them), NVSwitch (both on the
// same NVLink switch fabric; Links is the smaller of their active switch
// links), or the PCIe path when no NVLink joins them: PIX (one PCIe
// switch), PXB (several switches), PHB (a host bridge), NODE (between host
// bridges of one NUMA node), SYS (across NUMA nodes / the CPU
// interconnect).
type TopoPair struct {
	A     int    `json:"a"` // CUDA ordinals
	B     int    `json:"b"`
	Path  string `json:"path"`
	Links int    `json:"nvlinks"`
}

// NVLink reports whether the pair talks over NVLink (directly or through
// switches).
func (p TopoPair) NVLink() bool { return p.Links > 0 }
