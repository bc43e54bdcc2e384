package judge

import (
	"fmt"
	"strings"

	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// arJudgedFrom is the smallest message whose bus bandwidth is judged:
// below it latency, not the links, sets the figure (nccl-tests' curves
// flatten from a few hundred MiB on NVLink machines).
const arJudgedFrom = 256 << 20

// Small-message latency levels. nccl-tests' 8-byte all-reduce inside one
// machine takes 10–60 µs on NVLink and PCIe alike; these levels are far
// above that, so that only a fabric that has fallen back to something
// much slower (sockets, a host bounce per step) fails, never a healthy
// node on a busy host.
const (
	arLatencyWarnUs = 200.0
	arLatencyFailUs = 1000.0
	arLatencyWhy    = "a healthy single-node all-reduce of a few bytes takes 10–60 µs"
)

// fabricSpec is what the spec database says about a model's GPU-to-GPU
// fabric: whether its SXM form is sold with NVLink, and the all-reduce
// bus-bandwidth threshold for a number of GPUs (a measured
// nccl.allreduce.<n> where one exists, else the nccl.allreduce level
// derived from the NVLink datasheet figure, which applies only where
// every pair is on NVLink).
type fabricSpec struct {
	Model      string
	NVLinkSold bool // an SXM module of a model with NVLink: NVLink is part of the product
	Known      bool
}

func fabricSpecOf(g *result.GPU) (fabricSpec, *specdb.Model) {
	if g == nil {
		return fabricSpec{}, nil
	}
	m, ok := specdb.Default().Lookup(g.IDs())
	if !ok {
		return fabricSpec{}, nil
	}
	return fabricSpec{Model: m.DisplayName(), NVLinkSold: m.NVLink && m.FormFactor == specdb.SXM, Known: true}, m
}

// busThreshold is the threshold for n GPUs: a measured one first.
func busThreshold(m *specdb.Model, n int, allNVLink bool) (specdb.Threshold, bool) {
	if m == nil {
		return specdb.Threshold{}, false
	}
	if t, ok := m.Threshold(fmt.Sprintf("nccl.allreduce.%d", n)); ok {
		return t, true
	}
	if t, ok := m.Threshold("nccl.allreduce"); ok && allNVLink {
		return t, true
	}
	return specdb.Threshold{}, false
}

// judgeTopology checks that a model sold with NVLink joins every pair of
// GPUs over NVLink: one that talks over PCIe instead is not the product
// (a degraded baseboard, or a PCIe machine sold as SXM).
func judgeTopology(pairs []result.TopoPair, err error, fs fabricSpec) (wire.Check, bool) {
	if len(pairs) == 0 && err == nil {
		return wire.Check{}, false
	}
	c := wire.Check{Name: "gpu.topology", Category: wire.CategoryInventory, Unit: "pairs"}
	if err != nil {
		c.Verdict = wire.Skipped
		c.SetDetail("topology not read: %s", err)
		return c, true
	}
	var parts, pcie []string
	nv := 0
	for _, p := range pairs {
		parts = append(parts, fmt.Sprintf("%d-%d %s", p.A, p.B, p.Path))
		if p.NVLink() {
			nv++
		} else {
			pcie = append(pcie, fmt.Sprintf("%d-%d", p.A, p.B))
		}
	}
	c.SetValue("%d of %d GPU pairs on NVLink: %s", nv, len(pairs), strings.Join(parts, ", "))
	c.Number = num(float64(nv))
	switch {
	case !fs.Known:
		c.Verdict, c.Detail = wire.Skipped, "GPU model unknown to the spec database: whether NVLink is part of it is not known"
	case fs.NVLinkSold:
		c.SetCriterion("every GPU pair on NVLink (%s SXM is sold with NVLink)", fs.Model)
		c.Verdict = wire.Pass
		if len(pcie) > 0 {
			c.Verdict = wire.Fail
			c.SetDetail("over PCIe instead of NVLink: %s", strings.Join(pcie, ", "))
		}
	default:
		c.SetCriterion("recorded (%s is not an NVLink SXM part: PCIe paths are normal)", fs.Model)
		c.Verdict = wire.Pass
	}
	return c, true
}

// judgeAllReduce turns the all-reduce into checks: every element exact
// (gpu.nccl.allreduce.errors; a wrong sum is corruption on the fabric or
// in a GPU, so it fails at once), the bus bandwidth of the largest
// float32 message of at least 256 MiB against the model's threshold, and
// the 8-byte latency, recorded.
func judgeAllReduce(r result.AllReduce, pairs []result.TopoPair, topoErr error, fs fabricSpec, m *specdb.Model) []wire.Check {
	base := wire.Check{Name: "gpu.nccl.allreduce", Category: wire.CategoryGPUDegraded}
	switch {
	case r.Skipped != "":
		base.Verdict, base.Detail = wire.Skipped, r.Skipped
		return []wire.Check{base}
	case r.Error != "" && len(r.Rows) == 0:
		base.Verdict = wire.Fail
		base.SetDetail("all-reduce could not run: %s", r.Error)
		return []wire.Check{base}
	}
	n := len(r.GPUs)
	var out []wire.Check
	e := wire.Check{Name: "gpu.nccl.allreduce.errors", Category: wire.CategoryGPUDegraded,
		Criterion: "every element of every result equal to the exact sum", Number: num(float64(r.Wrong)), Unit: "values"}
	e.SetValue("%d wrong of %d checked, %d sizes, NCCL %s, %d GPUs, NVLS %s", r.Wrong, r.Checked, len(r.Rows), r.NCCL, n, r.NVLS)
	e.Verdict = wire.Pass
	if r.Wrong > 0 {
		e.Verdict = wire.Fail
		e.SetDetail("first: %s", r.FirstBad)
	}
	if r.Error != "" {
		e.Verdict = wire.Fail
		e.Detail = strings.TrimPrefix(e.Detail+"; ", "; ") + "error during the run: " + r.Error
	}
	out = append(out, e)

	var big, small *result.AllReduceRow
	var bf16 *result.AllReduceRow
	for i := range r.Rows {
		row := &r.Rows[i]
		switch row.DType {
		case "float32":
			if row.Bytes >= arJudgedFrom && (big == nil || row.Bytes > big.Bytes) {
				big = row
			}
			if small == nil || row.Bytes < small.Bytes {
				small = row
			}
		case "bfloat16":
			if bf16 == nil || row.Bytes > bf16.Bytes {
				bf16 = row
			}
		}
	}
	bw := wire.Check{Name: "gpu.nccl.allreduce.busbw", Category: wire.CategoryPerformance, Unit: "GB/s"}
	allNV := len(pairs) > 0 && topoErr == nil
	for _, p := range pairs {
		allNV = allNV && p.NVLink()
	}
	if topoErr != nil || len(pairs) == 0 {
		// Without a topology reading, a model sold with NVLink is held to
		// its NVLink level: that is what was bought.
		allNV = fs.NVLinkSold
	}
	switch {
	case n < 2:
		bw.Verdict = wire.Skipped
		bw.Detail = "one GPU: an all-reduce moves nothing between GPUs (bus bandwidth is 0 by definition); NCCL ran and every result was checked"
		if big != nil {
			bw.SetValue("algbw %.1f GB/s at %s (a device-local copy)", big.AlgGBs, sizeText(big.Bytes))
		}
	case big == nil:
		bw.Verdict = wire.Skipped
		bw.SetDetail("no float32 message of %s or more was measured (GPU memory too small, or stopped early)", sizeText(arJudgedFrom))
	default:
		bw.Number = num(big.BusGBs)
		bw.SetValue("%.1f GB/s busbw (algbw %.1f) at %s float32 on %d GPUs", big.BusGBs, big.AlgGBs, sizeText(big.Bytes), n)
		if bf16 != nil {
			bw.SetValue("%.1f GB/s busbw (algbw %.1f) at %s float32 on %d GPUs; bfloat16 %.1f GB/s at %s", big.BusGBs, big.AlgGBs, sizeText(big.Bytes), n,
				bf16.BusGBs, sizeText(bf16.Bytes))
		}
		t, ok := busThreshold(m, n, allNV)
		switch {
		case !ok && fs.Known:
			bw.Verdict = wire.Skipped
			bw.SetDetail("no all-reduce threshold for %d × %s on this topology: the spec database has no measurement for this GPU count, and the NVLink-derived level applies only where every pair is on NVLink", n, fs.Model)
		case !ok:
			bw.Verdict, bw.Detail = wire.Skipped, "GPU model unknown to the spec database: no all-reduce threshold"
		default:
			// The same fail/warn/pass rule as every other measured figure.
			sp := Spec{Min: map[string]float64{"allreduce": t.Min}, Warn: map[string]float64{"allreduce": t.Warn}, Source: map[string]string{"allreduce": t.Source}}
			sp.judge(&bw, "allreduce", big.BusGBs, "GB/s", true)
		}
	}
	out = append(out, bw)
	if small != nil {
		l := wire.Check{Name: "gpu.nccl.allreduce.latency", Category: wire.CategoryPerformance, Unit: "µs",
			Number: num(small.Micros), Verdict: wire.Pass}
		l.SetCriterion("≤ %g µs, warn above %g µs (%s)", arLatencyFailUs, arLatencyWarnUs, wire.T(arLatencyWhy))
		l.SetValue("%.1f µs per %s float32 all-reduce on %d GPUs", small.Micros, sizeText(small.Bytes), n)
		switch {
		case small.Micros > arLatencyFailUs:
			l.Verdict = wire.Fail
		case small.Micros > arLatencyWarnUs:
			l.Verdict, l.Detail = wire.Warn, "slower than a healthy single-node fabric answers"
		}
		out = append(out, l)
	}
	return out
}

func sizeText(b uint64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}
