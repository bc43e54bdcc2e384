package account

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/incident"
)

// A credit line is truncated to the cent, both sides of the half: the
// third decimal below, at and above 5 all keep the cent below; a whole
// cent that floating point blurs stays that cent.
func TestMoneyDown(t *testing.T) {
	cases := []struct{ in, want float64 }{
		{1306.374, 1306.37},
		{1306.375, 1306.37}, // 10 % of 13,063.75: half a fen is not asked for
		{1306.376, 1306.37},
		{1306.38, 1306.38},
		{166.66666666666666, 166.66}, // 100 × 20.00 / 60 × 5
		{13063.75 * 10 / 100, 1306.37},
		{0.1 + 0.2, 0.3},          // 0.30000000000000004
		{499.99999999999994, 500}, // a product just under a whole cent
		{3 * 166.66, 499.98},
		{0.009, 0},
		{0, 0},
		{115466.66666666667, 115466.66},
	}
	for _, c := range cases {
		if got := MoneyDown(c.in); got != c.want {
			t.Errorf("MoneyDown(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// The month's percent of the charge is one credit line, truncated once;
// the downtime credits are lines of their own, already truncated; the
// cap is truncated too, so a capped credit never asks for a part of a cent.
func TestCreditForTruncatesEachLine(t *testing.T) {
	tm := testTerms(t) // 10 % below 99.9, 25 % below 99, 50 % below 95; cap 50 %
	cases := []struct {
		name           string
		uptime, charge float64
		penalties      []Penalty
		downtime       float64
		amount         float64
		capped         bool
	}{
		{name: "third decimal 4", uptime: 99.5, charge: 13063.74, amount: 1306.37},
		{name: "third decimal 5", uptime: 99.5, charge: 13063.75, amount: 1306.37},
		{name: "third decimal 6", uptime: 99.5, charge: 13063.76, amount: 1306.37},
		{name: "whole fen", uptime: 99.5, charge: 13063.80, amount: 1306.38},
		{name: "25 % of 0.02", uptime: 98, charge: 0.02, amount: 0},
		{name: "percent and a downtime line", uptime: 99.5, charge: 13063.75, downtime: 0.01, amount: 1306.38},
		{name: "penalty in the same line", uptime: 99.5, charge: 13063.75, penalties: []Penalty{{Kind: "late_response", Percent: 5}}, amount: 1959.56}, // 15 % = 1,959.5625
		{name: "50 % of 1,000.01", uptime: 90, charge: 1000.01, amount: 500},                                                                           // 500.005: at the cap, not over it
		{name: "over the cap", uptime: 90, charge: 1000.01, penalties: []Penalty{{Kind: "late_response", Percent: 5}}, amount: 500, capped: true},
		{name: "downtime over the cap", uptime: 100, charge: 1000.01, downtime: 600, amount: 500, capped: true},
	}
	for _, c := range cases {
		cr := CreditFor(tm, c.uptime, c.charge, c.penalties, c.downtime)
		if cr.Amount != c.amount || cr.Capped != c.capped {
			t.Errorf("%s: amount %v capped %v, want %v %v (%+v)", c.name, cr.Amount, cr.Capped, c.amount, c.capped, cr)
		}
	}
}

// A downtime credit is a line of its own, truncated when it is priced:
// three incidents of 20 min at 0.50 an hour × 10 are 3 × 1.66 = 4.98, not
// 5.00 (one incident of an hour), nor 3 × 1.67 = 5.01.
func TestDowntimeCreditTruncatedPerIncident(t *testing.T) {
	tm := parseCredits(t, "failure")
	tm.Credits.Rules = tm.Credits.Rules[:1]
	tm.Credits.Rules[0].RoundUp = 0
	tm.Credits.Rules[0].IncidentCap.Hours = 0
	tm.Credits.MonthCap.Hours = 0
	outs := []Outage{
		{Kind: incident.Unreachable, Cause: incident.CauseNoData, Span: span(at(2, 10, 0), at(2, 10, 20))},
		{Kind: incident.Unreachable, Cause: incident.CauseNoData, Span: span(at(3, 10, 0), at(3, 10, 20))},
		{Kind: incident.Unreachable, Cause: incident.CauseNoData, Span: span(at(4, 10, 0), at(4, 10, 20))},
	}
	books := Compute(tm, span(mStart, mEnd), outs, nil)
	cs := DowntimeCredits(tm, books, outs, 1, 0.5, 0) // 0.50 an hour × 10 × 1/3 h = 1.6666…
	if len(cs) != 3 {
		t.Fatalf("%d credits: %+v", len(cs), cs)
	}
	for i, c := range cs {
		if c.Downtime != 20*time.Minute || c.Amount != 1.66 {
			t.Errorf("credit %d: %v, %.4f, want 20m, 1.66 (%+v)", i, c.Downtime, c.Amount, c)
		}
	}
	if total := DowntimeTotal(cs); total != 4.98 {
		t.Errorf("total %.2f, want 4.98 (3 × 1.66)", total)
	}
}

// A minimum credit ("issued only if the credit amount … is greater than one
// dollar") is held to the truncated amount: 10 % of 10.05 is 1.005, claimed
// as 1.00, which is not greater than 1.00; 10 % of 10.10 is 1.01.
func TestMinimumCreditAfterTruncation(t *testing.T) {
	tm := testTerms(t)
	tm.Uptime.MinimumCredit = 1
	for _, c := range []struct {
		charge, amount, waived float64
	}{{10.05, 0, 1}, {10.09, 0, 1}, {10.10, 1.01, 0}} {
		cr := CreditFor(tm, 99.5, c.charge, nil, 0)
		if cr.Amount != c.amount || cr.Waived != c.waived || cr.BelowMinimum != (c.waived > 0) {
			t.Errorf("10 %% of %v: amount %v waived %v, want %v %v", c.charge, cr.Amount, cr.Waived, c.amount, c.waived)
		}
	}
}

// Cut says whether truncating to the cent dropped anything, on both sides
// of a whole cent: a part of a cent below, at and above the half is cut; a
// whole cent, one floating point leaves just under it, and 0 are not.
func TestCut(t *testing.T) {
	for _, c := range []struct {
		in  float64
		cut bool
	}{{1306.374, true}, {1306.375, true}, {1306.376, true}, {1306.38, false}, {0.1 + 0.2, false},
		{499.99999999999994, false}, {0.009, true}, {0.000001, true}, {0.0000001, false}, {0, false}, {166.66666666666666, true}} {
		if got := Cut(c.in); got != c.cut {
			t.Errorf("Cut(%v) = %v, want %v", c.in, got, c.cut)
		}
	}
}

// A credit says when its percent line (or, capped, the cap) lost a part of
// a cent, and each downtime credit when its amount did, so a letter can say
// so where it did and stay silent where it did not.
func TestCreditSaysWhenALineWasCut(t *testing.T) {
	tm := testTerms(t) // 10 % below 99.9, 25 % below 99, 50 % below 95; cap 50 %
	for _, c := range []struct {
		name           string
		uptime, charge float64
		penalties      []Penalty
		cut            bool
	}{
		{name: "10 % of 13,063.75", uptime: 99.5, charge: 13063.75, cut: true},
		{name: "10 % of 13,063.80", uptime: 99.5, charge: 13063.80},
		{name: "capped at 50 % of 1,000.01", uptime: 90, charge: 1000.01, penalties: []Penalty{{Kind: "late_response", Percent: 5}}, cut: true},
		{name: "capped at 50 % of 1,000.00", uptime: 90, charge: 1000, penalties: []Penalty{{Kind: "late_response", Percent: 5.005}}},
		{name: "met", uptime: 100, charge: 1000.01},
	} {
		if cr := CreditFor(tm, c.uptime, c.charge, c.penalties, 0); cr.Truncated != c.cut {
			t.Errorf("%s: truncated %v, want %v (%+v)", c.name, cr.Truncated, c.cut, cr)
		}
	}

	tm = parseCredits(t, "failure")
	tm.Credits.Rules = tm.Credits.Rules[:1]
	tm.Credits.Rules[0].RoundUp = 0
	tm.Credits.Rules[0].IncidentCap.Hours = 0
	tm.Credits.MonthCap.Hours = 0
	outs := []Outage{
		{Kind: incident.Unreachable, Cause: incident.CauseNoData, Span: span(at(2, 10, 0), at(2, 10, 20))}, // 1/3 h: 1.666…
		{Kind: incident.Unreachable, Cause: incident.CauseNoData, Span: span(at(3, 10, 0), at(3, 11, 0))},  // 1 h: 5.00
	}
	cs := DowntimeCredits(tm, Compute(tm, span(mStart, mEnd), outs, nil), outs, 1, 0.5, 0)
	if len(cs) != 2 || !cs[0].Truncated || cs[1].Truncated {
		t.Errorf("downtime credits %+v: want the first truncated (1.666… → 1.66), the second not (5.00)", cs)
	}
}
