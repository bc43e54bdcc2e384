package chantext

import (
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/internal/zhstyle"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
)

var update = flag.Bool("update", false, "rewrite the golden texts in testdata")

var g0 = time.Date(2026, 11, 30, 10, 0, 30, 0, time.UTC)

func gpuN(i int) *int { return &i }

// goldenMessages are the messages an on-call reader meets, under a
// contract in lang and zone: a lost GPU that counts, an outage not counted
// yet (under the contract's minimum), one inside announced maintenance,
// the recovery, a reclassification, a delivery overdue, a breached ticket.
func goldenMessages(lang, zone string, reason func(en, zh string) string) []any {
	open := notify.Alert{Kind: notify.AlertDegraded, Node: "gz-01", Provider: "acme_gpu", IncidentID: "gpu_lost@20261130T100030.000Z",
		IncidentKind: "gpu_lost", Since: g0, Counted: true, Lang: lang, Zone: zone,
		Failed: []notify.FailedCheck{{Name: "gpu.count", Verdict: "fail", Value: "7", Criterion: "8", GPU: gpuN(3), Since: g0},
			{Name: "gpu.xid", Verdict: "fail", Value: "<unknown>", Detail: "~x~ - not a list", GPU: gpuN(3), Since: g0}},
		Detail: EvidenceText(lang, zone, msg.New("%d failing results of this check in a row from %s", 2, msg.At(g0, time.UTC)))}
	notYet := notify.Alert{Kind: notify.AlertUnreachable, Node: "gz-02", Provider: "acme_gpu", IncidentID: "unreachable@20261130T100030.000Z",
		IncidentKind: "unreachable", Since: g0, NotYet: true, Lang: lang, Zone: zone,
		Detail: EvidenceText(lang, zone, PendingCause(msg.New("no data from the node since %s (heartbeat every %s, grace %s)", msg.At(g0.Add(-30*time.Second), time.UTC), 30*time.Second, 90*time.Second))),
		Reason: reason("counts once it lasts 5 minutes, the contract's minimum outage", "持续满 5分钟（合同规定的最短停机时长）后计入")}
	maint := notYet
	maint.Node, maint.NotYet = "gz-03", false
	maint.Reason = reason("inside maintenance announced with enough notice", "在提前通知的维护窗口内")
	rec := open
	rec.Kind, rec.Until, rec.Duration, rec.Failed, rec.Detail = notify.AlertRecovered, g0.Add(30*time.Minute), 30*time.Minute, nil, ""
	recl := notYet
	recl.Kind, recl.Cause, recl.PrevCause, recl.Counted, recl.NotYet, recl.Reason = notify.AlertReclassified, "backend_outage", "no_data", false, false, reason("the backend itself was down", "后端自身故障")
	recl.Detail = EvidenceText(lang, zone, msg.New("no data from the node since %s (heartbeat every %s, grace %s)", msg.At(g0.Add(-30*time.Second), time.UTC), 30*time.Second, 90*time.Second))
	// The recovery of the unreachable gap states the cause its books end with.
	recUnr := notYet
	recUnr.Kind, recUnr.Until, recUnr.Duration, recUnr.Cause, recUnr.Detail = notify.AlertRecovered, g0.Add(4*time.Minute+40*time.Second), 4*time.Minute+40*time.Second, "no_data", ""
	late := notify.Alert{Kind: notify.AlertDeliveryOverdue, Node: "gz-04", Provider: "acme_gpu", IncidentID: "delivery@20261130T100030.000Z",
		IncidentKind: notify.DeliveryKind, Since: g0, Until: g0.Add(30 * time.Minute), Duration: 30 * time.Minute, Lang: lang, Zone: zone}
	tk := notify.TicketMessage{Kind: notify.TicketBreached, Ticket: "T-0042", Node: "gz-01", Provider: "acme_gpu", Opened: g0, Lang: lang, Zone: zone,
		Text: reason("first response due 2026-11-30 19:00:30 CST passed unmet (P1: 1 hour)", "首次响应时限2026年11月30日 19:00:30（北京时间）已过，未响应（P1：1小时）")}
	l := map[string]i18n.Lang{"zh": i18n.ZH}[lang]
	if l == "" {
		l = i18n.EN
	}
	rep, c := goldenReport(zone)
	month := ReportNotice(rep, "9f2c61d0ab12", l, "2026-11/cn-example", nil)
	month.Lines = append(month.Lines, ScorecardLine(l, "2026-09", "2026-11", 2, "2026-11/cn-example/scorecard.html"))
	remind := ClaimReminder(l, c, "2026-11", "2026-12-31", 2*24*time.Hour+3*time.Hour, "2026-11/cn-example")
	return []any{open, notYet, maint, rec, recl, recUnr, late, tk, month, remind}
}

// goldenReport is a month of a contract on zone's clock (UTC when empty)
// with one node below target, one whose contract no terms define, and a
// provider's name that is markup in every dialect.
func goldenReport(zone string) (*report.Report, report.Contract) {
	if zone == "" {
		zone = "UTC"
	}
	c := report.Contract{Contract: "cn-example", Provider: "acme_gpu *Ltd*", TimeZone: zone, Currency: "CNY", UptimeTarget: 99.9, Nodes: 2, NodesBelow: 1,
		Charge: 12345.6, Claim: 3703.68, ClaimDeadline: "2027-01-01T00:00:00+08:00", TicketsBreached: 1}
	why := msg.New("contract %q is defined by no terms given (known: %s)", "cn-exmaple", "cn-example")
	r := &report.Report{Month: "2026-11", Contracts: []report.Contract{c},
		Nodes:   []report.Node{{Node: "gz-01", Currency: "CNY", Uptime: report.Uptime{ClaimablePercent: pct(98.6111)}, Credit: report.Credit{Amount: 3703.68}}},
		LeftOut: []report.Skipped{{Node: "gz-09", Contract: "cn-exmaple", Reason: why.String(), Text: why}}}
	return r, c
}

// render is Alert or Ticket, failing the test on a sentence the
// language's catalog lacks (it would show in English).
func render(t *testing.T, d Dialect, m any) Message {
	t.Helper()
	var w words
	var out Message
	if n, ok := m.(notify.Notice); ok {
		return Notice(d, n)
	}
	if a, ok := m.(notify.Alert); ok {
		w = wordsOf(a.Lang, a.Zone)
		out = fit(d, w, func(l limits) Message { return alert(d, w, a, l) })
	} else {
		tm := m.(notify.TicketMessage)
		w = wordsOf(tm.Lang, tm.Zone)
		out = fit(d, w, func(l limits) Message { return ticketMessage(d, w, tm, l) })
	}
	if miss := w.p.Missing(); len(miss) > 0 {
		t.Errorf("%s %s: not in the catalog: %q", d.Name, w.p.Lang, miss)
	}
	return out
}

var goDuration = regexp.MustCompile(`\b\d+(h\d+)?(m\d+)?s\b|\b\d+h\d+m\b|\b\d+h0m0s\b`)

// TestGoldenTexts: every robot's messages per dialect, in English on UTC
// and in Chinese on Beijing time: golden texts (-update rewrites
// them; read the diff). Beyond the goldens: a zh contract's message has no
// English label, no UTC beside its own zone, no Go duration, no Slack
// syntax; DingTalk and WeCom get no backslash escapes and no "- " lists.
func TestGoldenTexts(t *testing.T) {
	for _, c := range []struct{ lang, zone string }{{"en", ""}, {"zh", "Asia/Shanghai"}} {
		reason := func(en, zh string) string {
			if c.lang == "zh" {
				return zh
			}
			return en
		}
		for _, d := range []Dialect{Feishu, DingTalk, WeCom} {
			var b strings.Builder
			for _, m := range goldenMessages(c.lang, c.zone, reason) {
				msg := render(t, d, m)
				fmt.Fprintf(&b, "=== %s (%s)\n%s\n", msg.Title, msg.Level.Emoji(), msg.Body)
				for _, bt := range msg.Buttons {
					fmt.Fprintf(&b, "[button %s → %s]\n", bt.Label, bt.URL)
				}
				checkText(t, d, c.lang, msg.Title+"\n"+msg.Body)
			}
			golden(t, filepath.Join("testdata", d.Name+"-"+c.lang+".golden"), b.String())
		}
	}
}

func checkText(t *testing.T, d Dialect, lang, s string) {
	t.Helper()
	if goDuration.MatchString(s) {
		t.Errorf("%s %s: a Go duration in %q", d.Name, lang, goDuration.FindString(s))
	}
	if strings.Contains(s, ":rotating_light:") {
		t.Errorf("%s %s: Slack syntax in\n%s", d.Name, lang, s)
	}
	if d.Name != "feishu" {
		if regexp.MustCompile(`\\[[:punct:]]`).MatchString(s) {
			t.Errorf("%s %s: a backslash escape, which the robot shows as typed:\n%s", d.Name, lang, s)
		}
		if regexp.MustCompile(`(?m)^- `).MatchString(s) {
			t.Errorf("%s %s: a \"- \" list line:\n%s", d.Name, lang, s)
		}
	}
	if lang == "zh" {
		// The house style of docs/i18n.md; the test's own hostile data
		// (a check value, a provider's name) is data, not words.
		text := html.UnescapeString(regexp.MustCompile(`</?font[^>]*>`).ReplaceAllString(s, ""))
		for _, f := range zhstyle.Check(text, "<unknown>", "＜unknown＞", "~x~ - not a list", "～x～ - not a list", "*Ltd*", "∗Ltd∗") {
			t.Errorf("%s zh: %s", d.Name, f)
		}
		for _, en := range []string{"Node", "Provider", "Since", "Duration", "incident ", "ticket ", "UTC", "recovered", "What failed", "heartbeat", "in a row", "failing", "grace"} {
			if strings.Contains(s, en) {
				t.Errorf("%s zh: English %q in\n%s", d.Name, en, s)
			}
		}
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (rerun with -update and read the diff):\n%s", path, got)
	}
}

// TestCutMessageSaysSo: a message cut to the robot's byte limit ends with
// a visible mark in its language, and still fits.
func TestCutMessageSaysSo(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		a := notify.Alert{Kind: notify.AlertDegraded, Node: "gz-01", Provider: "acme", IncidentID: "gpu_degraded@20261130T100030.000Z",
			IncidentKind: "gpu_degraded", Since: g0, Lang: lang, Zone: "Asia/Shanghai", Detail: strings.Repeat("xid 79 on GPU 3; ", 2000)}
		for i := range 300 {
			a.Failed = append(a.Failed, notify.FailedCheck{Name: fmt.Sprintf("gpu.xid_%d", i), Verdict: "fail", Value: strings.Repeat("v", 100)})
		}
		want := map[string]string{"en": "… (truncated)", "zh": "…（已截断）"}[lang]
		for _, d := range []Dialect{Feishu, DingTalk, WeCom} {
			m := Alert(d, a)
			if !strings.HasSuffix(m.Body, d.NL+want) || len(m.Body) > d.MaxBytes {
				t.Errorf("%s %s: %d bytes (limit %d), ends %q; want the mark %q", d.Name, lang, len(m.Body), d.MaxBytes, m.Body[max(0, len(m.Body)-40):], want)
			}
		}
		short := a
		short.Failed, short.Detail = short.Failed[:1], "short"
		for _, d := range []Dialect{Feishu, DingTalk, WeCom} {
			if m := Alert(d, short); strings.Contains(m.Body, want) {
				t.Errorf("%s %s: a message that fits is marked cut", d.Name, lang)
			}
		}
	}
}

func pct(v float64) *float64 { return &v }
