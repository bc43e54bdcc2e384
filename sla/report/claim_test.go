package report

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/terms"
)

// letterTerms is a UTC contract whose 99.9 % target has a tier only below
// 99 %: a month between the two is a breach that earns no credit.
func letterTerms(t *testing.T, claimExtra string) []*terms.Terms {
	t.Helper()
	tms, err := terms.Parse("letter.yaml", []byte(`contract: letter
provider: P
currency: USD
timezone: UTC
business_hours: {monday: "00:00-24:00"}
uptime:
  target: 99.9
  unavailable: [unreachable]
  tiers:
    - {min: 0, max: 99, credit: 10}
claim:
  within_days: 30
`+claimExtra+`billing:
  price_per_gpu_hour: 1
  starts_at: delivery
`))
	if err != nil {
		t.Fatal(err)
	}
	return tms
}

// The claim letter follows the month: March has 44 640 minutes. Down 60
// minutes: 99.8656 %, below 99.9 % but above the only tier: a breach, no
// credit — a notice of breach, or no letter where the renter chose so
// (claim.without_credit: nothing); never a request for 0.00. Down 500
// minutes: 98.8799 %, the 10 % tier: a request. Down 40 minutes: 99.9104 %,
// met: no letter.
func TestLetterFollowsTheBreach(t *testing.T) {
	for _, c := range []struct {
		name, extra string
		down        time.Duration
		letter      string
		breach      bool
	}{
		{"breach without credit", "", time.Hour, LetterNotice, true},
		{"renter chose no letter", "  without_credit: nothing\n", time.Hour, LetterNone, true},
		{"credit owed", "", 500 * time.Minute, LetterRequest, true},
		{"met", "", 40 * time.Minute, LetterNone, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			from := time.Date(2026, 3, 10, 10, 0, 0, 0, time.UTC)
			sc := scenario{name: c.name, month: time.March, asOf: time.Date(2026, 4, 2, 12, 0, 0, 0, time.UTC), build: func(l *log) {
				l.Register("n1", "letter", time.Date(2026, 2, 27, 0, 0, 0, 0, time.UTC), 1)
				// The last heartbeat at 10:00, the next due 10:01: down from
				// 10:01 for c.down.
				l.Heartbeats("n1", time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC), from, from.Add(c.down+time.Minute))
			}}
			r := run(t, sc, letterTerms(t, c.extra), false)
			n := node(t, r, "n1")
			eq(t, "counted", n.Uptime.ClaimableOutageSeconds, int64(c.down/time.Second))
			eq(t, "breach", n.Breach, c.breach)
			eq(t, "letter", r.Contracts[0].Letter, c.letter)
			if c.letter != LetterRequest && r.Contracts[0].Claim != 0 {
				t.Errorf("claim %v without a request", r.Contracts[0].Claim)
			}
		})
	}
}

// The claim procedure travels in the JSON, with the first day a claim may
// be filed: Tencent's "次月的第五（5）个工作日后" for March 2026 in UTC is after
// Tuesday 7 April, from 8 April 00:00.
func TestClaimProcedureInReport(t *testing.T) {
	extra := "  channel: ticket\n  subject: \"SLA Credit Request\"\n  include: [incident_times, instance_ids, logs]\n  opens_after_working_days: 5\n"
	sc := scenario{name: "procedure", month: time.March, asOf: time.Date(2026, 4, 2, 12, 0, 0, 0, time.UTC), build: func(l *log) {
		l.Register("n1", "letter", time.Date(2026, 2, 27, 0, 0, 0, 0, time.UTC), 1)
		l.Heartbeats("n1", time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC))
	}}
	r := run(t, sc, letterTerms(t, extra), true)
	c := r.Contracts[0]
	if c.Procedure == nil || c.Procedure.Channel != "ticket" || c.Procedure.Subject != "SLA Credit Request" ||
		strings.Join(c.Procedure.Include, ",") != "incident_times,instance_ids,logs" || c.Procedure.WithoutCredit != "notice" {
		t.Fatalf("procedure %+v", c.Procedure)
	}
	eq(t, "claim opens", c.ClaimOpens, "2026-04-08T00:00:00Z")
}
