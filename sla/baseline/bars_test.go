package baseline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusla/gpusla/sla/stat"
)

// naiveOthers is the other-nodes distribution as the rule states it: every
// other node's readings, copied and sorted.
func naiveOthers(ss []Series, node string, opt Options) Dist {
	var vals []float64
	nodes := map[string]bool{}
	for _, s := range ss {
		if s.Node != node {
			vals = append(vals, s.Median)
			nodes[s.Node] = true
		}
	}
	d := Dist{Model: "m", Figure: "f", Unit: "u", Nodes: len(nodes), GPUs: len(vals)}
	if len(vals) == 0 || d.Nodes < opt.MinNodes-1 {
		d.StaticOnly = true
		return d
	}
	q := stat.Quantiles(vals, 0.1, 0.5, 0.9)
	d.P10, d.P50, d.P90, d.Min, d.Max = q[0], q[1], q[2], slices.Min(vals), slices.Max(vals)
	d.Threshold = math.Min(d.P10, d.P50*(1-opt.Margin))
	return d
}

// The bars read in place are the bars the rule states, for every node of
// fleets of every size around MinNodes, with ties between and within
// nodes, and nodes of one GPU or many; and a node's sibling bar is its
// own other GPUs'.
func TestBarsAreTheRulesBars(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	opt := Options{}.WithDefaults()
	for _, nodes := range []int{1, 2, opt.MinNodes - 1, opt.MinNodes, opt.MinNodes + 1, 40} {
		var ss []Series
		var names []string
		for n := range nodes {
			name := fmt.Sprintf("n%02d", n)
			names = append(names, name)
			for g := range 1 + rng.IntN(8) {
				// Few distinct values: ties everywhere.
				ss = append(ss, Series{Node: name, Model: "m", Figure: "f", Unit: "u", GPU: g, Median: float64(90 + rng.IntN(12))})
			}
		}
		b := newBars(names, ss, opt)
		for _, name := range append(names, "new-node") {
			got, _ := b.For(name, "m", "f", -1)
			want := naiveOthers(ss, name, opt)
			if !want.StaticOnly && (got.Against != AgainstOtherNodes || got.Dist != want) {
				t.Fatalf("%d nodes, %s: bar %+v, the rule's %+v", nodes, name, got, want)
			}
			if want.StaticOnly && got.Against == AgainstOtherNodes {
				t.Fatalf("%d nodes, %s: judged against %d other nodes", nodes, name, got.Dist.Nodes)
			}
			for g := range 8 {
				sib := b.nodeGPUs(barKey{"m", "f"}, b.nodes[name], g)
				var vals []float64
				for _, s := range ss {
					if s.Node == name && s.GPU != g {
						vals = append(vals, s.Median)
					}
				}
				if _, known := b.nodes[name]; known && len(vals) >= MinSiblingGPUs && sib.P50 != stat.Median(vals) {
					t.Fatalf("%d nodes, %s GPU %d: siblings' median %v, want %v", nodes, name, g, sib.P50, stat.Median(vals))
				}
			}
		}
	}
}
