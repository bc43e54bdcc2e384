package tables

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// Timer times a ticket against its node's contract (app.TicketDesk).
type Timer interface {
	Timing(t *store.Ticket, asOf time.Time) (ticket.Timing, *terms.Terms, error)
}

// Tickets prints each ticket with its targets as of now: whether it was
// opened in business hours, and the response, resolution and replacement
// clocks. A ticket that cannot be timed (its contract is not loaded) keeps
// its row, with the reason where its clocks would be.
func Tickets(w io.Writer, desk Timer, list []store.Ticket, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TICKET\tNODE\tPRIO\tOPENED (UTC)\tHOURS\tRESPONSE\tRESOLUTION\tREPLACEMENT")
	for i := range list {
		t := &list[i]
		opened := t.Opened.UTC().Format("2006-01-02 15:04")
		tim, _, err := desk.Timing(t, now)
		if err != nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t?\t%v\t\t\n", t.ID, t.Node, t.Priority, opened, err)
			continue
		}
		hours := "business"
		if tim.OffHours {
			hours = "off (" + string(tim.DayKind) + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Node, t.Priority, opened, hours,
			clockCell(tim.Response), clockCell(tim.Resolution), clockCell(tim.Replacement))
	}
	return tw.Flush()
}

// clockCell renders one target: "met in 12m0s", "BREACHED 7m0s late (due
// …)", "pending, due … (in 5m0s)", or "-" when the contract sets none.
func clockCell(c *ticket.Clock) string {
	if c == nil {
		return "-"
	}
	due := c.Deadline.UTC().Format("01-02 15:04")
	switch c.Status {
	case ticket.Met:
		return "met in " + c.Elapsed.Round(time.Second).String()
	case ticket.Breached:
		return fmt.Sprintf("BREACHED %s late (due %s)", c.Late.Round(time.Second), due)
	default:
		return fmt.Sprintf("pending, due %s (in %s)", due, (c.Target - c.Elapsed).Round(time.Second))
	}
}
