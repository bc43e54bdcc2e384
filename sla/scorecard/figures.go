package scorecard

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/stat"
	"github.com/gpusla/gpusla/sla/ticket"
	"github.com/gpusla/gpusla/sla/yardstick"
)

// The absolute standards every provider is held to alike, whatever its
// contract promises (docs/scorecard.md, "Absolute standards"): the seed's
// own yardsticks — delivery "within minutes of payment", the 22:00 test
// ticket, a gateway ping averaging 2 ms or less.
const (
	DeliveryStandard     = 30 * time.Minute
	ResponseStandardFast = 30 * time.Minute
	ResponseStandardSlow = time.Hour
	RTTStandardMS        = 2.0
)

// val is v as a JSON value: full precision, so that every rank can be
// reproduced from the JSON; nil for nothing measured.
func val(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// fig is a figure of n observations on machines nodes.
func fig(v float64, unit string, n, machines, minN int, better Better) Figure {
	f := Figure{Value: val(v), Unit: unit, N: n, Machines: machines, MinN: minN, Better: better}
	f.setTooFew()
	return f
}

func ratio(num, den float64) float64 {
	if den <= 0 {
		return math.NaN()
	}
	return num / den
}

// dimensions computes every figure over a group of nodes.
func dimensions(fs []*nodeFacts, e *env) Dimensions {
	ex := exposure(fs)
	acc := acceptance(fs)
	d := Dimensions{
		Exposure:    ex,
		Delivery:    delivery(fs, acc),
		Hardware:    acc.hardware(),
		Reliability: reliability(fs, ex),
		Network:     network(fs),
		Support:     support(fs),
		Billing:     billingFigures(fs, e.rates),
		Performance: performance(fs, e),
	}
	for _, k := range figures(&d) {
		k.f.MinDiff = minDiff(k.key)
	}
	return d
}

// exposure is how much service the group's node-months in service cover,
// and the months they fall in.
func exposure(fs []*nodeFacts) Exposure {
	ex := Exposure{Months: []string{}}
	months := map[string]bool{}
	for _, f := range fs {
		served := false
		for _, m := range f.months {
			if m.inService {
				ex.NodeMonths += m.share
				ex.GPUMonths += m.share * float64(f.gpus)
				ex.NodeMonthCount++
				months[m.month] = true
				served = true
			}
		}
		if served {
			ex.Machines++
		}
	}
	for m := range months {
		ex.Months = append(ex.Months, m)
	}
	sort.Strings(ex.Months)
	return ex
}

// delivery is how long delivery took — a node not delivered by the end of
// the window counted at its wait so far, unfinished — how often it was
// late against the contract's target and delivered within the absolute
// standard, how many are still pending, and how often the delivered
// hardware was not what was ordered.
func delivery(fs []*nodeFacts, acc accepted) Delivery {
	var dv Delivery
	var took []obs
	late, targeted, undecided := 0, 0, 0
	var targetedNodes []obs
	for _, f := range fs {
		dl := f.delivery
		if dl == nil {
			continue
		}
		pending := dl.DeliveredAt == ""
		if pending {
			dv.Pending++
		}
		took = append(took, obs{v: f.deliveryWait().Hours(), censored: pending, node: f.id})
		switch dl.Status {
		case ticket.Breached:
			late++
		case ticket.Pending:
			undecided++
		case ticket.Met:
		default:
			continue // no target
		}
		targeted++
		targetedNodes = append(targetedNodes, obs{node: f.id})
	}
	dv.P50Hours = quantileFig(took, 0.5, "h", MinDeliveries, Lower)
	dv.P90Hours = quantileFig(took, 0.9, "h", MinDeliveries, Lower)
	dv.LateShare = fig(ratio(float64(late), float64(targeted)), "share", targeted, machines(targetedNodes), MinDeliveries, Lower)
	if dv.LateShare.Censored = undecided; undecided > 0 {
		dv.LateShare.Bound = AtLeast // an undecided one may still be late
	}
	dv.Within30Min = withinFig(took, DeliveryStandard.Hours(), MinDeliveries)
	dv.WrongHardware = fig(ratio(float64(acc.wrong), float64(acc.nodes)), "share", acc.nodes, acc.nodes, MinAcceptances, Lower)
	return dv
}

// deliveryWait is order to delivery; while the node is not delivered, to
// the as-of instant, as an unanswered ticket's wait runs (the month's
// report stops it at the month's end, where its books stop).
func (f *nodeFacts) deliveryWait() time.Duration {
	dl := f.delivery
	if dl.DeliveredAt == "" {
		if ordered, err := time.Parse(time.RFC3339, dl.OrderedAt); err == nil && f.asOf.After(ordered) {
			return f.asOf.Sub(ordered)
		}
	}
	return time.Duration(dl.Seconds) * time.Second
}

// nodeLevel says whether an incident kind takes the whole node (counted
// per node-month: one 8-GPU node going down is one incident, not an
// eighth of one) or one GPU (per GPU-month).
func nodeLevel(k incident.Kind) bool {
	switch k {
	case incident.GPULost, incident.GPUDegraded, incident.PerformanceBelowSpec:
		return false
	}
	return true
}

// reliability is the provider's incidents per node-month (node-level
// kinds) or GPU-month (GPU-level), claimable outage per node-month,
// repair time — an incident still open counted at its length so far — and
// XIDs, over the exposure ex.
func reliability(fs []*nodeFacts, ex Exposure) Reliability {
	var claimMin float64
	counts := map[string]int{}
	var repairs []obs
	xids := 0
	for _, f := range fs {
		for _, m := range f.months {
			if m.inService {
				claimMin += float64(m.claimable) / 60
			}
		}
		for _, r := range f.incidents {
			counts[r.kind]++
			repairs = append(repairs, obs{v: r.end.Sub(r.start).Hours(), censored: r.ongoing, node: f.id})
		}
		xids += f.xids
	}
	gm, nmo, nm := ex.GPUMonths, ex.NodeMonths, ex.NodeMonthCount
	rl := Reliability{Incidents: []KindRate{}}
	for _, k := range incident.Kinds {
		kr := KindRate{Kind: string(k), Count: counts[string(k)], Per: "GPU-month"}
		den := gm
		if nodeLevel(k) {
			kr.Per, den = "node-month", nmo
		}
		kr.Rate = fig(ratio(float64(kr.Count), den), "per "+kr.Per, nm, ex.Machines, MinNodeMonths, Lower)
		rl.Incidents = append(rl.Incidents, kr)
	}
	rl.ClaimableMinPerNM = fig(ratio(claimMin, ex.NodeMonths), "min per node-month", nm, ex.Machines, MinNodeMonths, Lower)
	// The minimum counts closed incidents (docs/scorecard.md): open ones
	// are only lower bounds of their repair time.
	rl.MTTRHours = meanFig(repairs, "h", MinRepairs, Lower)
	rl.MTTRHours.MinFinished = true
	rl.MTTRHours.setTooFew()
	rl.GPULostPerGPUMonth = fig(ratio(float64(counts[string(incident.GPULost)]), gm), "per GPU-month", nm, ex.Machines, MinNodeMonths, Lower)
	rl.XIDPerGPUMonth = fig(ratio(float64(xids), gm), "per GPU-month", nm, ex.Machines, MinNodeMonths, Lower)
	return rl
}

// network is the gateway ping round trips and loss and the iperf3 runs'
// share of nominal the group's nodes measured.
func network(fs []*nodeFacts) Network {
	var rtt, loss, iperf []obs
	for _, f := range fs {
		for _, r := range f.net {
			o := obs{v: r.val, node: f.id}
			switch r.kind {
			case 'r':
				rtt = append(rtt, o)
			case 'l':
				loss = append(loss, o)
			case 'i':
				iperf = append(iperf, o)
			}
		}
	}
	low := 0
	for _, s := range iperf {
		if s.v < 0.7 {
			low++
		}
	}
	return Network{
		RTTP50:    quantileFig(rtt, 0.5, "ms", MinNetSamples, Lower),
		RTTP99:    quantileFig(rtt, 0.99, "ms", MinNetSamples, Lower),
		RTTWithin: withinFig(rtt, RTTStandardMS, MinNetSamples),
		Loss:      meanFig(loss, "%", MinNetSamples, Lower),
		IperfP50:  quantileFig(iperf, 0.5, "share", MinIperfRuns, Higher),
		IperfLow:  fig(ratio(float64(low), float64(len(iperf))), "share", len(iperf), machines(iperf), MinIperfRuns, Lower),
		IperfRuns: len(iperf),
	}
}

// support is the tickets' first response times, in and out of business
// hours, on the wall clock (what the renter waits) — a ticket unanswered
// at the as-of instant counted at its wait so far — the shares answered
// within the absolute standards, the breach share against each contract's
// own targets and the replacement time.
func support(fs []*nodeFacts) Support {
	var s Support
	var biz, off, repl, all []obs
	breached, undecided := 0, 0
	for _, f := range fs {
		for _, t := range f.tickets {
			all = append(all, obs{node: f.id})
			if t.Breached {
				breached++
			} else if pendingTarget(t) {
				undecided++
			}
			if o, ok := waited(f, t.OpenedAt, t.Response); ok {
				if t.OffHours {
					off = append(off, o)
				} else {
					biz = append(biz, o)
				}
				if o.censored {
					s.Unanswered++
				}
			}
			if o, ok := waited(f, t.OpenedAt, t.Replacement); ok {
				o.v /= 60
				repl = append(repl, o)
			}
		}
	}
	s.BusinessP50Min = quantileFig(biz, 0.5, "min", MinTickets, Lower)
	s.BusinessP90Min = quantileFig(biz, 0.9, "min", MinTickets, Lower)
	s.OffHoursP50Min = quantileFig(off, 0.5, "min", MinTickets, Lower)
	s.OffHoursP90Min = quantileFig(off, 0.9, "min", MinTickets, Lower)
	s.BusinessWithin30 = withinFig(biz, ResponseStandardFast.Minutes(), MinTickets)
	s.OffHoursWithin30 = withinFig(off, ResponseStandardFast.Minutes(), MinTickets)
	s.OffHoursWithin1h = withinFig(off, ResponseStandardSlow.Minutes(), MinTickets)
	s.BreachShare = fig(ratio(float64(breached), float64(len(all))), "share", len(all), machines(all), MinTickets, Lower)
	if s.BreachShare.Censored = undecided; undecided > 0 {
		s.BreachShare.Bound = AtLeast
	}
	s.ReplacementP50H = quantileFig(repl, 0.5, "h", MinTickets, Lower)
	return s
}

// pendingTarget: a target of t is still running (not met, not breached).
func pendingTarget(t report.Ticket) bool {
	for _, x := range []*report.Target{t.Response, t.Resolution, t.Replacement} {
		if x != nil && x.Status == ticket.Pending {
			return true
		}
	}
	return false
}

// waited is the wall-clock minutes from opened to the target's being met,
// or, while it is not (pending, or breached and still waiting), to the
// as-of instant (censored); false when the ticket has no such target or
// its times do not read.
func waited(f *nodeFacts, opened string, x *report.Target) (obs, bool) {
	if x == nil {
		return obs{}, false
	}
	if x.At != "" {
		h, ok := hoursBetween(opened, x.At)
		return obs{v: h * 60, node: f.id}, ok
	}
	// Not met (pending, or breached and still waiting): the wait so far.
	t, err := time.Parse(time.RFC3339, opened)
	if err != nil {
		return obs{}, false
	}
	return obs{v: f.asOf.Sub(t).Minutes(), censored: true, node: f.id}, true
}

// billingFigures is billed against usable hours over the node-months
// billed, and, with a bill, how many node-months it charged beyond the
// contract and by how many hours; and what the renter paid per usable
// GPU-hour, per currency.
func billingFigures(fs []*nodeFacts, rates *Rates) Billing {
	var bl Billing
	var billed, usable float64
	var billedNodes, onBillNodes []obs
	billedMonths, onBill, over := 0, 0, 0
	for _, f := range fs {
		for _, m := range f.months {
			if m.billed > 0 {
				billed += float64(m.billed) / 3600
				usable += float64(m.usable) / 3600
				billedMonths++
				billedNodes = append(billedNodes, obs{node: f.id})
			}
		}
		for _, r := range f.billRows {
			onBill++
			onBillNodes = append(onBillNodes, obs{node: f.id})
			if r.Status == billing.StatusOverBilled {
				over++
				bl.OverBilledHours += math.Max(0, r.OverHours)
			}
		}
	}
	bl.BilledHours, bl.UsableHours = billed, usable
	bl.NotUsableShare = fig(math.Max(0, ratio(billed-usable, billed)), "share", billedMonths, machines(billedNodes), MinNodeMonths, Lower)
	bl.OverBilled = fig(ratio(float64(over), float64(onBill)), "share", onBill, machines(onBillNodes), MinNodeMonths, Lower)
	bl.PerUsableGPUHour, bl.Converted = prices(fs, rates)
	return bl
}

// performance compares the group's GPUs with the fleet of their model, and
// with the absolute yardsticks of the spec database: the model's
// datasheet figure and what a healthy card measured.
func performance(fs []*nodeFacts, e *env) Performance {
	fleet := e.fleet
	in := map[string]bool{}
	for _, f := range fs {
		in[f.id] = true
	}
	type key struct{ model, figure string }
	fleetP50 := map[key]float64{}
	for _, d := range fleet.Dists {
		fleetP50[key{d.Model, d.Figure}] = d.P50
	}
	byKey := map[key][]float64{}
	units := map[key]string{}
	type yard struct {
		y  yardstick.Yardstick
		ok bool
	}
	yards := map[key]yard{} // one lookup per model and figure, not per GPU
	lookup := func(k key) (yardstick.Yardstick, bool) {
		y, seen := yards[k]
		if !seen {
			y.y, y.ok = e.yardstick(k.model, k.figure)
			yards[k] = y
		}
		return y.y, y.ok
	}
	var shares, ofSheet, ofHealthy []obs
	for _, s := range fleet.Series {
		if !in[s.Node] {
			continue
		}
		k := key{s.Model, s.Figure}
		byKey[k] = append(byKey[k], s.Median)
		units[k] = s.Unit
		if !strings.HasPrefix(s.Figure, "gpu.burn.") {
			continue
		}
		if fleetP50[k] > 0 {
			shares = append(shares, obs{v: s.Median / fleetP50[k], node: s.Node})
		}
		if y, ok := lookup(k); ok {
			if y.Datasheet > 0 {
				ofSheet = append(ofSheet, obs{v: s.Median / y.Datasheet, node: s.Node})
			}
			if y.Healthy > 0 {
				ofHealthy = append(ofHealthy, obs{v: s.Median / y.Healthy, node: s.Node})
			}
		}
	}
	p := Performance{Figures: []PerfFigure{}}
	p.ShareOfFleet = quantileFig(shares, 0.5, "share", MinSeries, Higher)
	p.ShareOfDatasheet = quantileFig(ofSheet, 0.5, "share", MinSeries, Higher)
	p.ShareOfHealthy = quantileFig(ofHealthy, 0.5, "share", MinSeries, Higher)
	for k, ms := range byKey {
		med := stat.Median(ms)
		pf := PerfFigure{GPUModel: k.model, Figure: k.figure, Unit: units[k], GPUs: len(ms),
			Median: med, FleetMedian: fleetP50[k], Share: ratio(med, fleetP50[k])}
		if y, ok := lookup(k); ok {
			pf.Datasheet, pf.Healthy = y.Datasheet, y.Healthy
			if y.Datasheet > 0 {
				pf.ShareOfDatasheet = med / y.Datasheet
			}
			if y.Healthy > 0 {
				pf.ShareOfHealthy = med / y.Healthy
			}
		}
		p.Figures = append(p.Figures, pf)
	}
	sort.Slice(p.Figures, func(i, j int) bool {
		if p.Figures[i].GPUModel != p.Figures[j].GPUModel {
			return p.Figures[i].GPUModel < p.Figures[j].GPUModel
		}
		return p.Figures[i].Figure < p.Figures[j].Figure
	})
	for _, f := range fleet.Findings {
		if in[f.Node] {
			p.BelowFleet++
		}
	}
	return p
}
