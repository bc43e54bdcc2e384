package app_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// TestReportJobFollowsTheClaim: November's ten-hour outage on the US
// contract, its provider given "answer within 30 days" and "credit within
// one billing cycle following the month of the request". The job drafts
// the claim from the sealed report once; sent 3 December, the answer is
// due before 3 January 00:00 New York (the 30th day after is 2 January),
// alerted once at that instant; answered late with a partial grant on 5
// January, the credit is due on a bill for January (before 1 February:
// one billing cycle following December, the month of the request),
// alerted when it passes; the February bill's credit is matched and late.
func TestReportJobFollowsTheClaim(t *testing.T) {
	ctx := context.Background()
	st, desk, clock := reportDeskClock(t)
	tenHourOutage(t, st)
	us := desk.Terms()["us-example"]
	us.Claim.AnswerWithin = terms.Within{Days: 30, From: terms.WithinFromSent}
	us.Claim.CreditWithin = terms.Within{BillingCycles: 1, From: terms.WithinFromSent}
	blobs, err := blob.NewDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Two channels, Feishu failing once: each gets every alert once.
	p, feishu := &poster{}, &poster{}
	job := &app.ReportJob{Desk: desk, Blobs: blobs, Notices: namedChannels{"slack": p, "feishu": feishu}, Renderer: bundle.Renderer{},
		Delay: 6 * time.Hour, TempDir: t.TempDir(), ScorecardMonths: 3, Log: slog.New(slog.DiscardHandler)}
	run := func(at string) app.ReportRun {
		t.Helper()
		clock.Set(ny(t, at))
		res, err := job.Run(ctx, ny(t, at))
		if err != nil {
			t.Fatalf("run at %s: %v", at, err)
		}
		return res
	}
	if res := run("2026-12-01 07:00:00"); strings.Join(res.Claims, ",") != "us-example/2026-11" {
		t.Fatalf("drafted %v", res.Claims)
	}
	if res := run("2026-12-01 08:00:00"); len(res.Claims) != 0 {
		t.Fatalf("drafted again: %v", res.Claims)
	}
	l, err := desk.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	v, err := l.Claim(ctx, "us-example/2026-11")
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := blobs.Get(ctx, "2026-11/us-example/report.json")
	head, _ := blobs.Get(ctx, "2026-11/us-example/chain-head.txt")
	if v.Currency != "USD" || v.Amount <= 0 || !strings.Contains(string(rep), `"claim": `+v.Amount.String()) || v.Seal.ChainHead != strings.TrimSpace(string(head)) ||
		v.Drafted.RecordedBy != app.ReportJobBy || !v.Deadline.Equal(ny(t, "2027-02-01 00:00:00")) || v.Status.State != claims.StateDrafted ||
		v.Lines != 1 { // one node's month percentage: one credit line, a cent of rounding allowed
		t.Fatalf("drafted claim %+v (chain head %s)", v, head)
	}
	amount := v.Amount

	clock.Set(ny(t, "2026-12-03 11:00:00"))
	if _, err := l.Send(ctx, v.ID, claims.Sent{At: ny(t, "2026-12-03 10:00:00"), Via: "support_case", Reference: "case-88", Record: claims.Record{RecordedBy: "cli:ana"}}); err != nil {
		t.Fatal(err)
	}
	if res := run("2027-01-02 23:59:00"); len(res.ClaimAlerts) != 0 {
		t.Fatalf("alert before the answer deadline: %v", res.ClaimAlerts)
	}
	// December's report, generated on 1 January, keeps the scorecard of
	// October to December beside it: November's claim, sent and not
	// answered, is claimed and outstanding there and in the report's
	// scorecard section.
	scj, err := blobs.Get(ctx, app.ScorecardFile("2026-12", "us-example", "json"))
	if err != nil {
		t.Fatal(err)
	}
	want := `"quarter": "2026-Q4",
            "currency": "USD",
            "claims": 1,
            "unsent": 0,
            "drafted": 0.00,
            "claimed": ` + amount.String()
	if !strings.Contains(string(scj), want) || !strings.Contains(string(scj), `"outstanding": `+amount.String()) {
		t.Fatalf("the stored scorecard lacks the claim:\n%s", scj)
	}
	if md, _ := blobs.Get(ctx, "2026-12/us-example/report.md"); !strings.Contains(string(md), "Example GPU Cloud Inc.: what its claims recovered") {
		t.Fatalf("December's report lacks the recovery table:\n%s", md)
	}
	// Feishu refuses the first time: Slack has it, Feishu gets it on the
	// next run, and neither twice.
	feishu.fail = errors.New("feishu: 9499 too many requests")
	clock.Set(ny(t, "2027-01-03 00:00:00"))
	res, err := job.Run(ctx, ny(t, "2027-01-03 00:00:00"))
	if err == nil || !strings.Contains(err.Error(), `answer_overdue: channel "feishu": feishu: 9499`) || strings.Join(res.ClaimAlerts, ",") != "us-example/2026-11 answer_overdue" {
		t.Fatalf("answer alert with Feishu down: %v %v", res.ClaimAlerts, err)
	}
	feishu.fail = nil
	if res := run("2027-01-03 01:00:00"); strings.Join(res.ClaimAlerts, ",") != "us-example/2026-11 answer_overdue" || len(p.texts) != 1 || len(feishu.texts) != 1 {
		t.Fatalf("Feishu's retry: %v, %d and %d alerts", res.ClaimAlerts, len(p.texts), len(feishu.texts))
	}
	if res := run("2027-01-03 02:00:00"); len(res.ClaimAlerts) != 0 {
		t.Fatalf("alerted twice: %v", res.ClaimAlerts)
	}
	txt := p.texts[len(p.texts)-1]
	for _, want := range []string{"us-example/2026-11", "has not answered claim us-example/2026-11 (5,537.28 USD) by its own deadline, 2027-01-03 00:00:00 (",
		"Sent 2026-12-03 10:00:00 (", "by support case (case case-88).", "gpusla claims letter us-example/2026-11"} {
		if !strings.Contains(txt, want) {
			t.Errorf("alert lacks %q:\n%s", want, txt)
		}
	}
	// The follow-up letter is ready with the alert: attached, and kept
	// beside November's report, citing the claim, the day it was sent and
	// the clause that set the deadline.
	kept, err := blobs.Get(ctx, "2026-11/us-example/follow-up-answer_overdue.txt")
	if err != nil || !strings.Contains(txt, "The follow-up letter is ready: 2026-11/us-example/follow-up-answer_overdue.txt") {
		t.Fatalf("the letter is not kept (%v) or not named:\n%s", err, txt)
	}
	if len(p.letters) != 1 || p.letters[0] == nil || !bytes.Equal(p.letters[0].Data, kept) || p.letters[0].Name != "follow-up-us-example-2026-11.txt" {
		t.Fatalf("the alert does not carry the letter: %+v", p.letters)
	}
	for _, want := range []string{"Subject: follow-up to our SLA credit claim us-example/2026-11 for November 2026",
		"On 2026-12-03 we sent you, by support case, your reference case-88, our claim for a service credit of 5,537.28 USD for November 2026",
		"Your terms give you until 2027-01-03 00:00:00", "We have received no answer."} {
		if !strings.Contains(string(kept), want) {
			t.Errorf("the letter lacks %q:\n%s", want, kept)
		}
	}
	if v, _ := l.Claim(ctx, "us-example/2026-11"); len(v.Notices) != 1 || !v.Notices[0].SentAt.Equal(ny(t, "2027-01-03 00:00:00")) {
		t.Fatalf("the claim does not record its alert: %+v", v.Notices)
	}

	clock.Set(ny(t, "2027-01-05 12:00:00"))
	half := amount / 2
	v, err = l.Answer(ctx, v.ID, claims.AnswerIn{Answer: claims.Answer{At: ny(t, "2027-01-05 09:00:00"), Outcome: claims.Partial, Granted: half,
		Reason: "maintenance hours excluded", Reference: "case-88", Record: claims.Record{RecordedBy: "cli:ana"}}, HasGranted: true, Currency: "USD"})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Status.AnswerLate || v.Status.Outstanding != half || !v.Status.CreditDue.Equal(ny(t, "2027-02-01 00:00:00")) {
		t.Fatalf("after the late answer: %+v", v.Status)
	}
	if res := run("2027-01-31 23:59:00"); len(res.ClaimAlerts) != 0 {
		t.Fatalf("credit alert early: %v", res.ClaimAlerts)
	}
	if res := run("2027-02-01 00:00:00"); strings.Join(res.ClaimAlerts, ",") != "us-example/2026-11 credit_overdue" {
		t.Fatalf("credit alert: %v", res.ClaimAlerts)
	}
	if txt := p.texts[len(p.texts)-1]; !strings.Contains(txt, "2,768.64 USD of claim us-example/2026-11 (5,537.28 USD) is not on the bills recorded so far") ||
		!strings.Contains(txt, "a credit in time is on a bill for January 2027 at the latest") {
		t.Fatalf("credit alert text:\n%s", txt)
	}

	// The February bill: its credit matches by amount and period, late.
	clock.Set(ny(t, "2027-03-04 09:00:00"))
	b := claims.BillCredit{Bill: "bill-2027-02.csv", Lines: []int{7}, Period: "2027-02", Amount: half, Currency: "USD", Contracts: []string{"us-example"}}
	b.Key = claims.CreditKey(b.Period, b.Currency, b.Amount, "", "", b.Lines)
	out, err := l.ImportCredits(ctx, []claims.BillCredit{b}, "cli:ana")
	if err != nil || len(out) != 1 || out[0].Outcome != "applied" || out[0].Claim != v.ID || out[0].MatchedBy != claims.ByAmountPeriod {
		t.Fatalf("import: %v %+v", err, out)
	}
	again, err := l.ImportCredits(ctx, []claims.BillCredit{b}, "cli:ana")
	if err != nil || again[0].Outcome != "already_applied" {
		t.Fatalf("the same bill again: %v %+v", err, again)
	}
	v, _ = l.Claim(ctx, v.ID)
	if v.Status.State != claims.StateCredited || v.Status.Outstanding != 0 || len(v.Credits) != 1 || len(v.Status.LateCredits) != 1 ||
		v.Credits[0].RecordedBy != "cli:ana" || !v.Credits[0].RecordedAt.Equal(ny(t, "2027-03-04 09:00:00")) {
		t.Fatalf("credited: %+v %+v", v.Status, v.Credits)
	}
	rec, err := l.Recovery(ctx)
	if err != nil || len(rec.Rows) != 1 || rec.Rows[0].Quarter != "2026-Q4" || rec.Rows[0].Received != half || rec.Rows[0].SharePercent != claims.Share(half, amount) {
		t.Fatalf("recovery: %v %+v", err, rec)
	}
}

// TestProvisionalMonthDraftsNoClaim: a report of a month not over (as of
// before its end, or marked provisional) drafts nothing, and says why.
func TestProvisionalMonthDraftsNoClaim(t *testing.T) {
	_, desk, _ := reportDeskClock(t)
	l, err := desk.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	c := report.Contract{Contract: "us-example", Provider: "Example GPU Cloud Inc.", Currency: "USD", TimeZone: "America/New_York",
		MonthEnd: "2026-12-01T05:00:00Z", Claim: 100, ClaimDeadline: "2027-02-01T05:00:00Z", Lang: "en"}
	seal := &report.Seal{ObservationsSHA256: "aa", ChainHead: "bb"}
	for name, r := range map[string]*report.Report{
		"as of before the month's end": {Month: "2026-11", AsOf: "2026-12-01T04:59:59Z", Seal: seal, Contracts: []report.Contract{c}},
		"marked provisional":           {Month: "2026-11", AsOf: "2026-12-01T06:00:00Z", Seal: seal, Contracts: []report.Contract{func() report.Contract { p := c; p.Provisional = true; return p }()}},
	} {
		if _, err := l.Draft(t.Context(), r, "cli:ana"); err == nil || app.ErrorField(err) != "month" || !strings.Contains(err.Error(), "provisional") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if vs, _ := l.Claims(t.Context()); len(vs) != 0 {
		t.Fatalf("drafted %v", vs)
	}
}

// TestMixedReportDraftsTheFinishedContract: a report as of 30 November
// 22:00 UTC (06:00 on 1 December in Beijing) holds a contract whose
// November is over (Asia/Shanghai: ended 30 November 16:00 UTC) and one
// whose November is not (New York: ends 1 December 05:00 UTC). The finished contract's
// claim is drafted, the other is said provisional and drafted nothing;
// drafting it again from the finished month's report drafts it.
func TestMixedReportDraftsTheFinishedContract(t *testing.T) {
	_, desk, _ := reportDeskClock(t)
	l, err := desk.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	seal := &report.Seal{ObservationsSHA256: "aa", ChainHead: "bb"}
	cn := report.Contract{Contract: "cn-example", Provider: "示例算力云", Currency: "CNY", TimeZone: "Asia/Shanghai",
		MonthEnd: "2026-11-30T16:00:00Z", Claim: 2057.20, ClaimDeadline: "2026-12-30T16:00:00Z", Lang: "zh"}
	us := report.Contract{Contract: "us-example", Provider: "Example GPU Cloud Inc.", Currency: "USD", TimeZone: "America/New_York",
		MonthEnd: "2026-12-01T05:00:00Z", Claim: 100, ClaimDeadline: "2027-02-01T05:00:00Z", Lang: "en", Provisional: true}
	r := &report.Report{Month: "2026-11", AsOf: "2026-11-30T22:00:00Z", Seal: seal, Provisional: true, Contracts: []report.Contract{cn, us}}
	ds, err := l.Draft(t.Context(), r, "cli:ana")
	if err != nil || len(ds) != 2 {
		t.Fatalf("mixed report: %+v %v", ds, err)
	}
	got := map[string]string{}
	for _, d := range ds {
		got[d.Claim] = d.Outcome
	}
	if got["cn-example/2026-11"] != "drafted" || got["us-example/2026-11"] != "provisional" {
		t.Fatalf("mixed report: %v", got)
	}
	// The report job stores and drafts each contract's part: cn-example's
	// is final, us-example's provisional.
	if p := app.ContractReport(r, "cn-example"); p.Provisional || len(p.Contracts) != 1 {
		t.Errorf("cn-example's part: provisional %v, contracts %+v", p.Provisional, p.Contracts)
	}
	if p := app.ContractReport(r, "us-example"); !p.Provisional {
		t.Errorf("us-example's part is not provisional")
	}
	if p := app.ContractReport(r, "gpuhub"); !p.Provisional || len(p.Contracts) != 0 {
		t.Errorf("a contract the report does not hold keeps the report's flag: %+v", p)
	}
	vs, _ := l.Claims(t.Context())
	if len(vs) != 1 || vs[0].ID != "cn-example/2026-11" || vs[0].Amount.String() != "2057.20" {
		t.Fatalf("ledger after the mixed report: %+v", vs)
	}
	final := &report.Report{Month: "2026-11", AsOf: "2026-12-01T11:00:00Z", Seal: seal, Contracts: []report.Contract{cn, func() report.Contract { u := us; u.Provisional = false; return u }()}}
	if ds, err := l.Draft(t.Context(), final, "cli:ana"); err != nil || len(ds) != 2 {
		t.Fatalf("finished report: %+v %v", ds, err)
	}
	if vs, _ := l.Claims(t.Context()); len(vs) != 2 {
		t.Fatalf("ledger after the finished report: %d claims", len(vs))
	}
}

// draftNovember drafts the US contract's November claim of 100.00 USD from
// a sealed, finished report, as the report job would.
func draftNovember(t *testing.T, l *app.Ledger) string {
	t.Helper()
	c := report.Contract{Contract: "us-example", Provider: "Example GPU Cloud Inc.", Currency: "USD", TimeZone: "America/New_York",
		MonthEnd: "2026-12-01T05:00:00Z", Claim: 100, ClaimDeadline: "2027-02-01T05:00:00Z", Lang: "en"}
	r := &report.Report{Month: "2026-11", AsOf: "2026-12-01T11:00:00Z", Seal: &report.Seal{ObservationsSHA256: "aa", ChainHead: "bb"}, Contracts: []report.Contract{c}}
	ds, err := l.Draft(t.Context(), r, "cli:ana")
	if err != nil || len(ds) != 1 || ds[0].Outcome != "drafted" {
		t.Fatalf("draft: %v %+v", err, ds)
	}
	return ds[0].Claim
}

// TestSentDefaultsToTheContractsChannel: a claim recorded as sent without
// saying how was sent the way the contract's text says claims are filed
// (claim.channel); a contract naming none needs the way said.
func TestSentDefaultsToTheContractsChannel(t *testing.T) {
	_, desk, clock := reportDeskClock(t)
	clock.Set(ny(t, "2026-12-03 11:00:00"))
	l, err := desk.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	id := draftNovember(t, l)
	sent := claims.Sent{At: ny(t, "2026-12-03 10:00:00"), Reference: "case-88", Record: claims.Record{RecordedBy: "cli:ana"}}
	if _, err := l.Send(t.Context(), id, sent); err == nil || app.ErrorField(err) != "via" || err.Error() != "via: missing: say how the claim was sent (support_case, ticket, email, web_form, letter); the contract's terms name no claim.channel" {
		t.Fatalf("no channel in the terms, none given: %v", err)
	}
	desk.Terms()["us-example"].Claim.Procedure.Channel = terms.Ticket
	v, err := l.Send(t.Context(), id, sent)
	if err != nil || v.Sent.Via != "ticket" || v.Sent.RecordedBy != "cli:ana" || !v.Sent.RecordedAt.Equal(ny(t, "2026-12-03 11:00:00")) {
		t.Fatalf("sent by the contract's channel: %v %+v", err, v.Sent)
	}
}
