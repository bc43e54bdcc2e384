package account

import (
	"math/rand"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/terms"
)

func testTerms(t *testing.T) *terms.Terms {
	ts, err := terms.ReadFile("../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

var (
	mStart = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	mEnd   = time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
)

var causes = []string{incident.CauseNoData, incident.CauseNetwork, incident.CauseBackendOnly, incident.CauseBackendOutage, incident.CauseCheck, incident.CauseNoConnectivityEvidence}

func randOutage(r *rand.Rand) Outage {
	start := mStart.Add(time.Duration(r.Int63n(int64(35*24*time.Hour))) - 2*24*time.Hour)
	return Outage{Kind: incident.Kinds[r.Intn(len(incident.Kinds))], Cause: causes[r.Intn(len(causes))],
		Span: interval.Interval{Start: start, End: start.Add(time.Duration(r.Int63n(int64(30 * time.Hour))))}}
}

func randMaint(r *rand.Rand) Maintenance {
	start := mStart.Add(time.Duration(r.Int63n(int64(31 * 24 * time.Hour))))
	return Maintenance{Span: interval.Interval{Start: start, End: start.Add(time.Duration(r.Int63n(int64(6*time.Hour))) + time.Minute)},
		AnnouncedAt: start.Add(-time.Duration(r.Int63n(int64(150 * time.Hour))))}
}

// Properties over random months: uptime stays within [0, 100]; claimable
// outage never exceeds observed; adding an outage never raises uptime.
func TestBooksProperties(t *testing.T) {
	tm := testTerms(t)
	r := rand.New(rand.NewSource(20260301))
	period := interval.Interval{Start: mStart, End: mEnd}
	for i := 0; i < 3000; i++ {
		var outs []Outage
		for j := 0; j < r.Intn(12); j++ {
			outs = append(outs, randOutage(r))
		}
		var maint []Maintenance
		for j := 0; j < r.Intn(3); j++ {
			maint = append(maint, randMaint(r))
		}
		if r.Intn(4) == 0 {
			tm.Uptime.DowntimePeriod.Minimum = time.Duration(r.Intn(120)) * time.Minute
		} else {
			tm.Uptime.DowntimePeriod.Minimum = time.Minute
		}
		b := Compute(tm, period, outs, maint)
		for _, u := range []float64{b.UptimeObserved, b.UptimeClaimed} {
			if u < 0 || u > 100 {
				t.Fatalf("uptime %v out of range", u)
			}
		}
		if b.Claimable.Total() > b.Observed.Total() || b.UptimeClaimed < b.UptimeObserved {
			t.Fatalf("claimable %v > observed %v", b.Claimable.Total(), b.Observed.Total())
		}
		if len(b.Claimable.Minus(b.Observed)) != 0 {
			t.Fatalf("claimable %v not inside observed %v", b.Claimable, b.Observed)
		}
		more := append(append([]Outage{}, outs...), randOutage(r))
		b2 := Compute(tm, period, more, maint)
		if b2.UptimeClaimed > b.UptimeClaimed || b2.UptimeObserved > b.UptimeObserved {
			t.Fatalf("adding an outage raised uptime: %v → %v (claimable), %v → %v (observed)",
				b.UptimeClaimed, b2.UptimeClaimed, b.UptimeObserved, b2.UptimeObserved)
		}
	}
}

func TestUptimeAndCredit(t *testing.T) {
	tm := testTerms(t)
	month := 31 * 24 * time.Hour
	if u := Uptime(month, 0, 0); u != 100 {
		t.Fatal(u)
	}
	if u := Uptime(month, month, 0); u != 100 {
		t.Fatalf("all excluded: %v", u)
	}
	if u := Uptime(month, 0, 2*month); u != 0 {
		t.Fatalf("over-long outage: %v", u)
	}
	cases := []struct {
		uptime, want float64
	}{{99.95, 0}, {99.9, 0}, {99.89, 10}, {99.0, 10}, {98.99, 25}, {95, 25}, {94.9, 50}, {0, 50}}
	for _, c := range cases {
		if got := CreditFor(tm, c.uptime, 1000, nil, 0); got.Percent != c.want {
			t.Errorf("uptime %v: credit %v, want %v", c.uptime, got.Percent, c.want)
		}
	}
	// The cap holds penalties too.
	c := CreditFor(tm, 90, 1000, []Penalty{{Kind: "late_response", Percent: 5}}, 0)
	if !c.Capped || c.Percent != 50 || c.Uncapped != 55 || c.Amount != 500 {
		t.Fatalf("capped credit %+v", c)
	}
}

func TestChargeRoundsUp(t *testing.T) {
	tm := testTerms(t) // hourly granularity
	from := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	billed, amount := Charge(tm, 18.5, 8, from, from.Add(90*time.Minute+time.Second), nil)
	if billed != 2*time.Hour || amount != 296 {
		t.Fatalf("billed %v amount %v", billed, amount)
	}
	if b, a := Charge(tm, 18.5, 8, from, from, nil); b != 0 || a != 0 {
		t.Fatal("empty period billed")
	}
}

func TestMinimumRunUnionAndExclusion(t *testing.T) {
	tm := testTerms(t) // minimum outage 1m, notice 72h
	at := func(min, sec int) time.Time {
		return mStart.Add(time.Duration(min)*time.Minute + time.Duration(sec)*time.Second)
	}
	out := func(a, b time.Time, kind incident.Kind, cause string) Outage {
		return Outage{Kind: kind, Cause: cause, Span: interval.Interval{Start: a, End: b}}
	}
	period := interval.Interval{Start: mStart, End: mEnd}
	cases := []struct {
		name    string
		outs    []Outage
		maint   []Maintenance
		claim   time.Duration
		observe time.Duration
	}{
		{"50 s is below the minimum", []Outage{out(at(10, 0), at(10, 50), incident.Unreachable, incident.CauseNoData)}, nil, 0, 0},
		{"two 40 s pieces of different kinds make one 80 s run",
			[]Outage{out(at(10, 0), at(10, 40), incident.Unreachable, incident.CauseNoData), out(at(10, 40), at(11, 20), incident.GPULost, incident.CauseCheck)},
			nil, 80 * time.Second, 80 * time.Second},
		{"backend-only is observed, not claimable", []Outage{out(at(10, 0), at(20, 0), incident.Unreachable, incident.CauseBackendOnly)}, nil, 0, 10 * time.Minute},
		{"degraded does not count under this contract", []Outage{out(at(10, 0), at(20, 0), incident.GPUDegraded, incident.CauseCheck)}, nil, 0, 0},
		{"announced maintenance cuts the run below the minimum",
			[]Outage{out(at(10, 0), at(20, 0), incident.Unreachable, incident.CauseNoData)},
			[]Maintenance{{Span: interval.Interval{Start: at(9, 0), End: at(19, 30)}, AnnouncedAt: at(0, 0).Add(-80 * time.Hour)}}, 0, 0},
		{"late notice excludes nothing",
			[]Outage{out(at(10, 0), at(20, 0), incident.Unreachable, incident.CauseNoData)},
			[]Maintenance{{Span: interval.Interval{Start: at(9, 0), End: at(19, 30)}, AnnouncedAt: at(0, 0)}}, 10 * time.Minute, 10 * time.Minute},
		{"clipped to the period", []Outage{out(mStart.Add(-time.Hour), at(5, 0), incident.Unreachable, incident.CauseNoData)}, nil, 5 * time.Minute, 5 * time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := Compute(tm, period, c.outs, c.maint)
			if b.Claimable.Total() != c.claim || b.Observed.Total() != c.observe {
				t.Fatalf("claimable %v observed %v, want %v %v", b.Claimable.Total(), b.Observed.Total(), c.claim, c.observe)
			}
		})
	}
}

// A notice takes out only what it was on the books for:
// nothing before its recording, nothing of an outage under way when it was
// recorded; an override or an unknown recording time takes the window as
// announced.
func TestMaintenanceEffect(t *testing.T) {
	h := func(n float64) time.Time { return mStart.Add(time.Duration(n * float64(time.Hour))) }
	span := interval.Interval{Start: h(10), End: h(14)}
	under := Outage{Kind: incident.Unreachable, Cause: incident.CauseNoData, Span: interval.Interval{Start: h(9), End: h(11)}}
	later := Outage{Kind: incident.Unreachable, Cause: incident.CauseNoData, Span: interval.Interval{Start: h(12.5), End: h(13)}}
	outs := []Outage{under, later}
	for _, c := range []struct {
		name     string
		rec      time.Time
		override string
		want     interval.Set
		late     bool
	}{
		{"unknown recording: as announced", time.Time{}, "", interval.Set{span}, false},
		{"recorded before the outage began", h(8), "", interval.Set{span}, false},
		// Recorded at 9:30, before the window but with the 9–11 outage
		// under way: the window less that outage, 11–14.
		{"recorded with an outage under way", h(9.5), "", interval.Set{{Start: h(11), End: h(14)}}, true},
		// Recorded at 12: from 12 on; the 12:30 outage began after it.
		{"recorded inside the window", h(12), "", interval.Set{{Start: h(12), End: h(14)}}, true},
		{"recorded after the window", h(15), "", nil, true},
		{"override", h(15), "the provider's notice reached us late", interval.Set{span}, true},
	} {
		m := Maintenance{Span: span, AnnouncedAt: h(-100), RecordedAt: c.rec, Override: c.override}
		got := m.Effect(outs)
		if len(got) != len(c.want) || (len(got) == 1 && (!got[0].Start.Equal(c.want[0].Start) || !got[0].End.Equal(c.want[0].End))) {
			t.Errorf("%s: effect %v, want %v", c.name, got, c.want)
		}
		if m.Late(outs) != c.late {
			t.Errorf("%s: late %v, want %v", c.name, m.Late(outs), c.late)
		}
	}
}

// TestMoneyHalfCent: an amount of exactly half a cent, as the decimal figure
// reads, rounds up (away from zero) whatever float holds it: 2,507.075 (the
// float a hair under) is 2,507.08, 1.005 is 1.01, 1,812.335 is 1,812.34;
// a hair under half rounds down.
func TestMoneyHalfCent(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{35394 * 4.25 / 60, 2507.08}, {1.005, 1.01}, {-1.005, -1.01}, {2.675, 2.68}, {1864116 * 3.5 / 3600, 1812.34},
		{2507.07499, 2507.07}, {0.004999, 0}, {0.005, 0.01}, {29760, 29760}, {2083.2, 2083.2}, {0, 0},
	} {
		if got := Money(c.in); got != c.want {
			t.Errorf("Money(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
