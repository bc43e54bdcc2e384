package incident

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/interval"
)

// A gap is an incident only if the backend, itself up, waited past the
// grace: the parts outside its downtime are what it could observe.
func TestOverdue(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 3, 1, 0, m, 0, 0, time.UTC) }
	iv := func(a, b int) interval.Interval { return interval.Interval{Start: at(a), End: at(b)} }
	grace := 2 * time.Minute
	for _, tc := range []struct {
		name    string
		gap     interval.Interval
		backend interval.Set
		want    bool
	}{
		{"no downtime, longer than the grace", iv(0, 3), nil, true},
		{"no downtime, exactly the grace", iv(0, 2), nil, false},
		{"wholly inside the downtime", iv(10, 60), interval.Set{iv(10, 60)}, false},
		{"inside, heard within the grace of the restart", iv(10, 62), interval.Set{iv(10, 60)}, false},
		{"inside, heard after the grace of the restart", iv(10, 63), interval.Set{iv(10, 60)}, true},
		{"overdue before the backend went down", iv(5, 60), interval.Set{iv(10, 60)}, true},
		{"the grace before and after, not longer", iv(8, 62), interval.Set{iv(10, 60)}, false},
		{"overdue in a short run between two downtimes", iv(9, 61), interval.Set{iv(10, 30), iv(33, 60)}, true},
		{"a run between two downtimes as short as the grace", iv(9, 61), interval.Set{iv(10, 30), iv(32, 60)}, false},
	} {
		if got := Overdue(tc.gap, tc.backend, grace); got != tc.want {
			t.Errorf("%s: Overdue = %v, want %v", tc.name, got, tc.want)
		}
	}
}
