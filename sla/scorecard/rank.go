package scorecard

import (
	"sort"
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
		{"delivery.wrong_hardware_share", &d.Delivery.WrongHardware},
		{"hardware_truth.failing_acceptance_share", &d.Hardware.FailShare},
		{"reliability.claimable_outage_minutes_per_node_month", &d.Reliability.ClaimableMinPerNM},
		{"reliability.mttr_hours", &d.Reliability.MTTRHours},
		{"reliability.gpu_lost_per_gpu_month", &d.Reliability.GPULostPerGPUMonth},
		{"reliability.hardware_xid_per_gpu_month", &d.Reliability.XIDPerGPUMonth},
	}
	for i := range d.Reliability.Incidents {
		k := &d.Reliability.Incidents[i]
		out = append(out, keyed{"reliability.incidents_per_gpu_month." + k.Kind, &k.Rate})
	}
	return append(out,
		keyed{"network.gateway_rtt_p50_ms", &d.Network.RTTP50},
		keyed{"network.gateway_rtt_p99_ms", &d.Network.RTTP99},
		keyed{"network.gateway_loss_percent", &d.Network.Loss},
		keyed{"network.iperf3_share_of_nominal_p50", &d.Network.IperfP50},
		keyed{"network.iperf3_runs_below_70_percent_share", &d.Network.IperfLow},
		keyed{"support.business_hours_first_response_p50_minutes", &d.Support.BusinessP50Min},
		keyed{"support.business_hours_first_response_p90_minutes", &d.Support.BusinessP90Min},
		keyed{"support.off_hours_first_response_p50_minutes", &d.Support.OffHoursP50Min},
		keyed{"support.off_hours_first_response_p90_minutes", &d.Support.OffHoursP90Min},
		keyed{"support.breach_share", &d.Support.BreachShare},
		keyed{"support.replacement_p50_hours", &d.Support.ReplacementP50H},
		keyed{"billing.billed_not_usable_share", &d.Billing.NotUsableShare},
		keyed{"billing.over_billed_share", &d.Billing.OverBilled},
		keyed{"performance.burn_share_of_fleet_median", &d.Performance.ShareOfFleet},
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
	{Key: "hardware_truth.failing_acceptance_share", Dimension: "hardware truth", Title: "nodes failing acceptance", Unit: "share", Better: Lower},
	{Key: "network.gateway_rtt_p99_ms", Dimension: "network", Title: "gateway RTT, p99", Unit: "ms", Better: Lower},
	{Key: "network.iperf3_share_of_nominal_p50", Dimension: "network", Title: "iperf3 of nominal, p50", Unit: "share", Better: Higher},
	{Key: "support.off_hours_first_response_p90_minutes", Dimension: "support", Title: "off-hours first response, p90", Unit: "min", Better: Lower},
	{Key: "support.breach_share", Dimension: "support", Title: "tickets breaching a target", Unit: "share", Better: Lower},
	{Key: "billing.billed_not_usable_share", Dimension: "billing", Title: "billed hours not usable", Unit: "share", Better: Lower},
	{Key: "reliability.claimable_outage_minutes_per_node_month", Dimension: "reliability", Title: "claimable outage per node-month", Unit: "min", Better: Lower},
	{Key: "performance.burn_share_of_fleet_median", Dimension: "performance", Title: "burn throughput of fleet median", Unit: "share", Better: Higher},
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

// rank gives each figure its competition rank (1, 1, 3, …) among the groups
// with enough observations; the others stay unranked.
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
			if f := l[k].f; !f.TooFew && f.Value != nil {
				fs = append(fs, f)
			}
		}
		sort.SliceStable(fs, func(i, j int) bool {
			if fs[i].Better == Higher {
				return *fs[i].Value > *fs[j].Value
			}
			return *fs[i].Value < *fs[j].Value
		})
		for i, f := range fs {
			f.Rank, f.Ranked = i+1, len(fs)
			if i > 0 && *f.Value == *fs[i-1].Value {
				f.Rank = fs[i-1].Rank
			}
		}
	}
}
