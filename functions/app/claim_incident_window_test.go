package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/claims"
)

// TestIncidentWindowRemindedBeforeTheReport: a claim window counted from
// the incident ("within 30 days of the incident": Alibaba ECS, hosted·ai)
// given to the US contract. November's node is silent from its last
// heartbeat at 2 November 03:00:00 New York to 13:00 (heartbeats every
// 30 s: unreachable from 03:00:30, 10 h less 30 s); the incident is due 30
// days after 03:00:30, before 2 December 03:00:30 EST. Its 7-day reminder
// (25 November 03:00:30) and its 2-day one (30 November 03:00:30) fall
// before the month's report (1 December 06:00). The incident is in the
// ledger as its own claim from the first run after it ended, each reminder
// goes at its instant (nothing a second before, once) and names no figure
// (the month's tier may still change); the report then drafts the month's
// claim, due at the same instant, whose last-day reminder (2 December
// 00:00) and expired alert (03:00:30) go from the stored report as before,
// the incident's own not again: four posts, one each, on each store.
func TestIncidentWindowRemindedBeforeTheReport(t *testing.T) {
	onEachStore(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		desk, p, run := claimJobOf(t, st, func(t *testing.T, st store.Store) {
			heardNY01(t, st, [][2]time.Time{{ny(t, "2026-10-31 10:00:00"), ny(t, "2026-11-02 03:00:00")}, {ny(t, "2026-11-02 13:00:00"), ny(t, "2026-12-03 06:00:00")}})
		})
		us := desk.Terms()["us-example"]
		us.Claim.WindowDays, us.Claim.BillingCycles, us.Claim.FromIncident = 30, 0, true
		const inc = "us-example/2026-11/ny-01_20261102T080030Z"
		if res := run("2026-11-02 13:59:59"); strings.Join(res.Claims, ",") != inc || len(res.Reminders) != 0 {
			t.Fatalf("the first run after the incident: drafted %v, reminded %v", res.Claims, res.Reminders)
		}
		for _, step := range []struct{ before, at, want string }{
			{"2026-11-25 03:00:29", "2026-11-25 03:00:30", inc + " reminder-7d"},
			{"2026-11-30 03:00:29", "2026-11-30 03:00:30", inc + " reminder-2d"},
		} {
			if res := run(step.before); len(res.Reminders)+len(res.Claims) != 0 {
				t.Fatalf("at %s: %v %v", step.before, res.Reminders, res.Claims)
			}
			n := len(p.texts)
			if got := runTwoAtOnce(t, run, step.at); got.reminders != step.want || len(p.texts) != n+1 {
				t.Fatalf("at %s: %+v, %d posts; want %s", step.at, got, len(p.texts)-n, step.want)
			}
			txt := p.texts[len(p.texts)-1]
			for _, want := range []string{"Claim the incident on ny-01: Example GPU Cloud Inc. (us-example)", "Incident on ny-01 from 2026-11-02 03:00:30 (",
				"Last day to file: 2026-12-02;", "the claim must be in before 2026-12-02 03:00:30 (",
				"The month's tier, and so the credit, is not known until the month is over", "gpusla claims sent " + inc} {
				if !strings.Contains(txt, want) {
					t.Errorf("reminder at %s lacks %q:\n%s", step.at, want, txt)
				}
			}
			if strings.Contains(txt, "USD") {
				t.Errorf("reminder at %s names a figure the rest of the month may change:\n%s", step.at, txt)
			}
			if res := run(step.at); len(res.Reminders) != 0 || len(p.texts) != n+1 {
				t.Fatalf("at %s again: %v", step.at, res.Reminders)
			}
		}
		n := len(p.texts)
		if res := run("2026-12-01 07:00:00"); strings.Join(res.Claims, ",") != "us-example/2026-11" || len(res.Reminders) != 0 {
			t.Fatalf("the month's report: drafted %v, reminded %v", res.Claims, res.Reminders)
		}
		if res := run("2026-12-01 23:59:59"); len(res.Reminders)+len(res.ClaimAlerts) != 0 {
			t.Fatalf("after the report: %v %v", res.Reminders, res.ClaimAlerts)
		}
		if res := run("2026-12-02 00:00:00"); strings.Join(res.Reminders, ",") != "2026-11/us-example/day" {
			t.Fatalf("last day: %v", res.Reminders)
		}
		if res := run("2026-12-02 03:00:29"); len(res.ClaimAlerts) != 0 {
			t.Fatalf("expired early: %v", res.ClaimAlerts)
		}
		if res := run("2026-12-02 03:00:30"); strings.Join(res.ClaimAlerts, ",") != "us-example/2026-11 expired_unsent" {
			t.Fatalf("at the deadline: %v", res.ClaimAlerts)
		}
		if got := len(p.texts) - n; got != 2 {
			t.Fatalf("%d posts after the report, want the last-day reminder and the expired alert", got)
		}
		if res := run("2026-12-02 07:00:00"); len(res.Reminders)+len(res.ClaimAlerts) != 0 {
			t.Fatalf("again: %v %v", res.Reminders, res.ClaimAlerts)
		}
		l, err := desk.Ledger()
		if err != nil {
			t.Fatal(err)
		}
		v, err := l.Claim(ctx, "us-example/2026-11")
		if err != nil || !v.Status.Expired || v.Deadline.Format(time.RFC3339) != "2026-12-02T08:00:30Z" || v.Status.State != claims.StateDrafted {
			t.Fatalf("claim: %v %+v deadline %v", err, v.Status, v.Deadline)
		}
	})
}
