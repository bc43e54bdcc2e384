package chantext

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/terms"
)

func zhClaim(t *testing.T) (claims.Claim, claims.Deadlines) {
	t.Helper()
	c, err := claims.New(claims.Draft{Contract: "cn-example", Provider: "示例算力云", Month: "2026-03", Amount: 180000, Currency: "CNY",
		Deadline: time.Date(2026, 4, 30, 16, 0, 0, 0, time.UTC), TimeZone: "Asia/Shanghai", Lang: "zh",
		Seal:     claims.Seal{ObservationsSHA256: "9f2c", ChainHead: "a1b2", Batches: 12},
		MonthEnd: time.Date(2026, 3, 31, 16, 0, 0, 0, time.UTC), AsOf: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	sent := time.Date(2026, 4, 10, 7, 0, 0, 0, time.UTC)
	c, _, err = c.Send(claims.Sent{At: sent, Via: "ticket", Reference: "TK-88"}, sent)
	if err != nil {
		t.Fatal(err)
	}
	d := claims.Deadlines{Answer: terms.Within{Days: 30}, Credit: terms.Within{BillingCycles: 1}, AnswerClause: "第9.2条 (cn-example.yaml:40)", CreditClause: "第9.3条 (cn-example.yaml:41)"}
	return c, d
}

func TestClaimOverdueInChinese(t *testing.T) {
	c, d := zhClaim(t)
	now := time.Date(2026, 5, 10, 16, 0, 0, 0, time.UTC)
	n := ClaimOverdue(i18n.ZH, c, c.StatusAt(d, now), d, AnswerOverdue)
	if n.Kind != notify.NoticeClaimOverdue || n.Contract != "cn-example" || !n.Urgent || n.Lang != "zh" || len(n.Lines) != 3 {
		t.Fatalf("notice %+v", n)
	}
	got := n.PlainText()
	for _, want := range []string{"⏳ 2026年3月索赔：服务商期限已过——示例算力云（cn-example）",
		"示例算力云未在其自己规定的期限2026年5月11日 00:00:00（", "（第9.2条 (cn-example.yaml:40)）前答复索赔cn-example/2026-03（1,800.00 CNY）。",
		"已于2026年4月10日 15:00:00（", "通过工单提交（工单号TK-88）。", "催告函：gpusla claims letter cn-example/2026-03"} {
		if !strings.Contains(got, want) {
			t.Errorf("answer overdue lacks %q:\n%s", want, got)
		}
	}
	// The deadline is strong, the claim id code: each channel marks them up.
	var code, strong bool
	for _, sp := range n.Lines[0] {
		code = code || sp.Code && sp.Text == "cn-example/2026-03"
		strong = strong || sp.Strong && strings.HasPrefix(sp.Text, "2026年5月11日 00:00:00")
	}
	if !code || !strong {
		t.Fatalf("spans %+v", n.Lines[0])
	}
	now = time.Date(2026, 5, 31, 16, 0, 0, 0, time.UTC) // 1 June 00:00 in Shanghai
	got = ClaimOverdue(i18n.ZH, c, c.StatusAt(d, now), d, CreditOverdue).PlainText()
	if !strings.Contains(got, "索赔cn-example/2026-03（1,800.00 CNY）中1,800.00 CNY未见于目前已录入的账单") || !strings.Contains(got, "按时的赔付最迟应出现在2026年5月的账单上") {
		t.Fatalf("credit overdue:\n%s", got)
	}
	en := ClaimOverdue(i18n.EN, c, c.StatusAt(d, now), d, CreditOverdue).PlainText()
	if !strings.Contains(en, "1,800.00 CNY of claim cn-example/2026-03 (1,800.00 CNY) is not on the bills recorded so far, and 示例算力云's own deadline to credit it, 2026-06-01 00:00:00 (") ||
		!strings.Contains(en, "(第9.3条 (cn-example.yaml:41)), has passed; a credit in time is on a bill for May 2026 at the latest.") {
		t.Fatalf("credit overdue in English:\n%s", en)
	}
}

func TestRecoveryLines(t *testing.T) {
	rows := []claims.RecoveryRow{{Provider: "示例算力云", Quarter: "2026-Q1", Currency: "CNY", Claimed: 180000, Granted: 180000, Received: 90000, Outstanding: 90000, SharePercent: 50, Overdue: 1}}
	if got := RecoveryLines(i18n.ZH, rows)[0].String(); got != "索赔 2026-Q1，示例算力云：申请1,800.00 CNY · 批准1,800.00 CNY · 账单已抵扣900.00 CNY · 被拒0.00 CNY · 待赔付900.00 CNY · 回收50.0% · 1项已过服务商期限" {
		t.Fatalf("zh: %q", got)
	}
	if got := RecoveryLines(i18n.EN, rows)[0].String(); got != "Claims 2026-Q1, 示例算力云: claimed 1,800.00 CNY · granted 1,800.00 CNY · received on bills 900.00 CNY · refused 0.00 CNY · outstanding 900.00 CNY · 50.0 % recovered · 1 past the provider's deadline" {
		t.Fatalf("en: %q", got)
	}
}
