package app

import (
	"sort"

	"github.com/gpusla/gpusla/sla/terms"
)

// TermsBook holds the contract terms the backend knows, by contract id
// (functions/wiring finds and loads them).
type TermsBook map[string]*terms.Terms

// Contracts lists the contract ids, sorted.
func (b TermsBook) Contracts() []string {
	out := make([]string, 0, len(b))
	for k := range b {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// IncidentTicketKey is the idempotency key of the ticket opened from an
// incident's alert: one incident, one ticket, however often it is clicked,
// and the other buttons find that ticket from the same key.
func IncidentTicketKey(node, incidentID string) string { return "incident:" + node + ":" + incidentID }

// TicketIDForKey is the id Open gives a ticket opened with key.
func TicketIDForKey(key string) string {
	id, _ := ticketID(key)
	return id
}
