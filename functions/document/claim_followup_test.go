package document

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/terms"
)

// The AWS pack's March claim, granted in part, its credit due (one billing
// cycle after April, the month it was sent) before 1 June and not on the
// April or May bills.
func followUpCase(t *testing.T) FollowUp {
	t.Helper()
	c, err := claims.New(claims.Draft{Contract: "aws-ec2-instance", Provider: "Amazon Web Services (EC2)", Month: "2026-03", Amount: 236160, Currency: "USD",
		Deadline: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), TimeZone: "UTC", Lang: "en",
		Seal:     claims.Seal{ObservationsSHA256: "9f2c1e", ChainHead: "a1b2c3", Batches: 4210},
		MonthEnd: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), AsOf: time.Date(2026, 4, 1, 6, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	sent := time.Date(2026, 4, 3, 10, 0, 0, 0, time.UTC)
	c, _, _ = c.Send(claims.Sent{At: sent, Via: "support_case", Reference: "170001"}, sent)
	ans := time.Date(2026, 4, 20, 8, 0, 0, 0, time.UTC)
	c, _, err = c.Answered(claims.AnswerIn{Answer: claims.Answer{At: ans, Outcome: claims.Partial, Granted: 118080, Reference: "170001"}, HasGranted: true}, ans)
	if err != nil {
		t.Fatal(err)
	}
	d := claims.Deadlines{Credit: terms.Within{BillingCycles: 1}, CreditClause: "aws-ec2-instance.yaml:42",
		CreditQuote: "we will issue the Service Credits to you within one billing cycle following the month in which the request occurred."}
	now := time.Date(2026, 6, 2, 9, 0, 0, 0, time.UTC)
	return FollowUp{Claim: c, Status: c.StatusAt(d, now), Deadlines: d, Renter: "星河智能科技有限公司 Galaxy AI Ltd.", ContractNumber: "AWS-ENT-7", Date: now}
}

func TestFollowUpLetter(t *testing.T) {
	f := followUpCase(t)
	var b strings.Builder
	if err := FollowUpLetter(&b, f, i18n.EN); err != nil {
		t.Fatal(err)
	}
	want := `To: Amazon Web Services (EC2)

From: 星河智能科技有限公司 Galaxy AI Ltd.

Date: 2026-06-02

Subject: follow-up to our SLA credit claim aws-ec2-instance/2026-03 for March 2026

On 2026-04-03 we sent you, by support case, your reference 170001, our claim for a service credit of 2,361.60 USD for March 2026 under contract AWS-ENT-7 (aws-ec2-instance).

The claim rests on the evidence sealed in its report: observations SHA-256 9f2c1e, hash chain head a1b2c3 (4,210 batches).

On 2026-04-20 you granted 1,180.80 USD of the claim (reference 170001).

Your terms say the credit is applied by 2026-06-01 00:00:00 +00:00 UTC (aws-ec2-instance.yaml:42). The clause reads: "we will issue the Service Credits to you within one billing cycle following the month in which the request occurred."

No credit against the claim is on the bills we have received so far.

1,180.80 USD is still outstanding. Please apply it and tell us on which bill it appears.

星河智能科技有限公司 Galaxy AI Ltd.
`
	if b.String() != want {
		t.Fatalf("letter:\n%s", b.String())
	}
	b.Reset()
	if err := FollowUpLetter(&b, f, i18n.ZH); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"致：Amazon Web Services (EC2)", "发函方：星河智能科技有限公司（Galaxy AI Ltd.）", "事由：关于2026年3月 SLA 赔偿申请 aws-ec2-instance/2026-03 的催告",
		"我方已于2026年4月3日通过支持工单，贵方编号170001，就合同 AWS-ENT-7 (aws-ec2-instance) 项下2026年3月的服务，向贵方提交2,361.60 USD 的服务赔偿申请。",
		"贵方已于2026年4月20日批准其中1,180.80 USD（编号170001）。", "尚有1,180.80 USD未赔付。"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("zh letter lacks %q:\n%s", s, b.String())
		}
	}
}

func TestFollowUpNothingOverdue(t *testing.T) {
	f := followUpCase(t)
	f.Status = f.Claim.StatusAt(f.Deadlines, time.Date(2026, 5, 31, 23, 59, 59, 0, time.UTC))
	var ne *ErrNothingOverdue
	err := FollowUpLetter(&strings.Builder{}, f, i18n.EN)
	if !errors.As(err, &ne) || err.Error() != "claim aws-ec2-instance/2026-03: no follow-up is due: the credit is due before 2026-06-01T00:00:00Z" {
		t.Fatalf("before the deadline: %v", err)
	}
	f.Deadlines = claims.Deadlines{}
	f.Status = f.Claim.StatusAt(f.Deadlines, time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC))
	if err := FollowUpLetter(&strings.Builder{}, f, i18n.EN); err == nil || !strings.Contains(err.Error(), "set the provider no deadline (claim.answer_within, claim.credit_within)") {
		t.Fatalf("no deadlines: %v", err)
	}
}
