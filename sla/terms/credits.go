package terms

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/sla/incident"
)

// maxMultiple bounds a downtime credit's multiple of the hourly rate;
// published formulas go up to 100× (some Chinese clouds' 百倍赔偿), a larger
// one is a typo.
const maxMultiple = 1000

// credits parses the optional credits section: the downtime clock, the
// downtime credit rules and the monthly cap on credited downtime. It runs
// after uptime, whose unavailable kinds the rules must stay within.
func (p *parser) credits(o *object, t *Terms) error {
	t.Credits.Clock = FromFailure
	n, ok := o.vals["credits"]
	if !ok {
		return nil
	}
	c, err := p.object(n, "credits", "clock", "downtime", "month_cap")
	if err != nil {
		return err
	}
	if v, ok := c.vals["clock"]; ok {
		s, err := p.either(v, "credits.clock", string(FromFailure), string(FromNotice))
		if err != nil {
			return err
		}
		t.Credits.Clock = CreditClock(s)
	}
	if v, ok := c.vals["month_cap"]; ok {
		if t.Credits.MonthCap, err = p.capOf(v, "credits.month_cap"); err != nil {
			return err
		}
	}
	dn, ok := c.vals["downtime"]
	if !ok {
		if _, capped := c.vals["month_cap"]; capped && !t.Credits.MonthCap.None() {
			return p.err(c.vals["month_cap"], "credits.month_cap", "caps downtime credits, but credits.downtime lists none")
		}
		return nil
	}
	items, err := p.seq(dn, "credits.downtime")
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return p.err(dn, "credits.downtime", "no rule listed")
	}
	claimed := map[incident.Kind]string{}
	for i, it := range items {
		f := fmt.Sprintf("credits.downtime[%d]", i)
		r, err := p.downtimeRule(it, f, t)
		if err != nil {
			return err
		}
		for _, k := range r.Kinds {
			if prev, dup := claimed[k]; dup {
				return p.err(it, f+".kinds", "%s is already credited by %s; an incident earns under one rule", k, prev)
			}
			claimed[k] = f
		}
		t.Credits.Rules = append(t.Credits.Rules, r)
	}
	return nil
}

// downtimeRule reads {kinds, multiple, round_up_to, round, incident_cap, per}.
// Kinds default to every unavailable kind and must be among them: downtime
// the contract does not call unavailable cannot be credited as downtime.
func (p *parser) downtimeRule(n *yaml.Node, f string, t *Terms) (DowntimeRule, error) {
	o, err := p.object(n, f, "kinds", "multiple", "round_up_to", "round", "incident_cap", "per")
	if err != nil {
		return DowntimeRule{}, err
	}
	r := DowntimeRule{Per: PerNode}
	if kn, ok := o.vals["kinds"]; ok {
		ks, err := p.seq(kn, f+".kinds")
		if err != nil {
			return r, err
		}
		if len(ks) == 0 {
			return r, p.err(kn, f+".kinds", "empty (leave it out for every unavailable kind)")
		}
		for j, kn := range ks {
			kf := fmt.Sprintf("%s.kinds[%d]", f, j)
			s, err := p.str(kn, kf)
			if err != nil {
				return r, err
			}
			k := incident.Kind(s)
			if !k.Valid() {
				return r, p.err(kn, kf, "unknown incident kind %q (known: %v)", s, incident.Kinds)
			}
			if !t.Uptime.Unavailable[k] {
				return r, p.err(kn, kf, "%s is not in uptime.unavailable; only unavailability earns downtime credits", k)
			}
			if r.Covers(k) {
				return r, p.err(kn, kf, "%s is listed twice", k)
			}
			r.Kinds = append(r.Kinds, k)
		}
	} else {
		for _, k := range incident.Kinds {
			if t.Uptime.Unavailable[k] {
				r.Kinds = append(r.Kinds, k)
			}
		}
	}
	mn, err := p.require(o, "multiple")
	if err != nil {
		return r, err
	}
	if r.Multiple, err = p.num(mn, f+".multiple"); err != nil {
		return r, err
	}
	if r.Multiple <= 0 || r.Multiple > maxMultiple {
		return r, p.err(mn, f+".multiple", "%v is not a multiple of the hourly rate above 0 and at most %d", r.Multiple, maxMultiple)
	}
	if v, ok := o.vals["round_up_to"]; ok {
		if r.RoundUp, err = p.duration(v, f+".round_up_to"); err != nil {
			return r, err
		}
		if r.RoundUp == 0 {
			return r, p.err(v, f+".round_up_to", "must be more than zero (leave it out to count to the second)")
		}
	}
	if v, ok := o.vals["round"]; ok {
		s, err := p.str(v, f+".round")
		if err != nil {
			return r, err
		}
		switch s {
		case "downtime":
		case "credit":
			if r.RoundUp == 0 {
				return r, p.err(v, f+".round", "\"credit\" needs round_up_to")
			}
			r.RoundCredit = true
		default:
			return r, p.err(v, f+".round", "%q is neither \"downtime\" nor \"credit\"", s)
		}
	}
	if v, ok := o.vals["incident_cap"]; ok {
		if r.IncidentCap, err = p.capOf(v, f+".incident_cap"); err != nil {
			return r, err
		}
		if h := r.IncidentCap.Hours; h > 0 && r.RoundUp > 0 && !r.RoundCredit && h%r.RoundUp != 0 {
			return r, p.err(v, f+".incident_cap", "%s is not a multiple of round_up_to %s", h, r.RoundUp)
		}
	}
	if v, ok := o.vals["per"]; ok {
		s, err := p.str(v, f+".per")
		if err != nil {
			return r, err
		}
		switch CreditPer(s) {
		case PerNode, PerGPU:
			r.Per = CreditPer(s)
		default:
			return r, p.err(v, f+".per", "%q is neither %q nor %q", s, PerNode, PerGPU)
		}
	}
	return r, nil
}
