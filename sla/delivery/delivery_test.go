package delivery

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

func gpu(i int) *int { return &i }

func TestAccepted(t *testing.T) {
	model := func(v string, g int) events.Check {
		return events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: v, GPU: gpu(g)}
	}
	order := func(v string) events.Check {
		return events.Check{Name: "gpu.order.model", Category: events.CategoryInventory, Verdict: v, GPU: gpu(0)}
	}
	temp := func(v string) events.Check {
		return events.Check{Name: "gpu.temperature", Category: events.CategoryGPUDegraded, Verdict: v, GPU: gpu(0)}
	}
	cases := []struct {
		name   string
		checks []events.Check
		want   bool
	}{
		{"the ordered card, healthy", []events.Check{model("pass", 0), model("pass", 1), order("pass"), temp("pass")}, true},
		{"a warning does not fail it", []events.Check{model("warn", 0), order("warn"), temp("warn")}, true},
		{"the wrong card", []events.Check{model("pass", 0), order("fail"), temp("pass")}, false},
		{"a relabelled card", []events.Check{model("fail", 0), order("pass")}, false},
		{"one GPU unidentified", []events.Check{model("pass", 0), model("skipped", 1), order("pass")}, false},
		{"any failing check", []events.Check{model("pass", 0), order("pass"), temp("fail")}, false},
		{"no GPU checks: a network result", []events.Check{{Name: "net.gateway.reach", Category: events.CategoryConnectivity, Verdict: "pass"}}, false},
		{"host checks only", []events.Check{{Name: "host.memory", Category: events.CategoryInventory, Verdict: "pass"}}, false},
		{"nothing", nil, false},
	}
	for _, c := range cases {
		if got := Accepted(c.checks, Order{}); got != c.want {
			t.Errorf("%s: Accepted = %v, want %v", c.name, got, c.want)
		}
	}
}

// Judge's boundaries, worked by hand: ordered 10:00, target 48 h, so due at
// 10:00 two days later; delivered exactly then is met, a second later is
// breached by a second; not delivered, it is pending up to and at the due
// instant and breached after it.
func TestJudge(t *testing.T) {
	ordered := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	due := ordered.Add(48 * time.Hour)
	d := terms.Delivery{Within: 48 * time.Hour}
	cases := []struct {
		name          string
		delivered, at time.Time
		status        string
		took, late    time.Duration
	}{
		{"delivered early", ordered.Add(3 * time.Hour), due.Add(time.Hour), ticket.Met, 3 * time.Hour, 0},
		{"delivered at the due instant", due, due.Add(time.Hour), ticket.Met, 48 * time.Hour, 0},
		{"delivered a second late", due.Add(time.Second), due.Add(time.Hour), ticket.Breached, 48*time.Hour + time.Second, time.Second},
		{"delivered 3h20m late", due.Add(3*time.Hour + 20*time.Minute), due.Add(100 * time.Hour), ticket.Breached, 51*time.Hour + 20*time.Minute, 3*time.Hour + 20*time.Minute},
		{"not yet, before due", time.Time{}, due.Add(-time.Minute), ticket.Pending, 48*time.Hour - time.Minute, 0},
		{"not yet, at due", time.Time{}, due, ticket.Pending, 48 * time.Hour, 0},
		{"not yet, past due", time.Time{}, due.Add(90 * time.Minute), ticket.Breached, 49*time.Hour + 30*time.Minute, 90 * time.Minute},
		{"heartbeat before the order", ordered.Add(-time.Hour), due, ticket.Met, 0, 0},
	}
	for _, c := range cases {
		v := Judge(d, ordered, c.delivered, c.at)
		if v.Status != c.status || v.Took != c.took || v.Late != c.late || !v.Due.Equal(due) {
			t.Errorf("%s: got %+v, want status %s took %s late %s due %s", c.name, v, c.status, c.took, c.late, due)
		}
	}
	if v := Judge(terms.Delivery{}, ordered, time.Time{}, due.Add(time.Hour)); v.Status != NoTarget || v.Late != 0 || !v.Due.IsZero() {
		t.Errorf("no target: %+v", v)
	}
}

func TestInstant(t *testing.T) {
	hb, acc := time.Unix(100, 0), time.Unix(900, 0)
	if got := Instant(terms.Delivery{CountsUntil: terms.UntilFirstHeartbeat}, hb, acc); !got.Equal(hb) {
		t.Errorf("first_heartbeat: %v", got)
	}
	if got := Instant(terms.Delivery{}, hb, acc); !got.Equal(hb) {
		t.Errorf("unset (first_heartbeat): %v", got)
	}
	if got := Instant(terms.Delivery{CountsUntil: terms.UntilAcceptancePassed}, hb, time.Time{}); !got.IsZero() {
		t.Errorf("acceptance_passed, none yet: %v", got)
	}
	if got := Instant(terms.Delivery{CountsUntil: terms.UntilAcceptancePassed}, hb, acc); !got.Equal(acc) {
		t.Errorf("acceptance_passed: %v", got)
	}
}
