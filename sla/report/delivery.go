package report

import (
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/delivery"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// delivery judges order to delivery (the first heartbeat, or the first
// passing acceptance check where the contract says so: delivery.Instant)
// against the contract's target with delivery.Judge, the rule the live
// delivery alerts use, and returns the late-delivery penalty, which only
// the month the node was ordered in earns.
func (m nodeMonth) delivery(nr *Node) []account.Penalty {
	tm := m.tm
	ordered := m.n.reg.OrderedAt
	d := Delivery{OrderedAt: ts(ordered, tm), DeliveredAt: ts(m.delivered, tm), TargetSeconds: secs(tm.Delivery.Within),
		InMonth: !ordered.Before(m.ms) && ordered.Before(m.me)}
	if tm.Delivery.CountsUntil == terms.UntilAcceptancePassed {
		d.CountsUntil = string(terms.UntilAcceptancePassed)
	}
	v := delivery.Judge(tm.Delivery, ordered, m.delivered, minTime(m.me, m.asOf))
	d.Seconds, d.Status, d.LateSeconds = secs(v.Took), v.Status, secs(v.Late)
	if m.delivered.IsZero() {
		d.JudgedAt = ts(minTime(m.me, m.asOf), tm)
	}
	var penalties []account.Penalty
	if d.Status == ticket.Breached && d.InMonth {
		if p := tm.Delivery.Penalty.For(v.Late); p > 0 {
			// A node never delivered was not "delivered … after the
			// order": its lateness runs on, judged at the month's end
			// or the as-of instant, whichever is first.
			why := msg.New("delivered %s after the order (target %s)", v.Took.Round(time.Second), tm.Delivery.Within)
			if m.delivered.IsZero() {
				why = msg.New("not delivered as of %s, %s late so far (target %s)", msg.At(minTime(m.me, m.asOf), tm.Calendar.Loc),
					v.Late.Round(time.Second), tm.Delivery.Within)
			}
			penalties = append(penalties, account.Penalty{Kind: "late_delivery", Ref: m.n.id, Percent: p, Reason: why})
		}
	}
	nr.Delivery = d
	return penalties
}
