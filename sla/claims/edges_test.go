package claims

import (
	"reflect"
	"strings"
	"testing"
)

// TestClaimWithNoProviderDeadline: a pack that states no deadline for the
// provider to answer or to credit (most do not) gives the ledger nothing
// to hold it to: two years on, unanswered and uncredited, nothing is due,
// overdue or late; the claim is still outstanding and counted unanswered.
func TestClaimWithNoProviderDeadline(t *testing.T) {
	c := send(t, awsMarch(t), "2026-04-03T10:00:00Z", "case-170001")
	st := c.StatusAt(Deadlines{}, at("2028-04-03T10:00:00Z"))
	if !st.AnswerDue.IsZero() || !st.CreditDue.IsZero() || st.AnswerLate || st.AnswerOverdue || st.CreditOverdue || st.LastInTimePeriod != "" ||
		st.State != StateSent || st.Outstanding != cents("2361.60") {
		t.Fatalf("no deadline, unanswered: %+v", st)
	}
	c = answer(t, c, "2027-12-01T00:00:00Z", Accepted, "")
	c, _ = apply(t, c, credit("2028-01", "2361.60", "case-170001"))
	st = c.StatusAt(Deadlines{}, at("2028-04-03T10:00:00Z"))
	if st.AnswerLate || len(st.LateCredits) != 0 || st.State != StateCredited {
		t.Fatalf("no deadline, answered and credited years on: %+v", st)
	}
	rec := Recover([]Claim{send(t, awsMarch(t), "2026-04-03T10:00:00Z", "")}, nil, at("2028-04-03T10:00:00Z"))
	if r := rec.Rows[0]; r.Unanswered != 1 || r.Overdue != 0 || r.Late != 0 || r.Outstanding != cents("2361.60") {
		t.Fatalf("recovery without deadlines: %+v", r)
	}
}

// TestCreditLargerThanTheClaim: granted 1,180.80 of 2,361.60; the May
// bill credits 1,500.00 quoting the case. By reference it is the claim's
// (a bill is what it is): received 1,500.00, nothing outstanding, 319.20
// beyond the grant shown as excess, and the share (1,500.00 / 2,361.60 =
// 63.52 %) counts what came. Without the reference it matches nothing:
// an amount and period match is exact, never "at least".
func TestCreditLargerThanTheClaim(t *testing.T) {
	c := answer(t, send(t, awsMarch(t), "2026-04-03T10:00:00Z", "case-170001"), "2026-04-20T08:00:00Z", Partial, "1180.80")
	if got, _, why := Match(credit("2026-05", "1500.00", ""), []Claim{c}); got != nil ||
		why != "no open claim of aws-ec2-instance has 1500.00 USD outstanding for a month before 2026-05" {
		t.Fatalf("by amount: %v %q", got, why)
	}
	c, by := apply(t, c, credit("2026-05", "1500.00", "case-170001"))
	st := c.StatusAt(awsDeadlines, at("2026-06-01T00:00:00Z"))
	if by != ByReference || st.State != StateCredited || st.Received != cents("1500.00") || st.Outstanding != 0 || st.Excess != cents("319.20") || st.CreditOverdue {
		t.Fatalf("credited beyond the grant (%s): %+v", by, st)
	}
	r := Recover([]Claim{c}, map[string]Deadlines{"aws-ec2-instance": awsDeadlines}, at("2026-07-01T00:00:00Z")).Rows[0]
	if r.Received != cents("1500.00") || r.Excess != cents("319.20") || r.Outstanding != 0 || r.SharePercent != 63.5 || r.Refused != cents("1180.80") {
		t.Fatalf("recovery: %+v", r)
	}
	// An accepted claim credited twice its amount: 200 % recovered, the
	// excess as large as the claim.
	full := answer(t, send(t, awsMarch(t), "2026-04-03T10:00:00Z", "case-170001"), "2026-04-20T08:00:00Z", Accepted, "")
	full, _ = apply(t, full, credit("2026-05", "4723.20", "case-170001"))
	if r := Recover([]Claim{full}, nil, at("2026-07-01T00:00:00Z")).Rows[0]; r.SharePercent != 200 || r.Excess != cents("2361.60") {
		t.Fatalf("twice the claim: %+v", r)
	}
}

// TestCurrencyMismatch: a EUR credit of the very digits a USD claim owes
// is not that claim's, by amount or by reference; why says which claim
// owes it in which currency. A bill credit in the claim's currency still
// matches.
func TestCurrencyMismatch(t *testing.T) {
	c := answer(t, send(t, awsMarch(t), "2026-04-03T10:00:00Z", "case-170001"), "2026-04-20T08:00:00Z", Accepted, "")
	eur := credit("2026-05", "2361.60", "")
	eur.Currency = "EUR"
	got, _, why := Match(eur, []Claim{c})
	if got != nil || why != "no open claim of aws-ec2-instance has 2361.60 EUR outstanding for a month before 2026-05 (claim aws-ec2-instance/2026-03 has 2361.60 USD outstanding: amounts in two currencies are never matched)" {
		t.Fatalf("EUR by amount: %v %q", got, why)
	}
	eur.Reference = "case-170001"
	if got, _, why := Match(eur, []Claim{c}); got != nil || !strings.Contains(why, `its reference names claim aws-ec2-instance/2026-03, which cannot take it: currency: "EUR" is not the claim's currency (USD)`) {
		t.Fatalf("EUR by reference: %v %q", got, why)
	}
	if got, by, _ := Match(credit("2026-05", "2361.60", ""), []Claim{c}); got == nil || by != ByAmountPeriod {
		t.Fatal("USD by amount")
	}
}

// TestSameAmountDifferentPeriods: March's and April's claims both owe
// 2,361.60. The April bill can only be March's (April's claim is for
// April itself, a credit for it is on a later bill); the May bill could
// be either and is left to a person; applied by hand to April, the June
// bill's equal credit is then March's alone.
func TestSameAmountDifferentPeriods(t *testing.T) {
	march := answer(t, send(t, awsMarch(t), "2026-04-03T10:00:00Z", ""), "2026-04-20T08:00:00Z", Accepted, "")
	april := awsMarch(t)
	april.ID, april.Month = ID("aws-ec2-instance", "2026-04"), "2026-04"
	april = answer(t, send(t, april, "2026-05-02T10:00:00Z", ""), "2026-05-10T08:00:00Z", Accepted, "")
	ledger := []Claim{march, april}
	if got, by, _ := Match(credit("2026-04", "2361.60", ""), ledger); got == nil || got.ID != march.ID || by != ByAmountPeriod {
		t.Fatalf("the April bill: %v", got)
	}
	may := credit("2026-05", "2361.60", "", 9)
	if got, _, why := Match(may, ledger); got != nil || !strings.Contains(why, "is outstanding on 2 claims (aws-ec2-instance/2026-03, aws-ec2-instance/2026-04); apply it by hand") {
		t.Fatalf("the May bill: %v %q", got, why)
	}
	april, err := april.Apply(CreditIn{Credit: Credit{Key: may.Key, Period: may.Period, Amount: may.Amount, MatchedBy: ByHand}, Currency: "USD"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := Match(credit("2026-06", "2361.60", "", 4), []Claim{march, april}); got == nil || got.ID != march.ID {
		t.Fatalf("the June bill after April's was applied by hand: %v", got)
	}
}

// TestCreditReceivedNextQuarter: December 2026's claim (Q4) sent 4
// January, credited on the January 2027 bill (Q1 2027). The recovery
// counts the money under the quarter of the service it is for — 2026-Q4,
// received — whenever the bill came, so a quarter's row settles as its
// credits arrive and no quarter holds money for another's claims; before
// the January bill the same row shows it outstanding. Q1 2027 has no row:
// no claim of its months. The books' view (Booked) puts the same 900.00 in
// 2027-Q1, the quarter of the bill, naming the claims' quarter it paid.
func TestCreditReceivedNextQuarter(t *testing.T) {
	dec, err := New(Draft{Contract: "aws-ec2-instance", Provider: "Amazon Web Services (EC2)", Month: "2026-12", Amount: cents("900.00"), Currency: "USD",
		Deadline: at("2027-03-01T00:00:00Z"), TimeZone: "UTC", Seal: Seal{ObservationsSHA256: "aa", ChainHead: "bb"},
		MonthEnd: at("2027-01-01T00:00:00Z"), AsOf: at("2027-01-01T06:00:00Z")})
	if err != nil {
		t.Fatal(err)
	}
	dec = answer(t, send(t, dec, "2027-01-04T10:00:00Z", ""), "2027-01-10T00:00:00Z", Accepted, "")
	ds := map[string]Deadlines{"aws-ec2-instance": awsDeadlines}
	before := Recover([]Claim{dec}, ds, at("2027-01-20T00:00:00Z"))
	if len(before.Rows) != 1 || before.Rows[0].Quarter != "2026-Q4" || before.Rows[0].Outstanding != cents("900.00") || before.Rows[0].Received != 0 {
		t.Fatalf("before the January bill: %+v", before.Rows)
	}
	dec, _ = apply(t, dec, credit("2027-01", "900.00", ""))
	after := Recover([]Claim{dec}, ds, at("2027-02-05T00:00:00Z"))
	want := []RecoveryRow{{Provider: "Amazon Web Services (EC2)", Quarter: "2026-Q4", Currency: "USD", Claims: 1, Claimed: cents("900.00"), Granted: cents("900.00"),
		Received: cents("900.00"), SharePercent: 100}}
	if !reflect.DeepEqual(after.Rows, want) {
		t.Fatalf("after the January bill:\n got %+v\nwant %+v", after.Rows, want)
	}
	// The books of Q1 2027 received the 900.00: by the bill's quarter, for
	// a 2026-Q4 claim.
	if want := []BookedRow{{Provider: "Amazon Web Services (EC2)", Quarter: "2027-Q1", Currency: "USD", Received: cents("900.00"), ForQuarters: []string{"2026-Q4"}}}; !reflect.DeepEqual(after.Booked, want) {
		t.Fatalf("booked by the bill's quarter:\n got %+v\nwant %+v", after.Booked, want)
	}
	if len(before.Booked) != 0 {
		t.Fatalf("booked before any bill: %+v", before.Booked)
	}
	for m, q := range map[string]string{"2026-03": "2026-Q1", "2026-04": "2026-Q2", "2026-09": "2026-Q3", "2026-10": "2026-Q4", "2026-12": "2026-Q4", "2027-01": "2027-Q1"} {
		if Quarter(m) != q {
			t.Errorf("Quarter(%s) = %s, want %s", m, Quarter(m), q)
		}
	}
}

// TestTotal sums quarters per provider and currency, never across
// currencies, the share on the sums (not an average of shares).
func TestTotal(t *testing.T) {
	rows := []RecoveryRow{
		{Provider: "A", Quarter: "2026-Q1", Currency: "USD", Claims: 1, Claimed: 100000, Received: 100000, SharePercent: 100},
		{Provider: "A", Quarter: "2026-Q2", Currency: "USD", Claims: 2, Claimed: 300000, Received: 0, Outstanding: 300000, Late: 1},
		{Provider: "A", Quarter: "2026-Q2", Currency: "CNY", Claims: 1, Claimed: 5000, Received: 2500, SharePercent: 50},
		{Provider: "B", Quarter: "2026-Q1", Currency: "USD", Claims: 1, Claimed: 100, Refused: 100},
	}
	want := []RecoveryRow{
		{Provider: "A", Quarter: "2026-01..2026-06", Currency: "CNY", Claims: 1, Claimed: 5000, Received: 2500, SharePercent: 50},
		{Provider: "A", Quarter: "2026-01..2026-06", Currency: "USD", Claims: 3, Claimed: 400000, Received: 100000, Outstanding: 300000, Late: 1, SharePercent: 25},
		{Provider: "B", Quarter: "2026-01..2026-06", Currency: "USD", Claims: 1, Claimed: 100, Refused: 100},
	}
	if got := Total(rows, "2026-01..2026-06"); !reflect.DeepEqual(got, want) {
		t.Fatalf("total:\n got %+v\nwant %+v", got, want)
	}
}

// A claim the renter never sent is expired from the claim deadline's
// instant (cn-example's March: 30 days after the month in Beijing, due
// before 1 May 00:00 +08:00): a draft the instant before, expired at it and
// after; one sent, even late, is never expired (it is sent late instead).
func TestUnsentClaimExpiresAtItsDeadline(t *testing.T) {
	d := Draft{Contract: "cn-example", Provider: "示例算力云", Month: "2026-03", Amount: cents("2057.20"),
		Currency: "CNY", Deadline: at("2026-04-30T16:00:00Z"), TimeZone: "Asia/Shanghai", Lang: "zh", Nodes: []string{"gz-01"}, Lines: 1,
		Seal:     Seal{ObservationsSHA256: "9f2c", ChainHead: "a1b2", Batches: 12},
		MonthEnd: at("2026-03-31T16:00:00Z"), AsOf: at("2026-03-31T22:00:00Z"),
		Record: Record{RecordedAt: at("2026-03-31T22:00:05Z"), RecordedBy: "report-job"}}
	c := mustNew(t, d)
	for _, x := range []struct {
		now     string
		expired bool
	}{{"2026-04-30T15:59:59Z", false}, {"2026-04-30T16:00:00Z", true}, {"2026-12-07T00:00:00Z", true}} {
		st := c.StatusAt(Deadlines{}, at(x.now))
		if st.State != StateDrafted || st.Expired != x.expired || st.SentLate {
			t.Errorf("unsent, as of %s: %+v, want drafted, expired %v", x.now, st, x.expired)
		}
	}
	late := send(t, c, "2026-04-30T16:00:00Z", "case-1")
	if st := late.StatusAt(Deadlines{}, at("2026-12-07T00:00:00Z")); st.Expired || !st.SentLate || st.State != StateSent {
		t.Errorf("sent at the deadline: %+v, want sent late, not expired", st)
	}
	inTime := send(t, c, "2026-04-30T15:59:59Z", "case-1")
	if st := inTime.StatusAt(Deadlines{}, at("2026-12-07T00:00:00Z")); st.Expired || st.SentLate {
		t.Errorf("sent the second before: %+v", st)
	}
}
