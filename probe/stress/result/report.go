// Package result is what a stress run measured, as plain data: the GPUs
// tested, each burn, copy, memory test, power test and all-reduce, with
// the NVML readings taken during them, and the statistics they are
// summarised by. It holds no CUDA handle and imports nothing that needs a
// GPU: probe/stress fills it in by running the GPUs, probe/stress/judge
// turns it into checks, and a report rebuilt from recorded figures is
// judged exactly like a live one.
package result

import (
	"strings"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
)

// Report is everything one run measured.
type Report struct {
	StartedAt  time.Time   `json:"started_at"`
	Seconds    float64     `json:"seconds"`
	CUDADriver int         `json:"cuda_driver_version,omitempty"`
	Monitoring string      `json:"monitoring"`
	GPUs       []*GPU      `json:"gpus"`
	Burns      []Burn      `json:"burns,omitempty"`
	Soaks      []Burn      `json:"soaks,omitempty"`
	Power      []Power     `json:"power,omitempty"`
	Bandwidth  []Bandwidth `json:"bandwidth,omitempty"`
	Memtests   []Memtest   `json:"memtests,omitempty"`
	AllReduce  *AllReduce  `json:"allreduce,omitempty"`
	// Topology is how each pair of tested GPUs is connected (NVML), read
	// when more than one GPU is tested; TopologyErr says why it is not.
	Topology    []TopoPair   `json:"topology,omitempty"`
	TopologyErr string       `json:"topology_error,omitempty"`
	FaultInject bool         `json:"fault_inject,omitempty"`
	Checks      []wire.Check `json:"checks"`
}

// GPU identifies one tested GPU. Its model, and so the yardstick its
// results are judged against, is found by the PCI ids in Static.
type GPU struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	BusID string `json:"bus_id"`
	CC    string `json:"compute_capability"`
	SMs   int    `json:"sms"`
	PTX   string `json:"ptx_variant"`
	// Sanity is the wgmma kernels' sanity burn (compute capability 9.0).
	Sanity    []Sanity `json:"wgmma_sanity,omitempty"`
	Static    *Static  `json:"nvml,omitempty"`
	Spec      string   `json:"spec,omitempty"`
	Skipped   string   `json:"skipped,omitempty"`
	NVLinks   []bool   `json:"nvlinks,omitempty"`
	NVLinkErr string   `json:"nvlink_error,omitempty"`
	// WgmmaWanted: the card's best PTX variant is the arch-specific
	// sm_90a one, whose wgmma kernels it should run; WgmmaErr: why none
	// could be used (the PTX did not load, a driver error in the sanity
	// burn).
	WgmmaWanted bool   `json:"wgmma_wanted,omitempty"`
	WgmmaErr    string `json:"wgmma_error,omitempty"`
}

// Static is a GPU's ids and fixed limits, as read from NVML before a run.
type Static struct {
	Name          string  `json:"name"`
	DeviceID      uint16  `json:"pci_device_id"`
	SubsystemID   uint16  `json:"pci_subsystem_id"`
	PowerLimitW   float64 `json:"power_limit_w"`
	SlowdownC     float64 `json:"slowdown_c"`
	ShutdownC     float64 `json:"shutdown_c"`
	MaxSMClockMHz float64 `json:"max_sm_clock_mhz"`
	Driver        string  `json:"driver"`
}

// IDs are g's PCI device and subsystem ids (zero when NVML was not read).
func (g *GPU) IDs() (deviceID, subsystemID uint16) {
	if g == nil || g.Static == nil {
		return 0, 0
	}
	return g.Static.DeviceID, g.Static.SubsystemID
}

// Finished counts the tests of a report that ran to the end.
func (r *Report) Finished() (done, interrupted int) {
	count := func(i string) {
		if i == "" {
			done++
		} else {
			interrupted++
		}
	}
	for _, b := range append(append([]Burn(nil), r.Burns...), r.Soaks...) {
		count(b.Interrupted)
	}
	for _, p := range r.Power {
		count(p.Interrupted)
	}
	for _, b := range r.Bandwidth {
		count(b.Interrupted)
	}
	for _, m := range r.Memtests {
		count(m.Interrupted)
	}
	return done, interrupted
}

// A run that is cancelled (SIGTERM to the daemon, SIGINT to a check, a
// job's timeout) keeps what it finished: every test that completed before
// the cancellation is judged as usual, and the test that was running is
// marked Interrupted. An interrupted test's partial figures are no
// measurement (a burn stopped after one second is all ramp), so its
// performance and stability checks are skipped (probe/stress/judge); what
// it found wrong before the stop — a wrong value, an XID, a thermal
// slowdown — is a fact and still fails.

// MarkInterrupted moves errors that are the cancellation itself into the
// results' Interrupted fields, so that a stop is not judged a GPU fault.
func (r *Report) MarkInterrupted(cause error) {
	why := cause.Error()
	mark := func(errStr, interrupted *string) {
		if *errStr != "" && strings.HasSuffix(*errStr, why) {
			*interrupted, *errStr = "stopped before it finished ("+why+")", ""
		}
	}
	for i := range r.Burns {
		mark(&r.Burns[i].Error, &r.Burns[i].Interrupted)
	}
	for i := range r.Soaks {
		mark(&r.Soaks[i].Error, &r.Soaks[i].Interrupted)
	}
	for i := range r.Power {
		mark(&r.Power[i].Error, &r.Power[i].Interrupted)
	}
	for i := range r.Bandwidth {
		mark(&r.Bandwidth[i].Error, &r.Bandwidth[i].Interrupted)
	}
	for i := range r.Memtests {
		mark(&r.Memtests[i].Error, &r.Memtests[i].Interrupted)
	}
	if ar := r.AllReduce; ar != nil {
		mark(&ar.Error, &ar.Interrupted)
	}
}
