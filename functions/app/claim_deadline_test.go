package app_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
	"github.com/gpusla/gpusla/internal/zhstyle"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
)

// onEachStore runs fn over the embedded store and over DynamoDB
// (dynalite): the reminders' once-only rests on each one's conditional
// writes.
func onEachStore(t *testing.T, fn func(t *testing.T, st store.Store)) {
	t.Run("bolt", func(t *testing.T) {
		s, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		fn(t, s)
	})
	t.Run("dynamo", func(t *testing.T) {
		s := dynamotest.NewStore(t)
		t.Cleanup(func() { _ = s.Close() })
		fn(t, s)
	})
}

// claimJob is the report job over st with November's ten-hour outage on
// the US contract, posting to one channel, and its run at a New York time.
func claimJob(t *testing.T, st store.Store) (*app.TicketDesk, *poster, func(at string) app.ReportRun) {
	t.Helper()
	return claimJobOf(t, st, tenHourOutage)
}

// claimJobOf is claimJob with the store's records made by records.
func claimJobOf(t *testing.T, st store.Store, records func(*testing.T, store.Store)) (*app.TicketDesk, *poster, func(at string) app.ReportRun) {
	t.Helper()
	desk, clock := reportDeskOn(t, st)
	records(t, st)
	blobs, err := blob.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &poster{}
	job := &app.ReportJob{Desk: desk, Blobs: blobs, Notices: namedChannels{"slack": p}, Renderer: bundle.Renderer{},
		Delay: 6 * time.Hour, TempDir: t.TempDir(), ScorecardMonths: 3, Log: slog.New(slog.DiscardHandler)}
	return desk, p, func(at string) app.ReportRun {
		t.Helper()
		clock.Set(ny(t, at))
		res, err := job.Run(context.Background(), ny(t, at))
		if err != nil {
			t.Fatalf("run at %s: %v", at, err)
		}
		return res
	}
}

// TestUnsentClaimRemindedOnceEach: November's claim, drafted by the job on
// 1 December and never sent, is due before 1 February 2027 00:00 New York.
// Its reminders are due 7 and 2 days before that instant and at the start
// of its last day (31 January 00:00 New York), and the alert that it
// expired unsent at the deadline itself: nothing a second before each,
// each at its instant, once, even with two runs at once, and none again.
func TestUnsentClaimRemindedOnceEach(t *testing.T) {
	onEachStore(t, func(t *testing.T, st store.Store) {
		desk, p, run := claimJob(t, st)
		if res := run("2026-12-01 07:00:00"); strings.Join(res.Claims, ",") != "us-example/2026-11" {
			t.Fatalf("drafted %v", res.Claims)
		}
		run("2027-01-01 07:00:00") // December's report, so later runs only remind
		for _, step := range []struct{ before, at, want string }{
			{"2027-01-24 23:59:59", "2027-01-25 00:00:00", "2026-11/us-example/7d"},
			{"2027-01-29 23:59:59", "2027-01-30 00:00:00", "2026-11/us-example/2d"},
			{"2027-01-30 23:59:59", "2027-01-31 00:00:00", "2026-11/us-example/day"},
		} {
			if res := run(step.before); len(res.Reminders)+len(res.ClaimAlerts) != 0 {
				t.Fatalf("at %s: %v %v", step.before, res.Reminders, res.ClaimAlerts)
			}
			n := len(p.texts)
			if got := runTwoAtOnce(t, run, step.at); got.reminders != step.want || got.alerts != "" {
				t.Fatalf("at %s: %+v, want %s", step.at, got, step.want)
			}
			if res := run(step.at); len(res.Reminders) != 0 || len(p.texts) != n+1 {
				t.Fatalf("at %s again: %v, %d posts", step.at, res.Reminders, len(p.texts)-n)
			}
		}
		if res := run("2027-01-31 23:59:59"); len(res.ClaimAlerts) != 0 {
			t.Fatalf("expired early: %v", res.ClaimAlerts)
		}
		n := len(p.texts)
		if got := runTwoAtOnce(t, run, "2027-02-01 00:00:00"); got.alerts != "us-example/2026-11 expired_unsent" || got.reminders != "" {
			t.Fatalf("at the deadline: %+v", got)
		}
		if res := run("2027-02-01 07:00:00"); len(res.ClaimAlerts) != 0 || len(p.texts) != n+1 {
			t.Fatalf("expired again: %v, %d posts", res.ClaimAlerts, len(p.texts)-n)
		}
		txt := p.texts[len(p.texts)-1]
		for _, want := range []string{"Claim deadline passed, never sent: November 2026", "Claim us-example/2026-11 (5,537.28 USD) is still a draft",
			"it had to be in before 2027-02-01 00:00:00 (", "gpusla claims sent us-example/2026-11"} {
			if !strings.Contains(txt, want) {
				t.Errorf("alert lacks %q:\n%s", want, txt)
			}
		}
		l, err := desk.Ledger()
		if err != nil {
			t.Fatal(err)
		}
		v, err := l.Claim(context.Background(), "us-example/2026-11")
		if err != nil || !v.Status.Expired {
			t.Fatalf("claim: %v %+v", err, v.Status)
		}
		var keys []string
		for _, n := range v.Notices {
			keys = append(keys, n.Key)
		}
		if strings.Join(keys, ",") != "reminder-7d,reminder-2d,reminder-day,expired_unsent" {
			t.Fatalf("the claim records %v", keys)
		}
	})
}

type twoRuns struct{ reminders, alerts string }

// runTwoAtOnce runs the job twice at once at at and joins what both sent.
func runTwoAtOnce(t *testing.T, run func(string) app.ReportRun, at string) twoRuns {
	t.Helper()
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		rem []string
		al  []string
	)
	for range 2 {
		wg.Go(func() {
			res := run(at)
			mu.Lock()
			defer mu.Unlock()
			rem = append(rem, res.Reminders...)
			al = append(al, res.ClaimAlerts...)
		})
	}
	wg.Wait()
	slices.Sort(rem)
	slices.Sort(al)
	return twoRuns{strings.Join(rem, ","), strings.Join(al, ",")}
}

// TestSentClaimRemindedOfNothing: November's claim, sent right after its
// 7-day reminder, gets none of the later reminders and never the expired
// alert.
func TestSentClaimRemindedOfNothing(t *testing.T) {
	onEachStore(t, func(t *testing.T, st store.Store) {
		desk, p, run := claimJob(t, st)
		run("2026-12-01 07:00:00")
		run("2027-01-01 07:00:00")
		if res := run("2027-01-25 00:00:00"); strings.Join(res.Reminders, ",") != "2026-11/us-example/7d" {
			t.Fatalf("7-day reminder: %v", res.Reminders)
		}
		l, err := desk.Ledger()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Send(context.Background(), "us-example/2026-11", claims.Sent{At: ny(t, "2027-01-25 00:00:00"), Via: "support_case", Reference: "case-9",
			Record: claims.Record{RecordedBy: "cli:ana"}}); err != nil {
			t.Fatal(err)
		}
		n := len(p.texts)
		for _, at := range []string{"2027-01-30 00:00:00", "2027-01-31 00:00:00", "2027-02-01 00:00:00", "2027-02-02 00:00:00"} {
			if res := run(at); len(res.Reminders)+len(res.ClaimAlerts) != 0 {
				t.Fatalf("at %s: %v %v", at, res.Reminders, res.ClaimAlerts)
			}
		}
		if len(p.texts) != n {
			t.Fatalf("%d posts after the claim was sent: %q", len(p.texts)-n, p.texts[n:])
		}
	})
}

// TestEndedDemoClaimRemindedOfNothing: once the built-in demo's node on
// the contract is released, the contract's draft gets no reminder and no
// expired alert.
func TestEndedDemoClaimRemindedOfNothing(t *testing.T) {
	ctx := context.Background()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	_, p, run := claimJob(t, st)
	run("2026-12-01 07:00:00")
	at := ny(t, "2027-01-02 09:00:00")
	if err := st.CreateNode(ctx, store.Node{ID: "demo-01", Provider: "Example GPU Cloud Inc.", Contract: "us-example", Demo: true, OrderedAt: at,
		GPUModel: "H200", GPUCount: 8, HeartbeatInterval: 30 * time.Second, PushInterval: time.Minute, Grace: time.Minute, CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ReleaseNode(ctx, "demo-01", store.Release{At: at.Add(time.Hour), RecordedAt: at.Add(time.Hour), By: "serve"}); err != nil {
		t.Fatal(err)
	}
	n := len(p.texts)
	for _, at := range []string{"2027-01-25 00:00:00", "2027-01-31 00:00:00", "2027-02-01 00:00:00"} {
		if res := run(at); len(res.Reminders)+len(res.ClaimAlerts) != 0 {
			t.Fatalf("at %s: %v %v", at, res.Reminders, res.ClaimAlerts)
		}
	}
	if len(p.texts) != n {
		t.Fatalf("%d posts on the ended demo's contract", len(p.texts)-n)
	}
}

// TestClaimExpiredInChinese: the expired alert of a zh contract is in
// Chinese by the house style, on the contract's clock (Beijing); the
// command it names is given as the renter types it.
func TestClaimExpiredInChinese(t *testing.T) {
	c := claims.Claim{ID: "cn-example/2026-03", Contract: "cn-example", Provider: "acme_gpu", Month: "2026-03", Currency: "CNY", Amount: 123456,
		TimeZone: "Asia/Shanghai", Deadline: time.Date(2026, 4, 30, 16, 0, 0, 0, time.UTC)}
	n := chantext.ClaimExpired(i18n.ZH, c)
	txt := n.PlainText()
	for _, want := range []string{"提交期限已过，仍未提交", "索赔cn-example/2026-03（", "仍是草稿", "须在2026年5月1日 00:00:00（北京时间）之前提交", "gpusla claims sent cn-example/2026-03"} {
		if !strings.Contains(txt, want) {
			t.Errorf("lacks %q:\n%s", want, txt)
		}
	}
	if !n.Urgent {
		t.Error("not urgent")
	}
	for _, f := range zhstyle.Check(txt, "gpusla claims sent cn-example/2026-03") {
		t.Errorf("in Chinese: %s", f)
	}
}
