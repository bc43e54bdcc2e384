package ticket

import "time"

// Target names, as a ticket event records the target it completed.
const (
	TargetResponse    = "response"
	TargetResolution  = "resolution"
	TargetReplacement = "replacement"
)

// NamedClock is one of a timing's clocks with its target's name; Clock is
// nil when the ticket has no such target.
type NamedClock struct {
	Name  string
	Clock *Clock
}

// Clocks are the timing's clocks in the order a ticket meets them:
// response, resolution, replacement.
func (t Timing) Clocks() []NamedClock {
	return []NamedClock{{TargetResponse, t.Response}, {TargetResolution, t.Resolution}, {TargetReplacement, t.Replacement}}
}

// Completed says which target an event completed, given the timing just
// before it and with it (both as of the event): the first clock that was
// running before and is done after. late is how far past its deadline it
// was done, 0 when met in time; ok is false when the event completed no
// target (an answer after the response was already given, a reply from
// the customer).
func Completed(before, after Timing) (target string, late time.Duration, ok bool) {
	b, a := before.Clocks(), after.Clocks()
	for i := range b {
		if b[i].Clock == nil || !b[i].Clock.Done.IsZero() || a[i].Clock == nil || a[i].Clock.Done.IsZero() {
			continue
		}
		if a[i].Clock.Status == Breached {
			late = a[i].Clock.Late
		}
		return a[i].Name, late, true
	}
	return "", 0, false
}
