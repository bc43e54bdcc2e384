package terms

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/incident"
)

const withCredits = minimal + `credits:
  clock: notice
  month_cap: 24h
  downtime:
    - {kinds: [unreachable], multiple: 10, round_up_to: 1h, incident_cap: 8h}
    - {kinds: [gpu_lost], multiple: 5, per: gpu}
`

func TestCreditsParse(t *testing.T) {
	ts, err := Parse("c.yaml", []byte(withCredits))
	if err != nil {
		t.Fatal(err)
	}
	c := ts[0].Credits
	if c.Clock != FromNotice || c.MonthCap != (Cap{Hours: 24 * time.Hour}) || len(c.Rules) != 2 {
		t.Fatalf("credits %+v", c)
	}
	r := c.Rules[0]
	if r.Multiple != 10 || r.RoundUp != time.Hour || r.IncidentCap != (Cap{Hours: 8 * time.Hour}) || r.Per != PerNode || !r.Covers(incident.Unreachable) || r.Covers(incident.GPULost) {
		t.Fatalf("rule 0 %+v", r)
	}
	if c.Rules[1].Per != PerGPU || c.Rules[1].RoundUp != 0 {
		t.Fatalf("rule 1 %+v", c.Rules[1])
	}
	// Rounding up, then the cap, both per incident.
	for _, x := range []struct{ in, want time.Duration }{{0, 0}, {time.Minute, time.Hour}, {time.Hour, time.Hour},
		{61 * time.Minute, 2 * time.Hour}, {7*time.Hour + time.Second, 8 * time.Hour}, {30 * time.Hour, 8 * time.Hour}} {
		if got := r.Hours(x.in); got != x.want {
			t.Errorf("Hours(%s) = %s, want %s", x.in, got, x.want)
		}
	}
	d, _ := Parse("d.yaml", []byte(minimal))
	if d[0].Credits.Clock != FromFailure || d[0].Credits.Rules != nil {
		t.Fatalf("default credits %+v", d[0].Credits)
	}
}

func TestCreditsErrors(t *testing.T) {
	cases := []errCase{
		{"bad clock", "clock: notice", "clock: sundial", 17, "credits.clock", "sundial"},
		{"kind not unavailable", "kinds: [gpu_lost]", "kinds: [gpu_degraded]", 21, "credits.downtime[1].kinds[0]", "not in uptime.unavailable"},
		{"unknown kind", "kinds: [gpu_lost]", "kinds: [gpu_sad]", 21, "credits.downtime[1].kinds[0]", "unknown incident kind"},
		{"kind in two rules", "kinds: [gpu_lost]", "kinds: [unreachable]", 21, "credits.downtime[1].kinds", "already credited"},
		{"zero multiple", "multiple: 5", "multiple: 0", 21, "credits.downtime[1].multiple", "above 0"},
		{"huge multiple", "multiple: 5", "multiple: 5000", 21, "credits.downtime[1].multiple", "at most 1000"},
		{"cap not multiple of rounding", "incident_cap: 8h", "incident_cap: 90m", 20, "credits.downtime[0].incident_cap", "not a multiple"},
		{"bad per", "per: gpu", "per: rack", 21, "credits.downtime[1].per", "rack"},
		{"negative cap", "month_cap: 24h", "month_cap: -1h", 18, "credits.month_cap", "negative"},
		{"unknown field", "per: gpu}", "per: gpu, bonus: 1}", 21, "credits.downtime[1].bonus", "unknown field"},
		{"bad claim from", "within_days: 30", "within_days: 30\n  from: tuesday", 14, "claim.from", "tuesday"},
	}
	checkErrors(t, withCredits, cases)
}

func TestClaimFromIncident(t *testing.T) {
	ts, err := Parse("c.yaml", []byte(strings.Replace(minimal, "within_days: 30", "within_days: 10\n  from: incident", 1)))
	if err != nil {
		t.Fatal(err)
	}
	c := ts[0].Claim
	monthEnd := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	first := time.Date(2026, 3, 3, 14, 5, 0, 0, time.UTC)
	if got := c.DeadlineFrom(monthEnd, time.UTC, first); !got.Equal(time.Date(2026, 3, 13, 14, 5, 0, 0, time.UTC)) {
		t.Fatalf("deadline %s", got)
	}
	if got := c.DeadlineFrom(monthEnd, time.UTC, time.Time{}); !got.Equal(time.Date(2026, 4, 11, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("no incident: %s", got)
	}
}

// "by the end of the second billing cycle after which the incident
// occurred": April's claim for an outage begun on 31 March is due with
// March's, before 1 June; one begun on 1 April before 1 July; none, the
// month's.
func TestClaimBillingCyclesFromIncident(t *testing.T) {
	ts, err := Parse("c.yaml", []byte(strings.Replace(minimal, "within_days: 30", "end_of_billing_cycle: 2\n  from: incident", 1)))
	if err != nil {
		t.Fatal(err)
	}
	c := ts[0].Claim
	aprilEnd := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ first, want time.Time }{
		{time.Date(2026, 3, 31, 23, 0, 0, 0, time.UTC), time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)},
		{time.Time{}, time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if got := c.DeadlineFrom(aprilEnd, time.UTC, tc.first); !got.Equal(tc.want) {
			t.Errorf("incident %s: deadline %s, want %s", tc.first, got, tc.want)
		}
	}
}

// "Minutes × 1.5, rounded up to the hour" rounds the credit, not the
// downtime: 20 minutes earn 30 minutes → 1 h, not 1.5 × 1 h.
func TestRoundCredit(t *testing.T) {
	src := strings.Replace(withCredits, "multiple: 10, round_up_to: 1h, incident_cap: 8h", "multiple: 1.5, round_up_to: 1h, round: credit", 1)
	ts, err := Parse("c.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r := ts[0].Credits.Rules[0]
	for _, x := range []struct {
		d    time.Duration
		want float64
	}{{20 * time.Minute, 1}, {40 * time.Minute, 1}, {41 * time.Minute, 2}, {2 * time.Hour, 3}} {
		if got := r.CreditHours(r.Hours(x.d)); got != x.want {
			t.Errorf("%s: %v h, want %v", x.d, got, x.want)
		}
	}
	plain := ts[0].Credits.Rules[1]
	if got := plain.CreditHours(plain.Hours(12 * time.Minute)); got != 1 {
		t.Errorf("5 × 12 min = %v h", got)
	}
	if _, err := Parse("c.yaml", []byte(strings.Replace(withCredits, "multiple: 5, per: gpu", "multiple: 5, round: credit", 1))); err == nil || !strings.Contains(err.Error(), "needs round_up_to") {
		t.Fatalf("round: credit without round_up_to: %v", err)
	}
}
