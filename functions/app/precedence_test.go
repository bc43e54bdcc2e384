package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/terms"
)

// noMinimum is apptest's contract without its one-minute minimum outage:
// every second of a short cut counts.
func noMinimum(t *testing.T) app.TermsBook {
	t.Helper()
	ts, err := terms.Parse("acme-std.yaml", []byte(strings.Replace(apptest.TermsYAML, "  minimum_outage: 1m\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	return app.TermsBook{ts[0].Contract: ts[0]}
}

// cutWith drives a node heard every 5 s (a heartbeat a push) through a
// minute's network cut beginning just after its push at t0+2m: the backend
// hears nothing from t0+2m until the probe's spool drains at t0+3m02s (2 s
// after the cut), holding the heartbeats made in the cut and conn, a
// connectivity record dated at. It returns the counted seconds of the
// node's one unreachable incident, live (the books the API and the alerts
// judge) and in the report of the export.
func cutWith(t *testing.T, conn wire.Check, at time.Time) (live, report int64) {
	t.Helper()
	w := cutFor(t, time.Minute, apptest.Check(at, conn))
	js, err := w.svc.JudgedIncidents(t.Context(), "cut", t0.Add(-time.Hour), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range js {
		if j.Kind != "unreachable" {
			t.Fatalf("incident %+v", j)
		}
		live += j.CountedSeconds
	}
	for _, o := range w.reportOutages("cut") {
		report += o.CountedSeconds
		t.Logf("report %s %s–%s %d s %v", o.Cause, o.Start, o.End, o.CountedSeconds, o.Evidence)
	}
	for _, j := range js {
		t.Logf("live %s %s–%s %d s part %d", j.Cause, j.Start, j.End, j.CountedSeconds, j.Part)
	}
	return live, report
}

// A spool drained after a minute's cut holds heartbeats made in the cut;
// those made 15 s or less before the drain are heard in time, and the one
// made 2 s before it shows the node connected at its own time (t0+3m),
// the one made 12 s before only from the drain's receipt (t0+3m02s). The
// live books processed them in the batch's order and ended the gap at the
// first (t0+3m02s: 57 s); the report, at the earliest instant any of them
// shows (t0+3m: 55 s). Both end it at t0+3m now.
func TestGapEndsAtTheEarliestHeartbeatHeardInTime(t *testing.T) {
	live, report := cutWith(t, wire.Check{Name: "host.kernel", Category: wire.CategoryHost, Verdict: wire.Pass}, t0.Add(2*time.Minute+time.Second))
	if live != 55 || report != 55 {
		t.Errorf("counted %d s live, %d s in the report; want 55 s", live, report)
	}
}

// The backend, itself up, heard nothing from the node for the 62 s from its
// push at t0+2m to the spool's drain: a fact of its own. Its gap runs from
// when the next heartbeat was due (t0+2m05s) to when the backend heard the
// node again — at t0+3m, the spooled heartbeat the drain delivered 2 s
// after it was made (within the transit slack: connected at its own time)
// — 55 s, counted. A record of the node's that says it could reach the
// backend (its link watch's pass) or the outside (a gateway ping) an
// instant into the cut is its word against the backend's silence: kept as
// evidence, it changes nothing. Only the link watch's pass in the last
// stretch before the backend heard the node again — at most the probe's
// retry wait (backend.max_backoff, at most the heartbeat interval, 5 s) and
// the request's transit (2 s) — shows the probe's reconnection, not
// counted. Live and report alike, to the second.
func TestBackendSilenceOutranksTheNodesWord(t *testing.T) {
	reached := wire.Check{Name: incident.LinkCheck, Category: wire.CategoryConnectivity, Verdict: wire.Pass, Value: "reachable"}
	gateway := wire.Check{Name: "net.gateway.ping", Category: wire.CategoryConnectivity, Verdict: wire.Pass, Value: "0.3 ms"}
	into, end := t0.Add(2*time.Minute+time.Second), t0.Add(3*time.Minute)
	for _, c := range []struct {
		name  string
		check wire.Check
		at    time.Time
		want  int64
	}{
		{"link watch: reached 1 s into the cut", reached, into, 55},
		{"gateway ping passed 1 s into the cut", gateway, into, 55},
		{"gateway ping passed 3 s before the end", gateway, end.Add(-3 * time.Second), 55},
		{"link watch: reached 8 s before the end (past 5 s + 2 s)", reached, end.Add(-8 * time.Second), 55},
		{"link watch: reached 7 s before the end (the bound)", reached, end.Add(-7 * time.Second), 48},
		{"link watch: reached 3 s before the end", reached, end.Add(-3 * time.Second), 52},
	} {
		t.Run(c.name, func(t *testing.T) {
			live, report := cutWith(t, c.check, c.at)
			if live != c.want || report != c.want {
				t.Errorf("counted %d s live, %d s in the report; want %d s", live, report, c.want)
			}
		})
	}
}

// cutFor is a world whose node "cut", heard every 5 s (a heartbeat a
// push), loses its link just after its push at t0+2m for long (a minute
// or more); its spool drains 2 s after the cut ends, holding the last
// minute's heartbeats and extra. The world runs until 58 s after it.
func cutFor(t *testing.T, long time.Duration, extra ...wire.Observation) *world {
	t.Helper()
	w := newWorldWith(t, noMinimum(t))
	p := w.addNode("cut", 5*time.Second, 5*time.Second)
	cut := t0.Add(2 * time.Minute)
	drain := cut.Add(long + 2*time.Second)
	for now := t0; now.Before(drain.Add(58 * time.Second)); now = now.Add(time.Second) {
		w.clock.Set(now)
		switch {
		case now.After(cut) && now.Before(drain):
		case now.Equal(drain):
			obs := apptest.Heartbeats(cut.Add(long), 5*time.Second, 12) // made in the cut, spooled
			obs = append(obs, extra...)
			obs = append(obs, wire.Observation{At: now, Kind: wire.KindHeartbeat})
			w.beat(p, obs...)
		case now.Sub(t0)%(5*time.Second) == 0:
			w.beat(p, wire.Observation{At: now, Kind: wire.KindHeartbeat})
		}
		if now.Sub(t0)%(5*time.Second) == 0 {
			if _, err := w.svc.Watchdog(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
	return w
}

// The recovery alert states the outage's length as the books count it:
// after a five-minute cut (alerted on), a drained spool whose heartbeats,
// read in the batch's order, first end the gap at t0+7m02s (297 s) and
// then at t0+7m (295 s: an earlier one shows the node connected at its own
// time) gives one recovery, saying 295 s, never the 297 s the books no
// longer hold.
func TestRecoveryAlertSaysTheLengthTheBooksCount(t *testing.T) {
	w := cutFor(t, 5*time.Minute)
	js, err := w.svc.JudgedIncidents(t.Context(), "cut", t0.Add(-time.Hour), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var books int64
	for _, j := range js {
		books += j.Seconds
	}
	if books != 295 || !js[len(js)-1].End.Equal(t0.Add(7*time.Minute)) {
		t.Fatalf("books %+v, want 295 s ending at t0+7m", js)
	}
	var rec []notify.Alert
	for _, a := range w.notif.Alerts {
		if a.Kind == notify.AlertRecovered {
			rec = append(rec, a)
		}
	}
	if len(rec) != 1 || rec[0].Duration != 295*time.Second || !rec[0].Until.Equal(t0.Add(7*time.Minute)) {
		for _, a := range rec {
			t.Logf("recovered: until %s, %s", a.Until.Sub(t0), a.Duration)
		}
		t.Fatalf("%d recovery alerts; want one saying 295 s, until t0+7m", len(rec))
	}
}
