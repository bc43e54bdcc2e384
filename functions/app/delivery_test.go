package app_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/report/reporttest"
	"github.com/gpusla/gpusla/sla/terms"
)

// deliveryTerms is the application tests' contract with a delivery
// promise: 90 minutes from the order, counted until countsUntil.
func deliveryTerms(t *testing.T, countsUntil string) app.TermsBook {
	t.Helper()
	src := strings.Replace(apptest.TermsYAML, "claim:", "delivery:\n  within: 90m\n  counts_until: "+countsUntil+"\nclaim:", 1)
	ts, err := terms.Parse("acme-std.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return app.TermsBook{ts[0].Contract: ts[0]}
}

// cardCheck is a health observation's card checks: the model identified,
// the order's model matching (orderVerdict pass) or not (fail).
func cardCheck(at time.Time, orderVerdict string) wire.Observation {
	return checkObs(at,
		wire.Check{Name: "gpu.model", Category: wire.CategoryInventory, Verdict: wire.Pass, GPU: gpu(0), Value: "NVIDIA H100 80GB HBM3"},
		wire.Check{Name: "gpu.order.model", Category: wire.CategoryInventory, Verdict: orderVerdict, GPU: gpu(0), Criterion: "H100 (ordered)"})
}

// tick runs the every-minute run (the watchdog Lambda's and serve's) at
// the world's clock.
func (w *world) tick() {
	w.t.Helper()
	if _, err := app.MinuteTick(w.svc, nil, nil)(w.t.Context()); err != nil {
		w.t.Fatal(err)
	}
}

// reportDelivery builds the month of t0 from the service's own
// export, as the monthly job does, and returns gz-01's delivery.
func (w *world) reportDelivery(book app.TermsBook) report.Delivery {
	w.t.Helper()
	var buf bytes.Buffer
	ew := events.NewWriter(&buf)
	if _, err := app.Export(w.t.Context(), w.store, app.ExportSelect{From: t0.Add(-48 * time.Hour), To: t0.Add(48 * time.Hour)},
		func(e *events.Event) error { return ew.Write(e) }); err != nil {
		w.t.Fatal(err)
	}
	if err := ew.Flush(); err != nil {
		w.t.Fatal(err)
	}
	b, err := report.NewBuilder([]*terms.Terms{book["acme-std"]}, report.Options{Year: t0.Year(), Month: t0.Month(), AsOf: w.clock.Now().Add(time.Hour)})
	if err != nil {
		w.t.Fatal(err)
	}
	if err := b.ReadLog("export", &buf); err != nil {
		w.t.Fatal(err)
	}
	r, err := b.Build()
	if err != nil {
		w.t.Fatal(err)
	}
	for _, n := range r.Nodes {
		if n.Node == "gz-01" {
			return n.Delivery
		}
	}
	w.t.Fatal("gz-01 not in the report")
	return report.Delivery{}
}

// Delivery is watched. gz-01 is ordered at t0 − 1 h with a
// 90-minute target, so it is due at t0 + 30 min. Through the real service
// and its minute tick: nothing before or at the due instant, one
// delivery_overdue alert once it has passed (however many ticks follow),
// and one delivered alert at the delivery with the lateness worked by hand
// — the same lateness the monthly report computes from the service's own
// export.
func TestDeliveryIsWatched(t *testing.T) {
	for _, c := range []struct {
		countsUntil string
		deliver     func(w *world)
		delivered   time.Time     // worked by hand
		late        time.Duration // delivered − (t0 + 30 min)
	}{
		{
			// The first heartbeat at t0 + 50 min delivers it: 20 min late.
			countsUntil: "first_heartbeat",
			deliver: func(w *world) {
				w.clock.Set(t0.Add(50 * time.Minute))
				w.push(wire.Observation{At: w.clock.Now(), Kind: wire.KindHeartbeat})
			},
			delivered: t0.Add(50 * time.Minute), late: 20 * time.Minute,
		},
		{
			// Heartbeats and the wrong card from t0 + 40 min: not delivered
			// (no delivered alert, the overdue one stands); the swapped card
			// passes its checks at t0 + 65 min: 35 min late.
			countsUntil: "acceptance_passed",
			deliver: func(w *world) {
				w.clock.Set(t0.Add(40 * time.Minute))
				now := w.clock.Now()
				w.push(wire.Observation{At: now, Kind: wire.KindHeartbeat}, cardCheck(now, wire.Fail))
				if n := w.notif.Count(notify.AlertDelivered); n != 0 {
					t.Fatalf("a delivered alert for the wrong card (%d)", n)
				}
				w.clock.Set(t0.Add(41 * time.Minute))
				w.tick()
				w.clock.Set(t0.Add(65 * time.Minute))
				now = w.clock.Now()
				w.push(wire.Observation{At: now, Kind: wire.KindHeartbeat}, cardCheck(now, wire.Pass))
			},
			delivered: t0.Add(65 * time.Minute), late: 35 * time.Minute,
		},
	} {
		t.Run(c.countsUntil, func(t *testing.T) {
			book := deliveryTerms(t, c.countsUntil)
			w := newWorldWith(t, book)
			for _, at := range []time.Duration{0, 29 * time.Minute, 30 * time.Minute} {
				w.clock.Set(t0.Add(at))
				w.tick()
				if n := w.notif.Count(notify.AlertDeliveryOverdue); n != 0 {
					t.Fatalf("t0+%s: %d overdue alerts before the target passed", at, n)
				}
			}
			for _, at := range []time.Duration{31 * time.Minute, 32 * time.Minute, 33 * time.Minute} {
				w.clock.Set(t0.Add(at))
				w.tick()
			}
			over := only(t, w.notif, notify.AlertDeliveryOverdue)
			if over.IncidentKind != notify.DeliveryKind || !over.Until.Equal(t0.Add(30*time.Minute)) || over.Duration != 90*time.Minute ||
				!strings.Contains(over.Detail, "1 minute late so far") {
				t.Errorf("overdue alert %+v", over)
			}

			c.deliver(w)
			w.clock.Advance(time.Minute)
			w.push(wire.Observation{At: w.clock.Now(), Kind: wire.KindHeartbeat})
			w.tick()
			got := only(t, w.notif, notify.AlertDelivered)
			only(t, w.notif, notify.AlertDeliveryOverdue) // still the one
			if got.Duration != c.late || !got.Until.Equal(c.delivered) || got.IncidentID != over.IncidentID {
				t.Errorf("delivered alert: late %s at %s (incident %s), want %s at %s (incident %s)", got.Duration, got.Until, got.IncidentID,
					c.late, c.delivered, over.IncidentID)
			}
			d := w.reportDelivery(book)
			if d.Status != "breached" || d.LateSeconds != int64(c.late/time.Second) || d.DeliveredAt != c.delivered.Format(time.RFC3339) {
				t.Errorf("the report's delivery %+v, want breached %d s late, delivered %s: the alert's verdict", d, int64(c.late/time.Second), c.delivered.Format(time.RFC3339))
			}
		})
	}
}

// only returns the one alert of kind k that was sent, failing unless there
// is exactly one.
func only(t *testing.T, n *apptest.Notifier, k notify.AlertKind) notify.Alert {
	t.Helper()
	var out []notify.Alert
	for _, a := range n.Sent() {
		if a.Kind == k {
			out = append(out, a)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d %s alerts, want 1", len(out), k)
	}
	return out[0]
}

// Delivered on time, nothing is said; a node whose contract sets no
// delivery target is never overdue.
func TestDeliveryOnTimeIsQuiet(t *testing.T) {
	w := newWorldWith(t, deliveryTerms(t, "first_heartbeat"))
	w.clock.Set(t0.Add(10 * time.Minute))
	w.push(wire.Observation{At: w.clock.Now(), Kind: wire.KindHeartbeat})
	for i := 0; i < 40; i++ {
		w.clock.Advance(time.Minute)
		w.push()
		w.tick()
	}
	if n := w.notif.Count(notify.AlertDeliveryOverdue) + w.notif.Count(notify.AlertDelivered); n != 0 {
		t.Fatalf("%d delivery alerts for a node delivered on time", n)
	}
	w = newWorld(t) // acme-std as it is: no delivery clause
	w.clock.Set(t0.Add(24 * time.Hour))
	w.tick()
	if n := w.notif.Count(notify.AlertDeliveryOverdue); n != 0 {
		t.Fatalf("%d overdue alerts without a delivery target", n)
	}
}

// The first passing acceptance check is kept as evidence and exported even
// when nothing else would keep its batch (all its checks pass, nothing is
// pending, and it is not the node's first check batch), so the report
// built from the export delivers the node when the live service did.
func TestFirstAcceptanceIsExported(t *testing.T) {
	book := deliveryTerms(t, "acceptance_passed")
	w := newWorldWith(t, book)
	w.clock.Set(t0.Add(10 * time.Minute))
	now := w.clock.Now()
	w.push(wire.Observation{At: now, Kind: wire.KindHeartbeat},
		checkObs(now, wire.Check{Name: "gpu.temperature", Category: wire.CategoryGPUDegraded, Verdict: wire.Pass, GPU: gpu(0)}))
	w.clock.Set(t0.Add(20 * time.Minute))
	now = w.clock.Now()
	w.push(wire.Observation{At: now, Kind: wire.KindHeartbeat}, cardCheck(now, wire.Pass))
	w.clock.Advance(time.Minute)
	w.push()
	if n := w.notif.Count(notify.AlertDelivered) + w.notif.Count(notify.AlertDeliveryOverdue); n != 0 {
		t.Fatalf("%d delivery alerts for a delivery on time", n)
	}
	if d := w.reportDelivery(book); d.Status != "met" || d.DeliveredAt != now.Format(time.RFC3339) {
		t.Fatalf("the report's delivery %+v, want met at %s", d, now.Format(time.RFC3339))
	}
}

// A node state from before acceptance was recorded cannot tell "not
// accepted yet" from "accepted before it was recorded": under
// acceptance_passed the live service then alerts nothing about the
// delivery (a wrong alert is worse than none); the report still judges it
// from the exported evidence.
func TestLegacyStateAcceptanceNotGuessed(t *testing.T) {
	w := newWorldWith(t, deliveryTerms(t, "acceptance_passed"))
	w.clock.Set(t0.Add(10 * time.Minute))
	w.push(wire.Observation{At: w.clock.Now(), Kind: wire.KindHeartbeat})
	st, err := w.store.GetState(t.Context(), "gz-01")
	if err != nil {
		t.Fatal(err)
	}
	prev := st.Version
	st.AcceptanceKnown = false // as a state written before the field existed
	if _, err := w.store.PutState(t.Context(), st, prev); err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Duration{31 * time.Minute, 40 * time.Minute} {
		w.clock.Set(t0.Add(at))
		w.tick()
	}
	now := w.clock.Now()
	w.push(wire.Observation{At: now, Kind: wire.KindHeartbeat}, cardCheck(now, wire.Pass))
	w.tick()
	if n := w.notif.Count(notify.AlertDeliveryOverdue) + w.notif.Count(notify.AlertDelivered); n != 0 {
		t.Fatalf("%d delivery alerts guessed from a state that never recorded acceptance", n)
	}
}

// reported is the health job's check of the card from a probe told no
// order, as the probe sends it.
func reported(at time.Time, c reporttest.Card) wire.Observation {
	var cs []wire.Check
	for _, e := range c.Checks() {
		cs = append(cs, wire.Check{Name: e.Name, Category: e.Category, Verdict: e.Verdict, Value: e.Value, Number: e.Number, Unit: e.Unit, GPU: e.GPU})
	}
	return checkObs(at, cs...)
}

// Under counts_until: acceptance_passed a check counts as acceptance only
// if the GPUs it reports are the registration's, whatever the probe was
// told, through ingest on both stores. gz-01 is ordered at t0 − 1 h with a
// 90-minute target (due t0 + 30 min); its probe, given no order, reports
// its cards at t0 + 10 min (reporttest's Handovers). A genuine H100 ×8 of
// 80 GB is delivered then: met, nothing alerted. A genuine H800 registered
// as an H100, 4 GPUs of 8, or 40 GB A100s for an 80 GB A100 order pass
// every check of their own, yet are not delivered: the reports at t0 + 10
// and t0 + 40 min leave the node undelivered and the overdue alert comes;
// the replaced, correct cards reported at t0 + 65 min deliver it — 35 min
// late by hand (2,100 s), the live alert's and the monthly report's
// figure.
func TestDeliveryHeldToTheRegistration(t *testing.T) {
	eachHandover(t, func(t *testing.T, book app.TermsBook, w *world, h reporttest.Handover) {
		acceptedAt := func() time.Time {
			st, err := w.store.GetState(t.Context(), "gz-01")
			if err != nil {
				t.Fatal(err)
			}
			return st.AcceptedAt
		}
		report := func(at time.Time, c reporttest.Card) {
			w.clock.Set(at)
			now := w.clock.Now()
			w.push(wire.Observation{At: now, Kind: wire.KindHeartbeat}, reported(now, c))
		}
		report(t0.Add(10*time.Minute), h.First)
		if h.First == h.Right {
			if got := acceptedAt(); !got.Equal(t0.Add(10 * time.Minute)) {
				t.Fatalf("accepted at %v, want at the check, t0+10m", got)
			}
			w.tickUntil(t0.Add(40 * time.Minute))
			if n := w.notif.Count(notify.AlertDelivered) + w.notif.Count(notify.AlertDeliveryOverdue); n != 0 {
				t.Fatalf("%d delivery alerts for a delivery on time", n)
			}
			if d := w.reportDelivery(book); d.Status != "met" || d.DeliveredAt != t0.Add(10*time.Minute).Format(time.RFC3339) || d.LateSeconds != 0 {
				t.Fatalf("the report's delivery %+v, want met at t0+10m", d)
			}
			return
		}
		w.tickUntil(t0.Add(33 * time.Minute))
		report(t0.Add(40*time.Minute), h.First)
		if got := acceptedAt(); !got.IsZero() {
			t.Fatalf("accepted at %v: the cards are not the registration's", got)
		}
		if n := w.notif.Count(notify.AlertDelivered); n != 0 {
			t.Fatalf("%d delivered alerts for cards not ordered", n)
		}
		over := only(t, w.notif, notify.AlertDeliveryOverdue)
		report(t0.Add(65*time.Minute), h.Right)
		w.tick()
		now := w.clock.Now()
		if got := acceptedAt(); !got.Equal(now) {
			t.Fatalf("accepted at %v, want the replaced cards' check at t0+65m", got)
		}
		got := only(t, w.notif, notify.AlertDelivered)
		if got.Duration != 35*time.Minute || !got.Until.Equal(now) || got.IncidentID != over.IncidentID {
			t.Errorf("delivered alert: late %s at %s, want 35m at %s", got.Duration, got.Until, now)
		}
		if d := w.reportDelivery(book); d.Status != "breached" || d.LateSeconds != 2100 || d.DeliveredAt != now.Format(time.RFC3339) {
			t.Errorf("the report's delivery %+v, want breached 2100 s late, delivered %s", d, now.Format(time.RFC3339))
		}
	})
}

// eachHandover runs f for each of reporttest's handovers on each store
// kind, gz-01 registered as the handover says under a 90-minute delivery
// counted until acceptance_passed.
func eachHandover(t *testing.T, f func(t *testing.T, book app.TermsBook, w *world, h reporttest.Handover)) {
	for _, kind := range []string{"bolt", "dynamo"} {
		for _, h := range reporttest.Handovers() {
			t.Run(kind+"/"+h.Name, func(t *testing.T) {
				book := deliveryTerms(t, "acceptance_passed")
				f(t, book, registeredWorld(t, kind, book, h), h)
			})
		}
	}
}

// registeredWorld is a world on the store kind names ("bolt", "dynamo")
// whose gz-01, ordered at t0 − 1 h, is registered as h says.
func registeredWorld(t *testing.T, kind string, book app.TermsBook, h reporttest.Handover) *world {
	t.Helper()
	var st worldStore
	switch kind {
	case "bolt":
		s, err := bolt.Open(filepath.Join(t.TempDir(), "gpusla.db"))
		if err != nil {
			t.Fatal(err)
		}
		st = s
	default:
		st = dynamotest.NewStore(t)
	}
	t.Cleanup(func() { st.Close() })
	return newWorldOn(t, st, func(cf *app.Config) { cf.Terms = book }, func(svc *app.Service) *apptest.Probe {
		n, secret, err := svc.AddNode(t.Context(), app.NewNode{ID: "gz-01", Provider: "acme", Contract: "acme-std",
			OrderedAt: t0.Add(-time.Hour), GPUModel: h.Model, GPUCount: h.GPUs, GPUMemoryMiB: h.MiB, PricePerHour: 20})
		if err != nil {
			t.Fatal(err)
		}
		return &apptest.Probe{Node: n.ID, Secret: secret}
	})
}

// An older probe's check carries no GPU inventory figures (gpu.count
// without its number, no gpu.memory): it is judged as before on the
// probe's verdicts for those, and only the card's name it does report is
// held to the registration. Registered as 8 H100s of 80 GB, such a check
// naming H100s at t0 + 10 min delivers the node then; one naming H800s
// does not, and the delivery keeps counting.
func TestDeliveryOlderProbeJudgedAsToday(t *testing.T) {
	older := func(at time.Time, name string) wire.Observation {
		cs := []wire.Check{{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Pass, Value: "8"}}
		for g := range 8 {
			cs = append(cs, wire.Check{Name: "gpu.model", Category: wire.CategoryInventory, Verdict: wire.Pass, GPU: gpu(g), Value: name})
		}
		return checkObs(at, cs...)
	}
	h := reporttest.Handovers()[0]
	for _, kind := range []string{"bolt", "dynamo"} {
		for _, c := range []struct {
			name   string
			accept bool
		}{{"NVIDIA H100 80GB HBM3", true}, {"NVIDIA H800", false}} {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				w := registeredWorld(t, kind, deliveryTerms(t, "acceptance_passed"), h)
				w.clock.Set(t0.Add(10 * time.Minute))
				now := w.clock.Now()
				w.push(wire.Observation{At: now, Kind: wire.KindHeartbeat}, older(now, c.name))
				st, err := w.store.GetState(t.Context(), "gz-01")
				if err != nil {
					t.Fatal(err)
				}
				if got := !st.AcceptedAt.IsZero(); got != c.accept || (got && !st.AcceptedAt.Equal(now)) {
					t.Fatalf("accepted at %v, want accepted %v at %v", st.AcceptedAt, c.accept, now)
				}
			})
		}
	}
}

// A state that recorded an acceptance before acceptance was held to the
// registration (no acceptance_held) may hold cards never ordered: the
// live service must not keep a "delivered" the report would not give.
// gz-01 (due t0 + 30 min) reports its cards at t0 + 10 min, and its state
// is made as the old rule left it: accepted then, whatever the cards.
// Live, that acceptance is not trusted (no verdict) until the next batch
// judges it again from the kept batches: the genuine H100s stay accepted
// at t0 + 10 min, met, no alert, the report's figure; an H800 registered
// as an H100, 4 GPUs of 8 or 40 GB A100s lose it, the overdue alert comes
// at t0 + 31 min, and the report says not delivered either.
func TestStaleAcceptanceJudgedAgain(t *testing.T) {
	eachHandover(t, func(t *testing.T, book app.TermsBook, w *world, h reporttest.Handover) {
		at := t0.Add(10 * time.Minute)
		w.clock.Set(at)
		w.push(wire.Observation{At: at, Kind: wire.KindHeartbeat}, reported(at, h.First))
		st, err := w.store.GetState(t.Context(), "gz-01")
		if err != nil {
			t.Fatal(err)
		}
		st.AcceptedAt, st.AcceptanceHeld = at, false // as the old rule recorded it
		if _, err := w.store.PutState(t.Context(), st, st.Version); err != nil {
			t.Fatal(err)
		}
		node, err := w.store.GetNode(t.Context(), "gz-01")
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := app.JudgeDelivery(book["acme-std"], node, &st, t0.Add(40*time.Minute)); ok {
			t.Fatalf("a stale acceptance judged live: %+v", d)
		}
		w.clock.Set(t0.Add(20 * time.Minute))
		w.push()
		if st, err = w.store.GetState(t.Context(), "gz-01"); err != nil {
			t.Fatal(err)
		}
		genuine := h.First == h.Right
		want := time.Time{}
		if genuine {
			want = at
		}
		if !st.AcceptanceHeld || !st.AcceptedAt.Equal(want) {
			t.Fatalf("judged again: accepted at %v (held %v), want %v", st.AcceptedAt, st.AcceptanceHeld, want)
		}
		w.tickUntil(t0.Add(33 * time.Minute))
		live, ok := app.JudgeDelivery(book["acme-std"], node, &st, w.clock.Now())
		if !ok || live.DeliveredAt.IsZero() != !genuine {
			t.Fatalf("live delivery %+v (%v), want delivered %v", live, ok, genuine)
		}
		overdue := w.notif.Count(notify.AlertDeliveryOverdue)
		d := w.reportDelivery(book)
		switch {
		case genuine && (overdue != 0 || d.Status != "met" || d.DeliveredAt != at.Format(time.RFC3339)):
			t.Errorf("genuine cards: %d overdue alerts, report %+v; want none, met at t0+10m", overdue, d)
		case !genuine && (overdue != 1 || d.DeliveredAt != "" || d.Status != "breached"):
			t.Errorf("cards not ordered: %d overdue alerts, report %+v; want one, not delivered", overdue, d)
		}
	})
}
