package claims

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/terms"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func cents(s string) Cents {
	c, err := ParseCents(s)
	if err != nil {
		panic(err)
	}
	return c
}

// The AWS pack's March 2026 (testdata/terms/packs/aws-ec2-instance.md):
// p5-01 at 99.2921 % earns 10 % of 23,616.00 USD, a claim of 2,361.60 due
// before 1 June 2026 (the end of the second billing cycle after March).
func awsMarch(t *testing.T) Claim {
	t.Helper()
	c, err := New(Draft{Contract: "aws-ec2-instance", Provider: "Amazon Web Services (EC2)", Month: "2026-03", Amount: cents("2361.60"),
		Currency: "USD", Deadline: at("2026-06-01T00:00:00Z"), TimeZone: "UTC", Lang: "en", Nodes: []string{"p5-01"},
		Seal:     Seal{ObservationsSHA256: "9f2c", ChainHead: "a1b2", Batches: 4210, RecordsSHA256: "77e0"},
		MonthEnd: at("2026-04-01T00:00:00Z"), AsOf: at("2026-04-01T06:00:00Z"),
		Record: Record{RecordedAt: at("2026-04-01T06:00:05Z"), RecordedBy: "report-job"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// AWS: "we will issue the Service Credits to you within one billing cycle
// following the month in which the request occurred".
var awsDeadlines = Deadlines{Credit: terms.Within{BillingCycles: 1, From: terms.WithinFromSent}}

// Google: "will be applied within 60 days after the request".
var gceDeadlines = Deadlines{Credit: terms.Within{Days: 60, From: terms.WithinFromSent}}

func send(t *testing.T, c Claim, when, ref string) Claim {
	t.Helper()
	c, changed, err := c.Send(Sent{At: at(when), Via: "support_case", Reference: ref, Record: Record{RecordedAt: at(when), RecordedBy: "cli:ana"}}, at(when))
	if err != nil || !changed {
		t.Fatalf("send: %v %v", changed, err)
	}
	return c
}

func answer(t *testing.T, c Claim, when, outcome, granted string) Claim {
	t.Helper()
	in := AnswerIn{Answer: Answer{At: at(when), Outcome: outcome, Reason: "confirmed", Reference: "case-170001",
		Record: Record{RecordedAt: at(when), RecordedBy: "cli:ana"}}}
	if granted != "" {
		in.Granted, in.HasGranted = cents(granted), true
	}
	c, changed, err := c.Answered(in, at(when))
	if err != nil || !changed {
		t.Fatalf("answer: %v %v", changed, err)
	}
	return c
}

func credit(period, amount, ref string, lines ...int) BillCredit {
	a := cents(amount)
	return BillCredit{Key: CreditKey(period, "USD", a, ref, "", lines), Bill: "cur-" + period + ".csv", Lines: lines, Period: period,
		Amount: a, Currency: "USD", Reference: ref, Contracts: []string{"aws-ec2-instance"}}
}

// apply matches b against the ledger and applies it to the claim found.
func apply(t *testing.T, c Claim, b BillCredit) (Claim, string) {
	t.Helper()
	got, by, why := Match(b, []Claim{c})
	if got == nil {
		return c, why
	}
	out, err := c.Apply(CreditIn{Credit: Credit{Key: b.Key, Period: b.Period, At: b.At, Amount: b.Amount, MatchedBy: by, Reference: b.Reference,
		Record: Record{RecordedAt: at("2026-06-03T09:00:00Z"), RecordedBy: "cli:ana"}}, Currency: b.Currency})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	return out, by
}

// TestPartialGrantCreditOnSecondBill: sent 3 April, granted half on 20
// April; the April bill carries nothing, the May bill the 1,180.80. Due
// one billing cycle after April, before 1 June: the May bill is in time.
func TestPartialGrantCreditOnSecondBill(t *testing.T) {
	c := send(t, awsMarch(t), "2026-04-03T10:00:00Z", "case-170001")
	c = answer(t, c, "2026-04-20T08:00:00Z", Partial, "1180.80")
	st := c.StatusAt(awsDeadlines, at("2026-04-20T09:00:00Z"))
	if st.State != StateGranted || st.Claimed != cents("2361.60") || *st.Granted != cents("1180.80") || st.Refused != cents("1180.80") ||
		st.Outstanding != cents("1180.80") || !st.CreditDue.Equal(at("2026-06-01T00:00:00Z")) || st.LastInTimePeriod != "2026-05" || st.CreditOverdue {
		t.Fatalf("after the answer: %+v", st)
	}
	// The April bill: an unrelated 12.00 promotional credit, which no
	// claim owes, is shown with why and applied to nothing.
	c, why := apply(t, c, credit("2026-04", "12.00", "", 41))
	if !strings.Contains(why, "no open claim of aws-ec2-instance has 12.00 USD outstanding") || len(c.Credits) != 0 {
		t.Fatalf("an unrelated credit: %q %+v", why, c.Credits)
	}
	// The May bill, by amount and period.
	c, by := apply(t, c, credit("2026-05", "1180.80", "", 17))
	st = c.StatusAt(awsDeadlines, at("2026-06-01T00:00:00Z"))
	if by != ByAmountPeriod || st.State != StateCredited || st.Received != cents("1180.80") || st.Outstanding != 0 || st.CreditOverdue ||
		len(st.LateCredits) != 0 || !c.Credits[0].At.Equal(at("2026-05-01T00:00:00Z")) {
		t.Fatalf("after the May bill (%s): %+v %+v", by, st, c.Credits)
	}
	// The same line imported again is the same key: applied once.
	if _, err := c.Apply(CreditIn{Credit: c.Credits[0], Currency: "USD"}); err == nil || !err.(*Error).Conflict ||
		!strings.Contains(err.Error(), "key: \"bill:2026-05:") || !strings.Contains(err.Error(), "is already applied to claim aws-ec2-instance/2026-03") {
		t.Fatalf("a duplicate credit: %v", err)
	}
}

// TestOneBillingCycleEdges: "within one billing cycle following the month
// in which the request occurred". Sent on 31 March 23:59 UTC: due before
// 1 May, so the April bill is in time and the May bill late; sent on
// 1 April 00:00: the May bill is in time.
func TestOneBillingCycleEdges(t *testing.T) {
	for _, tc := range []struct {
		sent, period string
		late         bool
		due          string
	}{
		{"2026-03-31T23:59:00Z", "2026-04", false, "2026-05-01T00:00:00Z"},
		{"2026-03-31T23:59:00Z", "2026-05", true, "2026-05-01T00:00:00Z"},
		{"2026-04-01T00:00:00Z", "2026-05", false, "2026-06-01T00:00:00Z"},
		{"2026-04-01T00:00:00Z", "2026-06", true, "2026-06-01T00:00:00Z"},
	} {
		c := answer(t, send(t, awsMarch(t), tc.sent, ""), "2026-04-10T00:00:00Z", Accepted, "")
		c, _ = apply(t, c, credit(tc.period, "2361.60", ""))
		st := c.StatusAt(awsDeadlines, at("2026-07-01T00:00:00Z"))
		if len(c.Credits) != 1 || (len(st.LateCredits) == 1) != tc.late || !st.CreditDue.Equal(at(tc.due)) || st.CreditOverdue {
			t.Errorf("sent %s, credited on the %s bill: %+v", tc.sent, tc.period, st)
		}
	}
	// Nothing credited: overdue from the deadline's first instant, not a
	// second before.
	c := answer(t, send(t, awsMarch(t), "2026-03-31T23:59:00Z", ""), "2026-04-10T00:00:00Z", Accepted, "")
	if c.StatusAt(awsDeadlines, at("2026-04-30T23:59:59Z")).CreditOverdue || !c.StatusAt(awsDeadlines, at("2026-05-01T00:00:00Z")).CreditOverdue {
		t.Fatal("overdue edge")
	}
}

// TestSixtyDaysEdges: "will be applied within 60 days after the request".
// Sent 10 May 14:00: the 60th day after is 9 July, due before 10 July.
func TestSixtyDaysEdges(t *testing.T) {
	c0, err := New(Draft{Contract: "gce-single-instance", Provider: "Google Cloud (Compute Engine)", Month: "2026-04", Amount: cents("2083.20"),
		Currency: "USD", Deadline: at("2026-06-30T00:00:00Z"), TimeZone: "UTC", Seal: Seal{ObservationsSHA256: "aa", ChainHead: "bb"},
		MonthEnd: at("2026-05-01T00:00:00Z"), AsOf: at("2026-05-01T06:00:00Z")})
	if err != nil {
		t.Fatal(err)
	}
	c0, _, _ = c0.Send(Sent{At: at("2026-05-10T14:00:00Z"), Via: "web_form"}, at("2026-05-10T14:00:00Z"))
	c0 = answer(t, c0, "2026-05-20T00:00:00Z", Accepted, "")
	for _, tc := range []struct {
		period, on string
		late       bool
	}{
		{"2026-07", "2026-07-09T23:59:59Z", false},
		{"2026-07", "2026-07-10T00:00:00Z", true},
		// No date on the line: the July bill's first instant, the earliest
		// it can have been applied: in time (the provider's benefit).
		{"2026-07", "", false},
		{"2026-08", "", true},
	} {
		b := BillCredit{Key: "k-" + tc.period + tc.on, Period: tc.period, Amount: cents("2083.20"), Currency: "USD", Contracts: []string{"gce-single-instance"}}
		if tc.on != "" {
			b.At = at(tc.on)
		}
		got, by, why := Match(b, []Claim{c0})
		if got == nil || by != ByAmountPeriod {
			t.Fatalf("%+v: unmatched: %s", tc, why)
		}
		c, err := c0.Apply(CreditIn{Credit: Credit{Key: b.Key, Period: b.Period, At: b.At, Amount: b.Amount, MatchedBy: by}, Currency: "USD"})
		if err != nil {
			t.Fatal(err)
		}
		st := c.StatusAt(gceDeadlines, at("2026-09-01T00:00:00Z"))
		if (len(st.LateCredits) == 1) != tc.late || !st.CreditDue.Equal(at("2026-07-10T00:00:00Z")) || st.LastInTimePeriod != "2026-07" {
			t.Errorf("%+v: %+v", tc, st)
		}
	}
	if c0.StatusAt(gceDeadlines, at("2026-07-09T23:59:59Z")).CreditOverdue || !c0.StatusAt(gceDeadlines, at("2026-07-10T00:00:00Z")).CreditOverdue {
		t.Fatal("overdue edge")
	}
}

// TestClaimAnsweredLate: a contract whose provider answers "within 30
// days" (answer_within: {days: 30}); sent 10 April 15:00 Shanghai time,
// due before 11 May 00:00 there (the 30th day after is 10 May).
func TestClaimAnsweredLate(t *testing.T) {
	d := Deadlines{Answer: terms.Within{Days: 30, From: terms.WithinFromSent}}
	c, err := New(Draft{Contract: "cn-example", Provider: "示例算力云", Month: "2026-03", Amount: cents("1800.00"), Currency: "CNY",
		Deadline: at("2026-04-30T16:00:00Z"), TimeZone: "Asia/Shanghai", Lang: "zh", Seal: Seal{ObservationsSHA256: "aa", ChainHead: "bb"},
		MonthEnd: at("2026-03-31T16:00:00Z"), AsOf: at("2026-03-31T22:00:00Z")})
	if err != nil {
		t.Fatal(err)
	}
	c, _, _ = c.Send(Sent{At: at("2026-04-10T07:00:00Z"), Via: "ticket", Reference: "TK-88"}, at("2026-04-10T07:00:00Z"))
	due := at("2026-05-10T16:00:00Z") // 11 May 00:00 +08:00
	if st := c.StatusAt(d, at("2026-05-10T15:59:59Z")); !st.AnswerDue.Equal(due) || st.AnswerOverdue {
		t.Fatalf("a second before: %+v", st)
	}
	if st := c.StatusAt(d, due); !st.AnswerOverdue || !st.AnswerLate {
		t.Fatalf("at the deadline: %+v", st)
	}
	inTime := answer(t, c, "2026-05-10T15:59:59Z", Accepted, "")
	late := answer(t, c, "2026-05-10T16:00:00Z", Accepted, "")
	if inTime.StatusAt(d, due).AnswerLate || !late.StatusAt(d, due).AnswerLate || late.StatusAt(d, due).AnswerOverdue {
		t.Fatal("answered at the edges")
	}
}

// TestRefusedClaim: refused with the provider's reason; nothing is owed,
// and a credit of the claim's amount does not match it.
func TestRefusedClaim(t *testing.T) {
	c := send(t, awsMarch(t), "2026-04-03T10:00:00Z", "case-170001")
	in := AnswerIn{Answer: Answer{At: at("2026-04-25T00:00:00Z"), Outcome: Refused, Reason: "the instance's security group blocked the checks", Reference: "case-170001"}}
	c, _, err := c.Answered(in, at("2026-04-25T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	st := c.StatusAt(awsDeadlines, at("2026-07-01T00:00:00Z"))
	if st.State != StateRefused || st.Refused != cents("2361.60") || st.Outstanding != 0 || st.Expected != 0 || st.CreditOverdue || !st.CreditDue.IsZero() {
		t.Fatalf("refused: %+v", st)
	}
	got, _, why := Match(credit("2026-05", "2361.60", ""), []Claim{c})
	if got != nil || !strings.Contains(why, "no open claim") {
		t.Fatalf("matched a refused claim: %v %q", got, why)
	}
	got, _, why = Match(credit("2026-05", "2361.60", "case-170001"), []Claim{c})
	if got != nil || !strings.Contains(why, "its reference names claim aws-ec2-instance/2026-03, which cannot take it") || !strings.Contains(why, "was refused") {
		t.Fatalf("by reference to a refused claim: %v %q", got, why)
	}
}

// TestMatchByReferenceAndAmbiguity: a reference wins over amounts; two
// claims owing the same are left to a person.
func TestMatchByReferenceAndAmbiguity(t *testing.T) {
	march := answer(t, send(t, awsMarch(t), "2026-04-03T10:00:00Z", "case-170001"), "2026-04-20T08:00:00Z", Accepted, "")
	april := awsMarch(t)
	april.ID, april.Month = ID("aws-ec2-instance", "2026-04"), "2026-04"
	april = send(t, april, "2026-05-02T10:00:00Z", "case-170099")
	ledger := []Claim{march, april}
	got, by, _ := Match(credit("2026-06", "2361.60", "case-170099"), ledger)
	if got == nil || got.ID != april.ID || by != ByReference {
		t.Fatalf("by reference: %v %s", got, by)
	}
	d := credit("2026-06", "2361.60", "")
	d.Description = "AWS SLA credit, case-170001"
	if got, by, _ := Match(d, ledger); got == nil || got.ID != march.ID || by != ByReference {
		t.Fatalf("by the reference quoted in the description: %v %s", got, by)
	}
	got, _, why := Match(credit("2026-06", "2361.60", ""), ledger)
	if got != nil || why != "2361.60 USD is outstanding on 2 claims (aws-ec2-instance/2026-03, aws-ec2-instance/2026-04); apply it by hand" {
		t.Fatalf("ambiguous: %v %q", got, why)
	}
	// The April bill can only be March's: April's claim is for April itself.
	if got, _, _ := Match(credit("2026-04", "2361.60", ""), ledger); got == nil || got.ID != march.ID {
		t.Fatalf("by period: %v", got)
	}
	eur := credit("2026-06", "2361.60", "case-170099")
	eur.Currency = "EUR"
	if got, _, why := Match(eur, ledger); got != nil || !strings.Contains(why, `currency: "EUR" is not the claim's currency (USD)`) {
		t.Fatalf("wrong currency by reference: %v %q", got, why)
	}
	other := credit("2026-06", "2361.60", "")
	other.Contracts = []string{"gce-single-instance"}
	if got, _, _ := Match(other, ledger); got != nil {
		t.Fatal("matched another provider's claim")
	}
}

// TestBadInputChangesNothing: each refusal names the field and value and
// leaves the claim as it was.
func TestBadInputChangesNothing(t *testing.T) {
	c := awsMarch(t)
	now := at("2026-04-20T00:00:00Z")
	before := c
	for _, tc := range []struct {
		name string
		do   func() (Claim, error)
		want string
	}{
		{"answer before sent (not sent)", func() (Claim, error) {
			o, _, err := c.Answered(AnswerIn{Answer: Answer{At: now, Outcome: Accepted}}, now)
			return o, err
		}, `claim: "aws-ec2-instance/2026-03" has not been recorded as sent`},
		{"credit to an unsent claim", func() (Claim, error) {
			return c.Apply(CreditIn{Credit: Credit{Key: "k", Period: "2026-05", Amount: 100}, Currency: "USD"})
		}, `claim: "aws-ec2-instance/2026-03" has not been recorded as sent`},
		{"unknown way", func() (Claim, error) {
			o, _, err := c.Send(Sent{At: now, Via: "fax"}, now)
			return o, err
		}, `via: "fax" is not a way a claim is sent`},
		{"sent in the future", func() (Claim, error) {
			o, _, err := c.Send(Sent{At: now.Add(time.Hour), Via: "email"}, now)
			return o, err
		}, `at: "2026-04-20T01:00:00Z" is in the future`},
		{"sent before the month", func() (Claim, error) {
			o, _, err := c.Send(Sent{At: at("2026-02-28T00:00:00Z"), Via: "email"}, now)
			return o, err
		}, `at: "2026-02-28T00:00:00Z" is before the claim's month 2026-03 began`},
	} {
		got, err := tc.do()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !reflect.DeepEqual(got, before) {
			t.Errorf("%s: %v (claim changed: %v)", tc.name, err, !reflect.DeepEqual(got, before))
		}
	}
	sent := send(t, c, "2026-04-03T10:00:00Z", "case-170001")
	for _, tc := range []struct {
		name string
		in   AnswerIn
		want string
	}{
		{"answer before sent", AnswerIn{Answer: Answer{At: at("2026-04-03T09:59:59Z"), Outcome: Accepted}}, `at: "2026-04-03T09:59:59Z" is before the claim was sent (2026-04-03T10:00:00Z)`},
		{"wrong currency", AnswerIn{Answer: Answer{At: now, Outcome: Accepted}, Currency: "EUR"}, `currency: "EUR" is not the claim's currency (USD)`},
		{"negative grant", AnswerIn{Answer: Answer{At: now, Outcome: Partial, Granted: -100}, HasGranted: true}, `granted: "-1.00" is negative`},
		{"partial of all", AnswerIn{Answer: Answer{At: now, Outcome: Partial, Granted: cents("2361.60")}, HasGranted: true}, `granted: "2361.60" is not between 0 and the 2361.60 claimed`},
		{"partial without amount", AnswerIn{Answer: Answer{At: now, Outcome: Partial}}, "granted: missing"},
		{"accepted for less", AnswerIn{Answer: Answer{At: now, Outcome: Accepted, Granted: 100}, HasGranted: true}, `granted: "1.00" differs from the 2361.60 claimed`},
		{"refused with a grant", AnswerIn{Answer: Answer{At: now, Outcome: Refused, Granted: 100}, HasGranted: true}, `granted: "1.00" is not 0`},
		{"unknown outcome", AnswerIn{Answer: Answer{At: now, Outcome: "maybe"}}, `outcome: "maybe" is not an outcome (accepted, partial, refused)`},
	} {
		got, changed, err := sent.Answered(tc.in, now)
		if err == nil || changed || !strings.Contains(err.Error(), tc.want) || !reflect.DeepEqual(got, sent) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	for _, tc := range []struct {
		name string
		in   CreditIn
		want string
	}{
		{"negative credit", CreditIn{Credit: Credit{Key: "k", Period: "2026-05", Amount: -5}, Currency: "USD"}, `amount: "-0.05" is not positive`},
		{"wrong currency", CreditIn{Credit: Credit{Key: "k", Period: "2026-05", Amount: 5}, Currency: "CNY"}, `currency: "CNY" is not the claim's currency (USD)`},
		{"credit of the claim's own month", CreditIn{Credit: Credit{Key: "k", Period: "2026-03", Amount: 5}, Currency: "USD"}, `period: "2026-03" is not after the claim's month 2026-03`},
		{"bad period", CreditIn{Credit: Credit{Key: "k", Period: "2026-5", Amount: 5}, Currency: "USD"}, `period: "2026-5" is not a month`},
	} {
		got, err := sent.Apply(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !reflect.DeepEqual(got, sent) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// Recorded once: the same again is no change, another a conflict.
	same, changed, err := sent.Send(*sent.Sent, now)
	if err != nil || changed || !reflect.DeepEqual(same, sent) {
		t.Fatalf("the same send again: %v %v", changed, err)
	}
	other := *sent.Sent
	other.Via = "email"
	if _, _, err := sent.Send(other, now); err == nil || !err.(*Error).Conflict || !strings.Contains(err.Error(), "was already recorded as sent at 2026-04-03T10:00:00Z via support_case") {
		t.Fatalf("another send: %v", err)
	}
	if _, _, err := ParseID("aws-ec2-instance/March"); err == nil || err.Error() != `claim: "aws-ec2-instance/March" is not a claim id (want <contract>/<YYYY-MM>, e.g. cn-example/2026-11, or an incident's <contract>/<YYYY-MM>/<node>_<YYYYMMDDTHHMMSSZ>)` {
		t.Fatalf("ParseID: %v", err)
	}
}

// TestProvisionalMonthMakesNoClaim: a report as of before its month ends
// drafts nothing; nor does one without a seal or a credit.
func TestProvisionalMonthMakesNoClaim(t *testing.T) {
	d := Draft{Contract: "aws-ec2-instance", Month: "2026-03", Amount: 100, Currency: "USD", Deadline: at("2026-06-01T00:00:00Z"), TimeZone: "UTC",
		Seal: Seal{ObservationsSHA256: "a", ChainHead: "b"}, MonthEnd: at("2026-04-01T00:00:00Z"), AsOf: at("2026-03-31T23:59:59Z")}
	if _, err := New(d); err == nil || !strings.Contains(err.Error(), `month: "2026-03" is provisional: the report is as of 2026-03-31T23:59:59Z`) {
		t.Fatalf("provisional: %v", err)
	}
	d.AsOf = d.MonthEnd
	if _, err := New(d); err != nil {
		t.Fatalf("as of the month's end: %v", err)
	}
	for name, change := range map[string]func(*Draft){
		"no credit": func(d *Draft) { d.Amount = 0 }, "no seal": func(d *Draft) { d.Seal = Seal{} },
		"bad currency": func(d *Draft) { d.Currency = "usd" }, "bad zone": func(d *Draft) { d.TimeZone = "Mars/Olympus" },
	} {
		x := d
		change(&x)
		if _, err := New(x); err == nil {
			t.Errorf("%s: drafted", name)
		}
	}
}
