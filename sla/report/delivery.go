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
	var penalties []account.Penalty
	if d.Status == ticket.Breached && d.InMonth {
		if p := tm.Delivery.Penalty.For(v.Late); p > 0 {
			penalties = append(penalties, account.Penalty{Kind: "late_delivery", Ref: m.n.id, Percent: p,
				Reason: msg.New("delivered %s after the order (target %s)", v.Took.Round(time.Second), tm.Delivery.Within)})
		}
	}
	nr.Delivery = d
	return penalties
}
