package scorecard

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/trial"
)

var errNotTrial = errors.New("scorecard: the trial page needs a builder made with Options.Trial")

// trialFacts are one node's check results the trial page judges: every
// result of the kinds the seed's criteria read, and which were read while
// the node should be idle — those of the earliest reading of its GPUs'
// idleness (the acceptance check at delivery) and those a `gpuprobe trial`
// run marked (probe.trial.idle: read before its burns).
type trialFacts struct {
	results []trial.Result
	idle    []trial.Result // the earliest unmarked idle reading
	idleAt  int64
	hasIdle bool
}

// trialKinds are the result name prefixes the criteria read.
var trialKinds = []string{"gpu.", "host.disk.", "net.http.", "net.gateway.", "net.iperf3."}

// idleKinds name a reading of the GPUs' idleness.
var idleKinds = map[string]bool{"gpu.utilization": true, "gpu.processes": true, "gpu.memory_in_use": true}

func (t *trialFacts) observe(e *events.Event, at time.Time) {
	var rs []trial.Result
	marked, idleRead, ofTrial := false, false, false
	for i := range e.Checks {
		c := &e.Checks[i]
		switch {
		case c.Name == "probe.trial.idle":
			marked = true
		case c.Name == "probe.trial":
			ofTrial = true
		case slices.ContainsFunc(trialKinds, func(p string) bool { return strings.HasPrefix(c.Name, p) }):
			idleRead = idleRead || idleKinds[c.Name]
			rs = append(rs, trial.Result{Name: c.Name, Category: c.Category, Verdict: c.Verdict, Value: c.Value, Criterion: c.Criterion,
				Number: c.Number, Unit: c.Unit, GPU: c.GPU, Detail: c.Detail, DetailText: c.DetailText, At: at})
		}
	}
	for i := range rs {
		rs[i].Trial = ofTrial
	}
	ns := at.UnixNano()
	switch {
	case marked:
		t.results = append(t.results, idled(rs, true)...)
	case idleRead && (!t.hasIdle || ns < t.idleAt):
		t.results = append(t.results, idled(t.idle, false)...)
		t.idle, t.idleAt, t.hasIdle = idled(rs, true), ns, true
	default:
		t.results = append(t.results, rs...)
	}
}

func idled(rs []trial.Result, idle bool) []trial.Result {
	for i := range rs {
		rs[i].Idle = idle
	}
	return rs
}

// readsGPUs says whether an observation read the GPUs: the acceptance
// test is the first that did, not a usage or network reading before it.
func readsGPUs(cs []events.Check) bool {
	for i := range cs {
		switch cs[i].Name {
		case "gpu.count", "gpu.model", "gpu.driver":
			return true
		}
	}
	return false
}

// orderedMemory is the memory per GPU the node's registration ordered, in
// MiB; 0 where it names none.
func (b *Builder) orderedMemory(id string) float64 {
	if n := b.nodes[id]; n != nil {
		return float64(n.memory)
	}
	return 0
}

// advertisedMbps is the internal bandwidth the contract's provider
// advertises (terms network.internal_mbps), 0 where it names none.
func (b *Builder) advertisedMbps(contract string) float64 {
	if t := b.contracts[contract]; t != nil {
		return t.Network.InternalMbps
	}
	return 0
}

// trialResults are the node's results in its window, each distinct one
// once (a log read twice holds them twice), in time order.
func (b *Builder) trialResults(id string) []trial.Result {
	n := b.nodes[id]
	if n == nil || !n.registered {
		return nil
	}
	lo, hi := b.window(n)
	var in []trial.Result
	for _, r := range append(append([]trial.Result(nil), n.trial.results...), n.trial.idle...) {
		if ns := r.At.UnixNano(); ns >= lo && ns < hi {
			in = append(in, r)
		}
	}
	key := func(r trial.Result) (int64, string, int, string, float64) {
		g, v := -1, 0.0
		if r.GPU != nil {
			g = *r.GPU
		}
		if r.Number != nil {
			v = *r.Number
		}
		return r.At.UnixNano(), r.Name, g, r.Verdict, v
	}
	slices.SortStableFunc(in, func(x, y trial.Result) int {
		a1, a2, a3, a4, a5 := key(x)
		b1, b2, b3, b4, b5 := key(y)
		return cmp.Or(cmp.Compare(a1, b1), strings.Compare(a2, b2), cmp.Compare(a3, b3), strings.Compare(a4, b4), cmp.Compare(a5, b5))
	})
	return slices.CompactFunc(in, func(x, y trial.Result) bool {
		a1, a2, a3, a4, a5 := key(x)
		b1, b2, b3, b4, b5 := key(y)
		return a1 == b1 && a2 == b2 && a3 == b3 && a4 == b4 && a5 == b5 && x.Idle == y.Idle
	})
}
