package scorecard

import (
	"math"
	"slices"

	"github.com/gpusla/gpusla/sla/stat"
)

// Bounds of a figure that rests on unfinished cases (docs/scorecard.md,
// "Unfinished cases").
const (
	// AtLeast: the unfinished cases can only raise the value as they finish
	// (a percentile or mean of waits, a share of bad outcomes).
	AtLeast = "at_least"
	// AtMost: they can only lower it. No figure is bounded so today: a
	// share answered or delivered within a limit counts an undecided case
	// as a miss, which finishing can only turn into a hit (AtLeast).
	AtMost = "at_most"
)

// obs is one observation of a duration: v so far, censored while the case
// (a ticket's first response, a delivery, a repair) had not finished at
// the as-of instant, on node.
type obs struct {
	v        float64
	censored bool
	node     string
}

// machines counts the distinct nodes of os.
func machines(os []obs) int {
	seen := map[string]bool{}
	for _, o := range os {
		seen[o.node] = true
	}
	return len(seen)
}

func values(os []obs) []float64 {
	vs := make([]float64, len(os))
	for i, o := range os {
		vs[i] = o.v
	}
	return vs
}

func censored(os []obs) int {
	c := 0
	for _, o := range os {
		if o.censored {
			c++
		}
	}
	return c
}

// quantileFig is the q-quantile of os (stat.Quantile), an unfinished case
// counted at its elapsed time. It is a lower bound (AtLeast) when an
// unfinished case sits at or below the order statistics the quantile is
// interpolated from: finishing later can only move it up. One above them
// cannot change the quantile, however long it runs.
func quantileFig(os []obs, q float64, unit string, minN int, better Better) Figure {
	vs := values(os)
	f := fig(stat.Quantile(vs, q), unit, len(os), 0, minN, better)
	withCases(&f, os)
	if len(vs) == 0 {
		return f
	}
	slices.Sort(vs)
	h := float64(len(vs)-1) * q
	k := min(int(math.Ceil(h)), len(vs)-1)
	for _, o := range os {
		if o.censored && o.v <= vs[k] {
			f.Bound = AtLeast
		}
	}
	return f
}

// meanFig is the mean of os; any unfinished case makes it a lower bound.
func meanFig(os []obs, unit string, minN int, better Better) Figure {
	f := fig(stat.Mean(values(os)), unit, len(os), 0, minN, better)
	withCases(&f, os)
	if f.Censored > 0 {
		f.Bound = AtLeast
	}
	return f
}

// withinFig is the share of os that finished within limit: an unfinished
// case already past it is a miss; one not yet past it is undecided,
// counted as not within — it can still finish within the limit and only
// raise the share, so the share is a lower bound (AtLeast, "≥").
func withinFig(os []obs, limit float64, minN int) Figure {
	in := 0
	open := false
	for _, o := range os {
		switch {
		case !o.censored && o.v <= limit:
			in++
		case o.censored && o.v <= limit:
			open = true
		}
	}
	f := fig(ratio(float64(in), float64(len(os))), "share", len(os), 0, minN, Higher)
	withCases(&f, os)
	if open {
		f.Bound = AtLeast
	}
	return f
}

// withCases sets f's machines and unfinished cases from the observations
// it was computed from.
func withCases(f *Figure, os []obs) {
	f.Machines = machines(os)
	f.Censored = censored(os)
	f.setTooFew()
}

// setTooFew marks a figure with fewer observations or machines than its
// minimums, or nothing measured.
func (f *Figure) setTooFew() {
	f.TooFew = f.Counted() < f.MinN || f.Machines < MinMachines || f.Value == nil
}

// Counted is the observations the minimum is held to: all of them, or
// the finished ones where MinFinished.
func (f *Figure) Counted() int {
	if f.MinFinished {
		return f.N - f.Censored
	}
	return f.N
}

// bounds is the range a figure's true value lies in: [v, v] when exact,
// [v, +∞) when at least, (−∞, v] when at most.
func (f *Figure) bounds() (lo, hi float64) {
	v := *f.Value
	switch f.Bound {
	case AtLeast:
		return v, math.Inf(1)
	case AtMost:
		return math.Inf(-1), v
	}
	return v, v
}

// canWorsen says whether f's unfinished cases can still only make it
// worse: a lower bound of a figure where less is better, or an upper bound
// of one where more is.
func (f *Figure) canWorsen() bool {
	return (f.Better == Lower && f.Bound == AtLeast) || (f.Better == Higher && f.Bound == AtMost)
}

// beats says whether f is better than g beyond measurement noise: by more
// than the figure's minimum meaningful difference, whatever their
// unfinished cases turn out to be.
func (f *Figure) beats(g *Figure) bool {
	flo, fhi := f.bounds()
	glo, ghi := g.bounds()
	if f.Better == Higher {
		return flo-ghi > f.MinDiff+1e-12
	}
	return glo-fhi > f.MinDiff+1e-12
}
