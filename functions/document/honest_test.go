package document

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/document/documenttest"
	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// citedSources are us-example's sources for this test: every figure from a
// primary page but its tiers, only from a secondary one.
const citedSources = `
sources:
  - terms: [uptime.target, uptime.unavailable, uptime.minimum_outage, uptime.credit_cap, maintenance, support, hardware_replacement, delivery, claim]
    url: https://aws.amazon.com/compute/sla/
    read: 2026-11-30
    quote: "Instance-Level SLA: 99.5%"
  - terms: [uptime.tiers]
    url: https://sla.directory/vendors/aws/
    read: 2026-11-29
    quote: "10% below 99.5%"
    secondary: true
`

// partialClaim is the claim month under us-example with sources, and a
// node gz-09 registered under a contract no terms define.
func partialClaim(t *testing.T) *report.Report {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "terms", "us-example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tm, err := terms.Parse("us-example.yaml", append(src, citedSources...))
	if err != nil {
		t.Fatal(err)
	}
	l := documenttest.ClaimMonth()
	l.Register("gz-09", "cn-exmaple", documenttest.Local(documenttest.NewYork, "2026-11-02 09:00"), 8)
	return buildReport(t, tm, report.Options{Year: 2026, Month: time.November, AsOf: documenttest.ClaimAsOf}, "claim-month", l.Events)
}

// A report that had to leave a node out says so inside the document, in
// every format and both languages; the claim page names the terms only a
// secondary source backs and lists every source with its quote; every new
// sentence has its Chinese entry.
func TestLeftOutAndUnverifiedInEveryFormat(t *testing.T) {
	r := partialClaim(t)
	if len(r.LeftOut) != 1 || r.LeftOut[0].Node != "gz-09" {
		t.Fatalf("left_out %+v", r.LeftOut)
	}
	if c := r.Contracts[0]; len(c.Sources) != 2 || strings.Join(c.Unverified, ",") != "uptime.tiers" {
		t.Fatalf("sources %+v unverified %v", c.Sources, c.Unverified)
	}
	want := map[i18n.Lang][]string{
		i18n.EN: {"Nodes left out of this report", "This report is partial: 1 nodes are registered under a contract that no terms file given defines",
			`contract "cn-exmaple" is defined by no terms given (known: us-example)`, "gz-09",
			"Unverified terms: uptime.tiers. They rest on a secondary source or on none",
			"Sources: the published text of each term", "https://sla.directory/vendors/aws/", "10% below 99.5%"},
		i18n.ZH: {"本报告未包含的节点", "本报告不完整：有1个节点登记在没有任何给定条款文件定义的合同之下", `没有任何给定的条款文件定义合同 "cn-exmaple"（已有：us-example）`,
			"未经核实的条款：uptime.tiers。", "依据：各项条款的公开文本", "Instance-Level SLA: 99.5%"},
	}
	for _, lang := range i18n.Langs {
		for _, format := range []string{"md", "html"} {
			var buf bytes.Buffer
			if err := Render(&buf, r, format, Extras{Lang: lang}); err != nil {
				t.Fatal(err)
			}
			text := strings.ReplaceAll(strings.ReplaceAll(buf.String(), "&#34;", `"`), "&#39;", "'")
			for _, w := range want[lang] {
				if !strings.Contains(text, w) {
					t.Errorf("%s %s lacks %q", lang, format, w)
				}
			}
		}
		var csvOut bytes.Buffer
		if err := Render(&csvOut, r, "csv", Extras{Lang: lang}); err != nil {
			t.Fatal(err)
		}
		for _, w := range map[i18n.Lang][]string{
			i18n.EN: {"left_out_node,contract,reason\ngz-09,cn-exmaple,", "source_contract,terms,url,read,secondary,unverified_terms,quote\n",
				"us-example,uptime.tiers,https://sla.directory/vendors/aws/,2026-11-29,true,uptime.tiers,10% below 99.5%\n",
				"us-example,uptime.target uptime.unavailable uptime.minimum_outage uptime.credit_cap maintenance support hardware_replacement delivery claim,https://aws.amazon.com/compute/sla/,2026-11-30,false,,Instance-Level SLA: 99.5%\n"},
			i18n.ZH: {"未包含节点,合同,原因\ngz-09,cn-exmaple,", "依据所属合同,条款,网址,查阅日期,第三方资料,未经核实的条款,条文\n"},
		}[lang] {
			if !strings.Contains(csvOut.String(), w) {
				t.Errorf("%s csv lacks %q:\n%s", lang, w, csvOut.String())
			}
		}
		d, err := newDoc(r, Extras{Lang: lang})
		if err != nil {
			t.Fatal(err)
		}
		if err := writePDF(io.Discard, r, d); err != nil {
			t.Fatal(err)
		}
		if m := d.P.Missing(); len(m) > 0 {
			t.Errorf("%s lacks %d entries:\n%s", lang, len(m), strings.Join(m, "\n"))
		}
	}
	// A whole report draws no such section, and a contract citing no
	// secondary source no such sentence.
	var whole bytes.Buffer
	if err := Render(&whole, buildClaim(t), "md", Extras{Lang: i18n.EN}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Nodes left out", "Unverified terms", "Sources: the published text"} {
		if strings.Contains(whole.String(), w) {
			t.Errorf("the whole report says %q", w)
		}
	}
}

// The PDF carries the left-out section and the unverified terms as text.
func TestLeftOutAndUnverifiedInPDF(t *testing.T) {
	pdftotext := testenv.LookPath(t, "pdftotext", "poppler-utils (scripts/setup.sh installs it)")
	r := partialClaim(t)
	for lang, want := range map[i18n.Lang][]string{
		i18n.EN: {"Nodes left out of this report", "gz-09", "Unverified terms: uptime.tiers", "sla.directory"},
		i18n.ZH: {"本报告未包含的节点", "gz-09", "未经核实的条款", "sla.directory"},
	} {
		var buf bytes.Buffer
		if err := Render(&buf, r, "pdf", Extras{Lang: lang}); err != nil {
			t.Fatal(err)
		}
		pdf := filepath.Join(t.TempDir(), "r.pdf")
		if err := os.WriteFile(pdf, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(pdftotext, pdf, "-").CombinedOutput()
		if err != nil {
			t.Fatalf("pdftotext: %v\n%s", err, out)
		}
		text := strings.Join(strings.Fields(string(out)), " ")
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s PDF text lacks %q", lang, w)
			}
		}
	}
}

// A contract whose only breach is a late first response that earns no
// credit (us-example: late_response_penalty 0): its letter is a notice of
// breach that lists the breach, marked as earning nothing, and requests
// nothing — never "no breach this month", never a request for 0.00. In the
// README's month T-2001 (sev2, 4 h) was answered 7 d 23 h 30 min late.
func TestBreachWithoutCreditIsNamed(t *testing.T) {
	r := readmeMonth(t)
	for lang, want := range map[i18n.Lang][]string{
		i18n.EN: {"ticket T-2001: first response 7d23h30m late (committed within 4h); the contract attaches no credit to it",
			"## Notice of breach", "notice of breach: no credit is requested", "They earn no credit under the contract, and no credit is requested"},
		i18n.ZH: {"工单 T-2001：首次响应超时7天23小时30分钟（合同承诺4小时内响应）；合同未就此约定赔偿", "## 违约通知书", "违约通知：不申请赔偿",
			"上述事项按合同不产生赔偿，本通知不申请赔偿"},
	} {
		d, err := newDoc(r, Extras{Lang: lang})
		if err != nil {
			t.Fatal(err)
		}
		var us *claimPage
		for i := range d.Claims {
			if d.Claims[i].Contract == "us-example" {
				us = &d.Claims[i]
			}
		}
		if us == nil {
			t.Fatal("no us-example letter")
		}
		var b strings.Builder
		mdClaim(&b, *us)
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s letter lacks %q", lang, w)
			}
		}
		for _, never := range []string{d.P.T("no breach this month"), d.P.T("Credit requested"), d.P.T("Claim deadline"), "0.00",
			d.P.T("No breach of the contract this month: there is nothing to claim and no letter to send.")} {
			if strings.Contains(b.String(), never) {
				t.Errorf("%s letter says %q over a breached ticket", lang, never)
			}
		}
	}
}

// A node never delivered is "not delivered as of …, N late so far" on its
// card and, where the contract attaches no penalty, in its letter; never
// "delivered … after the order". va-02 of the claim month, made never to
// send a heartbeat: ordered 3 November 09:00 New York, target 2 h; as of
// the month's end (1 December 00:00 EST) that is 27 d (to 30 November
// 09:00) + 15 h = 2,386,800 s after the order (DST ended on the 1st, before
// the order), less 2 h: 2,379,600 s = 27 d 13 h late.
func TestUndeliveredNodeIsNotDelivered(t *testing.T) {
	tm, err := documenttest.Terms()
	if err != nil {
		t.Fatal(err)
	}
	b, err := report.NewBuilder(tm, report.Options{Year: 2026, Month: time.November, AsOf: documenttest.ClaimAsOf})
	if err != nil {
		t.Fatal(err)
	}
	l := documenttest.ClaimMonth()
	for i := range l.Events {
		if e := l.Events[i]; e.Node == "va-02" && e.Type != events.TypeNodeRegistered {
			continue
		}
		if err := b.Add(&l.Events[i]); err != nil {
			t.Fatal(err)
		}
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	n := findNode(t, r, "va-02")
	eq(t, "delivered", n.Delivery.DeliveredAt, "")
	eq(t, "judged at", n.Delivery.JudgedAt, "2026-12-01T00:00:00-05:00")
	eq(t, "late", n.Delivery.LateSeconds, int64(2379600))
	for lang, want := range map[i18n.Lang][]string{
		i18n.EN: {"not delivered as of 2026-12-01 00:00:00 -05:00, 27d13h late so far (target 2h)",
			"not delivered as of 2026-12-01 00:00:00 -05:00, 27d13h late so far (committed within 2h); the contract attaches no credit to it"},
		i18n.ZH: {"截至2026年12月1日 00:00:00（UTC−05:00）仍未交付，已逾期27天13小时（承诺2小时）", "截至2026年12月1日 00:00:00（UTC−05:00）仍未交付，已逾期27天13小时（合同承诺2小时内交付）；合同未就此约定赔偿"},
	} {
		var buf bytes.Buffer
		if err := Render(&buf, r, "md", Extras{Lang: lang}); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s md lacks %q\n%s", lang, w, buf.String())
			}
		}
		if !strings.Contains(buf.String(), "| va-02 | us-example | 4 × H200 SXM 141GB | "+i18n.New(lang).T("not in service")+" | ") {
			t.Errorf("%s md: the node table gives the undelivered node an uptime", lang)
		}
		if card := "- " + i18n.New(lang).T("uptime claimable") + ": " + i18n.New(lang).T("not in service"); !strings.Contains(buf.String(), card) {
			t.Errorf("%s md lacks %q", lang, card)
		}
		if strings.Contains(buf.String(), "va-02 | delivered") || strings.Contains(buf.String(), "after the order") || strings.Contains(buf.String(), "下单后") {
			t.Errorf("%s md says the undelivered node was delivered", lang)
		}
	}
}

// A page address is shown as its reader types it: a Chinese path decoded,
// anything else as given.
func TestReadableSourceAddress(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/tencentyun/qcloud-documents/blob/master/product/%E6%9C%8D%E5%8A%A1%E5%8D%8F%E8%AE%AE.md": "https://github.com/tencentyun/qcloud-documents/blob/master/product/服务协议.md",
		"https://aws.amazon.com/compute/sla/": "https://aws.amazon.com/compute/sla/",
		"https://example.org/a%ZZ":            "https://example.org/a%ZZ", // not an escape: as given
		"https://example.org/%FF":             "https://example.org/%FF",  // not UTF-8: as given
	} {
		if got := readable(in); got != want {
			t.Errorf("readable(%q) = %q, want %q", in, got, want)
		}
	}
}

// A late first response read on a year whose holidays the terms do not
// list (holidays_unknown) earned no penalty: its letter row says why,
// never that the contract attaches no credit to it. T-2001 of the README's
// month, as though its deadline ran into 2027.
func TestBreachOnUnknownHolidaysIsNamed(t *testing.T) {
	r := readmeMonth(t)
	found := false
	for i := range r.Nodes {
		for j := range r.Nodes[i].Tickets {
			if tk := &r.Nodes[i].Tickets[j]; tk.Ticket == "T-2001" && tk.Response != nil {
				tk.Response.HolidaysUnknown = []int{2027}
				found = true
			}
		}
	}
	if !found {
		t.Fatal("no T-2001 in the README's month")
	}
	for lang, want := range map[i18n.Lang]string{
		i18n.EN: "ticket T-2001: first response 7d23h30m late on weekdays alone (committed within 4h); the terms list no holidays for 2027, so no credit is requested for it",
		i18n.ZH: "工单 T-2001：仅按工作日计首次响应超时7天23小时30分钟（合同承诺4小时内响应）；条款未列出2027年的节假日，不就此申请赔偿",
	} {
		d, err := newDoc(r, Extras{Lang: lang})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, c := range d.Claims {
			if c.Contract == "us-example" {
				mdClaim(&b, c)
			}
		}
		if !strings.Contains(b.String(), want) || strings.Contains(b.String(), "the contract attaches no credit to it") || strings.Contains(b.String(), "合同未就此约定赔偿") {
			t.Errorf("%s letter lacks %q or still says the contract attaches no credit:\n%s", lang, want, b.String())
		}
	}
}
