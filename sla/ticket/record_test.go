package ticket

import (
	"testing"
	"time"
)

func TestRecordKeepsTheEarliestResolutionAndReplacement(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	var tk Ticket
	tk.Record(ProviderResponded, t0, true)
	tk.Record(CustomerReplied, t0.Add(time.Minute), false)
	tk.Record(ProviderResponded, t0.Add(2*time.Minute), false)
	tk.Record(TicketResolved, t0.Add(3*time.Hour), false)
	tk.Record(TicketResolved, t0.Add(2*time.Hour), false) // recorded late, happened earlier
	tk.Record(TicketResolved, t0.Add(4*time.Hour), false)
	tk.Record(HardwareReplaced, t0.Add(5*time.Hour), false)
	tk.Record(HardwareReplaced, t0.Add(6*time.Hour), false)
	if len(tk.Responses) != 2 || !tk.Responses[0].AwaitingCustomer || tk.Responses[1].AwaitingCustomer {
		t.Errorf("responses %+v, want both, the first awaiting the customer", tk.Responses)
	}
	if len(tk.CustomerReplies) != 1 || !tk.CustomerReplies[0].Equal(t0.Add(time.Minute)) {
		t.Errorf("customer replies %v", tk.CustomerReplies)
	}
	if !tk.Resolved.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("resolved %v, want the earliest, %v", tk.Resolved, t0.Add(2*time.Hour))
	}
	if !tk.Replaced.Equal(t0.Add(5 * time.Hour)) {
		t.Errorf("replaced %v, want the earliest, %v", tk.Replaced, t0.Add(5*time.Hour))
	}
}
