package chantext

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
)

// TestSummaryLanguage: the monthly Slack summary is written in the
// contract's report.lang, every sentence translated, numbers and the
// claim deadline in the locale's forms.
func TestSummaryLanguage(t *testing.T) {
	r := &report.Report{Month: "2026-11",
		Contracts: []report.Contract{{Contract: "cn-example", Provider: "acme", Currency: "CNY", UptimeTarget: 99.9, Nodes: 2, NodesBelow: 1,
			Charge: 12345.6, Claim: 3703.68, ClaimDeadline: "2026-12-31T23:59:59+08:00", TicketsBreached: 1}},
		Nodes: []report.Node{{Node: "gz-01", Currency: "CNY", Uptime: report.Uptime{ClaimablePercent: 98.6111}, Credit: report.Credit{Amount: 3703.68}}}}
	zh := ReportSummary(r, "ab12", i18n.ZH)
	for _, want := range []string{"*2026年11月 SLA 报告 — acme（cn-example）*", "索赔：*3,703.68 CNY*（计费 12,345.60）", "1/2 个节点低于 99.90 %",
		"1 个工单超时", "请于 *2026年12月31日 23:59:59（UTC+08:00）* 前提交", "• gz-01：可索赔可用率 98.6111 %，赔偿 3,703.68 CNY", "证据包链头：`ab12`"} {
		if !strings.Contains(zh, want) {
			t.Errorf("zh summary lacks %q:\n%s", want, zh)
		}
	}
	en := ReportSummary(r, "ab12", i18n.EN)
	for _, want := range []string{"*SLA report 2026-11 — acme (cn-example)*", "Claim: *3,703.68 CNY* of 12,345.60 charged · 1 of 2 nodes below 99.90 % · 1 tickets breached · file by *2026-12-31 23:59:59 +08:00*",
		"• gz-01: 98.6111 % claimable uptime, credit 3,703.68 CNY", "Evidence bundle chain head: `ab12`"} {
		if !strings.Contains(en, want) {
			t.Errorf("en summary lacks %q:\n%s", want, en)
		}
	}
}

// A partial report's summary names each node left out, in both languages.
func TestSummaryNamesLeftOutNodes(t *testing.T) {
	why := msg.New("contract %q is defined by no terms given (known: %s)", "cn-exmaple", "cn-example")
	r := &report.Report{Month: "2026-11", LeftOut: []report.Skipped{{Node: "gz-09", Contract: "cn-exmaple", Reason: why.String(), Text: why}}}
	for lang, want := range map[i18n.Lang]string{
		i18n.EN: `:warning: Partial report: node gz-09 left out, contract "cn-exmaple" is defined by no terms given (known: cn-example)`,
		i18n.ZH: `:warning: 报告不完整：节点 gz-09 未包含，没有任何给定的条款文件定义合同 "cn-exmaple"（已有：cn-example）`,
	} {
		if got := ReportSummary(r, "", lang); !strings.Contains(got, want) {
			t.Errorf("%s summary %q lacks %q", lang, got, want)
		}
	}
}

// TestClaimReminderLanguage: the claim reminder is written in
// the contract's report.lang, the time left in words (never Go's 168h0m0s),
// the deadline and the last day in the locale's forms.
func TestClaimReminderLanguage(t *testing.T) {
	c := report.Contract{Contract: "cn-example", Provider: "acme", TimeZone: "Asia/Shanghai", Currency: "CNY", Claim: 3703.68,
		ClaimDeadline: "2027-01-01T00:00:00+08:00"}
	left := 7*24*time.Hour + 20*time.Minute // rounds to 7 days
	zh := ClaimReminder(i18n.ZH, c, "2026-11", "2026-12-31", left, "reports/2026-11/cn-example")
	if want := ":alarm_clock: *cn-example*（acme）2026年11月 的索赔截止提醒：最后提交日 *2026年12月31日*（Asia/Shanghai；索赔须在 2027年1月1日 00:00:00（UTC+08:00）之前提交）— 还剩 7天。索赔额 3,703.68 CNY；报告和证据包位于 `reports/2026-11/cn-example/`。"; zh != want {
		t.Errorf("zh reminder\n%s\nwant\n%s", zh, want)
	}
	en := ClaimReminder(i18n.EN, c, "2026-11", "2026-12-31", left, "reports/2026-11/cn-example")
	if want := ":alarm_clock: Claim deadline for *cn-example* (acme), 2026-11: last day to file *2026-12-31* (Asia/Shanghai; the claim must be in before 2027-01-01 00:00:00 +08:00) — 7 days left. Claim 3,703.68 CNY; report and evidence bundle under `reports/2026-11/cn-example/`."; en != want {
		t.Errorf("en reminder\n%s\nwant\n%s", en, want)
	}
}
