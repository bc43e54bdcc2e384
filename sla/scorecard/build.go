package scorecard

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/stat"
	"golang.org/x/sync/errgroup"
)

// nodeFacts is everything one node contributes, gathered once from the
// month reports and the log's check results.
type nodeFacts struct {
	id, provider, contract, model string
	gpus                          int
	months                        []nodeMonth
	incidents                     []*incidentRec
	tickets                       []report.Ticket
	delivery                      *report.Delivery
	accepted                      bool // acceptance results in the window
	accFails                      []failRec
	net                           []netRec
	xids                          int
	billRows                      []billing.Row
}

type nodeMonth struct {
	inService                 bool
	share                     float64 // in-service seconds ÷ the month's seconds
	claimable, billed, usable int64   // seconds
}

type incidentRec struct {
	kind       string
	start, end time.Time
	ongoing    bool
}

// buildReports builds the month reports, as many at once as there are
// processors: the builders share nothing but the read-only terms. Each
// builder is let go as soon as its report is made, so memory holds at most
// that many builds' working sets beyond the accumulated books. The first
// month's error (in month order) is the one returned.
func (b *Builder) buildReports() ([]*report.Report, error) {
	b.perf.Seal() // the reports read the shared collector at once
	reps := make([]*report.Report, len(b.reports))
	errs := make([]error, len(b.reports))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range b.reports {
		g.Go(func() error {
			reps[i], errs[i] = b.reports[i].Build()
			b.reports[i] = nil
			return nil
		})
	}
	_ = g.Wait() // the tasks report through errs, so that the first month's error wins
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return reps, nil
}

// Build computes the scorecard; a report that cannot be built fails it.
// It can be called once (Build or BuildWithReports).
func (b *Builder) Build() (*Scorecard, error) {
	sc, _, err := b.BuildWithReports()
	return sc, err
}

// BuildWithReports is Build, also returning each month's report (From to
// To): the report `gpusla report` builds alone from the same log
// (TestMonthReportsEqualStandaloneReports), so the monthly report and its
// scorecard section come from one pass over the log.
func (b *Builder) BuildWithReports() (*Scorecard, []*report.Report, error) {
	reps, err := b.buildReports()
	if err != nil {
		return nil, nil, err
	}
	facts := factSet{}
	byKey := map[string]*incidentRec{}
	for i, rep := range reps {
		if err := b.billMonth(i, rep, facts); err != nil {
			return nil, nil, err
		}
		facts.addMonth(rep, byKey)
	}
	b.keepWindow(facts)
	b.measurements(facts)
	fleet := b.fleet(facts)
	sc := &Scorecard{Schema: Schema, From: b.opts.From.String(), To: b.opts.To.String(), AsOf: b.opts.AsOf.UTC().Format(time.RFC3339),
		Events: b.events, Providers: providers(facts, fleet), Fleet: fleet}
	rankAll(sc)
	// Every provider's nodes together: the fleet each provider is shown
	// beside (the monthly report's scorecard section). Not ranked.
	all := dimensions(facts.sorted(), fleet)
	sc.AllProviders = &all
	return sc, reps, nil
}

// factSet is the facts of every node the reports name, by node id.
type factSet map[string]*nodeFacts

// of is n's facts, begun on first sight.
func (fs factSet) of(n *report.Node) *nodeFacts {
	f := fs[n.Node]
	if f == nil {
		f = &nodeFacts{id: n.Node, provider: n.Provider, contract: n.Contract, model: n.Hardware.GPUModel, gpus: n.Hardware.GPUCount}
		fs[n.Node] = f
	}
	return f
}

// sorted is every node's facts in node id order.
func (fs factSet) sorted() []*nodeFacts {
	var out []*nodeFacts
	for _, f := range fs {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// billMonth reconciles the bill's lines of month i, if it has any, with
// that month's report, and files the rows under their nodes.
func (b *Builder) billMonth(i int, rep *report.Report, facts factSet) error {
	var bill []billing.Line
	for _, l := range b.opts.Bill {
		if l.Period == b.months[i].String() {
			bill = append(bill, l)
		}
	}
	if len(bill) == 0 {
		return nil
	}
	rc, err := billing.Reconcile(rep, bill)
	if err != nil {
		return err
	}
	billRows(rep, rc.Rows, facts.of)
	return nil
}

// addMonth files one month's report under its nodes: delivery, tickets,
// the month's service and billed hours, and the provider's incidents.
// byKey finds an incident seen in an earlier month again.
func (fs factSet) addMonth(rep *report.Report, byKey map[string]*incidentRec) {
	monthSecs := map[string]int64{}
	for _, c := range rep.Contracts {
		monthSecs[c.Contract] = c.MonthSeconds
	}
	for j := range rep.Nodes {
		n := &rep.Nodes[j]
		f := fs.of(n)
		if n.Delivery.InMonth {
			d := n.Delivery
			f.delivery = &d
		}
		f.tickets = append(f.tickets, n.Tickets...)
		// Billing may run from the order, before any service.
		f.months = append(f.months, nodeMonth{inService: n.Period.InService, share: float64(n.Period.Seconds) / float64(monthSecs[n.Contract]),
			claimable: n.Uptime.ClaimableOutageSeconds, billed: n.Billing.BilledSeconds, usable: n.Billing.UsableSeconds})
		if n.Period.InService {
			f.addOutages(n, byKey)
		}
	}
}

// addOutages files the month's outages of n that count against the
// provider as incidents. The same incident shows in every month it spans,
// with its true start; the latest month knows its end.
func (f *nodeFacts) addOutages(n *report.Node, byKey map[string]*incidentRec) {
	for _, o := range n.Outages {
		if !incident.CauseCounted(o.Cause) {
			continue // the backend's or the renter's side, not the provider's
		}
		start, _ := time.Parse(time.RFC3339, o.Start)
		end, _ := time.Parse(time.RFC3339, o.End)
		key := n.Node + "\x00" + o.Kind + "\x00" + o.Start
		r := byKey[key]
		if r == nil {
			r = &incidentRec{kind: o.Kind, start: start}
			byKey[key] = r
			f.incidents = append(f.incidents, r)
		}
		r.end, r.ongoing = end, o.Ongoing
	}
}

// keepWindow holds each node to its window: a gap split by cause is one
// incident, so a node's adjoining unreachable segments are merged, and only
// incidents that began in the window are kept; acceptance results count
// when the acceptance was in it.
func (b *Builder) keepWindow(facts factSet) {
	for id, f := range facts {
		n := b.nodes[id]
		lo, hi := b.window(n)
		f.incidents = mergeAdjoining(f.incidents)
		kept := f.incidents[:0]
		for _, r := range f.incidents {
			if s := r.start.UnixNano(); s >= lo && s < hi {
				kept = append(kept, r)
			}
		}
		f.incidents = kept
		if n.hasAcc && n.accAt >= lo && n.accAt < hi {
			f.accepted, f.accFails = true, n.accFails
		}
	}
}

// fleet is the fleet baselines and drift of the registered nodes the
// reports name, over every contract's months.
func (b *Builder) fleet(facts factSet) baseline.Result {
	from, to := b.span()
	return b.perf.Compute(func(id string) (string, bool) {
		n := b.nodes[id]
		if n == nil || !n.registered || facts[id] == nil {
			return "", false
		}
		return n.model, true
	}, from, to, b.opts.Baseline)
}

// providers is a card per provider, in name order: its contracts, nodes
// and GPUs, its figures over all its nodes and per GPU model.
func providers(facts factSet, fleet baseline.Result) []Provider {
	groups := map[string][]*nodeFacts{}
	for _, f := range facts {
		groups[f.provider] = append(groups[f.provider], f)
	}
	out := []Provider{}
	for name, fs := range groups {
		sort.Slice(fs, func(i, j int) bool { return fs[i].id < fs[j].id })
		out = append(out, providerCard(name, fs, fleet))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Provider < out[j].Provider })
	return out
}

// providerCard is one provider's card over its nodes fs (in id order).
func providerCard(name string, fs []*nodeFacts, fleet baseline.Result) Provider {
	p := Provider{Provider: name, All: dimensions(fs, fleet), Models: []ModelCard{}, TooFew: []string{}}
	contracts := map[string]bool{}
	models := map[string][]*nodeFacts{}
	for _, f := range fs {
		p.Nodes++
		p.GPUs += f.gpus
		contracts[f.contract] = true
		models[f.model] = append(models[f.model], f)
	}
	for c := range contracts {
		p.Contracts = append(p.Contracts, c)
	}
	sort.Strings(p.Contracts)
	for m, ms := range models {
		mc := ModelCard{GPUModel: m, Nodes: len(ms), Card: dimensions(ms, fleet)}
		for _, f := range ms {
			mc.GPUs += f.gpus
		}
		p.Models = append(p.Models, mc)
	}
	sort.Slice(p.Models, func(i, j int) bool { return p.Models[i].GPUModel < p.Models[j].GPUModel })
	return p
}

// billRows files a month's reconciliation rows under their nodes.
func billRows(rep *report.Report, rows []billing.Row, fact func(*report.Node) *nodeFacts) {
	byNode := map[string]*report.Node{}
	for i := range rep.Nodes {
		byNode[rep.Nodes[i].Node] = &rep.Nodes[i]
	}
	for _, row := range rows {
		if n, ok := byNode[row.Node]; ok && row.BillLine > 0 {
			f := fact(n)
			f.billRows = append(f.billRows, row)
		}
	}
}

// span is the widest instant range the months cover in any contract's zone.
func (b *Builder) span() (time.Time, time.Time) {
	var from, to time.Time
	for _, n := range b.nodes {
		if !n.registered {
			continue
		}
		loc := n.contract.Calendar.Loc
		s, _ := calendar.MonthBounds(b.opts.From.Year, b.opts.From.Month, loc)
		_, e := calendar.MonthBounds(b.opts.To.Year, b.opts.To.Month, loc)
		if from.IsZero() || s.Before(from) {
			from = s
		}
		if e.After(to) {
			to = e
		}
	}
	return from, to
}

// measurements files the network results and XIDs of each node's window,
// each distinct reading once (a log read twice holds them twice).
func (b *Builder) measurements(facts map[string]*nodeFacts) {
	eachInWindow(b, facts, b.net, func(x, y *netRec) int {
		return cmp.Or(strings.Compare(x.node, y.node), cmp.Compare(x.at, y.at), strings.Compare(x.name, y.name))
	}, func(r *netRec) (string, int64) { return r.node, r.at }, func(f *nodeFacts, r *netRec) { f.net = append(f.net, *r) })
	// The NVML events and the kernel log of one GPU at one instant are one report.
	eachInWindow(b, facts, b.xids, func(x, y *xidRec) int {
		return cmp.Or(strings.Compare(x.node, y.node), cmp.Compare(x.at, y.at), cmp.Compare(x.gpu, y.gpu))
	}, func(r *xidRec) (string, int64) { return r.node, r.at }, func(f *nodeFacts, _ *xidRec) { f.xids++ })
}

// eachInWindow sorts rs, and hands each distinct one (compare ≠ 0 from the
// previous) that falls in its node's window to do.
func eachInWindow[T any](b *Builder, facts map[string]*nodeFacts, rs []T, compare func(x, y *T) int, where func(*T) (string, int64), do func(*nodeFacts, *T)) {
	slices.SortFunc(rs, func(x, y T) int { return compare(&x, &y) })
	for i := range rs {
		if i > 0 && compare(&rs[i-1], &rs[i]) == 0 {
			continue
		}
		node, at := where(&rs[i])
		f := facts[node]
		if f == nil {
			continue
		}
		if lo, hi := b.window(b.nodes[node]); at >= lo && at < hi {
			do(f, &rs[i])
		}
	}
}

func mergeAdjoining(rs []*incidentRec) []*incidentRec {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].kind != rs[j].kind {
			return rs[i].kind < rs[j].kind
		}
		return rs[i].start.Before(rs[j].start)
	})
	var out []*incidentRec
	for _, r := range rs {
		if k := len(out) - 1; k >= 0 && out[k].kind == r.kind && r.kind == string(incident.Unreachable) && !r.start.After(out[k].end) {
			if r.end.After(out[k].end) {
				out[k].end = r.end
			}
			out[k].ongoing = r.ongoing
			continue
		}
		out = append(out, r)
	}
	return out
}

func val(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	r := math.Round(v*10000) / 10000
	return &r
}

func fig(v float64, unit string, n, minN int, better Better) Figure {
	f := Figure{Value: val(v), Unit: unit, N: n, MinN: minN, Better: better}
	f.TooFew = n < minN || f.Value == nil
	return f
}

func ratio(num, den float64) float64 {
	if den <= 0 {
		return math.NaN()
	}
	return num / den
}

// dimensions computes every figure over a group of nodes.
func dimensions(fs []*nodeFacts, fleet baseline.Result) Dimensions {
	ex := exposure(fs) // unrounded: the per-month rates' denominators
	acc := acceptance(fs)
	return Dimensions{
		Exposure:    Exposure{NodeMonths: round(ex.NodeMonths, 4), GPUMonths: round(ex.GPUMonths, 4), Months: ex.Months},
		Delivery:    delivery(fs, acc),
		Hardware:    acc.hardware(),
		Reliability: reliability(fs, ex),
		Network:     network(fs),
		Support:     support(fs),
		Billing:     billingFigures(fs),
		Performance: performance(fs, fleet),
	}
}

// exposure is how much service the group's node-months in service cover,
// unrounded.
func exposure(fs []*nodeFacts) Exposure {
	var ex Exposure
	for _, f := range fs {
		for _, m := range f.months {
			if m.inService {
				ex.NodeMonths += m.share
				ex.GPUMonths += m.share * float64(f.gpus)
				ex.Months++
			}
		}
	}
	return ex
}

// accepted is what the group's acceptance tests in the window found: how
// many nodes had one, how many of those showed the wrong hardware (an
// inventory failure) or failed at all, and how many nodes failed each check.
type accepted struct {
	nodes, wrong, failed int
	reasons              map[failRec]int
}

// acceptance counts the group's acceptance results, each failing check
// once per node.
func acceptance(fs []*nodeFacts) accepted {
	a := accepted{reasons: map[failRec]int{}}
	for _, f := range fs {
		if !f.accepted {
			continue
		}
		a.nodes++
		inv := false
		seen := map[failRec]bool{}
		for _, r := range f.accFails {
			if r.category == "inventory" {
				inv = true
			}
			if !seen[r] {
				seen[r] = true
				a.reasons[r]++
			}
		}
		if inv {
			a.wrong++
		}
		if len(f.accFails) > 0 {
			a.failed++
		}
	}
	return a
}

// hardware is the share of accepted nodes that failed, and the failing
// checks, most nodes first.
func (acc accepted) hardware() Hardware {
	h := Hardware{FailShare: fig(ratio(float64(acc.failed), float64(acc.nodes)), "share", acc.nodes, MinAcceptances, Lower), Reasons: []Reason{}}
	for r, c := range acc.reasons {
		h.Reasons = append(h.Reasons, Reason{Check: r.name, Category: r.category, Nodes: c, Share: round(float64(c)/float64(acc.nodes), 4)})
	}
	sort.Slice(h.Reasons, func(i, j int) bool {
		a, b := h.Reasons[i], h.Reasons[j]
		if a.Nodes != b.Nodes {
			return a.Nodes > b.Nodes
		}
		return a.Check < b.Check
	})
	return h
}

// delivery is how long delivery took, how often it was late against the
// contract's target, how many are still pending, and how often the
// delivered hardware was not what was ordered.
func delivery(fs []*nodeFacts, acc accepted) Delivery {
	var dv Delivery
	var took []float64
	late, targeted := 0, 0
	for _, f := range fs {
		dl := f.delivery
		if dl == nil {
			continue
		}
		if dl.DeliveredAt != "" {
			took = append(took, float64(dl.Seconds)/3600)
		} else {
			dv.Pending++
		}
		switch dl.Status {
		case "breached":
			late++
			targeted++
		case "met":
			targeted++
		}
	}
	q := stat.Quantiles(took, 0.5, 0.9)
	dv.P50Hours = fig(q[0], "h", len(took), MinDeliveries, Lower)
	dv.P90Hours = fig(q[1], "h", len(took), MinDeliveries, Lower)
	dv.LateShare = fig(ratio(float64(late), float64(targeted)), "share", targeted, MinDeliveries, Lower)
	dv.WrongHardware = fig(ratio(float64(acc.wrong), float64(acc.nodes)), "share", acc.nodes, MinAcceptances, Lower)
	return dv
}

// reliability is the provider's incidents per GPU-month by kind, claimable
// outage per node-month, repair time and XIDs, over the exposure ex.
func reliability(fs []*nodeFacts, ex Exposure) Reliability {
	var claimMin float64
	counts := map[string]int{}
	var repairs []float64
	xids := 0
	for _, f := range fs {
		for _, m := range f.months {
			if m.inService {
				claimMin += float64(m.claimable) / 60
			}
		}
		for _, r := range f.incidents {
			counts[r.kind]++
			if !r.ongoing {
				repairs = append(repairs, r.end.Sub(r.start).Hours())
			}
		}
		xids += f.xids
	}
	gm, nm := ex.GPUMonths, ex.Months
	rl := Reliability{Incidents: []KindRate{}}
	for _, k := range incident.Kinds {
		rl.Incidents = append(rl.Incidents, KindRate{Kind: string(k), Count: counts[string(k)],
			Rate: fig(ratio(float64(counts[string(k)]), gm), "per GPU-month", nm, MinNodeMonths, Lower)})
	}
	rl.ClaimableMinPerNM = fig(ratio(claimMin, ex.NodeMonths), "min per node-month", nm, MinNodeMonths, Lower)
	rl.MTTRHours = fig(stat.Mean(repairs), "h", len(repairs), MinRepairs, Lower)
	rl.GPULostPerGPUMonth = fig(ratio(float64(counts[string(incident.GPULost)]), gm), "per GPU-month", nm, MinNodeMonths, Lower)
	rl.XIDPerGPUMonth = fig(ratio(float64(xids), gm), "per GPU-month", nm, MinNodeMonths, Lower)
	return rl
}

// network is the gateway ping round trips and loss and the iperf3 runs'
// share of nominal the group's nodes measured.
func network(fs []*nodeFacts) Network {
	var rtt, loss, iperf []float64
	for _, f := range fs {
		for _, r := range f.net {
			switch r.kind {
			case 'r':
				rtt = append(rtt, r.val)
			case 'l':
				loss = append(loss, r.val)
			case 'i':
				iperf = append(iperf, r.val)
			}
		}
	}
	low := 0
	for _, s := range iperf {
		if s < 0.7 {
			low++
		}
	}
	q := stat.Quantiles(rtt, 0.5, 0.99)
	return Network{
		RTTP50:    fig(q[0], "ms", len(rtt), MinNetSamples, Lower),
		RTTP99:    fig(q[1], "ms", len(rtt), MinNetSamples, Lower),
		Loss:      fig(stat.Mean(loss), "%", len(loss), MinNetSamples, Lower),
		IperfP50:  fig(stat.Median(iperf), "share", len(iperf), MinIperfRuns, Higher),
		IperfLow:  fig(ratio(float64(low), float64(len(iperf))), "share", len(iperf), MinIperfRuns, Lower),
		IperfRuns: len(iperf),
	}
}

// support is the tickets' first response times, in and out of business
// hours, on the wall clock (what the renter waits), their breach share
// and the replacement time.
func support(fs []*nodeFacts) Support {
	var s Support
	var biz, off, repl []float64
	breached, tickets := 0, 0
	for _, f := range fs {
		for _, t := range f.tickets {
			tickets++
			if t.Breached {
				breached++
			}
			if r := t.Response; r != nil {
				if h, ok := hoursBetween(t.OpenedAt, r.At); ok {
					if t.OffHours {
						off = append(off, h*60)
					} else {
						biz = append(biz, h*60)
					}
				} else {
					s.Unanswered++
				}
			}
			if r := t.Replacement; r != nil {
				if h, ok := hoursBetween(t.OpenedAt, r.At); ok {
					repl = append(repl, h)
				}
			}
		}
	}
	q := stat.Quantiles(biz, 0.5, 0.9)
	s.BusinessP50Min = fig(q[0], "min", len(biz), MinTickets, Lower)
	s.BusinessP90Min = fig(q[1], "min", len(biz), MinTickets, Lower)
	q = stat.Quantiles(off, 0.5, 0.9)
	s.OffHoursP50Min = fig(q[0], "min", len(off), MinTickets, Lower)
	s.OffHoursP90Min = fig(q[1], "min", len(off), MinTickets, Lower)
	s.BreachShare = fig(ratio(float64(breached), float64(tickets)), "share", tickets, MinTickets, Lower)
	s.ReplacementP50H = fig(stat.Median(repl), "h", len(repl), MinTickets, Lower)
	return s
}

// billingFigures is billed against usable hours over the node-months
// billed, and, with a bill, how many node-months it charged beyond the
// contract and by how many hours.
func billingFigures(fs []*nodeFacts) Billing {
	var bl Billing
	var billed, usable float64
	billedMonths, onBill, over := 0, 0, 0
	for _, f := range fs {
		for _, m := range f.months {
			if m.billed > 0 {
				billed += float64(m.billed) / 3600
				usable += float64(m.usable) / 3600
				billedMonths++
			}
		}
		for _, r := range f.billRows {
			onBill++
			if r.Status == billing.StatusOverBilled {
				over++
				bl.OverBilledHours += math.Max(0, r.OverHours)
			}
		}
	}
	bl.BilledHours, bl.UsableHours = round(billed, 4), round(usable, 4)
	bl.NotUsableShare = fig(math.Max(0, ratio(billed-usable, billed)), "share", billedMonths, MinNodeMonths, Lower)
	bl.OverBilledHours = round(bl.OverBilledHours, 4)
	bl.OverBilled = fig(ratio(float64(over), float64(onBill)), "share", onBill, MinNodeMonths, Lower)
	return bl
}

// performance compares the group's GPUs with the fleet of their model.
func performance(fs []*nodeFacts, fleet baseline.Result) Performance {
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
	var shares []float64
	for _, s := range fleet.Series {
		if !in[s.Node] {
			continue
		}
		k := key{s.Model, s.Figure}
		byKey[k] = append(byKey[k], s.Median)
		units[k] = s.Unit
		if strings.HasPrefix(s.Figure, "gpu.burn.") && fleetP50[k] > 0 {
			shares = append(shares, s.Median/fleetP50[k])
		}
	}
	p := Performance{Figures: []PerfFigure{}}
	p.ShareOfFleet = fig(stat.Median(shares), "share", len(shares), MinSeries, Higher)
	for k, ms := range byKey {
		med := stat.Median(ms)
		p.Figures = append(p.Figures, PerfFigure{GPUModel: k.model, Figure: k.figure, Unit: units[k], GPUs: len(ms),
			Median: round(med, 4), FleetMedian: round(fleetP50[k], 4), Share: round(ratio(med, fleetP50[k]), 4)})
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

func hoursBetween(a, b string) (float64, bool) {
	if a == "" || b == "" {
		return 0, false
	}
	ta, err1 := time.Parse(time.RFC3339, a)
	tb, err2 := time.Parse(time.RFC3339, b)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return tb.Sub(ta).Hours(), true
}

func round(v float64, digits int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
