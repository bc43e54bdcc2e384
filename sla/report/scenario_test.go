package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/golden"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report/reporttest"
	"github.com/gpusla/gpusla/sla/terms"
)

func loadTerms(t testing.TB) []*terms.Terms {
	t.Helper()
	var all []*terms.Terms
	for _, f := range []string{"cn-example.yaml", "us-example.yaml"} {
		ts, err := terms.ReadFile(filepath.Join("..", "..", "testdata", "terms", f))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ts...)
	}
	return all
}

var (
	shanghai = reporttest.Shanghai
	newYork  = reporttest.NewYork
	local    = reporttest.Local
)

// log is a scenario's event log under construction.
type log = reporttest.Log

type scenario struct {
	name  string
	month time.Month
	asOf  time.Time
	build func(l *log)
	check func(t *testing.T, r *Report)
}

func run(t *testing.T, sc scenario, tm []*terms.Terms, viaJSON bool) *Report {
	t.Helper()
	var l log
	sc.build(&l)
	b, err := NewBuilder(tm, Options{Year: 2026, Month: sc.month, AsOf: sc.asOf})
	if err != nil {
		t.Fatal(err)
	}
	if viaJSON {
		var buf bytes.Buffer
		w := events.NewWriter(&buf)
		for i := range l.Events {
			if err := w.Write(&l.Events[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := b.ReadLog(sc.name, &buf); err != nil {
			t.Fatal(err)
		}
	} else {
		for i := range l.Events {
			if err := l.Events[i].Validate(); err != nil {
				t.Fatalf("scenario event %d invalid: %v", i, err)
			}
			if err := b.Add(&l.Events[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	sameByParts(t, tm, Options{Year: 2026, Month: sc.month, AsOf: sc.asOf}, l.Events, r)
	return r
}

func node(t *testing.T, r *Report, id string) *Node {
	t.Helper()
	for i := range r.Nodes {
		if r.Nodes[i].Node == id {
			return &r.Nodes[i]
		}
	}
	t.Fatalf("node %s not in the report", id)
	return nil
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestScenarios(t *testing.T) {
	tm := loadTerms(t)
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			r := run(t, sc, tm, false)
			sc.check(t, r)
			var buf bytes.Buffer
			if err := JSON(&buf, r); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, sc.name+".json", buf.Bytes())
			buf.Reset()
			if err := Markdown(&buf, r); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, sc.name+".md", buf.Bytes())
		})
	}
}

// The same log read back from JSON lines, shuffled and with every line
// twice, gives the same report.
func TestScenariosThroughJSONLinesShuffledAndDuplicated(t *testing.T) {
	tm := loadTerms(t)
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			want := run(t, sc, tm, false)
			orig := sc.build
			sc.build = func(l *log) {
				orig(l)
				n := len(l.Events)
				// reverse, then append everything again
				for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
					l.Events[i], l.Events[j] = l.Events[j], l.Events[i]
				}
				l.Events = append(l.Events, l.Events[:n]...)
			}
			got := run(t, sc, tm, true)
			var a, b bytes.Buffer
			want.Input, got.Input = Input{}, Input{}
			_ = JSON(&a, want)
			_ = JSON(&b, got)
			if a.String() != b.String() {
				t.Fatalf("shuffled, duplicated log gives a different report:\n%s", golden.FirstDiff(a.Bytes(), b.Bytes()))
			}
		})
	}
}

// scenarios are reporttest's logs with what each report must say.
func scenarios() []scenario {
	checks := map[string]func(t *testing.T, r *Report){
		"cn-retroactive-records": checkRetroactive,
		"cn-outage-across-midnight": func(t *testing.T, r *Report) {
			n := node(t, r, "gz-01")
			eq(t, "outages", len(n.Outages), 1)
			o := n.Outages[0]
			eq(t, "start", o.Start, "2026-03-09T23:01:00+08:00")
			eq(t, "end", o.End, "2026-03-10T01:00:00+08:00")
			eq(t, "cause", o.Cause, "no_data")
			eq(t, "claimable seconds", n.Uptime.ClaimableOutageSeconds, int64(119*60))
			eq(t, "period", n.Period.Seconds, int64(31*86400))
			eq(t, "charge", n.Billing.Charge, 744*8*18.50)
			eq(t, "credit percent", n.Credit.Percent, 10.0)
			eq(t, "amount", n.Credit.Amount, 11011.20)
			eq(t, "claim deadline", n.ClaimDeadline, "2026-05-01T00:00:00+08:00")
			eq(t, "contract claim", r.Contracts[0].Claim, 11011.20)
		},
		"us-dst-and-month-end": func(t *testing.T, r *Report) {
			n := node(t, r, "va-01")
			eq(t, "month seconds", r.Contracts[0].MonthSeconds, int64(31*86400-3600))
			eq(t, "outages", len(n.Outages), 3)
			eq(t, "dst outage start", n.Outages[0].Start, "2026-03-08T01:31:00-05:00")
			eq(t, "dst outage end", n.Outages[0].End, "2026-03-08T03:30:00-04:00")
			eq(t, "dst outage seconds", n.Outages[0].Seconds, int64(59*60))
			eq(t, "degraded start", n.Outages[1].Start, "2026-03-20T09:00:00-04:00")
			eq(t, "degraded end", n.Outages[1].End, "2026-03-20T12:00:00-04:00")
			eq(t, "month-end counted seconds", n.Outages[2].CountedSeconds, int64(29*60))
			eq(t, "claimable", n.Uptime.ClaimableOutageSeconds, int64((59+180+29)*60))
			eq(t, "tier", n.Credit.TierPercent, 10.0)
			eq(t, "claim deadline", n.ClaimDeadline, "2026-06-01T00:00:00-04:00")
		},
		"cn-maintenance-notice": func(t *testing.T, r *Report) {
			n := node(t, r, "gz-02")
			eq(t, "maintenance", len(n.Maintenance), 2)
			eq(t, "first excluded", n.Maintenance[0].Excluded, true)
			eq(t, "second excluded", n.Maintenance[1].Excluded, false)
			eq(t, "excluded seconds", n.Period.ExcludedSeconds, int64(7200))
			eq(t, "first outage counted", n.Outages[0].Counted, false)
			eq(t, "second outage counted seconds", n.Outages[1].CountedSeconds, int64(59*60))
			eq(t, "uptime", n.Uptime.Claimable(), round4(100*(1-3540.0/(31*86400-7200))))
			eq(t, "met", n.Uptime.Met, false)
		},
		"cn-flapping": func(t *testing.T, r *Report) {
			n := node(t, r, "gz-03")
			// Heartbeats a minute apart stop after 08:00, 08:10 and 08:20 and
			// come again at 08:03, 08:13 and 08:24: nothing heard from when
			// the next was due (08:01, 08:11, 08:21) to then, 2, 2 and 3
			// minutes. The first two are shorter than the grace (never
			// alerted on) but count under the 1-minute minimum all the same.
			eq(t, "outages", len(n.Outages), 4)
			// The node's own observations 3 minutes apart are within the
			// interval + grace that shows it running: no connectivity
			// evidence, counted. Four minutes apart they are not: no data.
			eq(t, "outage rows", outageRows(n), "no_connectivity_evidence:12T08:01-12T08:03:true:120 "+
				"no_connectivity_evidence:12T08:11-12T08:13:true:120 no_data:12T08:21-12T08:24:true:180 check_failed:12T10:05-12T10:10:true:300")
			eq(t, "gpu_lost kind", n.Outages[3].Kind, "gpu_lost")
			eq(t, "gpu_lost start", n.Outages[3].Start, "2026-03-12T10:05:00+08:00")
			eq(t, "gpu_lost end", n.Outages[3].End, "2026-03-12T10:10:00+08:00")
			eq(t, "claimable", n.Uptime.ClaimableOutageSeconds, int64((2+2+3+5)*60))
		},
		"cn-tickets": func(t *testing.T, r *Report) {
			n := node(t, r, "gz-04")
			eq(t, "tickets", len(n.Tickets), 6)
			byID := map[string]Ticket{}
			for _, tk := range n.Tickets {
				byID[tk.Ticket] = tk
			}
			eq(t, "T-1 off-hours", byID["T-1"].OffHours, true)
			eq(t, "T-1 status", byID["T-1"].Response.Status, "breached")
			eq(t, "T-1 late", byID["T-1"].Response.LateSeconds, int64(300))
			eq(t, "T-2 on", byID["T-2"].OpenedOn, "holiday")
			eq(t, "T-2 status", byID["T-2"].Response.Status, "met")
			eq(t, "T-3 on", byID["T-3"].OpenedOn, "extra_working_day")
			eq(t, "T-3 off-hours", byID["T-3"].OffHours, false)
			eq(t, "T-3 status", byID["T-3"].Response.Status, "breached")
			eq(t, "T-4 paused", byID["T-4"].Resolution.PausedSeconds, int64(3600))
			eq(t, "T-4 resolution", byID["T-4"].Resolution.Status, "breached")
			eq(t, "T-4 replacement late", byID["T-4"].Replacement.LateSeconds, int64(5400))
			eq(t, "T-5 status", byID["T-5"].Response.Status, "breached")
			eq(t, "T-5 late", byID["T-5"].Response.LateSeconds, int64(0))
			eq(t, "T-5 deadline", byID["T-5"].Response.Deadline, "2026-02-27T18:05:00+08:00")
			eq(t, "T-6 status", byID["T-6"].Response.Status, "pending")
			eq(t, "T-6 off-hours", byID["T-6"].OffHours, true)
			// 5 % each for T-1, T-3, T-5 late responses, 10 % for T-4's replacement.
			eq(t, "penalties", len(n.Credit.Penalties), 4)
			eq(t, "credit percent", n.Credit.Percent, 25.0)
			// T-1, T-2, T-3 also breach their 4 h resolution target, never resolved.
			eq(t, "breached tickets", r.Contracts[0].TicketsBreached, 5)
		},
		"cn-late-data": func(t *testing.T, r *Report) {
			n := node(t, r, "gz-05")
			var causes []string
			for _, o := range n.Outages {
				causes = append(causes, fmt.Sprintf("%s:%s-%s:%v", o.Cause, o.Start[11:19], o.End[11:19], o.Counted))
			}
			// The spooled internet checks passing 10:00–11:00 are the node's
			// word against the backend's own silence until 12:00: kept as
			// evidence, they change nothing (docs/contract.md, "Evidence
			// precedence"); the node ran, with no connectivity result the
			// receipts allow, so the hour counts.
			eq(t, "outages", strings.Join(causes, " "),
				"no_connectivity_evidence:10:01:00-11:00:00:true network:11:00:00-11:30:00:true no_data:11:30:00-12:00:00:true")
			eq(t, "claimable", n.Uptime.ClaimableOutageSeconds, int64(7140))
			// The hour the backend itself was down (the node silent exactly
			// then) is no incident: nobody could hear the node.
			eq(t, "observed", n.Uptime.ObservedOutageSeconds, int64(7140))
			eq(t, "evidence", len(n.Evidence), 2)
		},
		"cn-backend-down": func(t *testing.T, r *Report) {
			n := node(t, r, "gz-08")
			eq(t, "outages", outageRows(n),
				"no_data:12T01:51-12T02:00:true:540 backend_outage:12T02:00-12T03:00:false:0 "+
					"backend_outage:14T02:31-14T03:00:false:0 no_data:14T03:00-14T03:20:true:1200 "+
					"backend_outage:18T02:00-18T02:30:false:0 no_data:18T02:30-18T02:36:true:360 "+
					"backend_outage:18T02:36-18T03:00:false:0 no_data:18T03:00-18T03:01:true:60")
			eq(t, "claimable", n.Uptime.ClaimableOutageSeconds, int64(540+1200+360+60))
			// Observed is the incidents' whole extent, the backend's part too.
			eq(t, "observed", n.Uptime.ObservedOutageSeconds, int64(4140+2940+3660))
		},
		"cn-slow-drain": func(t *testing.T, r *Report) {
			n := node(t, r, "gz-09")
			eq(t, "outages", outageRows(n),
				"backend_outage:09T02:00-09T03:00:false:0 no_connectivity_evidence:09T03:00-09T03:06:true:360")
			// It ends at 03:06, the first heartbeat heard in time (1 s). Those
			// of 03:04 and 03:05 came in the batch of 03:06:01, 2m01s and
			// 61 s late, more than the 15 s a batch of one heartbeat may wait
			// (incident.SilenceAllowance): made while the node was still cut
			// off from the backend, whatever the alerting grace (which once
			// ended the outage at 03:04).
			eq(t, "claimable", n.Uptime.ClaimableOutageSeconds, int64(360))
		},
		"us-released-mid-month": func(t *testing.T, r *Report) {
			eq(t, "nodes", len(r.Nodes), 1)
			n := node(t, r, "va-02")
			eq(t, "period end", n.Period.End, "2026-03-10T12:00:00-04:00")
			eq(t, "outages", len(n.Outages), 0)
			eq(t, "billed", n.Billing.BilledSeconds, n.Period.Seconds)
			eq(t, "charge", n.Billing.Charge, 3.20*2*float64(n.Period.Seconds)/3600)
		},
		"cn-per-check-incidents": func(t *testing.T, r *Report) {
			n := node(t, r, "gz-07")
			eq(t, "outages", len(n.Outages), 2)
			o := n.Outages[0]
			eq(t, "burn kind", o.Kind, "gpu_degraded")
			eq(t, "burn check", o.Check, "gpu.burn.fp32.errors/gpu0")
			eq(t, "burn start", o.Start, "2026-03-15T03:00:30+08:00")
			eq(t, "burn end", o.End, "2026-03-16T03:00:30+08:00")
			o = n.Outages[1]
			eq(t, "bw kind", o.Kind, "performance_below_spec")
			eq(t, "bw check", o.Check, "gpu.bw.h2d/gpu1")
			eq(t, "bw start", o.Start, "2026-03-15T03:00:32+08:00")
			eq(t, "bw end", o.End, "2026-03-18T03:00:32+08:00")
		},
		"cn-late-delivery-capped": func(t *testing.T, r *Report) {
			n := node(t, r, "gz-06")
			eq(t, "delivery", n.Delivery.Status, "breached")
			eq(t, "delivery late", n.Delivery.LateSeconds, int64(45*60))
			eq(t, "period start", n.Period.Start, "2026-03-02T11:15:00+08:00")
			eq(t, "billed from order", n.Billing.From, "2026-03-02T10:00:00+08:00")
			eq(t, "tier", n.Credit.TierPercent, 50.0)
			eq(t, "uncapped", n.Credit.UncappedPercent, 55.0)
			eq(t, "capped", n.Credit.Capped, true)
			eq(t, "percent", n.Credit.Percent, 50.0)
			eq(t, "amount", n.Credit.Amount, n.Billing.Charge/2)
		},
	}
	var out []scenario
	for _, s := range reporttest.Scenarios() {
		out = append(out, scenario{name: s.Name, month: s.Month, asOf: s.AsOf, check: checks[s.Name],
			build: func(l *log) { l.Events = append(l.Events, s.Events()...) }})
	}
	return out
}

// outageRows is a node's outage rows, one "cause:start-end:counted:counted
// seconds" each (day and time of the start and end).
func outageRows(n *Node) string {
	var rows []string
	for _, o := range n.Outages {
		rows = append(rows, fmt.Sprintf("%s:%s-%s:%v:%d", o.Cause, o.Start[8:16], o.End[8:16], o.Counted, o.CountedSeconds))
	}
	return strings.Join(rows, " ")
}

// buildFrom builds the report of opts from evs under tm.
func buildFrom(t *testing.T, tm []*terms.Terms, opts Options, evs []events.Event) *Report {
	t.Helper()
	b, err := NewBuilder(tm, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if err := b.Add(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	sameByParts(t, tm, opts, evs, r)
	sameByJudged(t, tm, opts, evs, r)
	return r
}
