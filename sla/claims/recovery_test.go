package claims

import (
	"reflect"
	"testing"
)

// TestRecoveryByProviderAndQuarter sums a ledger worked by hand:
//
//	AWS, Q1 2026 (USD): March 2,361.60 granted 1,180.80, credited
//	  1,180.80 on May's bill; February 500.00 refused; January 300.00
//	  drafted, never sent.
//	AWS, Q2 2026 (USD): April 2,361.60 sent, unanswered, credit deadline
//	  (one billing cycle after May) passed on 1 July.
//	cn-example, Q1 2026 (CNY): March 1,800.00 accepted, 900.00 credited.
//
// AWS Q1: claimed 2,861.60, granted 1,180.80, received 1,180.80, refused
// 500.00 + 1,180.80 = 1,680.80, outstanding 0, share 1,180.80 / 2,861.60
// = 41.26 % → 41.3. AWS Q2: claimed = outstanding = 2,361.60, one
// overdue. cn Q1: claimed 1,800, granted 1,800, received 900, outstanding
// 900, share 50 %.
func TestRecoveryByProviderAndQuarter(t *testing.T) {
	march := awsMarch(t)
	march = answer(t, send(t, march, "2026-04-03T10:00:00Z", "case-170001"), "2026-04-20T08:00:00Z", Partial, "1180.80")
	march, _ = apply(t, march, credit("2026-05", "1180.80", ""))

	feb := awsMarch(t)
	feb.ID, feb.Month, feb.Amount = ID("aws-ec2-instance", "2026-02"), "2026-02", cents("500.00")
	feb = answer(t, send(t, feb, "2026-03-05T10:00:00Z", ""), "2026-03-20T00:00:00Z", Refused, "")

	jan := awsMarch(t)
	jan.ID, jan.Month, jan.Amount = ID("aws-ec2-instance", "2026-01"), "2026-01", cents("300.00")

	apr := awsMarch(t)
	apr.ID, apr.Month = ID("aws-ec2-instance", "2026-04"), "2026-04"
	apr = send(t, apr, "2026-05-04T10:00:00Z", "")

	cn := awsMarch(t)
	cn.ID, cn.Contract, cn.Provider, cn.Currency, cn.Amount = ID("cn-example", "2026-03"), "cn-example", "示例算力云", "CNY", cents("1800.00")
	cn = answer(t, send(t, cn, "2026-04-03T10:00:00Z", ""), "2026-04-08T00:00:00Z", Accepted, "")
	cn, _ = cn.Apply(CreditIn{Credit: Credit{Key: "cn-1", Period: "2026-04", Amount: cents("900.00"), MatchedBy: ByHand}, Currency: "CNY"})

	got := Recover([]Claim{march, feb, jan, apr, cn}, map[string]Deadlines{"aws-ec2-instance": awsDeadlines}, at("2026-07-01T00:00:00Z"))
	want := []RecoveryRow{
		{Provider: "Amazon Web Services (EC2)", Quarter: "2026-Q1", Currency: "USD", Claims: 3, Unsent: 1, Drafted: cents("300.00"),
			Claimed: cents("2861.60"), Granted: cents("1180.80"), Received: cents("1180.80"), Refused: cents("1680.80"), SharePercent: 41.3},
		{Provider: "Amazon Web Services (EC2)", Quarter: "2026-Q2", Currency: "USD", Claims: 1, Claimed: cents("2361.60"),
			Outstanding: cents("2361.60"), Unanswered: 1, Overdue: 1, Late: 1},
		{Provider: "示例算力云", Quarter: "2026-Q1", Currency: "CNY", Claims: 1, Claimed: cents("1800.00"), Granted: cents("1800.00"),
			Received: cents("900.00"), Outstanding: cents("900.00"), SharePercent: 50},
	}
	if !reflect.DeepEqual(got.Rows, want) {
		t.Fatalf("recovery:\n got %+v\nwant %+v", got.Rows, want)
	}
	if Quarter("2026-12") != "2026-Q4" || Quarter("2027-01") != "2027-Q1" || Quarter("x") != "" {
		t.Fatal("Quarter")
	}
}
