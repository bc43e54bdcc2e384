package terms

import (
	"slices"
	"time"

	"go.yaml.in/yaml/v3"
)

// Within is a deadline a provider's own text sets itself in the claim
// procedure: how long it has to answer a claim (claim.answer_within), or to
// put a granted credit on a bill (claim.credit_within). Exactly one of Days
// and BillingCycles is set.
//
// Both are counted in the contract's zone, and each is read the way that
// gives the provider the most time, so a deadline gpusla says has passed
// has passed under any reading of the text:
//
//   - Days: "within 60 days after the request" — calendar days, the day of
//     the request not counted (the usual rule for periods in days, e.g.
//     the PRC Civil Code art. 201: 开始的当日不计入), the N-th day included:
//     a request on 10 May is due before 10 July 00:00 (the 60th day after
//     it is 9 July). Counting 60 × 24 h from the request's instant, or the
//     request's day as the first, would end earlier.
//   - BillingCycles: "within one billing cycle following the month in
//     which the request occurred" — billing cycles are calendar months, so
//     the deadline is the end of the N-th month after the month of the
//     event: a request on 15 March (or on 31 March 23:59) is due before
//     1 May 00:00; one on 1 April 00:00 before 1 June.
type Within struct {
	Days          int
	BillingCycles int
	// From is what starts the count: WithinFromSent (the claim reached the
	// provider: "after the request") or WithinFromAnswered (the provider
	// confirmed it: "the month in which your request is confirmed by us").
	From string
	// Line is the key's line in the terms file, which a follow-up letter
	// cites beside the contract's clause id for claim.
	Line int
}

// What a provider deadline counts from.
const (
	WithinFromSent     = "sent"
	WithinFromAnswered = "answered"
)

// Set says whether the terms give this deadline.
func (w Within) Set() bool { return w.Days > 0 || w.BillingCycles > 0 }

// Due is the deadline (exclusive) for an event at from, in the zone loc;
// zero when the terms set none or from is zero.
func (w Within) Due(from time.Time, loc *time.Location) time.Time {
	if !w.Set() || from.IsZero() {
		return time.Time{}
	}
	f := from.In(loc)
	if w.BillingCycles > 0 {
		return time.Date(f.Year(), f.Month()+time.Month(w.BillingCycles)+1, 1, 0, 0, 0, 0, loc)
	}
	return time.Date(f.Year(), f.Month(), f.Day()+w.Days+1, 0, 0, 0, 0, loc)
}

// providerDeadlines reads claim.answer_within and claim.credit_within,
// each {days: N} or {billing_cycles: N}, with from: sent (the default) or,
// for a credit, answered.
func (p *parser) providerDeadlines(c *object, t *Terms) error {
	for _, d := range []struct {
		key   string
		dst   *Within
		froms []string
	}{
		{"answer_within", &t.Claim.AnswerWithin, []string{WithinFromSent}},
		{"credit_within", &t.Claim.CreditWithin, []string{WithinFromSent, WithinFromAnswered}},
	} {
		n, ok := c.vals[d.key]
		if !ok {
			continue
		}
		w, err := p.within(n, "claim."+d.key, d.froms)
		if err != nil {
			return err
		}
		*d.dst = w
	}
	return nil
}

func (p *parser) within(n *yaml.Node, field string, froms []string) (Within, error) {
	o, err := p.object(n, field, "days", "billing_cycles", "from")
	if err != nil {
		return Within{}, err
	}
	w := Within{From: WithinFromSent, Line: n.Line}
	days, hasDays := o.vals["days"]
	cycles, hasCycles := o.vals["billing_cycles"]
	switch {
	case hasDays && hasCycles:
		return Within{}, p.err(n, field, "give either days or billing_cycles, not both")
	case hasDays:
		if w.Days, err = p.integer(days, field+".days", 1); err != nil {
			return Within{}, err
		}
		if w.Days > 366 {
			return Within{}, p.err(days, field+".days", "%d is longer than a year", w.Days)
		}
	case hasCycles:
		if w.BillingCycles, err = p.integer(cycles, field+".billing_cycles", 1); err != nil {
			return Within{}, err
		}
		if w.BillingCycles > 12 {
			return Within{}, p.err(cycles, field+".billing_cycles", "%d is more than a year", w.BillingCycles)
		}
	default:
		return Within{}, p.err(n, field+".days", "missing (or give billing_cycles)")
	}
	if v, ok := o.vals["from"]; ok {
		s, err := p.str(v, field+".from")
		if err != nil {
			return Within{}, err
		}
		if !slices.Contains(froms, s) {
			return Within{}, p.err(v, field+".from", "%q: want %s", s, orList(froms))
		}
		w.From = s
	}
	return w, nil
}

// ClaimClause is where a provider deadline is in the contract: the clause
// id the terms give claim (clauses.claim), and the file and line of w.
func (t *Terms) ClaimClause(w Within) Clause {
	c := t.Clause("claim")
	if w.Line > 0 {
		c.Line = w.Line
	}
	return c
}

// orList is `"a"` or `"a" or "b"`.
func orList(l []string) string {
	out := ""
	for i, s := range l {
		if i > 0 {
			out += " or "
		}
		out += `"` + s + `"`
	}
	return out
}
