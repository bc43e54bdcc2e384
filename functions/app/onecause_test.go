package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/probe/wire"
)

// TestStoppedProbeOneCause: a probe stopped on purpose shortly after one
// failed HTTP check. The first alert says only what the backend knows — no
// data from the node since its last batch — and every later word about the
// gap (a correction, the recovery, the stored incident the status page and
// the API read, the month's report) names the one cause the report gives
// it: no data.
func TestStoppedProbeOneCause(t *testing.T) {
	w := newWorldWith(t, noMinimum(t))
	p := w.addNode("stop", 5*time.Second, 5*time.Second)
	stop := t0.Add(2 * time.Minute)
	failHTTP := wire.Check{Name: "net.http.mirror.reach", Category: wire.CategoryConnectivity, Verdict: wire.Fail, Value: "timeout"}
	for now := t0; now.Before(t0.Add(10 * time.Minute)); now = now.Add(time.Second) {
		w.clock.Set(now)
		if now.Sub(t0)%(5*time.Second) == 0 {
			switch {
			case now.Equal(stop.Add(-5 * time.Second)):
				w.beat(p, wire.Observation{At: now, Kind: wire.KindHeartbeat}, apptest.Check(now, failHTTP))
			case now.Before(stop):
				w.beat(p, wire.Observation{At: now, Kind: wire.KindHeartbeat})
			}
			if _, err := w.svc.Watchdog(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
	var mine []notify.Alert
	for _, a := range w.notif.Alerts {
		if a.Node == "stop" {
			mine = append(mine, a)
		}
	}
	if len(mine) == 0 || mine[0].Kind != notify.AlertUnreachable {
		t.Fatalf("alerts %+v, want the unreachable one first", mine)
	}
	first := chantext.AlertText(mine[0])
	if !strings.Contains(first, "no data from the node since") || !strings.Contains(first, "a correction follows") || strings.Contains(strings.ToLower(first), "network") {
		t.Errorf("the first alert guesses beyond what the backend saw:\n%s", first)
	}
	for _, a := range mine {
		if a.Cause != "" && a.Cause != "no_data" {
			t.Errorf("a %s alert names the cause %q:\n%s", a.Kind, a.Cause, chantext.AlertText(a))
		}
	}
	for _, inc := range w.nodeIncidents("stop") {
		if inc.Kind == "unreachable" && inc.Cause != "no_data" {
			t.Errorf("the stored incident (status page, API) says %q", inc.Cause)
		}
	}
	for _, o := range w.reportOutages("stop") {
		if o.Cause != "no_data" {
			t.Errorf("the report's outage %s–%s says %q", o.Start, o.End, o.Cause)
		}
	}
}
