package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/internal/waitfor"
)

// Serve's sender stopped (SIGTERM) with a backlog on
// every robot stops at once, though each channel has a send waiting for its
// quota: the waits give up, nothing half-sent. What was not sent stays
// pending, its cut attempt not counted; after a restart (a minute later, on
// the same store, with fresh notifiers) it goes out, and every alert
// reached every robot exactly once, in each node's order.
func TestShutdownWithBacklogStopsAtOnceAndLosesNothing(t *testing.T) {
	robots := fakeRobots(t, t0)
	waiting := make(chan string, 16)
	for _, r := range robots {
		r.p.MaxWait = time.Hour // wait for the quota rather than leave it to a retry
		r.p.Sleep = func(ctx context.Context, _ time.Duration) error {
			waiting <- r.name
			<-ctx.Done() // a wait for the quota that only the shutdown ends
			return ctx.Err()
		}
	}
	st := newBolt(t)
	const n = 45
	claimBurst(t, st, n, robots)
	cfg := func(c *app.Config) {
		c.Store, c.Notifier, c.Channels, c.AlertRetry = st, nil, channelsOf(robots), 2*time.Hour
	}
	w := newWorldConfig(t, cfg)
	ctx, cancel := context.WithCancel(t.Context())
	wait := w.svc.SendAlerts(ctx)
	for range robots { // each channel has spent its quota and waits for it
		select {
		case <-waiting:
		case <-time.After(30 * time.Second):
			t.Fatal("after 30 s a channel was not waiting for its quota")
		}
	}
	sentBefore := map[string]int{}
	for _, r := range robots {
		for _, q := range r.rcv.Requests() {
			if q.Accepted {
				sentBefore[r.name]++
			}
		}
	}
	stop := time.Now()
	cancel()
	wait()
	if took := time.Since(stop); took > 10*time.Second {
		t.Fatalf("the sender took %s to stop, want within 10 s", took)
	}
	pend, err := st.ListPendingAlerts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	left := map[string]int{}
	for _, p := range pend {
		left[p.Channel]++
		if p.Attempts != 0 {
			t.Fatalf("pending %s %s on %s has %d attempts: the wait cut by the shutdown was counted", p.Node, p.IncidentID, p.Channel, p.Attempts)
		}
	}
	for _, r := range robots {
		if sentBefore[r.name] == 0 || sentBefore[r.name]+left[r.name] != n {
			t.Fatalf("%s: %d sent before the stop and %d pending, want them to make the %d claimed", r.name, sentBefore[r.name], left[r.name], n)
		}
	}

	// The restart, a minute later.
	for _, r := range robots {
		_ = r.clock.Sleep(t.Context(), time.Minute+time.Second)
		r.restart()
		r.p.MaxWait = time.Hour
	}
	c2 := app.Config{Box: apptest.Box(t), Clock: w.clock, Terms: apptest.Terms(t)}
	cfg(&c2)
	c2.Channels = channelsOf(robots)
	svc2, err := app.New(c2)
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(t.Context())
	wait2 := svc2.SendAlerts(ctx2)
	defer wait2()
	defer cancel2()
	waitfor.True(t, "the backlog delivered after the restart", func() bool {
		pend, _ := st.ListPendingAlerts(t.Context())
		return len(pend) == 0
	})
	checkDelivered(t, robots, n)
	for i := range n {
		for _, r := range robots {
			b := burstRecord(i, r.name)
			rec, err := st.GetAlert(t.Context(), b.Node, b.IncidentID, b.Kind, b.Channel)
			if err != nil || rec.SentAt.IsZero() || rec.Attempts != 1 {
				t.Fatalf("%s %s on %s: %+v (%v), want sent on its one attempt", b.Node, b.IncidentID, b.Channel, rec, err)
			}
		}
	}
}
