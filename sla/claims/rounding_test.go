package claims

import (
	"strings"
	"testing"
)

// jdMarch is JD Cloud's March (testdata/terms/packs/jdcloud-vm.md): two
// coupons, 5 min 1,333.333… and 7 min 1,866.666…, each truncated to the
// fen: a claim of 3,199.99 in two credit lines.
func jdMarch(t *testing.T, amount string, lines int) Claim {
	t.Helper()
	c, err := New(Draft{Contract: "aws-ec2-instance", Provider: "JD Cloud", Month: "2026-03", Amount: cents(amount),
		Currency: "USD", Deadline: at("2026-05-01T00:00:00Z"), TimeZone: "UTC", Lang: "en", Nodes: []string{"jd-gpu-01"}, Lines: lines,
		Seal:     Seal{ObservationsSHA256: "9f2c", ChainHead: "a1b2", Batches: 12},
		MonthEnd: at("2026-04-01T00:00:00Z"), AsOf: at("2026-04-01T06:00:00Z"),
		Record: Record{RecordedAt: at("2026-04-01T06:00:05Z"), RecordedBy: "report-job"}})
	if err != nil {
		t.Fatal(err)
	}
	return answer(t, send(t, c, "2026-04-03T10:00:00Z", "case-170001"), "2026-04-20T08:00:00Z", Accepted, "")
}

// A provider that rounds each credit line to the nearest cent pays up to
// a cent a line more than the claim (1,333.33 + 1,866.67 = 3,200.00 on a
// claim of 3,199.99); one that truncates pays the claim; one that
// truncates a claim drafted to the nearest cent pays up to a cent a line
// less. Each is matched by amount and read as paid in full: credited,
// nothing outstanding, no excess, the difference shown as rounding. A
// cent beyond the allowance either way is a short or an excess payment.
func TestRoundingIsPaidInFull(t *testing.T) {
	cases := []struct {
		why, claim   string
		lines        int
		paid         string
		outstanding  string
		excess       string
		rounding     Cents
		matchedByAmt bool
	}{
		{"provider truncates: the claim exactly", "3199.99", 2, "3199.99", "0", "0", 0, true},
		{"provider rounds each line to the nearest: a cent more", "3199.99", 2, "3200.00", "0", "0", 1, true},
		{"JD's three 5-min coupons rounded to the nearest: 3 × 166.67", "499.98", 3, "500.01", "0", "0", 3, true},
		{"a cent beyond three lines: over-paid", "499.98", 3, "500.02", "0", "0.04", 0, false},
		{"a claim to the nearest cent, the provider truncates", "3200.00", 0, "3199.99", "0", "0", -1, true},
		{"two cents short of a one-line claim: short-paid", "1306.37", 1, "1306.35", "0.02", "0", 0, false},
		{"one line, a cent more", "1306.37", 1, "1306.38", "0", "0", 1, true},
		{"one line, a cent short: paid in full", "1306.37", 1, "1306.36", "0", "0", -1, true},
		{"three lines, three cents short: paid in full", "499.98", 3, "499.95", "0", "0", -3, true},
		{"three lines, four cents short: short-paid", "499.98", 3, "499.94", "0.04", "0", 0, false},
		{"two lines, two cents more: paid in full", "3199.99", 2, "3200.01", "0", "0", 2, true},
	}
	for _, c := range cases {
		cl := jdMarch(t, c.claim, c.lines)
		b := credit("2026-05", c.paid, "")
		got, by, why := Match(b, []Claim{cl})
		if (got != nil) != c.matchedByAmt || (got != nil && by != ByAmountPeriod) {
			t.Errorf("%s: matched %v by %q (%s), want matched %v", c.why, got != nil, by, why, c.matchedByAmt)
		}
		cl, _ = apply(t, cl, credit("2026-05", c.paid, "case-170001"))
		// Due on a bill before 1 June (AWS's one billing cycle after
		// April): paid in full is never overdue; two cents short is.
		st := cl.StatusAt(awsDeadlines, at("2026-06-01T00:00:00Z"))
		if st.CreditOverdue != (c.outstanding != "0") {
			t.Errorf("%s: credit overdue %v", c.why, st.CreditOverdue)
		}
		want := StateCredited
		if c.outstanding != "0" {
			want = StatePartCredited
		}
		if st.State != want || st.Outstanding != cents(c.outstanding) || st.Excess != cents(c.excess) || st.Rounding != c.rounding {
			t.Errorf("%s: %+v, want %s, outstanding %s, excess %s, rounding %d", c.why, st, want, c.outstanding, c.excess, c.rounding)
		}
		r := Recover([]Claim{cl}, nil, at("2026-07-01T00:00:00Z")).Rows[0]
		if r.Outstanding != cents(c.outstanding) || r.Excess != cents(c.excess) {
			t.Errorf("%s: recovery %+v", c.why, r)
		}
	}
}

// A credit applied before the answer may be a rounding above the grant:
// the answer that accepts the claim is still recorded. A payment fully
// made within the allowance takes no second credit by amount.
func TestRoundingBeforeTheAnswer(t *testing.T) {
	d := Draft{Contract: "aws-ec2-instance", Provider: "JD Cloud", Month: "2026-03", Amount: cents("3199.99"),
		Currency: "USD", Deadline: at("2026-05-01T00:00:00Z"), TimeZone: "UTC", Lang: "en", Lines: 2,
		Seal:     Seal{ObservationsSHA256: "9f2c", ChainHead: "a1b2", Batches: 12},
		MonthEnd: at("2026-04-01T00:00:00Z"), AsOf: at("2026-04-01T06:00:00Z"),
		Record: Record{RecordedAt: at("2026-04-01T06:00:05Z"), RecordedBy: "report-job"}}
	c := send(t, mustNew(t, d), "2026-04-03T10:00:00Z", "case-170001")
	c, _ = apply(t, c, credit("2026-05", "3200.00", "case-170001"))
	c = answer(t, c, "2026-05-20T08:00:00Z", Accepted, "")
	if st := c.StatusAt(Deadlines{}, at("2026-06-01T00:00:00Z")); st.State != StateCredited || st.Outstanding != 0 || st.Excess != 0 || st.Rounding != 1 {
		t.Fatalf("%+v", st)
	}
	if got, _, why := Match(credit("2026-06", "0.01", ""), []Claim{c}); got != nil {
		t.Fatalf("a cent matched to a claim paid in full: %s", why)
	}
	// The provider's grant of its own rounding (3,200.00 on 3,199.99 in
	// two lines) accepts the claim; three cents off does not.
	grant := func(g string) (Claim, error) {
		c := send(t, mustNew(t, d), "2026-04-03T10:00:00Z", "case-170001")
		c, _, err := c.Answered(AnswerIn{Answer: Answer{At: at("2026-04-20T08:00:00Z"), Outcome: Accepted, Granted: cents(g)}, HasGranted: true}, at("2026-04-20T08:00:00Z"))
		return c, err
	}
	if c, err := grant("3200.00"); err != nil || c.Answer.Granted != cents("3199.99") {
		t.Fatalf("accepted, granted 3200.00: %v %+v", err, c.Answer)
	}
	if _, err := grant("3199.96"); err == nil || !strings.Contains(err.Error(), "more than rounding (0.02)") {
		t.Fatalf("accepted, granted 3199.96: %v", err)
	}
	for _, lines := range []int{-1, 3} {
		d.Amount, d.Lines = 2, lines
		if _, err := New(d); err == nil || !strings.Contains(err.Error(), "lines") {
			t.Errorf("%d lines in 0.02: %v", lines, err)
		}
	}
}

func mustNew(t *testing.T, d Draft) Claim {
	t.Helper()
	c, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
