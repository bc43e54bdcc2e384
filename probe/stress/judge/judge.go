// Package judge turns what a stress run measured (probe/stress/result)
// into checks: every burn, soak, copy, memory test, power test and
// all-reduce against the model's calibrated thresholds from the spec
// database (probe/specdb), in the manner of probe/health. It is pure: it
// reads no hardware and imports nothing that needs a GPU, cgo or the CUDA
// driver (internal/layers holds it to that), so a report rebuilt from
// recorded figures is judged on any machine exactly as a live run's.
//
// Step 2 of the observation pipeline (read, judge, observe, spool, push)
// for the load tests; probe/stress is step 1 and calls Report when its
// tests end.
package judge

import (
	"errors"

	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

// Report turns the measurements of a report into checks: the wgmma sanity
// burns, then the burns and soaks, bandwidth, the memory tests, the GPUs'
// fabric (topology and all-reduce) and the power tests.
func Report(rep *result.Report) []wire.Check {
	j := newJudging(rep)
	var out []wire.Check
	for _, g := range rep.GPUs {
		if c, ok := judgeSanity(g); ok {
			out = append(out, c)
		}
	}
	out = append(out, j.burns()...)
	out = append(out, j.bandwidth()...)
	out = append(out, j.memtests()...)
	out = append(out, j.fabric()...)
	return append(out, j.power()...)
}

// judging is one Report: the report, and its GPUs by CUDA index.
type judging struct {
	rep     *result.Report
	byIndex map[int]*result.GPU
}

func newJudging(rep *result.Report) *judging {
	j := &judging{rep: rep, byIndex: map[int]*result.GPU{}}
	for _, g := range rep.GPUs {
		j.byIndex[g.Index] = g
	}
	return j
}

// specOf is the calibrated spec of GPU gpu's model, if it has one.
func (j *judging) specOf(gpu int) (Spec, bool) {
	if g, ok := j.byIndex[gpu]; ok {
		return SpecFor(g.IDs())
	}
	return Spec{}, false
}

// burns judges each burn (with how well its throughput fits the card)
// and each soak; an interrupted one keeps only the faults it found.
func (j *judging) burns() []wire.Check {
	var out []wire.Check
	for _, b := range j.rep.Burns {
		spec, ok := j.specOf(b.GPU)
		cs := judgeBurn("gpu.burn."+string(b.Precision), b, spec, ok)
		if b.Interrupted != "" {
			cs = keepFaults(cs, b.Interrupted)
		} else if c, ok := judgeFit(b, j.byIndex[b.GPU]); ok {
			cs = append(cs, c)
		}
		out = append(out, cs...)
	}
	for _, b := range j.rep.Soaks {
		spec, ok := j.specOf(b.GPU)
		cs := judgeSoak(b, spec, ok)
		if b.Interrupted != "" {
			cs = keepFaults(cs, b.Interrupted)
		}
		out = append(out, cs...)
	}
	return out
}

// bandwidth judges the host and peer copies as they come, any wrong word
// of a device copy, and then each GPU's device bandwidth once, on the
// better of the two copy methods: both move the same bytes, and a healthy
// card must reach the threshold with at least one.
func (j *judging) bandwidth() []wire.Check {
	var out []wire.Check
	bestD2D := map[int]result.Bandwidth{}
	for _, r := range j.rep.Bandwidth {
		spec, ok := j.specOf(r.GPU)
		switch r.Test {
		case "d2d_memcpy", "d2d_kernel":
			if cur, seen := bestD2D[r.GPU]; !seen || r.BestGBs > cur.BestGBs || cur.Error != "" || cur.Interrupted != "" {
				bestD2D[r.GPU] = r
			}
			if r.BadWords != 0 {
				c := judgeBandwidth(r, "d2d", spec, ok)
				out = append(out, interruptedBW(r, c[1:])...)
			}
		case "h2d", "d2h", "p2p":
			out = append(out, interruptedBW(r, judgeBandwidth(r, r.Test, spec, ok))...)
		}
	}
	for _, g := range j.rep.GPUs {
		if r, seen := bestD2D[g.Index]; seen {
			spec, ok := j.specOf(g.Index)
			c := judgeBandwidth(r, "d2d", spec, ok)[:1]
			c[0].Name = "gpu.bw.d2d"
			out = append(out, interruptedBW(r, c)...)
		}
	}
	return out
}

// memtests judges each memory pattern test.
func (j *judging) memtests() []wire.Check {
	var out []wire.Check
	for _, m := range j.rep.Memtests {
		c := []wire.Check{judgeMemtest(m)}
		if m.Interrupted != "" {
			c = keepFaults(c, m.Interrupted)
		}
		out = append(out, c...)
	}
	return out
}

// fabric judges how the GPUs are connected and the all-reduce over them,
// against the fabric spec of the first GPU's model.
func (j *judging) fabric() []wire.Check {
	if len(j.rep.GPUs) == 0 {
		return nil
	}
	var out []wire.Check
	var topoErr error
	if j.rep.TopologyErr != "" {
		topoErr = errors.New(j.rep.TopologyErr)
	}
	fs, model := fabricSpecOf(j.byIndex[j.rep.GPUs[0].Index])
	if c, ok := judgeTopology(j.rep.Topology, topoErr, fs); ok {
		out = append(out, c)
	}
	if r := j.rep.AllReduce; r != nil {
		cs := judgeAllReduce(*r, j.rep.Topology, topoErr, fs, model)
		if r.Interrupted != "" {
			cs = keepFaults(cs, r.Interrupted)
		}
		out = append(out, cs...)
	}
	return out
}

// power judges each power test.
func (j *judging) power() []wire.Check {
	var out []wire.Check
	for _, p := range j.rep.Power {
		cs := judgePower(p, powerSpecOf(j.byIndex[p.GPU]))
		if p.Interrupted != "" {
			cs = keepFaults(cs, p.Interrupted)
		}
		out = append(out, cs...)
	}
	return out
}

// interruptedBW applies keepFaults to the checks of an interrupted copy.
func interruptedBW(r result.Bandwidth, cs []wire.Check) []wire.Check {
	if r.Interrupted != "" {
		return keepFaults(cs, r.Interrupted)
	}
	return cs
}
