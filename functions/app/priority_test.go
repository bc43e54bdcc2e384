package app_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/internal/waitfor"
)

// waitingChannel plays a robot whose quota is used up: every send waits
// for it (under notify.WaitContext, as robot.Poster does) until the test
// frees one send (free), or gives up when told to yield, having sent
// nothing (notify.ErrNotSent). It records what it delivered, in order.
type waitingChannel struct {
	mu      sync.Mutex
	sent    []string // incident ids
	waiting chan string
	free    chan struct{}
}

func newWaitingChannel() *waitingChannel {
	return &waitingChannel{waiting: make(chan string, 64), free: make(chan struct{})}
}

func (c *waitingChannel) Notify(ctx context.Context, a notify.Alert) (string, error) {
	wctx, stop := notify.WaitContext(ctx)
	defer stop()
	c.waiting <- a.IncidentID
	select {
	case <-c.free:
	case <-wctx.Done():
		return "", &notify.NotSentError{Err: fmt.Errorf("waiting for the rate limit: %w", wctx.Err())}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, a.IncidentID)
	return "", nil
}

func (c *waitingChannel) NotifyTicket(context.Context, notify.TicketMessage) (string, error) {
	return "", errors.New("no tickets here")
}

// next is the incident of the next send to begin waiting; the limit only
// bounds a failing run.
func (c *waitingChannel) next(t *testing.T) string {
	t.Helper()
	select {
	case id := <-c.waiting:
		return id
	case <-time.After(30 * time.Second):
		t.Fatal("after 30 s no send began")
		return ""
	}
}

func (c *waitingChannel) delivered() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sent)
}

// waitingSender is serve's sender on one waitingChannel, "ops", with recs
// pending in its store; it stops with the test.
func waitingSender(t *testing.T, recs ...store.AlertRecord) (*world, *bolt.Store, *waitingChannel) {
	ch := newWaitingChannel()
	st := newBolt(t)
	for _, r := range recs {
		if err := st.CreateAlert(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	w := newWorldConfig(t, func(c *app.Config) {
		c.Store, c.Notifier, c.Channels = st, nil, robotChannels{"ops": ch}
	})
	ctx, cancel := context.WithCancel(t.Context())
	wait := w.svc.SendAlerts(ctx)
	t.Cleanup(func() { cancel(); wait() })
	return w, st, ch
}

// routineRecord is a routine notice: a network incident's opening on node
// i's own group. urgentRecord is a lost GPU on gz-09.
func routineRecord(i int) store.AlertRecord {
	node, id := fmt.Sprintf("gz-%02d", i), fmt.Sprintf("network_degraded@20261130T10%02d00.000Z", i)
	a := notify.Alert{Kind: notify.AlertDegraded, Node: node, Provider: "acme_gpu", IncidentID: id, IncidentKind: "network_degraded", Since: t0}
	return store.AlertRecord{Node: node, IncidentID: id, Kind: a.Kind, Channel: "ops", CreatedAt: t0.Add(time.Duration(i) * time.Second), Alert: a}
}

func urgentRecord(at time.Time) store.AlertRecord {
	a := notify.Alert{Kind: notify.AlertDegraded, Node: "gz-09", Provider: "acme_gpu", IncidentID: "gpu_lost@20261130T103000.000Z", IncidentKind: "gpu_lost", Since: t0}
	return store.AlertRecord{Node: a.Node, IncidentID: a.IncidentID, Kind: a.Kind, Channel: "ops", CreatedAt: at, Alert: a}
}

// An urgent alert (a lost GPU) raised after eight
// routine notices on the same channel goes out before the seven still
// queued, and the one routine send that was waiting for the channel's
// limit when it came yields to it: it gives its wait up (nothing sent, no
// attempt counted) and goes right after. The routine notices keep their
// order.
func TestUrgentAlertPassesRoutineNotices(t *testing.T) {
	var recs []store.AlertRecord
	for i := range 8 {
		recs = append(recs, routineRecord(i))
	}
	w, st, ch := waitingSender(t, recs...)
	if got := ch.next(t); got != routineRecord(0).IncidentID {
		t.Fatalf("the first send is %s, want the oldest routine notice", got)
	}
	// The urgent alert is claimed while that send waits for the limit.
	if err := st.CreateAlert(t.Context(), urgentRecord(t0.Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Watchdog(t.Context()); err != nil { // has the sender read the store again
		t.Fatal(err)
	}
	if got := ch.next(t); got != urgentRecord(t0).IncidentID {
		t.Fatalf("after the urgent alert was claimed the channel was given %s, want the urgent alert first", got)
	}
	ch.free <- struct{}{}
	for i := range 8 {
		if got := ch.next(t); got != routineRecord(i).IncidentID {
			t.Fatalf("routine send %d is %s, want %s (claim order)", i, got, routineRecord(i).IncidentID)
		}
		ch.free <- struct{}{}
	}
	want := []string{urgentRecord(t0).IncidentID}
	for i := range 8 {
		want = append(want, routineRecord(i).IncidentID)
	}
	waitfor.True(t, "all nine delivered", func() bool { return len(ch.delivered()) == 9 })
	if got := ch.delivered(); !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	r0 := routineRecord(0)
	rec, err := st.GetAlert(t.Context(), r0.Node, r0.IncidentID, r0.Kind, r0.Channel)
	if err != nil || rec.Attempts != 1 || rec.SentAt.IsZero() {
		t.Fatalf("the notice that yielded: %+v (%v), want sent with 1 attempt: yielding is not a failed attempt", rec, err)
	}
}

// The priority lane only reorders groups: a node's routine notice claimed
// before its urgent alert still goes first (a recovery never overtakes the
// alert it closes, and neither does an alert the notice it follows).
func TestUrgentAlertKeepsItsNodesOrder(t *testing.T) {
	routine := routineRecord(9) // gz-09, as the urgent one
	_, _, ch := waitingSender(t, routine, urgentRecord(t0.Add(time.Hour)), routineRecord(1))
	var got []string
	for range 3 {
		got = append(got, ch.next(t))
		ch.free <- struct{}{}
	}
	want := []string{routineRecord(1).IncidentID, routine.IncidentID, urgentRecord(t0).IncidentID}
	if !slices.Equal(got, want) {
		t.Fatalf("sent %v, want %v: gz-01's notice (claimed first), then gz-09's notice before its urgent alert", got, want)
	}
}
