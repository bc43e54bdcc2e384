package app_test

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/notify"
)

// twoChannels routes every message to both of its channels and remembers
// the contracts it was asked about.
type twoChannels struct {
	mu        sync.Mutex
	by        map[string]*apptest.Notifier
	contracts []string
}

func newTwoChannels() *twoChannels {
	return &twoChannels{by: map[string]*apptest.Notifier{"feishu-ops": {}, "oncall": {}}}
}

func (c *twoChannels) names(contract string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.contracts = append(c.contracts, contract)
	return []string{"oncall", "feishu-ops"}
}
func (c *twoChannels) AlertChannels(contract string, _ notify.Alert) []string {
	return c.names(contract)
}
func (c *twoChannels) TicketChannels(contract string, _ notify.TicketMessage) []string {
	return c.names(contract)
}
func (c *twoChannels) Notifier(name string) (notify.Notifier, bool) {
	n, ok := c.by[name]
	return n, ok
}

// TestFailingChannelIsRetriedAlone: with two channels and one of them down,
// the other gets the alert at once; the watchdog retries only the one that
// failed, so neither sends twice; the recovery reaches both, once.
func TestFailingChannelIsRetriedAlone(t *testing.T) {
	ch := newTwoChannels()
	w := newWorldConfig(t, func(c *app.Config) { c.Notifier, c.Channels = nil, ch })
	feishu, oncall := ch.by["feishu-ops"], ch.by["oncall"]
	oncall.Fail = errors.New("oncall endpoint answers 502")
	w.push()
	w.tickUntil(t0.Add(2 * time.Minute))
	if feishu.Count(notify.AlertUnreachable) != 1 || oncall.Count(notify.AlertUnreachable) != 0 {
		t.Fatalf("feishu %d, oncall %d unreachable alerts; want 1 and 0", feishu.Count(notify.AlertUnreachable), oncall.Count(notify.AlertUnreachable))
	}
	pend, _ := w.store.ListPendingAlerts(t.Context())
	if len(pend) != 1 || pend[0].Channel != "oncall" || pend[0].LastErr == "" {
		t.Fatalf("pending %+v, want only oncall's record with its error", pend)
	}
	oncall.Fail = nil
	w.tickUntil(t0.Add(5 * time.Minute))
	if feishu.Count(notify.AlertUnreachable) != 1 || oncall.Count(notify.AlertUnreachable) != 1 {
		t.Fatalf("after the retry: feishu %d, oncall %d; want 1 each", feishu.Count(notify.AlertUnreachable), oncall.Count(notify.AlertUnreachable))
	}
	w.push()
	w.push()
	if feishu.Count(notify.AlertRecovered) != 1 || oncall.Count(notify.AlertRecovered) != 1 {
		t.Fatalf("recovered: feishu %d, oncall %d; want 1 each", feishu.Count(notify.AlertRecovered), oncall.Count(notify.AlertRecovered))
	}
	if pend, _ := w.store.ListPendingAlerts(t.Context()); len(pend) != 0 {
		t.Fatalf("still pending: %+v", pend)
	}
	if !slices.Contains(ch.contracts, "acme-std") || slices.ContainsFunc(ch.contracts, func(c string) bool { return c != "acme-std" }) {
		t.Fatalf("routed with contracts %v, want the node's (acme-std)", ch.contracts)
	}
}

// TestTicketNoticePerChannel: a ticket notice one channel refused is sent
// to that channel alone on the next watch.
func TestTicketNoticePerChannel(t *testing.T) {
	ch := newTwoChannels()
	opened := sh(t, "2026-03-10 10:00:00")
	w := newDeskOn(t, opened, newBolt(t), func(c *app.Config) { c.Notifier, c.Channels = nil, ch })
	feishu, oncall := ch.by["feishu-ops"], ch.by["oncall"]
	oncall.Fail = errors.New("oncall endpoint answers 502")
	tk := w.open(app.OpenRequest{Node: "gz-01", Priority: "P1"})
	if res, _ := w.d.Watch(t.Context()); res.Sent != 0 {
		t.Fatalf("sent %d with one channel down, want the notice still pending", res.Sent)
	}
	if feishu.TicketCount(notify.TicketOpened) != 1 || oncall.TicketCount(notify.TicketOpened) != 0 {
		t.Fatalf("feishu %d, oncall %d opened notices; want 1 and 0", feishu.TicketCount(notify.TicketOpened), oncall.TicketCount(notify.TicketOpened))
	}
	got, _ := w.store.GetTicket(t.Context(), tk.ID)
	if n := got.Notices[0]; !n.SentAt.IsZero() || !slices.Equal(n.SentTo, []string{"feishu-ops"}) || n.LastErr == "" {
		t.Fatalf("notice %+v, want pending, sent to feishu-ops, with oncall's error", n)
	}
	oncall.Fail = nil
	w.clock.Advance(time.Minute)
	if res := w.watch(); res.Sent != 1 {
		t.Fatalf("retry: %+v, want the notice sent", res)
	}
	if feishu.TicketCount(notify.TicketOpened) != 1 || oncall.TicketCount(notify.TicketOpened) != 1 {
		t.Fatalf("after the retry: feishu %d, oncall %d; want 1 each", feishu.TicketCount(notify.TicketOpened), oncall.TicketCount(notify.TicketOpened))
	}
	if !slices.Contains(ch.contracts, "cn-example") {
		t.Fatalf("routed with contracts %v, want the ticket's (cn-example)", ch.contracts)
	}
}
