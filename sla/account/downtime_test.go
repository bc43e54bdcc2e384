package account

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/terms"
)

const creditTerms = `contract: x
provider: P
currency: USD
timezone: UTC
business_hours:
  monday: "09:00-17:00"
uptime:
  target: 99.5
  unavailable: [unreachable, gpu_lost]
  credit_cap: 50
claim:
  within_days: 10
billing:
  price_per_gpu_hour: 2
credits:
  clock: %s
  month_cap: 10h
  downtime:
    - {kinds: [unreachable], multiple: 10, round_up_to: 1h, incident_cap: 4h}
    - {kinds: [gpu_lost], multiple: 5, per: gpu}
`

func parseCredits(t *testing.T, clock string) *terms.Terms {
	t.Helper()
	ts, err := terms.Parse("c.yaml", []byte(fmt.Sprintf(creditTerms, clock)))
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

func at(day, h, m int) time.Time { return time.Date(2026, 3, day, h, m, 0, 0, time.UTC) }

func span(a, b time.Time) interval.Interval { return interval.Interval{Start: a, End: b} }

// Worked by hand: an 8-GPU node at 2/GPU-hour (16/h).
//   - unreachable 2 Mar 10:00–10:20 (20 m): rounded up to 1 h → 10 × 16 × 1 = 160
//   - unreachable 5 Mar 00:00–06:30: 6.5 h rounded to 7 h, capped at 4 h → 10 × 16 × 4 = 640
//   - gpu_lost on GPU 3 (12:00–14:00) and GPU 5 (13:00–14:00), 9 Mar: one incident of 2 h affecting 2 GPUs, per GPU → 5 × (2 × 2) × 2 = 40
//   - unreachable 20 Mar 08:00–11:30: 3.5 h rounded to 4 h, but the month cap (10 h) has
//     1 + 4 + 2 = 7 h spent, 3 h left → 10 × 16 × 3 = 480
//   - unreachable 25 Mar 08:00–08:30: nothing left of the month cap → 0
func TestDowntimeCreditsWorked(t *testing.T) {
	tm := parseCredits(t, "failure")
	period := span(mStart, mEnd)
	outs := []Outage{
		{Kind: incident.Unreachable, Cause: incident.CauseNoData, Span: span(at(2, 10, 0), at(2, 10, 20))},
		{Kind: incident.Unreachable, Cause: incident.CauseNoData, Span: span(at(5, 0, 0), at(5, 6, 30))},
		{Kind: incident.GPULost, Cause: incident.CauseCheck, Check: "gpu.present/gpu3", Span: span(at(9, 12, 0), at(9, 14, 0))},
		{Kind: incident.GPULost, Cause: incident.CauseCheck, Check: "gpu.present/gpu5", Span: span(at(9, 13, 0), at(9, 14, 0))},
		{Kind: incident.Unreachable, Cause: incident.CauseNetwork, Span: span(at(20, 8, 0), at(20, 11, 30))},
		{Kind: incident.Unreachable, Cause: incident.CauseNoData, Span: span(at(25, 8, 0), at(25, 8, 30))},
		// Not the provider's fault: earns nothing.
		{Kind: incident.Unreachable, Cause: incident.CauseBackendOutage, Span: span(at(27, 8, 0), at(27, 9, 0))},
	}
	books := Compute(tm, period, outs, nil)
	cs := DowntimeCredits(tm, books, outs, 8, 2, 0)
	want := []float64{160, 640, 40, 480, 0}
	if len(cs) != len(want) {
		t.Fatalf("%d credits, want %d: %+v", len(cs), len(want), cs)
	}
	for i, c := range cs {
		if c.Amount != want[i] {
			t.Errorf("credit %d (%s): %.2f, want %.2f (%+v)", i, c.Span.Start, c.Amount, want[i], c)
		}
	}
	if !cs[3].MonthCapped || !cs[4].MonthCapped || cs[2].GPUs != 2 || cs[0].GPUs != 8 {
		t.Errorf("flags: %+v", cs)
	}
	total := DowntimeTotal(cs)
	if total != 1320 {
		t.Fatalf("total %.2f", total)
	}
	// The month's charge: 744 h × 16 = 11904; 50 % cap = 5952 > 1320, so
	// the credit is the downtime amount, 1320 / 11904 = 11.0887 %.
	cr := CreditFor(tm, books.UptimeClaimed, 11904, nil, total)
	if cr.Amount != 1320 || cr.Capped {
		t.Fatalf("credit %+v", cr)
	}
	// A small charge is capped at half of it.
	cr = CreditFor(tm, books.UptimeClaimed, 1000, nil, total)
	if cr.Amount != 500 || !cr.Capped || cr.Percent != 50 {
		t.Fatalf("capped credit %+v", cr)
	}
}

// Overlapping outages of covered kinds are one incident, rounded once.
func TestDowntimeOverlapIsOneIncident(t *testing.T) {
	tm := parseCredits(t, "failure")
	tm.Credits.Rules[0].Kinds = []incident.Kind{incident.Unreachable, incident.GPULost}
	tm.Credits.Rules = tm.Credits.Rules[:1]
	outs := []Outage{
		{Kind: incident.Unreachable, Cause: incident.CauseNoData, Span: span(at(2, 10, 0), at(2, 10, 40))},
		{Kind: incident.GPULost, Cause: incident.CauseCheck, Span: span(at(2, 10, 30), at(2, 11, 10))},
	}
	books := Compute(tm, span(mStart, mEnd), outs, nil)
	cs := DowntimeCredits(tm, books, outs, 8, 2, 0)
	if len(cs) != 1 || cs[0].Downtime != 70*time.Minute || cs[0].Credited != 2*time.Hour || cs[0].Amount != 320 {
		t.Fatalf("%+v", cs)
	}
}

// Under the notice clock an outage counts from the first ticket opened
// inside it; without one it counts nothing.
func TestNoticeClock(t *testing.T) {
	tm := parseCredits(t, "notice")
	outs := []Outage{
		{Kind: incident.Unreachable, Cause: incident.CauseNoData, Span: span(at(2, 10, 0), at(2, 14, 0))},
		{Kind: incident.Unreachable, Cause: incident.CauseNoData, Span: span(at(4, 10, 0), at(4, 14, 0))},
	}
	notices := []time.Time{at(1, 9, 0), at(2, 12, 30), at(2, 13, 0), at(4, 14, 0)}
	clocked := NoticeClock(tm, outs, notices)
	if !clocked[0].Span.Start.Equal(at(2, 12, 30)) || clocked[1].Cause != CauseNoNotice {
		t.Fatalf("%+v", clocked)
	}
	if ok, why := Counted(tm, clocked[1]); ok || why.IsZero() {
		t.Fatal("an outage nobody reported counted")
	}
	books := Compute(tm, span(mStart, mEnd), clocked, nil)
	if books.Claimable.Total() != 90*time.Minute {
		t.Fatalf("claimable %s", books.Claimable.Total())
	}
	cs := DowntimeCredits(tm, books, clocked, 8, 2, 0)
	if len(cs) != 1 || cs[0].Credited != 2*time.Hour {
		t.Fatalf("%+v", cs)
	}
	// The failure clock leaves outages alone.
	if got := NoticeClock(parseCredits(t, "failure"), outs, nil); got[1].Cause != incident.CauseNoData {
		t.Fatal("failure clock changed an outage")
	}
}
