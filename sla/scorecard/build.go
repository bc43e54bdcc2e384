package scorecard

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/calendar"
	accept "github.com/gpusla/gpusla/sla/delivery"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
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
	// billed: what the bill charged the node, by month (YYYY-MM), where
	// a bill line has an amount.
	billed map[string]billedAmount
	// billedHours: where a bill line has hours and no amount, its hours
	// and their price at the contract's rate, by month.
	billedHours map[string]billedAmount
	asOf        time.Time // unfinished cases are counted up to it
}

type billedAmount struct {
	amount   float64
	currency string
	hours    float64 // the bill's hours (billedHours only)
}

type nodeMonth struct {
	month                     string // YYYY-MM
	inService                 bool
	share                     float64 // in-service seconds ÷ the month's seconds
	claimable, billed, usable int64   // seconds
	// charge in currency: the bill's amount when fromBill, else what the
	// contract charges for the billed hours.
	charge      float64
	currency    string
	fromBill    bool
	granularity int64 // the contract's billing granularity, seconds
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
	sc, err := b.BuildFrom(reps)
	return sc, reps, err
}

// BuildFrom computes the scorecard from the month reports From..To built
// elsewhere (from the store, node by node: app.Books) and what the builder
// read of the check results itself (Note, AddPart). It can be called once.
func (b *Builder) BuildFrom(reps []*report.Report) (*Scorecard, error) {
	facts, e, err := b.gather(reps)
	if err != nil {
		return nil, err
	}
	sc := &Scorecard{Schema: Schema, From: b.opts.From.String(), To: b.opts.To.String(), AsOf: b.opts.AsOf.UTC().Format(time.RFC3339),
		Events: b.events, Providers: providers(facts, e), Fleet: e.fleet, Rates: b.opts.Rates}
	rankAll(sc)
	// Every provider's nodes together: the fleet each provider is shown
	// beside (the monthly report's scorecard section). Not ranked.
	all := dimensions(facts.sorted(), e)
	sc.AllProviders = &all
	sc.warnings = warnings(sc, facts)
	sc.Warnings = msg.Strings(sc.warnings)
	return sc, nil
}

// gather files what each node contributes from the month reports reps
// (From..To) and the check results read: the facts both the scorecard and
// the trial page are computed from.
func (b *Builder) gather(reps []*report.Report) (factSet, *env, error) {
	if len(reps) != len(b.months) {
		return nil, nil, fmt.Errorf("scorecard %s..%s: %d month reports for %d months", b.opts.From, b.opts.To, len(reps), len(b.months))
	}
	for i, rep := range reps {
		if rep == nil || rep.Month != b.months[i].String() {
			return nil, nil, fmt.Errorf("scorecard %s..%s: month %d is not the report of %s", b.opts.From, b.opts.To, i+1, b.months[i])
		}
	}
	b.perf.Seal()
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
	for _, f := range facts {
		f.asOf = b.opts.AsOf
	}
	return facts, &env{fleet: b.fleet(facts), rates: b.opts.Rates}, nil
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
	currency := map[string]string{}
	for _, c := range rep.Contracts {
		monthSecs[c.Contract] = c.MonthSeconds
		currency[c.Contract] = c.Currency
	}
	for j := range rep.Nodes {
		n := &rep.Nodes[j]
		f := fs.of(n)
		if n.Delivery.InMonth {
			d := n.Delivery
			f.delivery = &d
		}
		f.tickets = append(f.tickets, n.Tickets...)
		m := nodeMonth{month: rep.Month, inService: n.Period.InService, share: float64(n.Period.Seconds) / float64(monthSecs[n.Contract]),
			claimable: n.Uptime.ClaimableOutageSeconds, billed: n.Billing.BilledSeconds, usable: n.Billing.UsableSeconds,
			charge: n.Billing.Charge, currency: currency[n.Contract], granularity: n.Billing.GranularitySeconds}
		if x, ok := f.billed[rep.Month]; ok {
			m.charge, m.fromBill = x.amount, true
			if x.currency != "" {
				m.currency = x.currency
			}
		}
		// Billing may run from the order, before any service.
		f.months = append(f.months, m)
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
		// A GPU-level incident is one per GPU: the eight GPUs of a node
		// failing together are eight incidents per GPU-month, as the
		// rate's denominator counts them.
		key := n.Node + "\x00" + o.Kind + "\x00" + o.Start
		if !nodeLevel(incident.Kind(o.Kind)) {
			key += "\x00" + outageGPU(o.Check)
		}
		r := byKey[key]
		if r == nil {
			r = &incidentRec{kind: o.Kind, start: start}
			byKey[key] = r
			f.incidents = append(f.incidents, r)
		}
		r.end, r.ongoing = end, o.Ongoing
	}
}

// outageGPU is the GPU of a check incident's check ("gpu.ecc/gpu3" →
// "3"); empty for a check of the whole node.
func outageGPU(check string) string {
	if i := strings.LastIndex(check, "/gpu"); i >= 0 {
		return check[i+len("/gpu"):]
	}
	return ""
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
			f.accepted, f.accFails = true, append(slices.Clip(n.accFails), heldFails(n)...)
		}
	}
}

// heldFails are the failures of the node's acceptance reading against its
// registration where its probe did not hold it to one (a probe without
// expected:): a genuine H800 registered as an H100 fails acceptance as
// the trial page fails it.
func heldFails(n *nodeInfo) []failRec {
	var out []failRec
	for _, r := range accept.Mismatches(n.accHeld, accept.Order{Model: n.model, GPUs: n.gpus, MemoryMiB: n.memory}) {
		out = append(out, failRec{r.Name, r.Category})
	}
	return out
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
func providers(facts factSet, e *env) []Provider {
	groups := map[string][]*nodeFacts{}
	for _, f := range facts {
		groups[f.provider] = append(groups[f.provider], f)
	}
	out := []Provider{}
	for name, fs := range groups {
		sort.Slice(fs, func(i, j int) bool { return fs[i].id < fs[j].id })
		out = append(out, providerCard(name, fs, e))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Provider < out[j].Provider })
	return out
}

// providerCard is one provider's card over its nodes fs (in id order).
func providerCard(name string, fs []*nodeFacts, e *env) Provider {
	p := Provider{Provider: name, All: dimensions(fs, e), Models: []ModelCard{}, TooFew: []string{}}
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
		mc := ModelCard{GPUModel: m, Nodes: len(ms), Card: dimensions(ms, e)}
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
			if row.BilledAmount != nil {
				if f.billed == nil {
					f.billed = map[string]billedAmount{}
				}
				f.billed[rep.Month] = billedAmount{amount: *row.BilledAmount, currency: row.Currency}
			} else if row.BilledHours != nil {
				if f.billedHours == nil {
					f.billedHours = map[string]billedAmount{}
				}
				// The contract's amount and what the bill's hours add
				// to it at the contract's rate (billing.Reconcile).
				f.billedHours[rep.Month] = billedAmount{amount: row.ContractAmount + row.OverAmount, currency: row.Currency, hours: *row.BilledHours}
			}
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
	h := Hardware{FailShare: fig(ratio(float64(acc.failed), float64(acc.nodes)), "share", acc.nodes, acc.nodes, MinAcceptances, Lower), Reasons: []Reason{}}
	for r, c := range acc.reasons {
		h.Reasons = append(h.Reasons, Reason{Check: r.name, Category: r.category, Nodes: c, Share: float64(c) / float64(acc.nodes)})
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
