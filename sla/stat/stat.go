// Package stat holds the few order statistics the scorecard and the fleet
// baselines share, defined once so that every p50 and p90 in the project
// means the same thing.
//
// On the path from an observation to a report row, this is no step of its
// own: the quantiles the steps after the report (scorecard, fleet baselines)
// share.
package stat

import (
	"math"
	"slices"
)

// Quantile is the q-quantile (0 ≤ q ≤ 1) of xs by linear interpolation
// between the closest ranks (Hyndman & Fan type 7, the default of R and
// NumPy): with n sorted values v₀…vₙ₋₁ it is v at position h = (n−1)·q,
// interpolated between v⌊h⌋ and v⌈h⌉. xs is not modified. NaN for no values.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 || q < 0 || q > 1 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return sortedQuantile(s, q)
}

// Quantiles is Quantile for several q at once, sorting xs (a copy) once.
func Quantiles(xs []float64, qs ...float64) []float64 {
	out := make([]float64, len(qs))
	if len(xs) == 0 {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	for i, q := range qs {
		if q < 0 || q > 1 {
			out[i] = math.NaN()
			continue
		}
		out[i] = sortedQuantile(s, q)
	}
	return out
}

func sortedQuantile(s []float64, q float64) float64 {
	return QuantileAt(len(s), func(i int) float64 { return s[i] }, q)
}

// QuantileAt is Quantile of n values already in ascending order, the i-th
// of them at(i): what a caller holding them in order (or a list in order
// with some left out) reads without copying and sorting them again. NaN
// for none or q outside [0, 1].
func QuantileAt(n int, at func(i int) float64, q float64) float64 {
	if n == 0 || q < 0 || q > 1 {
		return math.NaN()
	}
	h := float64(n-1) * q
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= n {
		return at(n - 1)
	}
	return at(i) + (h-lo)*(at(i+1)-at(i))
}

// Median is Quantile(xs, 0.5).
func Median(xs []float64) float64 { return Quantile(xs, 0.5) }

// Mean is the arithmetic mean; NaN for no values.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
