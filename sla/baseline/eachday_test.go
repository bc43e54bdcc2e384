package baseline

import (
	"fmt"
	"strings"
	"testing"
)

// eachDay hands out the days in order, each day's readings in their order
// in the input, whether it counts the days (readings close together) or
// sorts them (readings years apart).
func TestEachDayKeepsOrder(t *testing.T) {
	for _, c := range []struct {
		in   []dayReading
		want string
	}{
		{[]dayReading{{3, 1}, {1, 2}, {3, -0.5}, {2, 4}, {1, 5}, {3, 6}}, "1:[2 5] 2:[4] 3:[1 -0.5 6]"},
		{[]dayReading{{-1, 1}, {-3, 2}, {-1, 3}}, "-3:[2] -1:[1 3]"},
		{[]dayReading{{900000, 1}, {5, 2}, {900000, 3}, {-900000, 4}, {5, 5}}, "-900000:[4] 5:[2 5] 900000:[1 3]"},
		{nil, ""},
	} {
		var got []string
		eachDay(c.in, func(d int64, vs []float64) { got = append(got, fmt.Sprintf("%d:%v", d, vs)) })
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("eachDay(%v) = %s, want %s", c.in, g, c.want)
		}
	}
}
