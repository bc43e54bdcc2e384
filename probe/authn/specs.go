package authn

import (
	"fmt"

	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
)

// identity collects the identity readings that could not be read, for
// gpu.identity.verified: a card whose memory or core count is hidden is
// not shown to be genuine, so it never passes silently.
type identity struct{ missing []wire.Text }

func (iv *identity) unverified(what, why wire.Text) {
	iv.missing = append(iv.missing, wire.T("%s (%s)", what, why))
}

func (iv *identity) check() wire.Check {
	c := wire.Check{Name: "gpu.identity.verified", Verdict: wire.Pass, Value: "all read",
		Criterion: "PCI ids, name, memory size, core count, bus width and compute capability read and checked"}
	if len(iv.missing) > 0 {
		c.Verdict = wire.Warn
		c.SetValue("%d unread", len(iv.missing))
		c.SetDetail("the card's identity is not verified: %s", wire.Join(iv.missing))
	}
	return c
}

// judgeSpecs holds the readings to the model's figures. Memory, cores and
// bus width are checked in both directions: fewer is a cut-down card,
// more is a reworked board (a 48 GB RTX 4090) or an altered reading. A
// reading that is missing gives a skipped check with the reason, and a
// figure the database does not have gives a skipped check saying so.
func judgeSpecs(d *gpu.Device, m *specdb.Model, add func(wire.Check)) {
	src := wire.T("%s, datasheet", m.ID)
	if m.Measured() {
		src = wire.T("%s, measured", m.ID)
	}
	// Figures from datasheets (not yet calibrated on a real card) only
	// warn for clocks and power, where VBIOS builds legitimately differ.
	soft := wire.Fail
	if !m.Measured() {
		soft = wire.Warn
	}
	iv := &identity{}
	skip := func(name string, what wire.Text, reading string) {
		why := d.MissingText(reading)
		iv.unverified(what, why)
		add(skipped(name, why))
	}
	noFigure := func(name string, what wire.Text) {
		c := wire.Check{Name: name, Verdict: wire.Skipped, Value: "-"}
		c.SetDetail("the spec database has no %s for %s (%s)", what, m.DisplayName(), m.ID)
		add(c)
	}

	if d.Name == "" {
		iv.unverified(wire.T("name"), d.MissingText("name"))
	}
	if d.MemoryTotalMiB == nil {
		skip("gpu.memory", wire.T("memory size"), "memory")
	} else {
		add(memoryCheck(float64(*d.MemoryTotalMiB), m, src))
	}
	switch {
	case d.MemoryBusWidth == nil:
		skip("gpu.memory_bus_width", wire.T("memory bus width"), "memory_bus_width")
	case m.MemoryBusWidth == 0:
		noFigure("gpu.memory_bus_width", wire.T("memory bus width"))
	default:
		add(exact("gpu.memory_bus_width", float64(*d.MemoryBusWidth), float64(m.MemoryBusWidth), "bits", wire.T("memory bus width"), src))
	}
	switch {
	case d.Cores == nil:
		skip("gpu.cores", wire.T("core count"), "gpu_cores")
	case m.GPUCores == 0:
		noFigure("gpu.cores", wire.T("core count"))
	default:
		c := exact("gpu.cores", float64(*d.Cores), float64(m.GPUCores), "cores", wire.T("GPU core count"), src)
		c.SetCriterion("= %g %s (%s), %d SMs", float64(m.GPUCores), unitWord("cores"), src, m.SMs)
		add(c)
	}
	if d.ComputeCapability == "" {
		skip("gpu.compute_capability", wire.T("compute capability"), "compute_capability")
	} else {
		c := wire.Check{Name: "gpu.compute_capability", Verdict: wire.Pass, Value: d.ComputeCapability}
		c.SetCriterion("%s (%s)", m.ComputeCapability, src)
		if d.ComputeCapability != m.ComputeCapability {
			c.Verdict = wire.Fail
			c.SetDetail("compute capability %s, the model's is %s", d.ComputeCapability, m.ComputeCapability)
		}
		add(c)
	}
	lower := func(name, reading string, what wire.Text, unit string, got *float64, want, ratio float64) {
		switch {
		case got == nil:
			add(skipped(name, d.MissingText(reading)))
		case want <= 0:
			noFigure(name, what)
		default:
			add(below(name, *got, want, ratio, unit, what, soft, src))
		}
	}
	lower("gpu.clock.max_sm", "max_sm_clock", wire.T("max SM clock"), "MHz", f32(d.MaxSMClockMHz), float64(m.MaxSMClockMHz), ClockRatio)
	lower("gpu.clock.max_mem", "max_mem_clock", wire.T("max memory clock"), "MHz", f32(d.MaxMemClockMHz), float64(m.MaxMemClockMHz), ClockRatio)
	lower("gpu.power.default_limit", "power_default_limit", wire.T("default power limit"), "W", d.PowerDefaultLimitW, m.DefaultPowerW, PowerRatio)
	judgeEnforced(d, m, add)
	add(iv.check())
}

// skipped is a check that could not be made, with the reason.
func skipped(name string, why wire.Text) wire.Check {
	c := wire.Check{Name: name, Verdict: wire.Skipped, Value: "-"}
	c.Detail, c.DetailText = wire.Put(why)
	return c
}

func f32(p *uint32) *float64 {
	if p == nil {
		return nil
	}
	v := float64(*p)
	return &v
}

// memoryCheck holds the NVML memory total to the sizes genuine cards of
// the model report, both ways.
func memoryCheck(got float64, m *specdb.Model, src wire.Text) wire.Check {
	lo, hi := m.MemoryRange()
	c := wire.Check{Name: "gpu.memory", Verdict: wire.Pass, Value: fmt.Sprintf("%g MiB", got), Number: num(got), Unit: "MiB"}
	c.SetCriterion("%.0f-%.0f MiB: within %.0f %% of the model's %s MiB (%s)", lo, hi, 100*specdb.MemoryTolerance, sizes(m), src)
	switch {
	case got < lo:
		c.Verdict = wire.Fail
		c.SetDetail("memory %g MiB is below the model's %d MiB: cut-down or different card", got, m.MemoryMiB)
	case got > hi:
		c.Verdict = wire.Fail
		c.SetDetail("memory %g MiB is more than any genuine %s has (%s MiB): a reworked board with added memory, or an altered reading", got, m.DisplayName(), sizes(m))
	}
	return c
}

func sizes(m *specdb.Model) wire.Text {
	s := wire.T("%d", m.MemoryMiB)
	for _, v := range m.MemoryVariantsMiB {
		s = wire.T("%s or %d", s, v)
	}
	return s
}

// exact holds a reading that a genuine card reports exactly (core count,
// bus width) to the model's figure, both ways.
func exact(name string, got, want float64, unit string, what, src wire.Text) wire.Check {
	c := wire.Check{Name: name, Verdict: wire.Pass, Value: fmt.Sprintf("%g %s", got, unit), Number: num(got), Unit: unit}
	c.SetValue("%g %s", got, unitWord(unit))
	c.SetCriterion("= %g %s (%s)", want, unitWord(unit), src)
	switch {
	case got < want:
		c.Verdict = wire.Fail
		c.SetDetail("%s %g %s is below the model's %g %s: cut-down or different card", what, got, unit, want, unit)
	case got > want:
		c.Verdict = wire.Fail
		c.SetDetail("%s %g %s is above the model's %g %s: no genuine card of the model reports it, so the reading or the card is not what it claims", what, got, unit, want, unit)
	}
	return c
}

// unitWord is a count's unit as a word of the catalog (the unit of the
// reading stays as it is in Unit).
func unitWord(unit string) any {
	switch unit {
	case "bits":
		return wire.T("bits")
	case "cores":
		return wire.T("cores")
	}
	return unit
}

// below holds a reading to a model figure: fail (or warn) below ratio × want.
func below(name string, got, want, ratio float64, unit string, what wire.Text, verdict string, src wire.Text) wire.Check {
	c := wire.Check{Name: name, Verdict: wire.Pass, Value: fmt.Sprintf("%g %s", got, unit), Number: num(got), Unit: unit}
	if ratio < 1 {
		c.SetCriterion(">= %.0f %% of %g %s (%s)", ratio*100, want, unit, src)
	} else {
		c.SetCriterion(">= %g %s (%s)", want, unit, src)
	}
	if got < ratio*want {
		c.Verdict = verdict
		c.SetDetail("%s %g %s is below the model's %g %s", what, got, unit, want, unit)
		if verdict == wire.Warn {
			c.SetDetail("%s %g %s is below the model's %g %s (the model's figure is from a datasheet, not yet calibrated on a real card)", what, got, unit, want, unit)
		}
	}
	return c
}

// judgeEnforced holds the enforced power limit to the card's own default:
// a limit set below it caps the card however genuine it is.
func judgeEnforced(d *gpu.Device, m *specdb.Model, add func(wire.Check)) {
	if d.PowerEnforcedLimitW == nil {
		add(skipped("gpu.power.enforced_limit", d.MissingText("power_enforced_limit")))
		return
	}
	ref, refName := m.DefaultPowerW, wire.T("the model's default")
	if d.PowerDefaultLimitW != nil && *d.PowerDefaultLimitW > 0 {
		ref, refName = *d.PowerDefaultLimitW, wire.T("the card's default")
	}
	if ref <= 0 {
		add(wire.Check{Name: "gpu.power.enforced_limit", Verdict: wire.Skipped, Value: fmt.Sprintf("%.0f W", *d.PowerEnforcedLimitW),
			Detail: "neither the card's default power limit nor the model's is known"})
		return
	}
	c := wire.Check{Name: "gpu.power.enforced_limit", Verdict: wire.Pass, Value: fmt.Sprintf("%.0f W", *d.PowerEnforcedLimitW),
		Number: num(*d.PowerEnforcedLimitW), Unit: "W"}
	c.SetCriterion(">= %.0f %% of %s %.0f W", PowerRatio*100, refName, ref)
	if *d.PowerEnforcedLimitW < PowerRatio*ref {
		c.Verdict = wire.Fail
		c.SetDetail("power limit capped at %.0f W, %.0f %% of %s %.0f W: the card cannot reach its rated performance", *d.PowerEnforcedLimitW, 100**d.PowerEnforcedLimitW/ref, refName, ref)
	}
	add(c)
}
