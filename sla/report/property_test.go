package report

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

// Over random logs (three days of heartbeats with random gaps, late
// deliveries and connectivity results): uptime stays within [0, 100],
// claimable outage never exceeds observed, and taking more heartbeats away
// (adding an outage) never raises either uptime.
func TestReportProperties(t *testing.T) {
	tm := loadTerms(t)
	r := rand.New(rand.NewSource(42))
	start := local(shanghai, "2026-03-29 00:00")
	end := local(shanghai, "2026-04-01 00:00")
	asOf := time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)
	type win struct{ from, to time.Time }
	randWin := func() win {
		f := start.Add(time.Duration(r.Int63n(int64(end.Sub(start)))))
		return win{f, f.Add(time.Duration(r.Int63n(int64(6 * time.Hour))))}
	}
	build := func(down, late []win, connFail []bool) *Node {
		b, err := NewBuilder(tm, Options{Year: 2026, Month: time.March, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		add := func(e events.Event) {
			if err := b.Add(&e); err != nil {
				t.Fatal(err)
			}
		}
		add(events.Event{Type: events.TypeNodeRegistered, ID: "reg", Node: "p", Contract: "cn-example", OrderedAt: start.Add(-time.Hour),
			Hardware: &events.Hardware{GPUModel: "H200", GPUCount: 1}})
		i := 0
		for at := start; at.Before(end); at = at.Add(time.Minute) {
			i++
			skip := false
			for _, d := range down {
				if !at.Before(d.from) && at.Before(d.to) {
					skip = true
				}
			}
			if skip {
				continue
			}
			recv := at.Add(time.Second)
			for _, l := range late {
				if !at.Before(l.from) && at.Before(l.to) {
					recv = l.to.Add(time.Minute)
				}
			}
			e := events.Event{Type: events.TypeObservation, ID: fmt.Sprint(i), Node: "p", At: at, ReceivedAt: recv, Kind: events.KindHeartbeat}
			if i%10 == 0 {
				v := events.Pass
				if connFail[(i/10)%len(connFail)] {
					v = events.Fail
				}
				e.Kind, e.Checks = events.KindCheck, []events.Check{{Name: "net", Category: events.CategoryConnectivity, Verdict: v}}
			}
			add(e)
		}
		rep, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return &rep.Nodes[0]
	}
	for round := 0; round < 25; round++ {
		var down, late []win
		for j := 0; j < r.Intn(4); j++ {
			down = append(down, randWin())
		}
		for j := 0; j < r.Intn(4); j++ {
			late = append(late, randWin())
		}
		connFail := make([]bool, 1+r.Intn(20))
		for j := range connFail {
			connFail[j] = r.Intn(3) == 0
		}
		n := build(down, late, connFail)
		u := n.Uptime
		for _, p := range []float64{u.ObservedFigure(), u.Claimable()} {
			if p < 0 || p > 100 {
				t.Fatalf("round %d: uptime %v", round, p)
			}
		}
		if u.ClaimableOutageSeconds > u.ObservedOutageSeconds {
			t.Fatalf("round %d: claimable %d > observed %d", round, u.ClaimableOutageSeconds, u.ObservedOutageSeconds)
		}
		n2 := build(append(down, randWin()), late, connFail)
		if n2.Uptime.Claimable() > u.Claimable() || n2.Uptime.ObservedFigure() > u.ObservedFigure() {
			t.Fatalf("round %d: an added outage raised uptime: claimable %v → %v, observed %v → %v", round,
				u.Claimable(), n2.Uptime.Claimable(), u.ObservedFigure(), n2.Uptime.ObservedFigure())
		}
	}
}
