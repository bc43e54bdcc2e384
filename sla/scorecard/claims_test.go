package scorecard

import (
	"reflect"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/terms"
)

// claimOf is a provider's claim of month for amount, sent at sent (none
// if ""), answered with outcome granting granted at answered (none if ""),
// credited on the bill of period (none if "").
func claimOf(t *testing.T, provider, month, amount, sent, answered, outcome, granted, period string) claims.Claim {
	t.Helper()
	a, _ := claims.ParseCents(amount)
	start, _ := time.Parse("2006-01", month)
	end := start.AddDate(0, 1, 0)
	c, err := claims.New(claims.Draft{Contract: "c-" + provider, Provider: provider, Month: month, Amount: a, Currency: "USD", Deadline: end.AddDate(0, 2, 0),
		TimeZone: "UTC", Seal: claims.Seal{ObservationsSHA256: "aa", ChainHead: "bb"}, MonthEnd: end, AsOf: end})
	if err != nil {
		t.Fatal(err)
	}
	if sent == "" {
		return c
	}
	if c, _, err = c.Send(claims.Sent{At: at(sent), Via: "email"}, at(sent)); err != nil {
		t.Fatal(err)
	}
	if answered == "" {
		return c
	}
	in := claims.AnswerIn{Answer: claims.Answer{At: at(answered), Outcome: outcome}}
	if granted != "" {
		in.Granted, _ = claims.ParseCents(granted)
		in.HasGranted = true
	}
	if c, _, err = c.Answered(in, at(answered)); err != nil {
		t.Fatal(err)
	}
	if period == "" {
		return c
	}
	g := c.Answer.Granted
	c, err = c.Apply(claims.CreditIn{Credit: claims.Credit{Key: "k-" + month, Period: period, Amount: g, MatchedBy: claims.ByAmountPeriod}, Currency: "USD"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestScorecardClaims: provider A's claims of September to November 2026,
// under "answer within 30 days" and "credit within one billing cycle
// following the month of the request", as of 1 March 2027:
//
//	Sep 1,000.00: sent 2 Oct, 600.00 granted 20 Oct, on the November bill
//	  (due before 1 Dec): in time.
//	Oct 2,000.00: sent 3 Nov, refused 10 Nov.
//	Nov 1,500.00: sent 2 Dec, accepted 5 Jan (due before 2 Jan: the 30th
//	  day after 2 Dec is 1 Jan): late; on the February bill (due before
//	  1 Feb): late again — one claim late.
//
// Q3: claimed 1,000.00, granted = received 600.00, refused 400.00, 60.0 %.
// Q4: claimed 3,500.00, granted = received 1,500.00, refused 2,000.00,
// 1,500 / 3,500 = 42.86 → 42.9 %, 1 late. The months together: 4,500.00
// claimed, 2,100.00 received, 46.67 → 46.7 %. August's claim is before
// the months; B has none; C is not compared.
func TestScorecardClaims(t *testing.T) {
	ledger := []claims.Claim{
		claimOf(t, "A", "2026-08", "500.00", "2026-09-02T00:00:00Z", "", "", "", ""),
		claimOf(t, "A", "2026-09", "1000.00", "2026-10-02T00:00:00Z", "2026-10-20T00:00:00Z", claims.Partial, "600.00", "2026-11"),
		claimOf(t, "A", "2026-10", "2000.00", "2026-11-03T00:00:00Z", "2026-11-10T00:00:00Z", claims.Refused, "", ""),
		claimOf(t, "A", "2026-11", "1500.00", "2026-12-02T00:00:00Z", "2027-01-05T00:00:00Z", claims.Accepted, "", "2027-02"),
		claimOf(t, "C", "2026-10", "10.00", "", "", "", "", ""),
	}
	d := claims.Deadlines{Answer: terms.Within{Days: 30, From: terms.WithinFromSent}, Credit: terms.Within{BillingCycles: 1, From: terms.WithinFromSent}}
	sc := &Scorecard{From: "2026-09", To: "2026-11", Providers: []Provider{{Provider: "A"}, {Provider: "B"}}}
	sc.AddClaims(ledger, map[string]claims.Deadlines{"c-A": d}, at("2027-03-01T00:00:00Z"))
	c := func(s string) claims.Cents { v, _ := claims.ParseCents(s); return v }
	want := &Claims{
		Quarters: []claims.RecoveryRow{
			{Provider: "A", Quarter: "2026-Q3", Currency: "USD", Claims: 1, Claimed: c("1000.00"), Granted: c("600.00"), Received: c("600.00"), Refused: c("400.00"), SharePercent: 60},
			{Provider: "A", Quarter: "2026-Q4", Currency: "USD", Claims: 2, Claimed: c("3500.00"), Granted: c("1500.00"), Received: c("1500.00"), Refused: c("2000.00"), Late: 1, SharePercent: 42.9},
		},
		Total: []claims.RecoveryRow{
			{Provider: "A", Quarter: "2026-09..2026-11", Currency: "USD", Claims: 3, Claimed: c("4500.00"), Granted: c("2100.00"), Received: c("2100.00"), Refused: c("2400.00"), Late: 1, SharePercent: 46.7},
		},
	}
	if !reflect.DeepEqual(sc.Providers[0].Claims, want) {
		t.Fatalf("A's claims:\n got %+v\nwant %+v", sc.Providers[0].Claims, want)
	}
	if sc.Providers[1].Claims != nil {
		t.Fatalf("B has claims: %+v", sc.Providers[1].Claims)
	}
}
