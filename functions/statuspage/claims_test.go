package statuspage

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/terms"
)

// seedClaims drafts October's claim on the US contract (Acme Metal,
// 1,234.56 USD), sent 3 November and granted 1,000.00 on 10 November, its
// provider given "credit within one billing cycle following the month of
// the request": a bill for December at the latest, due before 1 January.
func seedClaims(t *testing.T, desk *app.TicketDesk) *app.Ledger {
	t.Helper()
	desk.Terms()["us-example"].Claim.CreditWithin = terms.Within{BillingCycles: 1, From: terms.WithinFromSent}
	l, err := desk.Ledger()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	r := &report.Report{Month: "2026-10", AsOf: "2026-11-01T10:00:00Z", Seal: &report.Seal{ObservationsSHA256: "9f2c", ChainHead: "a1b2"},
		Contracts: []report.Contract{{Contract: "us-example", Provider: "Acme Metal", Currency: "USD", TimeZone: "America/New_York",
			MonthEnd: "2026-11-01T04:00:00Z", Claim: 1234.56, ClaimDeadline: "2027-01-01T05:00:00Z", Lang: "en"}}}
	if _, err := l.Draft(ctx, r, "report-job"); err != nil {
		t.Fatal(err)
	}
	id := "us-example/2026-10"
	if _, err := l.Send(ctx, id, claims.Sent{At: mustTime("2026-11-03T14:00:00Z"), Via: "support_case", Reference: "CASE-170001"}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Answer(ctx, id, claims.AnswerIn{Answer: claims.Answer{At: mustTime("2026-11-10T15:00:00Z"), Outcome: claims.Partial, Granted: 100000},
		HasGranted: true}); err != nil {
		t.Fatal(err)
	}
	return l
}

// The team view lists the ledger with what is owed and when, and what was
// recovered; the public view says it is for the team and shows nothing of it.
func TestClaimsSection(t *testing.T) {
	f := seeded(t)
	rec := get(t, f.h, PathJSON, "Bearer "+token)
	var p Page
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Claims == nil || len(p.Claims.Rows) != 1 || len(p.Claims.Recovery) != 1 {
		t.Fatalf("team view: %v %s", err, rec.Body)
	}
	row := p.Claims.Rows[0]
	want := ClaimRow{ID: "us-example/2026-10", Provider: "Acme Metal", Month: "October 2026", Amount: "1,234.56 USD", State: "granted",
		Sent: "2026-11-03 via support case", AnswerDue: "—", Granted: "1,000.00 USD", Received: "0.00 USD", Outstanding: "1,000.00 USD",
		CreditDue: "2027-01-01", Flags: []string{}}
	if strings.Join(row.Flags, ",") != "" || row.ID != want.ID || row.Amount != want.Amount || row.Sent != want.Sent || row.Outstanding != want.Outstanding ||
		row.CreditDue != want.CreditDue || row.State != want.State || row.Month != want.Month || row.Overdue {
		t.Fatalf("row:\n got %+v\nwant %+v", row, want)
	}
	if r := p.Claims.Recovery[0]; r.Quarter != "2026-Q4" || r.Claimed != "1,234.56 USD" || r.Refused != "234.56 USD" || r.Share != "0.0 %" {
		t.Fatalf("recovery %+v", r)
	}
	html := get(t, f.h, PathStatus+"?lang=zh", "Bearer "+token).Body.String()
	for _, s := range []string{`<section id="claims">`, `data-claim="us-example/2026-10"`, "2026年11月3日，通过支持工单", "待赔付", "各服务商每季度回收情况"} {
		if !strings.Contains(html, s) {
			t.Errorf("zh team view lacks %q", s)
		}
	}
	pub := get(t, f.h, PathStatus, "").Body.String()
	if !strings.Contains(pub, "Claims are shown on the team view only.") || strings.Contains(pub, "us-example/2026-10") || strings.Contains(pub, "CASE-170001") {
		t.Fatalf("public view shows the ledger:\n%s", pub)
	}
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
