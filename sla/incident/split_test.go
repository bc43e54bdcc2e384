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
		if got := Overdue(tc.gap, tc.backend, nil, grace); got != tc.want {
			t.Errorf("%s: Overdue = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Late batches arriving are signs of life: a spool draining after the
// backend's restart for longer than the grace is no silence.
func TestOverdueLateReceipts(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 3, 1, 0, m, 0, 0, time.UTC) }
	iv := func(a, b int) interval.Interval { return interval.Interval{Start: at(a), End: at(b)} }
	grace, down := 2*time.Minute, interval.Set{iv(10, 60)}
	for _, tc := range []struct {
		name string
		gap  interval.Interval
		late interval.Set
		want bool
	}{
		{"drained for 12 minutes after the restart", iv(10, 72), interval.Set{iv(60, 72)}, false},
		{"a 3-minute pause in the drain", iv(10, 72), interval.Set{iv(60, 65), iv(68, 72)}, true},
		{"a 2-minute pause in the drain", iv(10, 72), interval.Set{iv(60, 65), iv(67, 72)}, false},
		{"late batches, no downtime", iv(0, 20), interval.Set{iv(1, 20)}, false},
	} {
		if got := Overdue(tc.gap, down, tc.late, grace); got != tc.want {
			t.Errorf("%s: Overdue = %v, want %v", tc.name, got, tc.want)
		}
	}
}
