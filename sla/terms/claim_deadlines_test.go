package terms

import (
	"strings"
	"testing"
	"time"
)

func withDeadlines(lines string) string {
	return strings.Replace(minimal, "claim:\n  within_days: 30\n", "claim:\n  within_days: 30\n"+lines, 1)
}

func TestProviderDeadlinesParse(t *testing.T) {
	ts, err := Parse("d.yaml", []byte(withDeadlines("  answer_within: {days: 30}\n  credit_within: {billing_cycles: 1, from: answered}\n")))
	if err != nil {
		t.Fatal(err)
	}
	c := ts[0].Claim
	if c.AnswerWithin != (Within{Days: 30, From: WithinFromSent, Line: 14}) || c.CreditWithin != (Within{BillingCycles: 1, From: WithinFromAnswered, Line: 15}) {
		t.Fatalf("claim %+v", c)
	}
	if cl := ts[0].ClaimClause(c.CreditWithin); cl.String() != "d.yaml:15" {
		t.Fatalf("clause %q", cl)
	}
	none, err := Parse("n.yaml", []byte(minimal))
	if err != nil || none[0].Claim.AnswerWithin.Set() || none[0].Claim.CreditWithin.Set() {
		t.Fatalf("no deadlines given: %v %+v", err, none[0].Claim)
	}
}

func TestProviderDeadlineErrors(t *testing.T) {
	for _, tc := range []struct{ lines, want string }{
		{"  credit_within: {days: 60, billing_cycles: 1}\n", "d.yaml:14: claim.credit_within: give either days or billing_cycles, not both"},
		{"  credit_within: {from: sent}\n", "d.yaml:14: claim.credit_within.days: missing (or give billing_cycles)"},
		{"  credit_within: {days: 0}\n", "claim.credit_within.days"},
		{"  credit_within: {days: 400}\n", "d.yaml:14: claim.credit_within.days: 400 is longer than a year"},
		{"  credit_within: {billing_cycles: 13}\n", "claim.credit_within.billing_cycles: 13 is more than a year"},
		{"  credit_within: {days: 60, from: invoice}\n", `claim.credit_within.from: "invoice": want "sent" or "answered"`},
		{"  answer_within: {days: 10, from: answered}\n", `claim.answer_within.from: "answered": want "sent"`},
		{"  answer_within: {weeks: 2}\n", "claim.answer_within.weeks"},
	} {
		_, err := Parse("d.yaml", []byte(withDeadlines(tc.lines)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error containing %q", tc.lines, err, tc.want)
		}
	}
}

// TestWithinDueEdges holds each wording to its edges, worked by hand.
func TestWithinDueEdges(t *testing.T) {
	utc := time.UTC
	sh, _ := time.LoadLocation("Asia/Shanghai")
	ny, _ := time.LoadLocation("America/New_York")
	day := func(loc *time.Location, y int, m time.Month, d, h, min int) time.Time {
		return time.Date(y, m, d, h, min, 0, 0, loc)
	}
	for _, tc := range []struct {
		name string
		w    Within
		from time.Time
		loc  *time.Location
		want time.Time
	}{
		// "within one billing cycle following the month in which the
		// request occurred": a request in March is due by the end of April.
		{"cycle, mid-month", Within{BillingCycles: 1}, day(utc, 2026, 3, 15, 12, 0), utc, day(utc, 2026, 5, 1, 0, 0)},
		{"cycle, last minute of the month", Within{BillingCycles: 1}, day(utc, 2026, 3, 31, 23, 59), utc, day(utc, 2026, 5, 1, 0, 0)},
		{"cycle, first instant of the next", Within{BillingCycles: 1}, day(utc, 2026, 4, 1, 0, 0), utc, day(utc, 2026, 6, 1, 0, 0)},
		{"cycle, across the year", Within{BillingCycles: 1}, day(utc, 2026, 12, 3, 9, 0), utc, day(utc, 2027, 2, 1, 0, 0)},
		// The month is the contract zone's: 31 March 20:00 UTC is 1 April in Shanghai.
		{"cycle, the zone's month", Within{BillingCycles: 1}, day(utc, 2026, 3, 31, 20, 0), sh, day(sh, 2026, 6, 1, 0, 0)},
		{"two cycles", Within{BillingCycles: 2}, day(utc, 2026, 3, 15, 0, 0), utc, day(utc, 2026, 6, 1, 0, 0)},
		// "within 60 days after the request": 10 May → the 60th day after is 9 July, due before 10 July.
		{"60 days", Within{Days: 60}, day(utc, 2026, 5, 10, 14, 0), utc, day(utc, 2026, 7, 10, 0, 0)},
		{"60 days, just after midnight", Within{Days: 60}, day(utc, 2026, 5, 10, 0, 0), utc, day(utc, 2026, 7, 10, 0, 0)},
		{"60 days, just before midnight", Within{Days: 60}, day(utc, 2026, 5, 10, 23, 59), utc, day(utc, 2026, 7, 10, 0, 0)},
		// Calendar days across DST: 60 local days, not 60 × 24 h.
		{"60 days across DST", Within{Days: 60}, day(ny, 2026, 1, 20, 10, 0), ny, day(ny, 2026, 3, 22, 0, 0)},
		{"30 days across February", Within{Days: 30}, day(utc, 2026, 1, 31, 8, 0), utc, day(utc, 2026, 3, 3, 0, 0)},
	} {
		if got := tc.w.Due(tc.from, tc.loc); !got.Equal(tc.want) {
			t.Errorf("%s: Due(%s) = %s, want %s", tc.name, tc.from, got, tc.want)
		}
	}
	if !(Within{}).Due(day(utc, 2026, 1, 1, 0, 0), utc).IsZero() || !(Within{Days: 3}).Due(time.Time{}, utc).IsZero() {
		t.Fatal("no deadline: zero")
	}
}
