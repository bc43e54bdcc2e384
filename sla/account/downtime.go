package account

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/terms"
)

// NoticeClock applies a contract whose downtime counts from the renter's
// notice: each counted outage starts at the first notice (ticket opened on
// the node) inside it; one no notice fell inside counts nothing. Under the
// failure clock outages are returned as they are.
func NoticeClock(tm *terms.Terms, outs []Outage, notices []time.Time) []Outage {
	if tm.Credits.Clock != terms.FromNotice {
		return outs
	}
	ns := append([]time.Time(nil), notices...)
	sort.Slice(ns, func(i, j int) bool { return ns[i].Before(ns[j]) })
	out := make([]Outage, len(outs))
	for i, o := range outs {
		out[i] = o
		if ok, _ := Counted(tm, o); !ok {
			continue
		}
		j := sort.Search(len(ns), func(j int) bool { return !ns[j].Before(o.Span.Start) })
		if j == len(ns) || !ns[j].Before(o.Span.End) {
			out[i].Cause = CauseNoNotice
			continue
		}
		out[i].Span.Start = ns[j]
	}
	return out
}

// DowntimeCredit is one incident's downtime credit under one rule.
type DowntimeCredit struct {
	Rule int // index into the contract's credits.downtime
	Span interval.Interval
	// Downtime is the counted downtime; Credited is it rounded up and
	// capped by the rule, then by what the month cap left.
	Downtime, Credited time.Duration
	GPUs               int // whose hourly rate is multiplied
	Multiple           float64
	Rate               float64 // price of those GPUs for an hour
	CreditHours        float64 // hours of Rate credited: Multiple × Credited, rounded if the rule says so
	Amount             float64
	// IncidentCapped: the rule's incident_cap (an amount or a percent of
	// the charge) bounded Amount; MonthCapped: the month's cap did.
	IncidentCapped bool
	MonthCapped    bool
	// Truncated: Amount is a figure with a part of a cent cut off
	// (MoneyDown).
	Truncated bool
}

// DowntimeCredits works out every rule's credits: a rule's incidents are
// the runs of the claimable downtime (after exclusions, the minimum run and
// the clock) of the kinds it covers, so overlapping outages of two kinds
// are one incident. The month cap is spent in time order. gpus is the
// node's GPU count, price its price per GPU-hour and charge its charge for
// the month (what caps in percent are shares of).
func DowntimeCredits(tm *terms.Terms, books Books, outs []Outage, gpus int, price, charge float64) []DowntimeCredit {
	var all []DowntimeCredit
	for ri, r := range tm.Credits.Rules {
		var spans []interval.Interval
		for _, o := range outs {
			if ok, _ := Counted(tm, o); ok && r.Covers(o.Kind) {
				spans = append(spans, o.Span)
			}
		}
		// An incident is a run of the covered outages; what of it counts is
		// what the downtime period counts of the claimable runs inside it
		// (announced maintenance inside it does not split it into two
		// incidents to round up). A credit is reckoned on the whole
		// incident, however many months it spans ("total duration of the
		// anomaly … rounded up to the nearest hour" rounds once), and falls
		// in the month the incident ended: none here for one still going
		// at the period's end, unless the month after is no service term
		// (Books.TermTo), where nothing would be owed for it: it earns here
		// for what it counts up to this term's end.
		for _, run := range interval.Union(spans...) {
			var to time.Time
			if !endsIn(run, books.Period) {
				if books.TermTo.IsZero() || !run.Start.Before(books.TermTo) || !run.End.After(books.TermTo) {
					continue
				}
				to = books.TermTo
			}
			d := wholeCounted(books.ClaimableRuns, run, books.TermFrom, to, tm.Uptime.DowntimePeriod.Unit)
			if d <= 0 {
				continue
			}
			n := gpus
			if r.Per == terms.PerGPU {
				n = affected(tm, r, outs, run, gpus)
			}
			all = append(all, DowntimeCredit{Rule: ri, Span: run, Downtime: d,
				Credited: r.Hours(d), GPUs: n, Multiple: r.Multiple, Rate: price * float64(n)})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Span.Start.Before(all[j].Span.Start) })
	capCredits(tm, all, charge)
	return all
}

// wholeCounted is what the downtime period counts of the claimable runs
// inside an incident, each run whole (its parts in other months too,
// inside the service terms [from, to) where a bound is set); a run only
// partly inside the incident counts in proportion.
func wholeCounted(rs []Run, iv interval.Interval, from, to time.Time, unit time.Duration) time.Duration {
	var d time.Duration
	for _, r := range rs {
		ov := interval.Set{r.Span}.Overlap(iv)
		switch {
		case ov <= 0:
		case ov == r.Span.Duration():
			d += r.CountedWithin(from, to, unit)
		default:
			d += time.Duration(float64(r.Counted) * float64(ov) / float64(r.Span.Duration()))
		}
	}
	return d
}

// capCredits prices each credit and applies the caps: the rule's incident
// cap (hours, already in Credited, or money), then the month's, spent in
// time order (hours of downtime, or money).
func capCredits(tm *terms.Terms, all []DowntimeCredit, charge float64) {
	mc := tm.Credits.MonthCap
	leftHours, leftMoney := mc.Hours, mc.Money(charge)
	for i := range all {
		c := &all[i]
		if mc.Hours > 0 {
			if c.Credited > leftHours {
				c.Credited, c.MonthCapped = leftHours, true
			}
			leftHours -= c.Credited
		}
		r := tm.Credits.Rules[c.Rule]
		c.CreditHours = r.CreditHours(c.Credited)
		c.Amount, c.Truncated = MoneyDown(c.Rate*c.CreditHours), Cut(c.Rate*c.CreditHours)
		if lim := MoneyDown(r.IncidentCap.Money(charge)); c.Amount > lim {
			c.Amount, c.IncidentCapped, c.Truncated = lim, true, Cut(r.IncidentCap.Money(charge))
		}
		if mc.Amount > 0 || mc.Percent > 0 {
			if c.Amount > leftMoney {
				c.Amount, c.MonthCapped, c.Truncated = MoneyDown(max(leftMoney, 0)), true, Cut(max(leftMoney, 0))
			}
			leftMoney -= c.Amount
		}
	}
}

// affected is how many GPUs the covered outages overlapping run affected:
// a check incident judged one GPU (its check names it, "name/gpu3"); an
// outage that names none — unreachable, or a node-wide check — affects
// them all.
func affected(tm *terms.Terms, r terms.DowntimeRule, outs []Outage, run interval.Interval, gpus int) int {
	seen := map[string]bool{}
	for _, o := range outs {
		if ok, _ := Counted(tm, o); !ok || !r.Covers(o.Kind) || !o.Span.Start.Before(run.End) || !run.Start.Before(o.Span.End) {
			continue
		}
		g, ok := checkGPU(o.Check)
		if !ok {
			return gpus
		}
		seen[g] = true
	}
	return min(len(seen), gpus)
}

// checkGPU is the GPU a check key names (incident.CheckKey's "/gpuN").
func checkGPU(key string) (string, bool) {
	i := strings.LastIndex(key, "/gpu")
	if i < 0 || i+4 == len(key) {
		return "", false
	}
	if _, err := strconv.Atoi(key[i+4:]); err != nil {
		return "", false
	}
	return key[i+4:], true
}

// DowntimeTotal sums the credits' amounts.
func DowntimeTotal(cs []DowntimeCredit) float64 {
	t := 0.0
	for _, c := range cs {
		t += c.Amount
	}
	return Money(t)
}
