package scorecard

import (
	"strings"
)

// keyed is one rankable figure of a Dimensions, under a stable key.
type keyed struct {
	key string
	f   *Figure
}

// figures lists every rankable figure of d. The keys name the figures in
// too_few lists and in the comparison table.
func figures(d *Dimensions) []keyed {
	out := []keyed{
		{"delivery.p50_hours", &d.Delivery.P50Hours},
		{"delivery.p90_hours", &d.Delivery.P90Hours},
		{"delivery.late_share", &d.Delivery.LateShare},
		{"delivery.within_30_min_share", &d.Delivery.Within30Min},
		{"delivery.wrong_hardware_share", &d.Delivery.WrongHardware},
		{"hardware_truth.failing_acceptance_share", &d.Hardware.FailShare},
		{"reliability.claimable_outage_minutes_per_node_month", &d.Reliability.ClaimableMinPerNM},
		{"reliability.mttr_hours", &d.Reliability.MTTRHours},
		{"reliability.gpu_lost_per_gpu_month", &d.Reliability.GPULostPerGPUMonth},
		{"reliability.hardware_xid_per_gpu_month", &d.Reliability.XIDPerGPUMonth},
	}
	for i := range d.Reliability.Incidents {
		k := &d.Reliability.Incidents[i]
		per := "gpu_month"
		if k.Per == "node-month" {
			per = "node_month"
		}
		out = append(out, keyed{"reliability.incidents_per_" + per + "." + k.Kind, &k.Rate})
	}
	return append(out,
		keyed{"network.gateway_rtt_p50_ms", &d.Network.RTTP50},
		keyed{"network.gateway_rtt_p99_ms", &d.Network.RTTP99},
		keyed{"network.gateway_rtt_within_2_ms_share", &d.Network.RTTWithin},
		keyed{"network.gateway_loss_percent", &d.Network.Loss},
		keyed{"network.iperf3_share_of_nominal_p50", &d.Network.IperfP50},
		keyed{"network.iperf3_runs_below_70_percent_share", &d.Network.IperfLow},
		keyed{"support.business_hours_first_response_p50_minutes", &d.Support.BusinessP50Min},
		keyed{"support.business_hours_first_response_p90_minutes", &d.Support.BusinessP90Min},
		keyed{"support.off_hours_first_response_p50_minutes", &d.Support.OffHoursP50Min},
		keyed{"support.off_hours_first_response_p90_minutes", &d.Support.OffHoursP90Min},
		keyed{"support.business_hours_answered_within_30_min_share", &d.Support.BusinessWithin30},
		keyed{"support.off_hours_answered_within_30_min_share", &d.Support.OffHoursWithin30},
		keyed{"support.off_hours_answered_within_1_h_share", &d.Support.OffHoursWithin1h},
		keyed{"support.breach_share", &d.Support.BreachShare},
		keyed{"support.replacement_p50_hours", &d.Support.ReplacementP50H},
		keyed{"billing.billed_not_usable_share", &d.Billing.NotUsableShare},
		keyed{"billing.over_billed_share", &d.Billing.OverBilled},
		keyed{"billing.price_per_usable_gpu_hour_converted", &d.Billing.Converted},
		keyed{"performance.burn_share_of_fleet_median", &d.Performance.ShareOfFleet},
		keyed{"performance.burn_share_of_datasheet", &d.Performance.ShareOfDatasheet},
		keyed{"performance.burn_share_of_healthy", &d.Performance.ShareOfHealthy},
	)
}

// Figure returns the figure under key (the keys of too_few and of the
// comparison's columns).
func (d *Dimensions) Figure(key string) (Figure, bool) {
	for _, k := range figures(d) {
		if k.key == key {
			return *k.f, true
		}
	}
	return Figure{}, false
}

// Headline figures of the comparison table, one or two per dimension.
var columns = []Column{
	{Key: "delivery.p90_hours", Dimension: "delivery", Title: "order to delivery, p90", Unit: "h", Better: Lower},
	{Key: "delivery.within_30_min_share", Dimension: "delivery", Title: "delivered within 30 min", Unit: "share", Better: Higher},
	{Key: "hardware_truth.failing_acceptance_share", Dimension: "hardware truth", Title: "nodes failing acceptance", Unit: "share", Better: Lower},
	{Key: "network.gateway_rtt_p99_ms", Dimension: "network", Title: "gateway RTT, p99", Unit: "ms", Better: Lower},
	{Key: "network.iperf3_share_of_nominal_p50", Dimension: "network", Title: "iperf3 of nominal, p50", Unit: "share", Better: Higher},
	{Key: "support.off_hours_first_response_p90_minutes", Dimension: "support", Title: "off-hours first response, p90", Unit: "min", Better: Lower},
	{Key: "support.off_hours_answered_within_1_h_share", Dimension: "support", Title: "off-hours answered within 1 h", Unit: "share", Better: Higher},
	{Key: "support.breach_share", Dimension: "support", Title: "tickets breaching a target", Unit: "share", Better: Lower},
	{Key: "billing.billed_not_usable_share", Dimension: "billing", Title: "billed hours not usable", Unit: "share", Better: Lower},
	{Key: "reliability.claimable_outage_minutes_per_node_month", Dimension: "reliability", Title: "claimable outage per node-month", Unit: "min", Better: Lower},
	{Key: "performance.burn_share_of_fleet_median", Dimension: "performance", Title: "burn throughput of fleet median", Unit: "share", Better: Higher},
	{Key: "performance.burn_share_of_healthy", Dimension: "performance", Title: "burn throughput of a healthy card", Unit: "share", Better: Higher},
}

// minDiffs is the minimum meaningful difference of each figure, by key
// prefix (the longest that matches wins): two providers closer than this
// are tied (docs/scorecard.md, "Ties"). Shares of a few nodes or tickets
// move by a third with one case, so ten points; billed hours not usable
// are a share of thousands of hours, where a tenth of a point is money.
var minDiffs = map[string]float64{
	"delivery.p":                        0.25, // h
	"delivery.":                         0.10, // shares of nodes
	"hardware_truth.":                   0.10,
	"reliability.claimable":             5, // min per node-month
	"reliability.mttr_hours":            0.25,
	"reliability.":                      0.05, // incidents per node- or GPU-month
	"network.gateway_rtt_p":             1,    // ms
	"network.gateway_rtt_within":        0.10,
	"network.gateway_loss":              0.1, // percentage points
	"network.iperf3":                    0.05,
	"support.":                          5, // min
	"support.business_hours_answered":   0.10,
	"support.off_hours_answered":        0.10,
	"support.breach_share":              0.10,
	"support.replacement":               0.5, // h
	"billing.":                          0.001,
	"billing.over_billed_share":         0.10,
	"billing.price_per_usable_gpu_hour": 0.01, // of the currency
	"performance.":                      0.02,
}

// minDiff is the minimum meaningful difference of the figure under key.
func minDiff(key string) float64 {
	best, d := -1, 0.0
	for p, v := range minDiffs {
		if strings.HasPrefix(key, p) && len(p) > best {
			best, d = len(p), v
		}
	}
	return d
}

// rankAll ranks providers on every figure (and each model card among the
// providers renting that model), then fills the comparison table.
func rankAll(sc *Scorecard) {
	var all []*Dimensions
	for i := range sc.Providers {
		all = append(all, &sc.Providers[i].All)
	}
	rank(all)
	byModel := map[string][]*Dimensions{}
	for i := range sc.Providers {
		for j := range sc.Providers[i].Models {
			m := &sc.Providers[i].Models[j]
			byModel[m.GPUModel] = append(byModel[m.GPUModel], &m.Card)
		}
	}
	for _, ds := range byModel {
		rank(ds)
	}
	sc.Table = Table{Columns: columns, Rows: []Row{}}
	for i := range sc.Providers {
		p := &sc.Providers[i]
		fs := map[string]*Figure{}
		for _, k := range figures(&p.All) {
			fs[k.key] = k.f
			if k.f.TooFew {
				p.TooFew = append(p.TooFew, k.key)
			}
		}
		row := Row{Provider: p.Provider}
		for _, c := range columns {
			row.Cells = append(row.Cells, *fs[c.Key])
		}
		sc.Table.Rows = append(sc.Table.Rows, row)
	}
}

// rank gives each figure its rank among the groups with enough
// observations; the others stay unranked.
func rank(ds []*Dimensions) {
	if len(ds) == 0 {
		return
	}
	lists := make([][]keyed, len(ds))
	for i, d := range ds {
		lists[i] = figures(d)
	}
	for k := range lists[0] {
		var fs []*Figure
		for _, l := range lists {
			fs = append(fs, l[k].f)
		}
		rankFigures(fs)
	}
	// Prices rank among the groups billed in the same currency only.
	byCur := map[string][]*Figure{}
	for _, d := range ds {
		for i := range d.Billing.PerUsableGPUHour {
			p := &d.Billing.PerUsableGPUHour[i]
			byCur[p.Currency] = append(byCur[p.Currency], &p.PerGPUHour)
		}
	}
	for _, fs := range byCur {
		rankFigures(fs)
	}
}

// rankFigures ranks the figures with enough observations: a figure's rank
// is 1 + the number of others that beat it beyond measurement noise (by
// more than the figure's MinDiff, whatever their unfinished cases turn
// out to be), so figures within noise of each other share a rank, and a
// rank follows from the JSON's values, bounds and min_diff alone.
//
// A figure whose unfinished cases can only make it worse ("≥ 15 min"
// where less is better) is then never ranked ahead of a settled one it
// does not already beat: those cases may still end it behind, so it
// takes that one's rank at best (a "≥ 15 min" beside a 20 and a 60 min is
// #2 with the 60, not #1 with the 20).
func rankFigures(all []*Figure) {
	var fs []*Figure
	for _, f := range all {
		if !f.TooFew && f.Value != nil {
			fs = append(fs, f)
		}
	}
	for _, f := range fs {
		f.Rank, f.Ranked = 1, len(fs)
		for _, g := range fs {
			if g != f && g.beats(f) {
				f.Rank++
			}
		}
	}
	for _, f := range fs {
		if !f.canWorsen() {
			continue
		}
		for _, g := range fs {
			if g != f && !g.canWorsen() && !f.beats(g) && g.Rank > f.Rank {
				f.Rank = g.Rank
			}
		}
	}
}
