package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/internal/zhstyle"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/incident"
)

// A cut shorter than interval + grace (30 s heartbeats, pushed two a
// minute, 90 s grace): the node's network is gone from just after t0 to
// t0+2m30s. Its spool delivers the two batches it could not push then,
// the one made at t0+1m (heartbeats of t0+30s and t0+1m, 2 and 1.5 minutes
// late) and the one of t0+2m (t0+1m30s, 60 s late; t0+2m, 30 s late: heard
// in time). Nothing was heard in time from t0+30s, when the next heartbeat
// was due, to t0+2m: 90 s, all of it a silence of the backend (longer than
// the 45 s a batch of two may wait, plus 15 s). The watchdog never alerts
// (the silence never reached 30 s + 90 s at a tick); the gap is recorded
// closed, without an alert, counted by the books; a connectivity failure
// of the node's from inside the gap, arriving later still, reclassifies it
// (network) and tells nobody.
func TestShortGapRecordedWithoutAlert(t *testing.T) {
	w := newWorld(t)
	w.push() // heartbeats of t0-30s and t0
	w.clock.Advance(time.Minute)
	if _, err := w.svc.Watchdog(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.clock.Set(t0.Add(150 * time.Second)) // reconnected: the spool drains
	for _, end := range []time.Time{t0.Add(time.Minute), t0.Add(2 * time.Minute)} {
		_, body := w.p.Batch(end, apptest.Heartbeats(end, 30*time.Second, 2)...)
		if _, err := w.svc.Ingest(t.Context(), w.p.Request(w.clock.Now(), body)); err != nil {
			t.Fatal(err)
		}
	}
	inc := w.only("unreachable")
	if inc.Open() || !inc.Start.Equal(t0.Add(30*time.Second)) || !inc.End.Equal(t0.Add(2*time.Minute)) || !inc.Counted {
		t.Fatalf("incident %+v: want closed, t0+30s to t0+2m, counted", inc)
	}
	if sent := w.notif.Sent(); len(sent) != 0 {
		t.Fatalf("alerts for a gap shorter than the grace: %+v", sent)
	}
	// Its evidence is the engine's sentence, kept with the record: the
	// English as it always was, the Chinese by the house style.
	en := "nothing heard in time from " + t0.Add(30*time.Second).UTC().Format(time.RFC3339) + " to " +
		t0.Add(2*time.Minute).UTC().Format(time.RFC3339) + ": shorter than the grace, not alerted on"
	if inc.Evidence != en || inc.EvidenceText == nil || inc.EvidenceSentence().String() != en {
		t.Errorf("evidence %q, kept %+v; want %q", inc.Evidence, inc.EvidenceText, en)
	}
	zh := i18n.New(i18n.ZH).Text(inc.EvidenceSentence())
	if !strings.HasPrefix(zh, "自") || !strings.HasSuffix(zh, "未按时收到节点的数据：短于宽限时间，未发告警") {
		t.Errorf("in Chinese: %q", zh)
	}
	for _, f := range zhstyle.Check(zh) {
		t.Errorf("in Chinese: %s", f)
	}
	judged, err := w.svc.JudgedIncidents(t.Context(), "gz-01", t0.Add(-time.Hour), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(judged) != 1 || judged[0].CountedSeconds != 90 {
		t.Fatalf("judged %+v: want the one gap, 90 s counted", judged)
	}
	// Later still: the node's connectivity check of t0+1m10s, failed.
	w.clock.Advance(30 * time.Second)
	w.push(append([]wire.Observation{apptest.Check(t0.Add(70*time.Second), wire.Check{Name: "net.internet", Category: wire.CategoryConnectivity,
		Verdict: wire.Fail, Value: "1.1.1.1 unreachable"})}, apptest.Heartbeats(w.clock.Now(), 30*time.Second, 2)...)...)
	if inc := w.only("unreachable"); inc.Cause != incident.CauseNetwork {
		t.Fatalf("incident %+v: want reclassified network", inc)
	} else if inc.EvidenceText == nil || inc.EvidenceSentence().String() != inc.Evidence {
		t.Errorf("reclassified evidence %q kept as %+v", inc.Evidence, inc.EvidenceText)
	}
	if n := w.notif.Count(notify.AlertReclassified); n != 0 {
		t.Fatalf("%d reclassified alerts for a gap never alerted on: %+v", n, w.notif.Sent())
	}
}
