// Package account does a node's monthly books: which unavailable intervals
// count (union, clipped to the service period, announced maintenance taken
// out, runs shorter than the contract's minimum dropped), the uptime both as
// observed and as claimable, the monthly charge, and the credit the uptime
// tier and the penalties earn, capped.
package account

import (
	"math"
	"time"

	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/terms"
)

// Outage is one interval of an incident, with whose fault it was.
type Outage struct {
	Kind     incident.Kind
	Check    string // the check of a check incident (incident.CheckKey)
	Cause    string
	Span     interval.Interval
	Evidence []msg.Text
}

// CauseNoNotice marks an outage that, under a contract whose clock starts
// at the renter's notice, no ticket was opened during: it counts nothing.
const CauseNoNotice = "no_notice"

// Maintenance is one maintenance notice.
type Maintenance struct {
	Span        interval.Interval
	AnnouncedAt time.Time
	Summary     string
}

// Notice is how long before its start the maintenance was announced.
func (m Maintenance) Notice() time.Duration { return m.Span.Start.Sub(m.AnnouncedAt) }

// Excluded reports whether the maintenance was announced early enough to be
// taken out of the month.
func (m Maintenance) Excluded(tm *terms.Terms) bool { return m.Notice() >= tm.Maintenance.Notice }

// Books is the month's arithmetic for one node.
type Books struct {
	Period interval.Interval
	// Excluded is the announced maintenance inside the period.
	Excluded interval.Set
	// Observed: every interval of an unavailable kind, whoever's fault, as the
	// backend saw it live. Claimable: only those that are the provider's
	// fault. Both after exclusions and the minimum run.
	Observed, Claimable           interval.Set
	UptimeObserved, UptimeClaimed float64
}

// Observed reports whether an outage of this kind and cause enters the
// observed figure, and Counted whether it enters the claimable one, with the
// reason when not.
func Observed(tm *terms.Terms, o Outage) bool { return tm.Uptime.Unavailable[o.Kind] }

// Counted says whether an outage is the provider's fault under tm, and why not.
func Counted(tm *terms.Terms, o Outage) (bool, msg.Text) {
	if !tm.Uptime.Unavailable[o.Kind] {
		return false, msg.New("the contract does not count %s as unavailable", msg.Word(o.Kind))
	}
	switch o.Cause {
	case incident.CauseBackendOnly:
		return false, msg.New("the node ran and reached its other targets; only the backend could not hear it")
	case incident.CauseBackendOutage:
		return false, msg.New("the backend itself was down")
	case CauseNoNotice:
		return false, msg.New("the contract's clock starts at the renter's notice, and no ticket on the node was opened during it")
	}
	return true, msg.Text{}
}

// Compute does the books for a node in service during period.
func Compute(tm *terms.Terms, period interval.Interval, outages []Outage, maint []Maintenance) Books {
	b := Books{Period: period}
	var ex []interval.Interval
	for _, m := range maint {
		if m.Excluded(tm) {
			ex = append(ex, m.Span)
		}
	}
	b.Excluded = interval.Union(ex...).Clip(period)
	var obs, claim []interval.Interval
	for _, o := range outages {
		if Observed(tm, o) {
			obs = append(obs, o.Span)
		}
		if ok, _ := Counted(tm, o); ok {
			claim = append(claim, o.Span)
		}
	}
	min := tm.Uptime.MinimumOutage
	b.Observed = interval.Union(obs...).Clip(period).Minus(b.Excluded).AtLeast(min)
	b.Claimable = interval.Union(claim...).Clip(period).Minus(b.Excluded).AtLeast(min)
	b.UptimeObserved = Uptime(period.Duration(), b.Excluded.Total(), b.Observed.Total())
	b.UptimeClaimed = Uptime(period.Duration(), b.Excluded.Total(), b.Claimable.Total())
	return b
}

// Uptime is (period − excluded − outage) / (period − excluded) × 100, 100
// when nothing is left to measure, always within [0, 100].
func Uptime(period, excluded, outage time.Duration) float64 {
	den := period - excluded
	if den <= 0 {
		return 100
	}
	u := float64(den-outage) / float64(den) * 100
	return math.Max(0, math.Min(100, u))
}

// Charge is what the node is billed for [from, to): billed time rounded up
// to the billing granularity, times GPUs, times the price per GPU-hour.
func Charge(tm *terms.Terms, price float64, gpus int, from, to time.Time) (billed time.Duration, amount float64) {
	if !to.After(from) {
		return 0, 0
	}
	d := to.Sub(from)
	g := tm.Billing.Granularity
	if g > 0 && d%g != 0 {
		d += g - d%g
	}
	return d, Money(price * float64(gpus) * d.Hours())
}

// Penalty is a percentage of the monthly charge earned by a late promise.
type Penalty struct {
	Kind    string // late_response, late_replacement, late_delivery
	Ref     string // ticket id or node id
	Percent float64
	Reason  msg.Text
}

// Credit is what the node's month earns.
type Credit struct {
	Tier        *terms.Tier
	TierPercent float64
	Penalties   []Penalty
	Uncapped    float64 // tier + penalties + downtime credits, percent of the charge
	Downtime    float64 // downtime credits, an amount
	Cap         float64
	Capped      bool
	Percent     float64
	Amount      float64
}

// CreditFor applies the tier for uptime (claimable), adds the penalties and
// the downtime credits (an amount, not a percent) and caps the sum at the
// contract's share of charge. Percent is the share of charge the capped
// amount is; with no charge, percents stay as the terms give them.
func CreditFor(tm *terms.Terms, uptime, charge float64, penalties []Penalty, downtime float64) Credit {
	c := Credit{Penalties: penalties, Cap: tm.Uptime.CreditCap, Downtime: downtime}
	if uptime < tm.Uptime.Target {
		if t, ok := tm.Uptime.TierFor(uptime); ok {
			c.Tier, c.TierPercent = &t, t.Credit
		}
	}
	pct := c.TierPercent
	for _, p := range penalties {
		pct += p.Percent
	}
	uncapped := charge*pct/100 + downtime
	c.Uncapped, c.Percent = pct, pct
	if charge > 0 {
		c.Uncapped = uncapped / charge * 100
		c.Percent = c.Uncapped
	}
	c.Amount = Money(uncapped)
	if limit := charge * c.Cap / 100; uncapped > limit+0.005 || (charge == 0 && pct > c.Cap) {
		c.Amount, c.Percent, c.Capped = Money(limit), c.Cap, true
	}
	c.Uncapped, c.Percent = round6(c.Uncapped), round6(c.Percent)
	return c
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// Money rounds to cents.
func Money(v float64) float64 { return math.Round(v*100) / 100 }
