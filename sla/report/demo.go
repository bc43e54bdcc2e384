package report

import (
	"fmt"
	"time"

	"github.com/gpusla/gpusla/sla/calendar"
)

// The demo node of `gpusla serve` (node_registered with demo: true) is
// rented under a made-up contract. Once serve ends the demo, releasing the
// node, a month that ended after the release is the renter's own: the
// demo's node is left out of it as an unknown contract's node is, no row,
// credit, letter or ledger draft, but not as a partial report (it is not
// the renter's node). A month that ended before the release (the demo
// alone) keeps it: showing its report and letter is the demo's point.

// DemoOver reports whether a demo node released at released (zero: not
// released as of the report) is left out of the month that ends at
// monthEnd (its contract's zone).
func DemoOver(demo bool, released, monthEnd time.Time) bool {
	return demo && !released.IsZero() && released.Before(monthEnd)
}

// DemoOverReason is why a demo node is left out of a month: when it was
// released and who recorded it, and whose contract it is.
func DemoOverReason(released time.Time, by, contract, provider string) string {
	if by == "" {
		by = "an unknown recorder"
	}
	return fmt.Sprintf("the demo is over: the demo node was released at %s (recorded by %s); "+
		"its contract %q (provider %q) is not yours, so it is left out of this month's report, claims and letters",
		released.UTC().Format(time.RFC3339), by, contract, provider)
}

// demoOver is node n's demo-over record in the month, nil when it is not
// the demo's or its demo was not over in it. The release is only known
// when made and recorded by as_of (adminEvent).
func (b *Builder) demoOver(n *nodeAcc) *Skipped {
	if n == nil || !n.registered {
		return nil
	}
	_, me := calendar.MonthBounds(b.opts.Year, b.opts.Month, n.tm.Calendar.Loc)
	if !DemoOver(n.reg.Demo, n.released, me) {
		return nil
	}
	by := ""
	if n.release != nil {
		by = n.release.by
	}
	return &Skipped{Node: n.id, Contract: n.reg.Contract, Reason: DemoOverReason(n.released, by, n.reg.Contract, n.tm.Provider)}
}

// DemoOverNode reports whether node id is the demo's, left out of the
// month: its stress figures are no part of the fleet the renter's nodes
// are held to.
func (b *Builder) DemoOverNode(id string) bool { return b.demoOver(b.nodes[id]) != nil }
