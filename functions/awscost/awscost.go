// Package awscost turns what the backend did in a simulated period —
// Lambda invocations and the DynamoDB operations and request units the
// store counted (app.OpCounts) — into dollars per node-month at published
// AWS prices. docs/cost.md shows the figures and how they were made; the
// simulation itself is this package's test.
package awscost

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// Prices are on-demand list prices in US dollars, us-east-1 (see
// docs/cost.md for the sources and the date).
type Prices struct {
	LambdaPerRequest   float64 // per invocation
	LambdaPerGBSecond  float64 // arm64
	DynamoPerWRU       float64 // on-demand write request unit (1 KB)
	DynamoPerRRU       float64 // on-demand read request unit (4 KB strongly consistent)
	DynamoPerGBMonth   float64 // table storage, standard class
	SchedulerPerInvoke float64 // EventBridge Scheduler, beyond the free 14 M a month
	DataOutPerGB       float64 // internet egress (the responses)
}

// USEast1 are the prices the cost model uses.
var USEast1 = Prices{
	LambdaPerRequest:   0.20 / 1e6,
	LambdaPerGBSecond:  0.0000133334,
	DynamoPerWRU:       0.625 / 1e6,
	DynamoPerRRU:       0.125 / 1e6,
	DynamoPerGBMonth:   0.25,
	SchedulerPerInvoke: 1.00 / 1e6,
	DataOutPerGB:       0.09,
}

// Month is the length the model bills: 30 days.
const Month = 30 * 24 * time.Hour

// Usage is one node's use of AWS in one month.
type Usage struct {
	IngestInvocations   float64
	WatchdogInvocations float64 // this node's share
	IngestBilledMS      float64 // average billed duration per invocation (assumption)
	WatchdogBilledMS    float64
	MemoryMB            float64
	WRU, RRU            float64 // request units
	StoredGB            float64 // table storage at steady state (retention reached)
	ResponseGB          float64
	SchedulerInvokes    float64 // this node's share
	// The daily sealer: this node's share of its invocations (one a day
	// for the fleet) and of its billed duration.
	SealerInvocations float64
	SealerGBs         float64
}

// Line is one priced item.
type Line struct {
	Item    string
	Qty     float64
	Unit    string
	Dollars float64
}

// Bill prices a month of usage.
func (p Prices) Bill(u Usage) []Line {
	gbs := func(n, ms float64) float64 { return n * ms / 1000 * u.MemoryMB / 1024 }
	return []Line{
		{"Lambda requests (ingest)", u.IngestInvocations, "requests", u.IngestInvocations * p.LambdaPerRequest},
		{"Lambda duration (ingest)", gbs(u.IngestInvocations, u.IngestBilledMS), "GB-s", gbs(u.IngestInvocations, u.IngestBilledMS) * p.LambdaPerGBSecond},
		{"Lambda requests (watchdog share)", u.WatchdogInvocations, "requests", u.WatchdogInvocations * p.LambdaPerRequest},
		{"Lambda duration (watchdog share)", gbs(u.WatchdogInvocations, u.WatchdogBilledMS), "GB-s", gbs(u.WatchdogInvocations, u.WatchdogBilledMS) * p.LambdaPerGBSecond},
		{"Lambda requests (sealer share)", u.SealerInvocations, "requests", u.SealerInvocations * p.LambdaPerRequest},
		{"Lambda duration (sealer share)", u.SealerGBs, "GB-s", u.SealerGBs * p.LambdaPerGBSecond},
		{"EventBridge Scheduler (share, beyond free tier)", u.SchedulerInvokes + u.SealerInvocations, "invocations", (u.SchedulerInvokes + u.SealerInvocations) * p.SchedulerPerInvoke},
		{"DynamoDB writes", u.WRU, "WRU", u.WRU * p.DynamoPerWRU},
		{"DynamoDB reads", u.RRU, "RRU", u.RRU * p.DynamoPerRRU},
		{"DynamoDB storage (steady state)", u.StoredGB, "GB-month", u.StoredGB * p.DynamoPerGBMonth},
		{"Data out (responses)", u.ResponseGB, "GB", u.ResponseGB * p.DataOutPerGB},
	}
}

// Total sums a bill.
func Total(lines []Line) float64 {
	t := 0.0
	for _, l := range lines {
		t += l.Dollars
	}
	return t
}

// Write prints a bill as a Markdown table.
func Write(w io.Writer, lines []Line) error {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "| item\t| quantity\t| unit\t| $ per node-month\t|")
	fmt.Fprintln(tw, "|---\t|---:\t|---\t|---:\t|")
	for _, l := range lines {
		fmt.Fprintf(tw, "| %s\t| %s\t| %s\t| %.5f\t|\n", l.Item, qty(l.Qty), l.Unit, l.Dollars)
	}
	fmt.Fprintf(tw, "| **total**\t|\t|\t| **%.4f**\t|\n", Total(lines))
	return tw.Flush()
}

func qty(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

// Units sums the request units counted under methods (all if none given):
// write units and read units (reads and queries), from the stores'
// "<Method>/<op>/milli_units" counters.
func Units(ops store.OpCounts, methods ...string) (wru, rru float64) {
	want := map[string]bool{}
	for _, m := range methods {
		want[m] = true
	}
	for k, v := range ops {
		method, rest, ok := strings.Cut(k, "/")
		if !ok || (len(want) > 0 && !want[method]) {
			continue
		}
		switch rest {
		case store.OpWrite + "/milli_units":
			wru += float64(v) / 1000
		case store.OpRead + "/milli_units", store.OpQuery + "/milli_units":
			rru += float64(v) / 1000
		}
	}
	return wru, rru
}

// Sub returns a-b per key (the operations of one phase).
func Sub(a, b store.OpCounts) store.OpCounts {
	out := store.OpCounts{}
	for k, v := range a {
		if d := v - b[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// Scale multiplies counts by f (a simulated period to a month).
func Scale(ops store.OpCounts, f float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range ops {
		out[k] = float64(v) * f
	}
	return out
}

// PerMethod lists the request counts and units of each method, for docs.
func PerMethod(w io.Writer, ops map[string]float64) error {
	methods := map[string]bool{}
	for k := range ops {
		m, _, _ := strings.Cut(k, "/")
		methods[m] = true
	}
	names := make([]string, 0, len(methods))
	for m := range methods {
		names = append(names, m)
	}
	sort.Strings(names)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintln(tw, "| store method\t| requests\t| conditional failures\t| WRU\t| RRU\t|")
	fmt.Fprintln(tw, "|---\t|---:\t|---:\t|---:\t|---:\t|")
	for _, m := range names {
		req := ops[m+"/"+store.OpRead] + ops[m+"/"+store.OpWrite] + ops[m+"/"+store.OpQuery]
		wru := ops[m+"/"+store.OpWrite+"/milli_units"] / 1000
		rru := (ops[m+"/"+store.OpRead+"/milli_units"] + ops[m+"/"+store.OpQuery+"/milli_units"]) / 1000
		fmt.Fprintf(tw, "| %s\t| %.0f\t| %.0f\t| %.0f\t| %.0f\t|\n", m, math.Round(req), ops[m+"/"+store.OpCondFailure], wru, rru)
	}
	return tw.Flush()
}
