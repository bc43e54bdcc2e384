package baseline

import (
	"math"
	"slices"
	"sort"

	"github.com/gpusla/gpusla/sla/stat"
)

// What a series is judged against. A node is never part of its own bar:
// an 8-GPU node that is 8 % slow as a whole (a power cap, a bad fan wall)
// would otherwise pull the fleet's p10 down to itself and pass.
const (
	// AgainstOtherNodes: the distribution of the other nodes' GPUs of
	// the same model, min(p10, p50 × (1 − margin)).
	AgainstOtherNodes = "other_nodes"
	// AgainstNodeGPUs: the median of the other GPUs of the same node ×
	// (1 − margin): one card slower than the cards beside it, whatever
	// the rest of the fleet does.
	AgainstNodeGPUs = "node_gpus"
)

// MinSiblingGPUs: the other GPUs of a node a card is compared with, at
// least (with one other, which of the two is slow cannot be told).
const MinSiblingGPUs = 2

// Bar is the threshold one series (a node's GPU and figure) is judged
// against: the higher of the other nodes' bar and the node's other GPUs'
// bar, where each applies. Dist is that bar's distribution (for
// AgainstNodeGPUs: Nodes 1 and the sibling GPUs).
type Bar struct {
	Against   string  `json:"against"`
	Threshold float64 `json:"threshold"`
	Dist      Dist    `json:"fleet"`
}

// reading is one GPU's median of a figure, what bars are made of.
type reading struct {
	node  int32
	gpu   int16
	value float64
}

// Bars are the thresholds of one window, per node, figure and GPU; they
// hold no lazily filled state, so the live service may share them
// between requests.
type Bars struct {
	nodes  map[string]int32
	opt    Options
	byDist map[barKey][]reading // sorted by value
	units  map[barKey]string
	// others caches the other nodes' distribution for each node with
	// readings (computed once per node, not once per series).
	others map[barNode]Dist
	// own are where each node's readings lie in byDist's order.
	own map[barNode][]int
}

type barKey struct{ model, figure string }

type barNode struct {
	key  barKey
	node int32
}

// newBars files each series' median by model and figure (res.Series) and
// computes every known node's other-nodes distribution.
func newBars(nodes []string, ss []Series, opt Options) *Bars {
	b := &Bars{nodes: map[string]int32{}, opt: opt, byDist: map[barKey][]reading{}, units: map[barKey]string{}, others: map[barNode]Dist{}, own: map[barNode][]int{}}
	for i, n := range nodes {
		b.nodes[n] = int32(i)
	}
	for _, s := range ss {
		k := barKey{s.Model, s.Figure}
		b.byDist[k] = append(b.byDist[k], reading{b.nodes[s.Node], int16(s.GPU), s.Median})
		b.units[k] = s.Unit
	}
	for k, rs := range b.byDist {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].value < rs[j].value })
		// Where each node's readings lie in the order: a node's bar is
		// the order with those few left out, read in place — not the
		// fleet's readings copied and sorted once a node, which at ten
		// thousand nodes is hours.
		at := map[int32][]int{}
		for i, r := range rs {
			at[r.node] = append(at[r.node], i)
		}
		for node, own := range at {
			b.others[barNode{k, node}] = b.otherDist(k, own, len(at)-1)
			b.own[barNode{k, node}] = own
		}
	}
	return b
}

// otherNodes is the distribution of model's figure over every node but
// node (-1: none left out), with its threshold, or StaticOnly when fewer
// than MinNodes − 1 other nodes have it.
func (b *Bars) otherNodes(k barKey, node int32) Dist {
	var own []int
	nodes := map[int32]bool{}
	for i, r := range b.byDist[k] {
		if r.node == node {
			own = append(own, i)
		} else {
			nodes[r.node] = true
		}
	}
	return b.otherDist(k, own, len(nodes))
}

// otherDist is the distribution of k's readings but one node's, at own
// (their places in the order, ascending), nodes the count of the other
// nodes.
func (b *Bars) otherDist(k barKey, own []int, nodes int) Dist {
	rs := b.byDist[k]
	n := len(rs) - len(own)
	d := Dist{Model: k.model, Figure: k.figure, Unit: b.units[k], Nodes: nodes, GPUs: n}
	if n == 0 || d.Nodes < b.opt.MinNodes-1 {
		d.StaticOnly = true
		return d
	}
	// The i-th of the others: past each of own at or before it.
	at := func(i int) float64 {
		for _, p := range own {
			if p > i {
				break
			}
			i++
		}
		return rs[i].value
	}
	d.P10, d.P50, d.P90 = stat.QuantileAt(n, at, 0.1), stat.QuantileAt(n, at, 0.5), stat.QuantileAt(n, at, 0.9)
	d.Min, d.Max = at(0), at(n-1)
	d.Threshold = math.Min(d.P10, d.P50*(1-b.opt.Margin))
	return d
}

// nodeGPUs is the distribution of the node's other GPUs' medians of the
// figure, with the threshold median × (1 − margin), or StaticOnly with
// fewer than MinSiblingGPUs of them.
func (b *Bars) nodeGPUs(k barKey, node int32, gpu int) Dist {
	var vals []float64
	rs := b.byDist[k]
	for _, i := range b.own[barNode{k, node}] {
		if int(rs[i].gpu) != gpu {
			vals = append(vals, rs[i].value)
		}
	}
	d := Dist{Model: k.model, Figure: k.figure, Unit: b.units[k], Nodes: 1, GPUs: len(vals)}
	if gpu < 0 || len(vals) < MinSiblingGPUs {
		d.StaticOnly = true
		return d
	}
	q := stat.Quantiles(vals, 0.1, 0.5, 0.9)
	d.P10, d.P50, d.P90, d.Min, d.Max = q[0], q[1], q[2], slices.Min(vals), slices.Max(vals)
	d.Threshold = d.P50 * (1 - b.opt.Margin)
	return d
}

// For is the bar node's GPU gpu (-1: none) of model's figure is judged
// against; false when neither the other nodes nor the node's other GPUs
// are enough to judge by (the probe's static threshold alone applies). A
// node without readings in the window (new to the fleet) is judged
// against every node that has them.
func (b *Bars) For(node, model, figure string, gpu int) (Bar, bool) {
	if b == nil {
		return Bar{}, false
	}
	k := barKey{model, figure}
	ni, known := b.nodes[node]
	if !known {
		ni = -1
	}
	others, ok := b.others[barNode{k, ni}]
	if !ok {
		others = b.otherNodes(k, ni)
	}
	var bar Bar
	if !others.StaticOnly {
		bar = Bar{Against: AgainstOtherNodes, Threshold: others.Threshold, Dist: others}
	}
	if known {
		if sib := b.nodeGPUs(k, ni, gpu); !sib.StaticOnly && sib.Threshold > bar.Threshold {
			bar = Bar{Against: AgainstNodeGPUs, Threshold: sib.Threshold, Dist: sib}
		}
	}
	return bar, bar.Against != ""
}
