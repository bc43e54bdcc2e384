package ticket

import "time"

// Event is a kind of thing that happens to a ticket after it is opened,
// as its timing reads it.
type Event int

// The events a ticket's timing reads.
const (
	// ProviderResponded: the provider answered (awaitingCustomer when the
	// answer asked the customer something).
	ProviderResponded Event = iota + 1
	// CustomerReplied: the customer answered the provider.
	CustomerReplied
	// TicketResolved: the provider resolved the ticket.
	TicketResolved
	// HardwareReplaced: the provider replaced the hardware.
	HardwareReplaced
)

// Record adds one event at at to t, the one rule of the live desk and the
// month's report: answers and replies are all kept; a ticket resolved or
// its hardware replaced more than once is resolved (replaced) at the
// earliest of them, whatever order they are recorded in.
func (t *Ticket) Record(e Event, at time.Time, awaitingCustomer bool) {
	switch e {
	case ProviderResponded:
		t.Responses = append(t.Responses, Response{At: at, AwaitingCustomer: awaitingCustomer})
	case CustomerReplied:
		t.CustomerReplies = append(t.CustomerReplies, at)
	case TicketResolved:
		t.Resolved = earliest(t.Resolved, at)
	case HardwareReplaced:
		t.Replaced = earliest(t.Replaced, at)
	}
}

// earliest is the earlier of a (zero: none yet) and b.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}
