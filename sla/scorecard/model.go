// Package scorecard compares providers on what the renter's own probes
// measured, over a run of months: the seed's five dimensions — delivery
// (取卡速度), hardware truth (硬件真实度), network (网络稳定性), support
// (售后响应) and billing (计费透明度) — plus reliability and performance,
// per provider and per provider × GPU model.
//
// It reads the same event log as the monthly report (the backend's export,
// docs/events.md) through the same reader, and takes every SLA figure
// (claimable outage, incidents, ticket timing, delivery, billed and usable
// hours) from the report's own month computation, so a scorecard never
// disagrees with the reports a claim is filed with. What the report does not
// compute — acceptance results, network and stress measurements, XIDs — it
// takes from the check results in the log.
//
// Every figure carries the number of observations it rests on; a figure
// with fewer than its documented minimum is marked too_few and not ranked.
// There is no single score: the comparison table puts one measured figure
// per cell, each with its rank.
//
// On the path from an observation to a report row, this is the step after
// the report: many months' report rows → one comparison of providers.
package scorecard

import (
	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/msg"
)

// Schema names the JSON form; it changes only with docs/scorecard.md.
const Schema = "gpusla.scorecard/v2"

// Minimum observations before a figure is ranked (docs/scorecard.md).
const (
	MinDeliveries  = 3  // delivered nodes, for the order-to-delivery percentiles and shares
	MinAcceptances = 3  // nodes with acceptance results
	MinNodeMonths  = 3  // node-months in service, for every per-month rate and the billing shares
	MinRepairs     = 3  // closed incidents, for MTTR
	MinNetSamples  = 10 // gateway ping results
	MinIperfRuns   = 5  // iperf3 runs
	MinTickets     = 3  // tickets (answered ones for the response-time percentiles)
	MinSeries      = 3  // GPUs with stress results, for the share of the fleet median
	// MinMachines: no figure is ranked on fewer distinct machines,
	// whatever its n: one node watched for three months is three
	// node-months, but one machine (the seed's one-node trial is judged
	// on its own page, never ranked).
	MinMachines = 3
)

// Better says which way a figure ranks.
type Better string

// Directions.
const (
	Lower  Better = "lower"
	Higher Better = "higher"
)

// Figure is one measured figure.
type Figure struct {
	// Value is nil when there was nothing to measure.
	Value *float64 `json:"value"`
	Unit  string   `json:"unit"`
	// N is the observations it rests on (its unit depends on the figure:
	// nodes, node-months, tickets, measurements); MinN the minimum to rank.
	N int `json:"n"`
	// Machines: the distinct nodes those observations come from.
	Machines int `json:"machines"`
	MinN     int `json:"min_n"`
	// MinFinished: MinN counts finished observations only (N −
	// Censored): a mean repair time rests on closed incidents.
	MinFinished bool   `json:"min_n_finished,omitempty"`
	Better      Better `json:"better"`
	// Censored: observations unfinished at the as-of instant (an
	// unanswered ticket, an undelivered node, an open outage), counted at
	// their elapsed time so far; Bound says which way finishing them can
	// move the value (AtLeast, AtMost), empty when it cannot.
	Censored int    `json:"censored"`
	Bound    string `json:"bound,omitempty"`
	// MinDiff: two providers' figures closer than this are a tie
	// (docs/scorecard.md, "Ties").
	MinDiff float64 `json:"min_diff"`
	// TooFew: N < MinN or Machines < MinMachines; shown, never ranked.
	TooFew bool `json:"too_few"`
	// Rank among the providers compared on this figure with enough
	// observations (1 = best; ties share a rank); 0 = not ranked.
	Rank   int `json:"rank,omitempty"`
	Ranked int `json:"ranked_of,omitempty"` // how many were ranked
}

// Scorecard is the comparison over the months From..To.
type Scorecard struct {
	Schema    string     `json:"schema"`
	From      string     `json:"from"` // YYYY-MM, each contract's month in its zone
	To        string     `json:"to"`
	AsOf      string     `json:"as_of"`
	Events    int        `json:"events"`
	Providers []Provider `json:"providers"`
	// Warnings: what makes the comparison unfair, e.g. providers whose
	// figures cover different months (English; WarningTexts translates).
	Warnings []string `json:"warnings"`
	warnings []msg.Text
	// Rates: the renter's exchange rates, when given (--rates).
	Rates *Rates          `json:"rates,omitempty"`
	Table Table           `json:"comparison"`
	Fleet baseline.Result `json:"fleet"`
	// AllProviders: the same figures over every provider's nodes together,
	// unranked — what each provider is compared with in the monthly
	// report's scorecard section.
	AllProviders *Dimensions `json:"all_providers,omitempty"`
}

// Provider is one provider (all contracts naming it).
type Provider struct {
	Provider  string      `json:"provider"`
	Contracts []string    `json:"contracts"`
	Nodes     int         `json:"nodes"`
	GPUs      int         `json:"gpus"`
	All       Dimensions  `json:"all"`
	Models    []ModelCard `json:"by_gpu_model"`
	// TooFew lists the figures of All not ranked for want of observations.
	TooFew []string `json:"too_few"`
	// Claims is what its claims of the months recovered, from the claims
	// ledger when the scorecard is given one (AddClaims); absent without.
	Claims *Claims `json:"claims,omitempty"`
}

// ModelCard is one provider's nodes of one GPU model; figures rank among the
// providers renting the same model.
type ModelCard struct {
	GPUModel string     `json:"gpu_model"`
	Nodes    int        `json:"nodes"`
	GPUs     int        `json:"gpus"`
	Card     Dimensions `json:"figures"`
}

// Dimensions are every figure of one group of nodes.
type Dimensions struct {
	Exposure    Exposure    `json:"exposure"`
	Delivery    Delivery    `json:"delivery"`
	Hardware    Hardware    `json:"hardware_truth"`
	Reliability Reliability `json:"reliability"`
	Network     Network     `json:"network"`
	Support     Support     `json:"support"`
	Billing     Billing     `json:"billing"`
	Performance Performance `json:"performance"`
}

// Exposure is how much service the figures cover: machines and
// node-months are both shown, as one machine watched for three months is
// not three machines.
type Exposure struct {
	Machines       int      `json:"machines"`    // nodes with service in the months
	NodeMonths     float64  `json:"node_months"` // Σ in-service seconds ÷ the month's seconds, per node-month
	GPUMonths      float64  `json:"gpu_months"`
	NodeMonthCount int      `json:"node_month_count"` // node × month pairs with service
	Months         []string `json:"months"`           // the months (YYYY-MM) with service
}

// Delivery is order to first heartbeat (the report's delivery).
type Delivery struct {
	P50Hours  Figure `json:"p50_hours"`
	P90Hours  Figure `json:"p90_hours"`
	LateShare Figure `json:"late_share"` // breached the contract's delivery target, of those with a target
	// Within30Min: delivered within DeliveryStandard of the order, the
	// same standard for every provider.
	Within30Min   Figure `json:"within_30_min_share"`
	WrongHardware Figure `json:"wrong_hardware_share"` // acceptance showed an inventory mismatch
	Pending       int    `json:"pending"`              // ordered, not delivered at as_of
}

// Hardware is the acceptance test: the node's first check results.
type Hardware struct {
	FailShare Figure   `json:"failing_acceptance_share"`
	Reasons   []Reason `json:"reasons"`
}

// Reason is one failing check at acceptance and how many nodes failed it.
type Reason struct {
	Check    string  `json:"check"`
	Category string  `json:"category"`
	Nodes    int     `json:"nodes"`
	Share    float64 `json:"share"`
}

// Reliability counts incidents the provider is answerable for.
type Reliability struct {
	Incidents          []KindRate `json:"incidents"`
	ClaimableMinPerNM  Figure     `json:"claimable_outage_minutes_per_node_month"`
	MTTRHours          Figure     `json:"mttr_hours"`
	GPULostPerGPUMonth Figure     `json:"gpu_lost_per_gpu_month"`
	XIDPerGPUMonth     Figure     `json:"hardware_xid_per_gpu_month"`
}

// KindRate is incidents of one kind per node-month (a kind that takes the
// whole node) or per GPU-month (one that takes a GPU).
type KindRate struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
	Per   string `json:"per"` // node-month or GPU-month
	Rate  Figure `json:"rate"`
}

// Network is what the nodes measured.
type Network struct {
	RTTP50    Figure `json:"gateway_rtt_p50_ms"`
	RTTP99    Figure `json:"gateway_rtt_p99_ms"`
	RTTWithin Figure `json:"gateway_rtt_within_2_ms_share"` // the seed's "average over 2 ms" is a shared network
	Loss      Figure `json:"gateway_loss_percent"`
	IperfP50  Figure `json:"iperf3_share_of_nominal_p50"`
	IperfLow  Figure `json:"iperf3_runs_below_70_percent_share"`
	IperfRuns int    `json:"iperf3_runs"`
}

// Support is ticket timing, on the wall clock (what the renter waits),
// split by when the ticket was opened.
type Support struct {
	BusinessP50Min Figure `json:"business_hours_first_response_p50_minutes"`
	BusinessP90Min Figure `json:"business_hours_first_response_p90_minutes"`
	OffHoursP50Min Figure `json:"off_hours_first_response_p50_minutes"`
	OffHoursP90Min Figure `json:"off_hours_first_response_p90_minutes"`
	// The absolute standards: first answered within 30 min and 1 h.
	BusinessWithin30 Figure `json:"business_hours_answered_within_30_min_share"`
	OffHoursWithin30 Figure `json:"off_hours_answered_within_30_min_share"`
	OffHoursWithin1h Figure `json:"off_hours_answered_within_1_h_share"`
	BreachShare      Figure `json:"breach_share"`
	ReplacementP50H  Figure `json:"replacement_p50_hours"`
	Unanswered       int    `json:"unanswered"`
}

// Billing compares billed and usable hours (node-hours).
type Billing struct {
	BilledHours    float64 `json:"billed_hours"`
	UsableHours    float64 `json:"usable_hours"`
	NotUsableShare Figure  `json:"billed_not_usable_share"`
	// OverBilled: node-months a provider's bill charged beyond the
	// contract (only with a bill; N = node-months on the bill).
	OverBilled      Figure  `json:"over_billed_share"`
	OverBilledHours float64 `json:"over_billed_hours"`
	// PerUsableGPUHour: what a usable GPU-hour cost, per currency billed.
	PerUsableGPUHour []Price `json:"price_per_usable_gpu_hour"`
	// Converted: every currency at the renter's rates (--rates) in their
	// base currency; Value nil without rates.
	Converted Figure `json:"price_per_usable_gpu_hour_converted"`
}

// Price is the billed amount in one currency ÷ the GPU-hours that were
// usable in the node-months billed in it.
type Price struct {
	Currency       string  `json:"currency"`
	Amount         float64 `json:"amount"`           // the bill's amount where it has one, else the contract's charge
	FromBill       int     `json:"from_bill"`        // node-months whose amount is the bill's
	UsableGPUHours float64 `json:"usable_gpu_hours"` // usable seconds × GPUs ÷ 3600
	PerGPUHour     Figure  `json:"per_usable_gpu_hour"`
}

// Performance is the stress figures against the fleet of the same model.
type Performance struct {
	// ShareOfFleet: median over the group's GPUs and burn precisions of a
	// GPU's median throughput ÷ the fleet median of its model.
	ShareOfFleet Figure `json:"burn_share_of_fleet_median"`
	// ShareOfDatasheet and ShareOfHealthy: the same medians ÷ the model's
	// datasheet figure and ÷ what a healthy card measured (the probe's spec
	// database): absolute, so a fleet throttled as a whole, or the only
	// provider of a model, does not score 100 %.
	ShareOfDatasheet Figure       `json:"burn_share_of_datasheet"`
	ShareOfHealthy   Figure       `json:"burn_share_of_healthy"`
	Figures          []PerfFigure `json:"figures"`
	BelowFleet       int          `json:"below_siblings_findings"`
}

// PerfFigure is one stress figure of one model in this group.
type PerfFigure struct {
	GPUModel    string  `json:"gpu_model"`
	Figure      string  `json:"figure"`
	Unit        string  `json:"unit"`
	GPUs        int     `json:"gpus"`
	Median      float64 `json:"median"`
	FleetMedian float64 `json:"fleet_median"`
	Share       float64 `json:"share_of_fleet"`
	// Datasheet, Healthy: the yardsticks (0: not known), and the median's
	// share of each.
	Datasheet        float64 `json:"datasheet,omitempty"`
	Healthy          float64 `json:"healthy,omitempty"`
	ShareOfDatasheet float64 `json:"share_of_datasheet,omitempty"`
	ShareOfHealthy   float64 `json:"share_of_healthy,omitempty"`
}

// Table is the comparison: a row per provider, a column per headline
// figure, each cell a measured figure with its rank.
type Table struct {
	Columns []Column `json:"columns"`
	Rows    []Row    `json:"rows"`
}

// Column is one headline figure.
type Column struct {
	Key       string `json:"key"`
	Dimension string `json:"dimension"`
	Title     string `json:"title"`
	Unit      string `json:"unit"`
	Better    Better `json:"better"`
}

// Row is one provider's cells, in column order.
type Row struct {
	Provider string   `json:"provider"`
	Cells    []Figure `json:"cells"`
}
