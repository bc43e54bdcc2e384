package app_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
)

// failing is n definitive failing checks (a burn's wrong results), one per
// GPU index from first: each is a check of its own and opens an incident
// at once. A node's secret can name any of the 1,024 GPU indexes a batch
// may carry (wire.MaxGPUIndex), and past them another burn's name.
func failing(first, n int) []wire.Check {
	cs := make([]wire.Check, n)
	for i := range cs {
		k := first + i
		name := "gpu.burn.fp32.errors"
		if b := k / (wire.MaxGPUIndex + 1); b > 0 {
			name = fmt.Sprintf("gpu.burn.fp32b%d.errors", b)
		}
		cs[i] = wire.Check{Name: name, Category: wire.CategoryGPUDegraded, Verdict: wire.Fail, GPU: gpu(k % (wire.MaxGPUIndex + 1)), Value: "3 wrong of 1000"}
	}
	return cs
}

// inObservations spreads checks over observations of at most wire.MaxChecks.
func inObservations(at time.Time, cs []wire.Check) []wire.Observation {
	obs := heartbeatsAt(at)
	for i := 0; i < len(cs); i += wire.MaxChecks {
		obs = append(obs, checkObs(at, cs[i:min(len(cs), i+wire.MaxChecks)]...))
	}
	return obs
}

// try ingests a batch of obs now and returns the error, if any.
func (w *world) try(obs []wire.Observation) error {
	w.t.Helper()
	now := w.clock.Now()
	_, body := w.p.Batch(now, obs...)
	_, err := w.svc.Ingest(w.t.Context(), w.p.Request(now, body))
	return err
}

func (w *world) evidenceOf(kind string) []store.Evidence {
	w.t.Helper()
	evs, err := w.store.ListEvidence(w.t.Context(), "gz-01", t0.Add(-time.Hour), t0.Add(24*time.Hour))
	if err != nil {
		w.t.Fatal(err)
	}
	var out []store.Evidence
	for _, e := range evs {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func wantRefused(t *testing.T, err error, field, text string) {
	t.Helper()
	if app.ErrorCode(err) != app.EInvalid || app.ErrorField(err) != field || !strings.Contains(err.Error(), text) {
		t.Fatalf("got %v (%s, field %q), want a refusal of %s saying %q", err, app.ErrorCode(err), app.ErrorField(err), field, text)
	}
}

// One batch of a node's own failing checks cannot flood the books and the
// chat: 200 incidents open, but only MaxAlertsPerHour alerts go out and one
// alert says the rest are held; more batches in the hour open incidents up
// to MaxOpenedPerHour, alerting nobody again; one that would open more is
// refused with the bound named, changes nothing and alerts nobody; one
// that reaches the bound exactly is taken; in the next hour the node's new
// incidents alert again. Before the bounds every incident was an alert,
// and nothing stopped a node opening thousands.
func TestBatchFloodBounded(t *testing.T) {
	w := newWorld(t)
	w.push()
	w.clock.Advance(30 * time.Second)
	w.push(inObservations(w.clock.Now(), failing(0, 200))...)
	if n := len(w.incidents()); n != 200 {
		t.Fatalf("%d incidents, want 200", n)
	}
	if n := w.notif.Count(notify.AlertDegraded); n != app.MaxAlertsPerHour {
		t.Errorf("%d degraded alerts sent, want %d", n, app.MaxAlertsPerHour)
	}
	if n := w.notif.Count(notify.AlertLimits); n != 1 {
		t.Fatalf("%d limit alerts, want 1", n)
	}
	var limit notify.Alert
	for _, a := range w.notif.Sent() {
		if a.Kind == notify.AlertLimits {
			limit = a
		}
	}
	if !strings.Contains(limit.Detail, "gz-01 raised more than 40 alerts this hour; 160 were held.") || !limit.Until.Equal(t0.Add(time.Hour)) {
		t.Errorf("limit alert %+v", limit)
	}
	if evs := w.evidenceOf(store.EvidenceLimits); len(evs) != 1 || !strings.Contains(evs[0].Detail, "160 of the batch's 200 alerts held") {
		t.Errorf("limits evidence %+v", evs)
	}

	// 800 more in the hour: taken, held, no second limit alert.
	w.clock.Advance(30 * time.Second)
	w.push(inObservations(w.clock.Now(), failing(200, 800))...)
	if n := len(w.incidents()); n != 1000 {
		t.Fatalf("%d incidents, want 1000", n)
	}
	left := app.MaxOpenedPerHour - 1000
	w.clock.Advance(30 * time.Second)
	err := w.try(inObservations(w.clock.Now(), failing(1000, left+1)))
	wantRefused(t, err, "observations", fmt.Sprintf("the batch would open %d incidents on node gz-01, 1000 this hour already, over the limit of %d an hour",
		left+1, app.MaxOpenedPerHour))
	if n := len(w.incidents()); n != 1000 {
		t.Errorf("%d incidents after the refused batch, want 1000", n)
	}
	if n := w.notif.Count(notify.AlertLimits); n != 1 {
		t.Errorf("%d limit alerts after a refusal in the same hour, want 1", n)
	}
	if evs := w.evidenceOf(store.EvidenceLimits); len(evs) != 3 || !strings.Contains(evs[2].Detail, "batch refused: observations: the batch would open") {
		t.Errorf("limits evidence %+v", evs)
	}
	// At the bound exactly.
	w.push(inObservations(w.clock.Now(), failing(1000, left))...)
	if n := len(w.incidents()); n != app.MaxOpenedPerHour {
		t.Errorf("%d incidents at the bound, want %d", n, app.MaxOpenedPerHour)
	}
	if n := w.notif.Count(notify.AlertDegraded); n != app.MaxAlertsPerHour {
		t.Errorf("%d degraded alerts in the hour, want %d", n, app.MaxAlertsPerHour)
	}

	// The next hour: those still failing open nothing new; 41 new ones
	// open, 40 alert, and one limit alert says the last was held.
	w.clock.Set(t0.Add(time.Hour + 10*time.Second))
	w.push(inObservations(w.clock.Now(), append(failing(0, app.MaxOpenedPerHour), failing(app.MaxOpenedPerHour, 41)...))...)
	degraded := 0
	for _, inc := range w.incidents() {
		if inc.Kind == "gpu_degraded" {
			degraded++
		}
	}
	if degraded != app.MaxOpenedPerHour+41 { // besides, the hour's silence is an unreachable incident
		t.Errorf("%d degraded incidents in the second hour, want %d", degraded, app.MaxOpenedPerHour+41)
	}
	if n := w.notif.Count(notify.AlertDegraded); n != 2*app.MaxAlertsPerHour {
		t.Errorf("%d degraded alerts after the second hour, want %d", n, 2*app.MaxAlertsPerHour)
	}
	if n := w.notif.Count(notify.AlertLimits); n != 2 {
		t.Errorf("%d limit alerts after the second hour, want 2", n)
	}
}

// A node's state follows at most MaxNodeChecks distinct checks: a batch of
// passing checks that would take it past the bound is refused, naming the
// count and the bound, and what the node already follows still works.
func TestNodeChecksBounded(t *testing.T) {
	w := newWorld(t)
	passing := func(first, n int) []wire.Check {
		cs := make([]wire.Check, n)
		for i := range cs {
			cs[i] = wire.Check{Name: fmt.Sprintf("gpu.made.up.%05d", first+i), Category: wire.CategoryGPUDegraded, Verdict: wire.Pass}
		}
		return cs
	}
	half := app.MaxNodeChecks / 2
	w.push(inObservations(w.clock.Now(), passing(0, half))...)
	w.clock.Advance(30 * time.Second)
	w.push(inObservations(w.clock.Now(), passing(half, half))...) // at the bound
	w.clock.Advance(30 * time.Second)
	err := w.try(inObservations(w.clock.Now(), passing(app.MaxNodeChecks, 1)))
	wantRefused(t, err, "observations", fmt.Sprintf("the batch would take node gz-01 to %d distinct checks (name and GPU), over the limit of %d a node",
		app.MaxNodeChecks+1, app.MaxNodeChecks))
	w.push(inObservations(w.clock.Now(), passing(0, half))...) // checks it follows, again
	if n := w.notif.Count(notify.AlertLimits); n != 1 {
		t.Errorf("%d limit alerts, want 1", n)
	}
}

// The wire's bounds on one batch are checked at ingest before anything
// else of the batch is looked at: more than wire.MaxBatchChecks distinct
// checks, a name or a detail past its bound — each refused naming the field.
func TestBatchBoundsRefused(t *testing.T) {
	w := newWorld(t)
	now := w.clock.Now()
	many := make([]wire.Check, wire.MaxBatchChecks+1)
	for i := range many {
		many[i] = wire.Check{Name: fmt.Sprintf("x.%d", i), Category: wire.CategoryHost, Verdict: wire.Pass}
	}
	for _, c := range []struct {
		obs         []wire.Observation
		field, text string
	}{
		{inObservations(now, many), "observations", fmt.Sprintf("%d distinct checks (name and GPU) is over the limit of %d a batch", wire.MaxBatchChecks+1, wire.MaxBatchChecks)},
		{[]wire.Observation{checkObs(now, wire.Check{Name: strings.Repeat("n", 129), Category: wire.CategoryHost, Verdict: wire.Pass})},
			"observations[0].checks[0].name", "129 bytes is over the limit of 128"},
		{[]wire.Observation{checkObs(now, wire.Check{Name: "n", Category: wire.CategoryHost, Verdict: wire.Pass, Detail: strings.Repeat("d", 2049)})},
			"observations[0].checks[0].detail", "2049 bytes is over the limit of 2048"},
	} {
		// Encoded as a node's secret holder would, past the probe's own checks.
		body, err := json.Marshal(wire.Batch{V: wire.Version, ID: "flood", Node: "gz-01", Seq: 1, CreatedAt: now, Observations: c.obs})
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.svc.Ingest(t.Context(), w.p.Request(now, body))
		wantRefused(t, err, c.field, c.text)
		var fe *app.Error
		if !errors.As(err, &fe) {
			t.Errorf("%v is not an app error", err)
		}
	}
	if n := len(w.incidents()); n != 0 {
		t.Errorf("%d incidents", n)
	}
}

// The limits alert is in the contract's words and on its clock, as every
// other alert of the node: under a zh contract on Beijing time its title
// and its text are Chinese, the hour's end at 19:00 Beijing time.
func TestLimitsAlertInTheContractsWords(t *testing.T) {
	w := newWorldWith(t, zhTerms(t))
	w.push()
	w.clock.Advance(30 * time.Second)
	w.push(inObservations(w.clock.Now(), failing(0, app.MaxAlertsPerHour+1))...)
	var limit notify.Alert
	for _, a := range w.notif.Sent() {
		if a.Kind == notify.AlertLimits {
			limit = a
		}
	}
	if limit.Lang != "zh" || limit.Zone != "Asia/Shanghai" {
		t.Fatalf("limits alert %+v", limit)
	}
	for _, want := range []string{"gz-01 本小时内告警超过40条；已暂缓1条。在2026年11月30日 19:00:00（北京时间）之前", "GET /v1/incidents"} {
		if !strings.Contains(limit.Detail, want) {
			t.Errorf("detail %q lacks %q", limit.Detail, want)
		}
	}
}
