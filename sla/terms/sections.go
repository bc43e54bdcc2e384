package terms

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/sla/incident"
)

// sections parses the contract's sections after uptime, one method each, in
// the order a reader of the file meets them; each sets its defaults when
// the section is left out.
func (p *parser) sections(o *object, t *Terms) error {
	for _, section := range []func(*object, *Terms) error{
		p.maintenance, p.detection, p.support, p.replacement, p.delivery, p.claim, p.billing, p.credits, p.prices, p.network, p.providerPage,
	} {
		if err := section(o, t); err != nil {
			return err
		}
	}
	return nil
}

// maintenance reads maintenance: none, or {notice: 72h}. Leaving the
// section out excludes nothing too (never an inherited notice of 0, which
// would take out every logged notice); a section that says neither, such
// as an empty one, is refused rather than guessed.
func (p *parser) maintenance(o *object, t *Terms) error {
	n, ok := o.vals["maintenance"]
	if !ok {
		return nil
	}
	t.Maintenance.Stated = true
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		if n.Value != "none" {
			return p.err(n, "maintenance", "%q is neither none nor a section {notice: …}", n.Value)
		}
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		return p.err(n, "maintenance", "empty: write maintenance: none if the contract excludes no maintenance, or {notice: 72h}")
	}
	m, err := p.object(n, "maintenance", "notice", "excuses")
	if err != nil {
		return err
	}
	v, err := p.require(m, "notice")
	if err != nil {
		return p.err(n, "maintenance.notice", "missing: the notice the contract requires for maintenance to be excluded (maintenance: none if it excludes none)")
	}
	if t.Maintenance.Notice, err = p.duration(v, "maintenance.notice"); err != nil {
		return err
	}
	t.Maintenance.Excludes = true
	return p.maintenanceExcuses(m, t)
}

// detection reads the "detection" section: grace, the thresholds, and which
// checks are definitive (one failure opens an incident).
func (p *parser) detection(o *object, t *Terms) error {
	t.Detection = incident.Thresholds{Grace: DefaultGrace, FailureThreshold: DefaultFailureThreshold,
		SuccessThreshold: DefaultSuccessThreshold, Definitive: incident.DefaultDefinitive}
	n, ok := o.vals["detection"]
	if !ok {
		return nil
	}
	d, err := p.object(n, "detection", "heartbeat_grace", "failure_threshold", "success_threshold", "definitive")
	if err != nil {
		return err
	}
	if v, ok := d.vals["heartbeat_grace"]; ok {
		if t.Detection.Grace, err = p.duration(v, "detection.heartbeat_grace"); err != nil {
			return err
		}
	}
	if v, ok := d.vals["failure_threshold"]; ok {
		if t.Detection.FailureThreshold, err = p.integer(v, "detection.failure_threshold", 1); err != nil {
			return err
		}
	}
	if v, ok := d.vals["success_threshold"]; ok {
		if t.Detection.SuccessThreshold, err = p.integer(v, "detection.success_threshold", 1); err != nil {
			return err
		}
	}
	if v, ok := d.vals["definitive"]; ok {
		items, err := p.seq(v, "detection.definitive")
		if err != nil {
			return err
		}
		// An empty list is a choice: every check then uses the thresholds.
		t.Detection.Definitive = []string{}
		for i, it := range items {
			field := fmt.Sprintf("detection.definitive[%d]", i)
			name, err := p.str(it, field)
			if err != nil {
				return err
			}
			if !validCheckPattern(name) {
				return p.err(it, field, "%q is not a check name pattern (letters, digits, '.', '_', '-' and '*', e.g. gpu.burn.*.errors)", name)
			}
			t.Detection.Definitive = append(t.Detection.Definitive, name)
		}
	}
	return nil
}

func validCheckPattern(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-', r == '*':
		default:
			return false
		}
	}
	return true
}

func (p *parser) support(o *object, t *Terms) error {
	t.Support = Support{Response: map[string]Target{}, Resolution: map[string]Target{}}
	n, ok := o.vals["support"]
	if !ok {
		return nil
	}
	s, err := p.object(n, "support", "response", "resolution", "pause_while_awaiting_customer", "late_response_penalty")
	if err != nil {
		return err
	}
	rn, err := p.require(s, "response")
	if err != nil {
		return err
	}
	ro, err := p.object(rn, "support.response")
	if err != nil {
		return err
	}
	if len(ro.keys) == 0 {
		return p.err(rn, "support.response", "no priority listed")
	}
	for _, prio := range ro.keys {
		tg, err := p.target(ro.vals[prio], "support.response."+prio)
		if err != nil {
			return err
		}
		t.Support.Priorities = append(t.Support.Priorities, prio)
		t.Support.Response[prio] = tg
	}
	if rn, ok := s.vals["resolution"]; ok {
		ro, err := p.object(rn, "support.resolution")
		if err != nil {
			return err
		}
		for _, prio := range ro.keys {
			if _, ok := t.Support.Response[prio]; !ok {
				return p.err(ro.vals[prio], "support.resolution."+prio, "priority %q has no response target", prio)
			}
			if t.Support.Resolution[prio], err = p.target(ro.vals[prio], "support.resolution."+prio); err != nil {
				return err
			}
		}
	}
	if v, ok := s.vals["pause_while_awaiting_customer"]; ok {
		if t.Support.PauseAwaitingCustomer, err = p.boolean(v, "support.pause_while_awaiting_customer"); err != nil {
			return err
		}
	}
	if v, ok := s.vals["late_response_penalty"]; ok {
		if t.Support.LateResponsePenalty, err = p.percent(v, "support.late_response_penalty"); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) replacement(o *object, t *Terms) error {
	t.Replacement.Clock = Wall
	n, ok := o.vals["hardware_replacement"]
	if !ok {
		return nil
	}
	r, err := p.object(n, "hardware_replacement", "within", "clock", "penalty")
	if err != nil {
		return err
	}
	wn, err := p.require(r, "within")
	if err != nil {
		return err
	}
	if t.Replacement.Within, err = p.duration(wn, "hardware_replacement.within"); err != nil {
		return err
	}
	if v, ok := r.vals["clock"]; ok {
		if t.Replacement.Clock, err = p.clock(v, "hardware_replacement.clock"); err != nil {
			return err
		}
	}
	if v, ok := r.vals["penalty"]; ok {
		if t.Replacement.Penalty, err = p.step(v, "hardware_replacement.penalty"); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) delivery(o *object, t *Terms) error {
	t.Delivery.CountsUntil = UntilFirstHeartbeat
	n, ok := o.vals["delivery"]
	if !ok {
		return nil
	}
	d, err := p.object(n, "delivery", "within", "penalty", "counts_until")
	if err != nil {
		return err
	}
	wn, err := p.require(d, "within")
	if err != nil {
		return err
	}
	if t.Delivery.Within, err = p.duration(wn, "delivery.within"); err != nil {
		return err
	}
	if v, ok := d.vals["penalty"]; ok {
		if t.Delivery.Penalty, err = p.step(v, "delivery.penalty"); err != nil {
			return err
		}
	}
	if v, ok := d.vals["counts_until"]; ok {
		s, err := p.either(v, "delivery.counts_until", string(UntilFirstHeartbeat), string(UntilAcceptancePassed))
		if err != nil {
			return err
		}
		t.Delivery.CountsUntil = DeliveryEnd(s)
	}
	return nil
}

// claim requires exactly one way of saying when a credit claim closes.
func (p *parser) claim(o *object, t *Terms) error {
	cn, err := p.require(o, "claim")
	if err != nil {
		return err
	}
	c, err := p.object(cn, "claim", "within_days", "end_of_billing_cycle", "from", "answer_within", "credit_within",
		"channel", "address", "subject", "include", "opens_after_working_days", "without_credit")
	if err != nil {
		return err
	}
	if err := p.providerDeadlines(c, t); err != nil {
		return err
	}
	if v, ok := c.vals["from"]; ok {
		s, err := p.str(v, "claim.from")
		if err != nil {
			return err
		}
		switch s {
		case "month_end":
		case "incident":
			t.Claim.FromIncident = true
		default:
			return p.err(v, "claim.from", "%q is neither \"month_end\" nor \"incident\"", s)
		}
	}
	wd, hasDays := c.vals["within_days"]
	bc, hasCycles := c.vals["end_of_billing_cycle"]
	switch {
	case hasDays && hasCycles:
		return p.err(cn, "claim", "give either within_days or end_of_billing_cycle, not both")
	case hasDays:
		if t.Claim.WindowDays, err = p.integer(wd, "claim.within_days", 1); err != nil {
			return err
		}
		if t.Claim.WindowDays > 366 {
			return p.err(wd, "claim.within_days", "%d is longer than a year", t.Claim.WindowDays)
		}
	case hasCycles:
		if t.Claim.BillingCycles, err = p.integer(bc, "claim.end_of_billing_cycle", 1); err != nil {
			return err
		}
		if t.Claim.BillingCycles > 12 {
			return p.err(bc, "claim.end_of_billing_cycle", "%d is more than a year", t.Claim.BillingCycles)
		}
	default:
		return p.err(cn, "claim.within_days", "missing (or give end_of_billing_cycle)")
	}
	return p.procedure(c, t)
}

func (p *parser) billing(o *object, t *Terms) error {
	bn, err := p.require(o, "billing")
	if err != nil {
		return err
	}
	b, err := p.object(bn, "billing", "price_per_gpu_hour", "granularity", "starts_at", "clock_hour_rule")
	if err != nil {
		return err
	}
	pn, err := p.require(b, "price_per_gpu_hour")
	if err != nil {
		return err
	}
	if t.Billing.PricePerGPUHour, err = p.nonNegative(pn, "billing.price_per_gpu_hour"); err != nil {
		return err
	}
	t.Billing.Granularity = time.Second
	if v, ok := b.vals["granularity"]; ok {
		if t.Billing.Granularity, err = p.duration(v, "billing.granularity"); err != nil {
			return err
		}
		if t.Billing.Granularity == 0 {
			return p.err(v, "billing.granularity", "must be more than zero")
		}
	}
	t.Billing.StartsAt = FromOrder
	if v, ok := b.vals["starts_at"]; ok {
		s, err := p.either(v, "billing.starts_at", string(FromOrder), string(FromDelivery))
		if err != nil {
			return err
		}
		t.Billing.StartsAt = BillingStart(s)
	}
	if v, ok := b.vals["clock_hour_rule"]; ok {
		if t.Billing.ClockHourOver, err = p.clockHourRule(v); err != nil {
			return err
		}
	}
	return nil
}

// clockHourRule reads billing.clock_hour_rule {unavailable_over: 6m}: a
// clock hour with more unavailability than that is not charged.
func (p *parser) clockHourRule(n *yaml.Node) (time.Duration, error) {
	const f = "billing.clock_hour_rule"
	c, err := p.object(n, f, "unavailable_over")
	if err != nil {
		return 0, err
	}
	v, err := p.require(c, "unavailable_over")
	if err != nil {
		return 0, err
	}
	d, err := p.duration(v, f+".unavailable_over")
	if err != nil {
		return 0, err
	}
	if d >= time.Hour {
		return 0, p.err(v, f+".unavailable_over", "%s is not less than the clock hour", d)
	}
	return d, nil
}

// network reads the provider's published network figures (optional).
func (p *parser) network(o *object, t *Terms) error {
	n, ok := o.vals["network"]
	if !ok {
		return nil
	}
	no, err := p.object(n, "network", "internal_mbps")
	if err != nil {
		return err
	}
	v, ok := no.vals["internal_mbps"]
	if !ok {
		return p.err(n, "network", "gives no figure: internal_mbps is the internal bandwidth advertised, in Mbit/s")
	}
	if t.Network.InternalMbps, err = p.nonNegative(v, "network.internal_mbps"); err != nil {
		return err
	}
	if t.Network.InternalMbps == 0 {
		return p.err(v, "network.internal_mbps", "0 Mbit/s advertises nothing; leave network: out where the provider names no figure")
	}
	return nil
}

// prices reads the optional price sheet for a bill's other lines.
func (p *parser) prices(o *object, t *Terms) error {
	n, ok := o.vals["prices"]
	if !ok {
		return nil
	}
	fields := []struct {
		key string
		dst *float64
	}{{"package_weekly", &t.Prices.PackageWeekly}, {"package_monthly", &t.Prices.PackageMonthly},
		{"bandwidth_per_mbps_month", &t.Prices.BandwidthPerMbpsMonth}, {"traffic_per_gb", &t.Prices.TrafficPerGB},
		{"disk_ssd_per_gb_month", &t.Prices.DiskSSDPerGBMonth}, {"disk_hdd_per_gb_month", &t.Prices.DiskHDDPerGBMonth},
		{"object_storage_per_gb_month", &t.Prices.ObjectStoragePerGBMonth}, {"cross_zone_per_gb", &t.Prices.CrossZonePerGB}}
	keys := []string{"disks_end_with_node"}
	for _, f := range fields {
		keys = append(keys, f.key)
	}
	po, err := p.object(n, "prices", keys...)
	if err != nil {
		return err
	}
	for _, f := range fields {
		if v, ok := po.vals[f.key]; ok {
			if *f.dst, err = p.nonNegative(v, "prices."+f.key); err != nil {
				return err
			}
		}
	}
	if v, ok := po.vals["disks_end_with_node"]; ok {
		if t.Prices.DisksEndWithNode, err = p.boolean(v, "prices.disks_end_with_node"); err != nil {
			return err
		}
	}
	return nil
}
