package stat

import (
	"math"
	"testing"
)

func TestQuantileInterpolatesBetweenRanks(t *testing.T) {
	xs := []float64{40, 10, 30, 20} // sorted 10 20 30 40
	for _, c := range []struct{ q, want float64 }{
		{0, 10}, {1, 40},
		{0.5, 25},    // h = 3·0.5 = 1.5: 20 + 0.5·10
		{0.9, 37},    // h = 2.7: 30 + 0.7·10
		{0.1, 13},    // h = 0.3: 10 + 0.3·10
		{0.25, 17.5}, // h = 0.75
	} {
		if got := Quantile(xs, c.q); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Quantile(q=%g) = %g, want %g", c.q, got, c.want)
		}
	}
	if xs[0] != 40 {
		t.Error("Quantile sorted its input in place")
	}
	if got := Quantiles(xs, 0.5, 0.9); got[0] != 25 || math.Abs(got[1]-37) > 1e-9 {
		t.Errorf("Quantiles = %v", got)
	}
	if !math.IsNaN(Quantile(nil, 0.5)) || !math.IsNaN(Mean(nil)) || !math.IsNaN(Quantile(xs, 2)) {
		t.Error("no values or a q outside [0,1] must give NaN")
	}
	if Quantile([]float64{7}, 0.9) != 7 || Median([]float64{1, 2, 3}) != 2 || Mean([]float64{1, 2, 6}) != 3 {
		t.Error("single value, median or mean wrong")
	}
}
