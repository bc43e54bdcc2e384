package terms

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// Approximation is a clause of the provider's text that affects a number
// and that no term can say exactly: the pack quotes it, says what the
// engine does instead, and bounds the difference, so the claim page can
// say the figure is approximate and by at most how much.
type Approximation struct {
	Clause string   // the provider's words
	Terms  []string // the term keys it bears on (fields this file gives)
	Why    string   // what the engine does instead
	// PerRun and PerMonth bound the difference in counted downtime: at most
	// PerRun for every counted run of downtime, plus PerMonth.
	PerRun, PerMonth time.Duration
	// AcrossMonthEnd: the text does not say to which month a run across a
	// month's start or end belongs, so all its counted downtime may be the
	// other month's, or this one's (Tencent: "单实例单次服务不可用分钟数 =
	// 实例不可用解决时间 - 实例不可用开始时间", and no month named).
	AcrossMonthEnd bool
	// ClaimWindow: the claim runs from each incident (claim.from:
	// incident) and the month's letter exists only once the month is over,
	// so an incident whose window closed before the month ended cannot be
	// in it in time; the provider may leave its counted downtime out of the
	// month's (Alibaba: "Submit within 30 days of incident").
	ClaimWindow bool
	// Bound says in words how far off the figure may be where the
	// difference is not one of downtime (a fee the text reckons otherwise).
	Bound string
	// Direction: Under, the engine counts no more than the provider would
	// (the claim may be smaller than owed); Over, it may count more; Either.
	Direction Direction
	Line      int
}

// Direction says which way an approximation may err.
type Direction string

// Directions.
const (
	Under  Direction = "under"
	Over   Direction = "over"
	Either Direction = "either"
)

// MaxDowntime is how much counted downtime the approximation may be off by
// in a month with runs counted runs.
func (a Approximation) MaxDowntime(runs int) time.Duration {
	return a.PerRun*time.Duration(runs) + a.PerMonth
}

// approximations reads the contract's approximations: list.
func (p *parser) approximations(root *yaml.Node, o *object, t *Terms) error {
	n, ok := o.vals["approximations"]
	if !ok {
		return nil
	}
	items, err := p.seq(n, "approximations")
	if err != nil {
		return err
	}
	for i, it := range items {
		a, err := p.approximation(root, it, fmt.Sprintf("approximations[%d]", i))
		if err != nil {
			return err
		}
		t.Approximations = append(t.Approximations, a)
	}
	return nil
}

func (p *parser) approximation(root, it *yaml.Node, f string) (Approximation, error) {
	a := Approximation{Line: it.Line}
	o, err := p.object(it, f, "clause", "terms", "why", "per_run", "per_month", "across_month_end", "claim_window", "bound", "direction")
	if err != nil {
		return a, err
	}
	for key, dst := range map[string]*string{"clause": &a.Clause, "why": &a.Why} {
		v, err := p.require(o, key)
		if err != nil {
			return a, err
		}
		if *dst, err = p.str(v, f+"."+key); err != nil {
			return a, err
		}
	}
	dn, err := p.require(o, "direction")
	if err != nil {
		return a, err
	}
	d, err := p.str(dn, f+".direction")
	if err != nil {
		return a, err
	}
	switch Direction(d) {
	case Under, Over, Either:
		a.Direction = Direction(d)
	default:
		return a, p.err(dn, f+".direction", "%q is not under, over or either", d)
	}
	for key, dst := range map[string]*time.Duration{"per_run": &a.PerRun, "per_month": &a.PerMonth} {
		if v, ok := o.vals[key]; ok {
			if *dst, err = p.duration(v, f+"."+key); err != nil {
				return a, err
			}
		}
	}
	if v, ok := o.vals["bound"]; ok {
		if a.Bound, err = p.str(v, f+".bound"); err != nil {
			return a, err
		}
	}
	if v, ok := o.vals["across_month_end"]; ok {
		if a.AcrossMonthEnd, err = p.boolean(v, f+".across_month_end"); err != nil {
			return a, err
		}
	}
	if v, ok := o.vals["claim_window"]; ok {
		if a.ClaimWindow, err = p.boolean(v, f+".claim_window"); err != nil {
			return a, err
		}
	}
	if a.PerRun == 0 && a.PerMonth == 0 && !a.AcrossMonthEnd && !a.ClaimWindow && a.Bound == "" {
		return a, p.err(it, f, "say by at most how much: per_run, per_month, across_month_end, claim_window (downtime) or bound (in words)")
	}
	if v, ok := o.vals["terms"]; ok {
		keys, err := p.seq(v, f+".terms")
		if err != nil {
			return a, err
		}
		for j, k := range keys {
			kf := fmt.Sprintf("%s.terms[%d]", f, j)
			s, err := p.str(k, kf)
			if err != nil {
				return a, err
			}
			if !hasPath(root, s) {
				return a, p.err(k, kf, "%q is no field this file gives", s)
			}
			a.Terms = append(a.Terms, s)
		}
	}
	return a, nil
}
