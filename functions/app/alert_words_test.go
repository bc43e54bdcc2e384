package app_test

import (
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

// Issue 29, point 4: under a contract whose report.lang is zh and whose
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
	if a.Counted || !a.NotYet || a.Reason != "持续满 5分钟（合同规定的最短停机时长）后计入" {
		t.Fatalf("counted %v, not yet %v, reason %q; want not yet, under the 5-minute minimum, in Chinese", a.Counted, a.NotYet, a.Reason)
	}
	body := chantext.Alert(chantext.DingTalk, a).Body
	for _, want := range []string{"无法访问", "北京时间", "暂不计入 — 持续满 5分钟"} {
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
