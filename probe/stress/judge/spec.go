package judge

import (
	"strings"

	"github.com/gpusla/gpusla/probe/wire"

	"github.com/gpusla/gpusla/probe/specdb"
)

// Spec is the stress tests' view of one GPU model from the spec database
// (probe/specdb, thresholds named stress.<precision> and bw.<test>): the
// official figure to show the % of beside every result, and the threshold
// a healthy card of that model meets, each with its source. Thresholds are
// calibrated to measurements of healthy cards, not to the datasheet: a
// genuine H200's best copy reaches 89 % of its 4.8 TB/s, so "≥ 90 % of the
// official figure" would fail a good card.
//
// Keys: fp32, fp64, tf32, bf16, fp16, fp8 (TFLOP/s, dense; tf32.mma_sync,
// bf16.mma_sync, fp16.mma_sync on Hopper, see specKeys); d2d (device memory
// copy, GB/s counting read + write); h2d, d2h (pinned, GB/s); p2p (GB/s one
// way between two GPUs of the machine).
type Spec struct {
	Model    string
	Official map[string]float64
	Min      map[string]float64
	Warn     map[string]float64 // warn below (absent: no warn band)
	Source   map[string]string
}

// judge sets c's verdict and criterion for a measured value against the
// threshold of key: fail below its min, warn below its warn level, pass
// otherwise; skipped, saying why, when the model or threshold is unknown.
func (s Spec) judge(c *wire.Check, key string, v float64, unit string, known bool) {
	min, ok := s.Min[key]
	if !known || !ok {
		c.Verdict = wire.Skipped
		c.SetDetail("no threshold for this GPU model: the spec database has no measurement or datasheet figure for %s", key)
		if s.Model != "" {
			c.SetDetail("no threshold for this GPU model: the spec database has no measurement or datasheet figure for %s of %s", key, s.Model)
		}
		return
	}
	c.SetCriterion("≥ %g %s (%s)", min, unit, s.Source[key])
	warn := s.Warn[key]
	switch {
	case v < min:
		c.Verdict = wire.Fail
	case warn > 0 && v < warn:
		c.Verdict = wire.Warn
		c.SetDetail("%.3g %s is above the %g fail level but below the %g %s a healthy card is expected to reach", v, unit, min, warn, unit)
	default:
		c.Verdict = wire.Pass
	}
}

// specKeys maps the keys used here to the spec database's threshold names.
// On compute capability 9.0 the tensor thresholds are the wgmma burns';
// <precision>.mma_sync are those of the mma.sync kernels the burns fall
// back to when a wgmma kernel fails its sanity burn.
var specKeys = map[string]string{
	"fp32": "stress.fp32", "fp64": "stress.fp64", "tf32": "stress.tf32", "bf16": "stress.bf16", "fp16": "stress.fp16",
	"fp8":           "stress.fp8",
	"tf32.mma_sync": "stress.tf32.mma_sync", "bf16.mma_sync": "stress.bf16.mma_sync", "fp16.mma_sync": "stress.fp16.mma_sync",
	"d2d": "bw.d2d", "h2d": "bw.h2d", "d2h": "bw.d2h", "p2p": "bw.p2p",
}

// mmaSyncSuffix turns a tensor precision's key into its mma.sync one.
const mmaSyncSuffix = ".mma_sync"

// SpecFor returns the stress spec of a PCI device and subsystem id from the
// embedded spec database; false when the model is unknown or has no
// stress thresholds.
func SpecFor(deviceID, subsystemID uint16) (Spec, bool) {
	return specFrom(specdb.Default(), deviceID, subsystemID)
}

func specFrom(db *specdb.DB, deviceID, subsystemID uint16) (Spec, bool) {
	m, ok := db.Lookup(deviceID, subsystemID)
	if !ok {
		return Spec{}, false
	}
	s := Spec{Model: m.DisplayName(), Official: map[string]float64{}, Min: map[string]float64{}, Warn: map[string]float64{}, Source: map[string]string{}}
	for k, name := range specKeys {
		t, ok := m.Threshold(name)
		if !ok {
			continue
		}
		s.Min[k], s.Official[k], s.Source[k] = t.Min, t.Official, t.Source
		if t.Warn > 0 {
			s.Warn[k] = t.Warn
		}
	}
	if len(s.Min) == 0 {
		return Spec{}, false
	}
	s.Model = m.DisplayName() + " (" + strings.TrimSpace(m.ID) + ")"
	return s, true
}
