package statuspage

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/terms"
)

// The team view says each node's delivery as the report judges it: when,
// how long after the order, against the contract's target; not delivered
// yet, with the due time and how overdue; under acceptance_passed the
// first passing acceptance check, not the first heartbeat. The public view
// says none of it.
func TestDeliveryText(t *testing.T) {
	sh, _ := time.LoadLocation("Asia/Shanghai")
	ordered := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC) // 09:00 in Shanghai
	now := ordered.Add(3 * time.Hour)
	within := func(d time.Duration, until terms.DeliveryEnd) *terms.Terms {
		return &terms.Terms{Delivery: terms.Delivery{Within: d, CountsUntil: until}}
	}
	first, accepted := ordered.Add(20*time.Minute), ordered.Add(50*time.Minute)
	for _, c := range []struct {
		name string
		tm   *terms.Terms
		st   store.NodeState
		want string
	}{
		{"met", within(30*time.Minute, terms.UntilFirstHeartbeat), store.NodeState{FirstHeartbeatAt: first},
			"delivered 2026-11-30 09:20:00 +08:00 Asia/Shanghai, 20m after the order (target 30m): met"},
		{"breached by the acceptance check", within(30*time.Minute, terms.UntilAcceptancePassed),
			store.NodeState{FirstHeartbeatAt: first, AcceptedAt: accepted, AcceptanceKnown: true, AcceptanceHeld: true},
			"delivered 2026-11-30 09:50:00 +08:00 Asia/Shanghai, 50m after the order (target 30m): breached"},
		// Recorded before acceptance was held to the registration: maybe
		// of cards never ordered, not said until judged again.
		{"an acceptance from before it was held to the registration", within(30*time.Minute, terms.UntilAcceptancePassed),
			store.NodeState{FirstHeartbeatAt: first, AcceptedAt: accepted, AcceptanceKnown: true}, ""},
		{"heard but not accepted", within(2*time.Hour, terms.UntilAcceptancePassed), store.NodeState{FirstHeartbeatAt: first, AcceptanceKnown: true},
			"not delivered: ordered 2026-11-30 09:00:00 +08:00 Asia/Shanghai, due 2026-11-30 11:00:00 +08:00 Asia/Shanghai, overdue by 1h"},
		{"awaited, not due yet", within(4*time.Hour, terms.UntilFirstHeartbeat), store.NodeState{},
			"not delivered: ordered 2026-11-30 09:00:00 +08:00 Asia/Shanghai, due 2026-11-30 13:00:00 +08:00 Asia/Shanghai"},
		{"no target", within(0, terms.UntilFirstHeartbeat), store.NodeState{FirstHeartbeatAt: first},
			"delivered 2026-11-30 09:20:00 +08:00 Asia/Shanghai, 20m after the order"},
		{"a state from before acceptance was recorded", within(30*time.Minute, terms.UntilAcceptancePassed), store.NodeState{FirstHeartbeatAt: first}, ""},
	} {
		nd := &node{n: store.Node{ID: "n", OrderedAt: ordered}, tm: c.tm, loc: sh}
		if got := deliveryText(i18n.New(i18n.EN), nd, &c.st, now); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	if got := deliveryText(i18n.New(i18n.ZH), &node{n: store.Node{OrderedAt: ordered}, tm: within(30*time.Minute, ""), loc: sh},
		&store.NodeState{FirstHeartbeatAt: first}, now); !strings.HasPrefix(got, "交付于2026年") || !strings.HasSuffix(got, "：达标") {
		t.Errorf("in Chinese: %q", got)
	}

	f := seeded(t)
	for _, mode := range []Mode{Private, Public} {
		p, err := f.h.Build(context.Background(), Request{Mode: mode, Lang: i18n.EN})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range p.Nodes {
			if mode == Public && n.Delivery != "" {
				t.Errorf("the public view shows %s's delivery: %q", n.Node, n.Delivery)
			}
			// Ordered four months before, first heard 60 days before: far
			// past cn-example's 30 minutes.
			if mode == Private && n.Node == "sh-a100-01" && !strings.HasSuffix(n.Delivery, "(target 30m): breached") {
				t.Errorf("the team view's delivery of sh-a100-01: %q", n.Delivery)
			}
		}
	}
}
