package chantext

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/sla/i18n"
)

// TestReportNoticeLanguage: the month's notice is written in the
// contract's report.lang, every sentence from the catalog, numbers and the
// claim deadline in the locale's forms on the contract's clock; its marked
// parts are spans, never markup in the text.
func TestReportNoticeLanguage(t *testing.T) {
	r, _ := goldenReport("Asia/Shanghai")
	for lang, want := range map[i18n.Lang][]string{
		i18n.ZH: {"acme_gpu *Ltd*（cn-example）2026年11月 SLA 违约报告",
			"索赔金额：3,703.68 CNY（当月费用12,345.60 CNY）；可用率低于99.90%的节点：1个（共2个）；超时工单：1个；请于2027年1月1日 00:00:00（北京时间）前提交",
			`⚠️ 报告不完整：节点 gz-09 未计入，没有任何给定的条款文件定义合同 "cn-exmaple"（已有：cn-example）`,
			"• gz-01：可索赔可用率98.6111%，赔付3,703.68 CNY", "证据包链头：ab12", "报告（各种格式）和证据包：2026-11/cn-example/"},
		i18n.EN: {"SLA report November 2026: acme_gpu *Ltd* (cn-example)",
			"Claim 3,703.68 CNY of 12,345.60 CNY charged · nodes below 99.90 %: 1 of 2 · tickets breached: 1 · file by 2027-01-01 00:00:00 (China Standard Time)",
			"⚠️ Partial report: node gz-09 left out, contract \"cn-exmaple\" is defined by no terms given (known: cn-example)",
			"• gz-01: claimable uptime 98.6111 %, credit 3,703.68 CNY", "Evidence bundle chain head: ab12"},
	} {
		n := ReportNotice(r, "ab12", lang, "2026-11/cn-example", nil)
		got := n.PlainText()
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s notice lacks %q:\n%s", lang, w, got)
			}
		}
		if n.Kind != notify.NoticeReport || n.Contract != "cn-example" || n.Provider != "acme_gpu *Ltd*" || n.Month != "2026-11" || n.Lang != string(lang) {
			t.Errorf("%s notice %+v", lang, n)
		}
		// The provider's '*' is text; the claim and the deadline are strong.
		var strong []string
		for _, l := range n.Lines {
			for _, s := range l {
				if s.Strong {
					strong = append(strong, s.Text)
				}
			}
		}
		if len(strong) != 2 || strong[0] != "3,703.68 CNY" {
			t.Errorf("%s strong spans %q", lang, strong)
		}
	}
}

// TestClaimReminderLanguage: the claim reminder is written in the
// contract's report.lang, the time left in words (never Go's 168h0m0s),
// the deadline and the last day in the locale's forms; on the last day it
// is urgent.
func TestClaimReminderLanguage(t *testing.T) {
	_, c := goldenReport("Asia/Shanghai")
	left := 7*24*time.Hour + 20*time.Minute // rounds to 7 days
	zh := ClaimReminder(i18n.ZH, c, "2026-11", "2026-12-31", left, "2026-11/cn-example")
	if want := "⏰ acme_gpu *Ltd*（cn-example）2026年11月索赔截止提醒\n最后提交日：2026年12月31日，索赔须于2027年1月1日 00:00:00（北京时间）前送达；距截止还有7天。\n索赔金额：3,703.68 CNY。\n报告和证据包：2026-11/cn-example/"; zh.PlainText() != want {
		t.Errorf("zh reminder\n%s\nwant\n%s", zh.PlainText(), want)
	}
	en := ClaimReminder(i18n.EN, c, "2026-11", "2026-12-31", left, "2026-11/cn-example")
	if want := "⏰ Claim deadline November 2026: acme_gpu *Ltd* (cn-example)\nLast day to file: 2026-12-31; the claim must be in before 2027-01-01 00:00:00 (China Standard Time); 7 days left.\nClaim: 3,703.68 CNY.\nReport and evidence bundle: 2026-11/cn-example/"; en.PlainText() != want {
		t.Errorf("en reminder\n%s\nwant\n%s", en.PlainText(), want)
	}
	if zh.Urgent || !ClaimReminder(i18n.EN, c, "2026-11", "2026-12-31", 20*time.Hour, "x").Urgent {
		t.Error("only the last day's reminder is urgent")
	}
}

// TestNoticeMarkupInert: in every robot's markdown a notice's strong and
// code parts are marked, and a value's own markup is escaped.
func TestNoticeMarkupInert(t *testing.T) {
	n := notify.Notice{Title: "# acme *x*", Lines: []notify.Line{{{Text: "- x "}, {Text: "**a**", Strong: true}, {Text: " "}, {Text: "p`/`q", Code: true}}}}
	for d, want := range map[string]string{
		"feishu":   "&#45; x **&#42;&#42;a&#42;&#42;** p&#96;/&#96;q",
		"dingtalk": "### # acme ∗x∗\n\n－ x **∗∗a∗∗** pˋ/ˋq",
		"wecom":    "### # acme ∗x∗\n－ x **∗∗a∗∗** `pˋ/ˋq`",
	} {
		dl := map[string]Dialect{"feishu": Feishu, "dingtalk": DingTalk, "wecom": WeCom}[d]
		if got := Notice(dl, n).Body; got != want {
			t.Errorf("%s: %q, want %q", d, got, want)
		}
	}
}
