package report

import (
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/ticket"
)

// delivery judges order to first heartbeat against the contract's target
// and returns the late-delivery penalty, which only the month the node was
// ordered in earns.
func (m nodeMonth) delivery(nr *Node) []account.Penalty {
	tm := m.tm
	ordered := m.n.reg.OrderedAt
	d := Delivery{OrderedAt: ts(ordered, tm), DeliveredAt: ts(m.delivered, tm), TargetSeconds: secs(tm.Delivery.Within),
		InMonth: !ordered.Before(m.ms) && ordered.Before(m.me)}
	var took time.Duration
	switch {
	case !m.delivered.IsZero():
		took = m.delivered.Sub(ordered)
		if took < 0 {
			took = 0
		}
	default:
		took = minTime(m.me, m.asOf).Sub(ordered)
	}
	d.Seconds = secs(took)
	switch {
	case tm.Delivery.Within == 0:
		d.Status = "no_target"
	case took > tm.Delivery.Within:
		d.Status, d.LateSeconds = ticket.Breached, secs(took-tm.Delivery.Within)
	case m.delivered.IsZero():
		d.Status = ticket.Pending
	default:
		d.Status = ticket.Met
	}
	var penalties []account.Penalty
	if d.Status == ticket.Breached && d.InMonth {
		if p := tm.Delivery.Penalty.For(took - tm.Delivery.Within); p > 0 {
			penalties = append(penalties, account.Penalty{Kind: "late_delivery", Ref: m.n.id, Percent: p,
				Reason: msg.New("delivered %s after the order (target %s)", took.Round(time.Second), tm.Delivery.Within)})
		}
	}
	nr.Delivery = d
	return penalties
}
