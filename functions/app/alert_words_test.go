package app_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/sla/terms"
)

// zhTerms is apptest's contract written in Chinese on Beijing time, with a
// five-minute minimum outage.
func zhTerms(t *testing.T) app.TermsBook {
	y := strings.Replace(apptest.TermsYAML, "timezone: UTC", "timezone: Asia/Shanghai", 1)
	y = strings.Replace(y, "minimum_outage: 1m", "minimum_outage: 5m", 1)
	y += "report:\n  lang: zh\n"
	ts, err := terms.Parse("apptest/acme-std.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return app.TermsBook{ts[0].Contract: ts[0]}
}

// Under a contract whose report.lang is zh and whose
// zone is Asia/Shanghai, the first alert of an outage carries the
// contract's language and zone, and says it does not count yet, and why,
// in Chinese: it is shorter than the five-minute minimum (the report's own
// verdict so far). A robot shows it on Beijing time, named once, never UTC.
func TestFirstAlertSaysWhetherItCounts(t *testing.T) {
	w := newWorldWith(t, zhTerms(t))
	w.push()
	w.tickUntil(t0.Add(3 * time.Minute))
	var a notify.Alert
	for _, x := range w.notif.Alerts {
		if x.Kind == notify.AlertUnreachable {
			a = x
		}
	}
	if a.Kind == "" {
		t.Fatalf("no unreachable alert among %+v", w.notif.Alerts)
	}
	if a.Lang != "zh" || a.Zone != "Asia/Shanghai" {
		t.Fatalf("alert in %q on %q, want the contract's zh, Asia/Shanghai", a.Lang, a.Zone)
	}
	if a.Counted || !a.NotYet || a.Reason != "持续满5分钟（合同规定的最短停机时长）后计入" {
		t.Fatalf("counted %v, not yet %v, reason %q; want not yet, under the 5-minute minimum, in Chinese", a.Counted, a.NotYet, a.Reason)
	}
	body := chantext.Alert(chantext.DingTalk, a).Body
	for _, want := range []string{"无法访问", "北京时间", "暂不计入——持续满5分钟"} {
		if !strings.Contains(body, want) {
			t.Errorf("the DingTalk text lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "UTC") {
		t.Errorf("the DingTalk text names UTC beside the contract's zone:\n%s", body)
	}
}

// An outage inside maintenance announced with the contract's notice: its
// first alert says it does not count, and why, in the contract's words.
func TestFirstAlertInsideMaintenanceSaysItDoesNotCount(t *testing.T) {
	book := zhTerms(t)
	for _, tm := range book {
		tm.Maintenance = terms.Maintenance{Excludes: true, Notice: 24 * time.Hour, Stated: true}
	}
	w := newWorldWith(t, book)
	if _, err := w.svc.AnnounceMaintenance(t.Context(), app.NewMaintenance{Node: "gz-01", Start: t0, End: t0.Add(time.Hour),
		AnnouncedAt: t0.Add(-48 * time.Hour), Summary: "rack move", By: "cli:test"}); err != nil {
		t.Fatal(err)
	}
	w.push()
	w.tickUntil(t0.Add(10 * time.Minute))
	var a notify.Alert
	for _, x := range w.notif.Alerts {
		if x.Kind == notify.AlertUnreachable {
			a = x
		}
	}
	if a.Kind == "" {
		t.Fatalf("no unreachable alert among %+v", w.notif.Alerts)
	}
	// account.Judge's "inside maintenance announced with enough notice",
	// as the zh report writes it.
	if want := "处于已提前足够时间通知的维护窗口内"; a.Counted || a.NotYet || a.Reason != want {
		t.Fatalf("counted %v, not yet %v, reason %q; want not counted: %q", a.Counted, a.NotYet, a.Reason, want)
	}
}

// The engine's evidence line reaches the alert in the contract's
// language and on its clock, durations in words: the opening of an outage
// under the zh contract says since when no heartbeat came (Beijing time)
// with the heartbeat interval and grace in Chinese words, its recovery how
// it ended; no English sentence, no Go duration, no UTC. The record keeps
// the English (the report's own words).
func TestAlertEvidenceInContractLanguage(t *testing.T) {
	w := newWorldWith(t, zhTerms(t))
	w.push()
	w.tickUntil(t0.Add(10 * time.Minute))
	w.push()
	var open, rec notify.Alert
	for _, x := range w.notif.Alerts {
		switch x.Kind {
		case notify.AlertUnreachable:
			open = x
		case notify.AlertRecovered:
			rec = x
		}
	}
	if open.Kind == "" || rec.Kind == "" {
		t.Fatalf("want an opening and a recovery among %+v", w.notif.Alerts)
	}
	// The last heartbeat came at 10:00:00 UTC = 18:00:00 Beijing time; the
	// probe's interval is 30 s, the terms' grace apptest's.
	// It says what the backend saw and that the cause waits for the node's
	// own records; it names no cause.
	if !strings.HasPrefix(open.Detail, "自2026年11月30日 18:00:00（北京时间）起未收到节点的任何数据（心跳间隔30秒，宽限") ||
		!strings.HasSuffix(open.Detail, "会另发更正。") || strings.Contains(open.Detail, "网络") {
		t.Errorf("opening evidence %q", open.Detail)
	}
	if rec.Detail != "中断后首次按时收到节点的观测" {
		t.Errorf("recovery evidence %q", rec.Detail)
	}
	goDur := regexp.MustCompile(`\b\d+(h\d+)?(m\d+)?s\b`)
	for _, a := range []notify.Alert{open, rec} {
		for _, d := range []chantext.Dialect{chantext.Feishu, chantext.DingTalk, chantext.WeCom} {
			body := chantext.Alert(d, a).Body
			if goDur.MatchString(body) || strings.Contains(body, "UTC") || strings.Contains(body, "heartbeat") {
				t.Errorf("%s: English, UTC or a Go duration in\n%s", d.Name, body)
			}
		}
	}
	if inc := w.only("unreachable"); !strings.HasPrefix(inc.Evidence, "no data from the node since 2026-11-30T10:00:00Z (heartbeat every 30s, grace ") {
		t.Errorf("the record's evidence %q, want the engine's English", inc.Evidence)
	}
}
