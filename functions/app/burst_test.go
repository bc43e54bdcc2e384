package app_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/dingtalk"
	"github.com/gpusla/gpusla/infra/feishu"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/notifytest"
	"github.com/gpusla/gpusla/infra/notify/robot"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/wecom"
	"github.com/gpusla/gpusla/internal/waitfor"
)

// robotChannels routes every message to all of its robots.
type robotChannels map[string]notify.Notifier

func (c robotChannels) names() []string                                      { return slices.Sorted(maps.Keys(c)) }
func (c robotChannels) AlertChannels(string, notify.Alert) []string          { return c.names() }
func (c robotChannels) TicketChannels(string, notify.TicketMessage) []string { return c.names() }
func (c robotChannels) Notifier(name string) (notify.Notifier, bool) {
	n, ok := c[name]
	return n, ok
}

// fakeRobot is one robot channel against its stand-in service, which
// refuses what comes past the documented quota with the service's own
// answer (DingTalk 130101, WeCom 45009, Feishu 11232). Each has its own
// manual clock, which the notifier's waits advance, so the channels'
// times are independent and nothing depends on the machine's speed.
type fakeRobot struct {
	name   string
	limits []robot.Limit
	clock  *notifytest.Clock
	rcv    *notifytest.Receiver
	n      notify.Notifier
	p      *robot.Poster
	// restart builds the notifier afresh, as a new process would (its
	// quota's memory starts empty).
	restart func()
}

func fakeRobots(t *testing.T, start time.Time) []*fakeRobot {
	mk := func(name string, svc notifytest.Service, limits []robot.Limit, build func(url, secret string) (notify.Notifier, *robot.Poster, error)) *fakeRobot {
		f := &fakeRobot{name: name, limits: limits, clock: notifytest.NewClock(start)}
		f.rcv = notifytest.NewReceiver(t, svc, limits, f.clock)
		f.restart = func() {
			var err error
			if f.n, f.p, err = build(f.rcv.URL(), svc.Secret()); err != nil {
				t.Fatal(err)
			}
			f.p.Now, f.p.Sleep, f.p.Client = f.clock.Now, f.clock.Sleep, f.rcv.Client()
		}
		f.restart()
		return f
	}
	return []*fakeRobot{
		mk("ops-dingtalk", notifytest.DingTalk{Token: "6a1b2c3d4e5f60718293a4b5c6d7e8f9", Sec: "SEC7d3f0c1b9a8e7d6c5b4a39281706f5e4d3c2b1a0"},
			[]robot.Limit{dingtalk.Limit}, func(url, secret string) (notify.Notifier, *robot.Poster, error) {
				n, err := dingtalk.New(dingtalk.Config{WebhookURL: url, Secret: secret})
				if err != nil {
					return nil, nil, err
				}
				return n, n.Poster, nil
			}),
		mk("team-wecom", notifytest.WeCom{Key: "693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa"},
			[]robot.Limit{wecom.Limit}, func(url, _ string) (notify.Notifier, *robot.Poster, error) {
				n, err := wecom.New(wecom.Config{WebhookURL: url})
				if err != nil {
					return nil, nil, err
				}
				return n, n.Poster, nil
			}),
		mk("ops-feishu", notifytest.Feishu{Token: "0f6e6f3c-8d2a-4c55-9e0b-4b1f6a3d2c11", Sec: "fs-sign-secret"},
			feishu.Limits, func(url, secret string) (notify.Notifier, *robot.Poster, error) {
				n, err := feishu.New(feishu.Config{WebhookURL: url, Secret: secret})
				if err != nil {
					return nil, nil, err
				}
				return n, n.Poster, nil
			}),
	}
}

func channelsOf(robots []*fakeRobot) robotChannels {
	ch := robotChannels{}
	for _, r := range robots {
		ch[r.name] = r.n
	}
	return ch
}

// burstRecord is alert i of a burst over five nodes (node i%5's (i/5)th
// GPU incident), claimed a millisecond after the one before, on channel.
func burstRecord(i int, channel string) store.AlertRecord {
	node := fmt.Sprintf("gz-%02d", i%5)
	id := fmt.Sprintf("gpu_lost@20261130T1000%02d.000Z", i/5)
	a := notify.Alert{Kind: notify.AlertDegraded, Node: node, Provider: "acme_gpu", IncidentID: id, IncidentKind: "gpu_lost",
		Since: t0, Counted: true}
	return store.AlertRecord{Node: node, IncidentID: id, Kind: a.Kind, Channel: channel, CreatedAt: t0.Add(time.Duration(i) * time.Millisecond), Alert: a}
}

// claimBurst stores n pending (never attempted) alerts on every channel,
// as ingest claims them in a burst.
func claimBurst(t *testing.T, st store.Store, n int, robots []*fakeRobot) {
	for i := range n {
		for _, r := range robots {
			if err := st.CreateAlert(t.Context(), burstRecord(i, r.name)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkDelivered: every channel's service accepted the n alerts once each,
// refused none as over its quota, each node's in the order claimed, the
// last within ceil(n/N)·Per + 60 s of the burst on the channel's clock
// (N per Per being its per-minute quota).
func checkDelivered(t *testing.T, robots []*fakeRobot, n int) {
	t.Helper()
	for _, r := range robots {
		var shown []string
		var last time.Time
		for _, q := range r.rcv.Requests() {
			if q.OverQuota {
				t.Fatalf("%s refused a message at %s as over its quota", r.name, q.At)
			}
			if q.Accepted {
				shown, last = append(shown, q.Shown), q.At
			}
		}
		if len(shown) != n {
			t.Fatalf("%s accepted %d messages, want %d", r.name, len(shown), n)
		}
		seen := map[int]bool{}
		next := map[string]int{} // per node: the index of its next alert
		for _, s := range shown {
			i := -1
			for j := range n {
				rec := burstRecord(j, r.name)
				if strings.Contains(s, rec.Node) && strings.Contains(s, rec.IncidentID) {
					i = j
				}
			}
			if i < 0 || seen[i] {
				t.Fatalf("%s: message %q is not one of the burst, or came twice", r.name, s)
			}
			seen[i] = true
			node := burstRecord(i, r.name).Node
			if i/5 != next[node] {
				t.Fatalf("%s: %s's alert %d arrived before its alert %d: the node's order broke", r.name, node, i/5, next[node])
			}
			next[node]++
		}
		per := r.limits[0]
		bound := time.Duration((n+per.N-1)/per.N)*per.Per + 60*time.Second
		if last.Sub(t0) > bound {
			t.Fatalf("%s: the last of %d alerts went out %s after the burst; the bound is %s", r.name, n, last.Sub(t0), bound)
		}
		t.Logf("%s: %d alerts, the last %s after the burst (bound %s)", r.name, n, last.Sub(t0), bound)
	}
}

// A burst of 45 alerts on DingTalk, WeCom and Feishu at
// once, through serve's sender. Before, one sender sent every channel's
// alerts in turn, an attempt was cut off (22.5 s) before the poster's wait
// (30 s) ended, and the cut wait kept its token: DingTalk and WeCom
// delivered about one a minute. Now each channel delivers all 45, none
// refused, in each node's order, within ceil(45/20) min + 60 s = 4 min
// (Feishu, 100 a minute: 2 min).
func TestBurstOnEveryRobotDeliveredWithinTheBound(t *testing.T) {
	robots := fakeRobots(t, t0)
	for _, r := range robots {
		r.p.MaxWait = time.Hour // the channels' waits are on their own clocks
	}
	st := newBolt(t)
	const n = 45
	claimBurst(t, st, n, robots)
	w := newWorldConfig(t, func(c *app.Config) {
		c.Store, c.Notifier, c.Channels, c.AlertRetry = st, nil, channelsOf(robots), 2*time.Hour
	})
	ctx, cancel := context.WithCancel(t.Context())
	wait := w.svc.SendAlerts(ctx)
	defer wait()
	defer cancel()
	waitfor.True(t, "every alert of the burst delivered", func() bool {
		pend, _ := st.ListPendingAlerts(t.Context())
		return len(pend) == 0
	})
	checkDelivered(t, robots, n)
}
