package report

import (
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
)

// fleetSlack widens the month to every zone's: a contract's month may start
// up to 14 hours before or after the UTC one.
const fleetSlack = 14 * time.Hour

// collectFleet keeps the stress figures of the month and its lookback, the
// nodes' own results the fleet baselines are made of.
func (b *Builder) collectFleet(node string, at int64, checks []events.Check) {
	if b.ownFleet && at >= b.winStart && at < b.winEnd() {
		b.fleet.Add(node, time.Unix(0, at), checks)
	}
}

func (b *Builder) winEnd() int64 {
	return time.Date(b.opts.Year, b.opts.Month+1, 1, 0, 0, 0, 0, time.UTC).Add(fleetSlack).UnixNano()
}

// computeFleet compares every node's stress figures with the other nodes of
// its GPU model over the month (docs/scorecard.md, "Fleet baselines"). Nil
// when no node sent any.
func (b *Builder) computeFleet() *baseline.Result {
	if b.opts.FleetShare != nil {
		return b.opts.FleetShare.Result
	}
	if b.ownFleet {
		b.fleet.Seal()
	}
	if !b.fleet.Any(b.winStart, b.winEnd()) {
		return nil
	}
	res := b.fleet.Compute(func(id string) (string, bool) {
		n := b.nodes[id]
		if n == nil || !n.registered || b.demoOver(n) != nil {
			return "", false
		}
		return n.reg.Hardware.GPUModel, true
	}, time.Unix(0, b.winStart), time.Unix(0, b.winEnd()), baseline.Options{})
	return &res
}

// fleetOutages are the node's streaks below its siblings as
// performance_below_spec incidents: from the first slow run to the first
// run back at or above the fleet threshold (or the end of the report).
func (b *Builder) fleetOutages(n *nodeAcc, end time.Time) []checkOutage {
	if b.fleetRes == nil {
		return nil
	}
	var out []checkOutage
	loc := n.tm.Calendar.Loc
	for i := range b.fleetRes.Findings {
		f := &b.fleetRes.Findings[i]
		if f.Node != n.id || !f.Start.Before(end) {
			continue
		}
		o := checkOutage{Outage: account.Outage{Kind: incident.PerformanceBelowSpec, Check: baseline.CheckKey(f.Figure, f.GPU), Cause: incident.CauseCheck,
			Span: interval.Interval{Start: f.Start, End: end}, Evidence: []msg.Text{f.Text()}}, open: true}
		if !f.End.IsZero() && f.End.Before(end) {
			o.Span.End, o.open = f.End, false
			o.Evidence = append(o.Evidence, msg.New("back at or above the fleet threshold from %s", msg.At(f.End, loc)))
		} else {
			o.Evidence = append(o.Evidence, msg.New("still below its siblings at the end of the report"))
		}
		out = append(out, o)
	}
	return out
}
