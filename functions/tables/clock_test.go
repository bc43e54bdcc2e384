package tables

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/ticket"
)

func TestClockCell(t *testing.T) {
	due := time.Date(2026, 3, 2, 9, 30, 0, 0, time.FixedZone("CST", 8*3600))
	for _, c := range []struct {
		clock *ticket.Clock
		want  string
	}{
		{nil, "-"},
		{&ticket.Clock{Status: ticket.Met, Elapsed: 12*time.Minute + 400*time.Millisecond}, "met in 12m0s"},
		{&ticket.Clock{Status: ticket.Breached, Late: 7 * time.Minute, Deadline: due}, "BREACHED 7m0s late (due 03-02 01:30)"},
		{&ticket.Clock{Status: ticket.Pending, Target: time.Hour, Elapsed: 55 * time.Minute, Deadline: due}, "pending, due 03-02 01:30 (in 5m0s)"},
	} {
		if got := clockCell(c.clock); got != c.want {
			t.Errorf("%+v: %q, want %q", c.clock, got, c.want)
		}
	}
}
