package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
)

// Every refusal of a request's credentials is one Error of kind
// EUnauthorized (HTTP 401), naming only the check that failed, and
// nothing is stored for it.
func TestIngestRefusalsAreUnauthorized(t *testing.T) {
	w := newWorld(t)
	now := w.clock.Now()
	_, body := w.p.Batch(now, apptest.Heartbeats(now, 30*time.Second, 2)...)
	good := w.p.Request(now, body)
	stranger := &apptest.Probe{Node: "gz-99", Secret: w.p.Secret}
	cases := []struct {
		name string
		req  app.IngestRequest
		want string
	}{
		{"no signature", app.IngestRequest{Node: good.Node, Timestamp: good.Timestamp, Body: body}, "unauthorized: "},
		{"bad node id", app.IngestRequest{Node: "no spaces", Timestamp: good.Timestamp, Signature: good.Signature, Body: body}, "unauthorized: " + app.ErrUnknownNode.Error()},
		{"unknown node", stranger.Request(now, body), "unauthorized: " + app.ErrUnknownNode.Error()},
		{"wrong signature", app.IngestRequest{Node: good.Node, Timestamp: good.Timestamp, Signature: strings.Repeat("0", len(good.Signature)), Body: body}, "unauthorized: "},
		{"stale", w.p.Request(now.Add(-time.Hour), body), "unauthorized: "},
	}
	for _, c := range cases {
		_, err := w.svc.Ingest(t.Context(), c.req)
		if app.ErrorCode(err) != app.EUnauthorized || !strings.HasPrefix(app.ErrorMessage(err), c.want) || app.ErrorField(err) != "" {
			t.Errorf("%s: %v (kind %q), want an unauthorized error starting %q", c.name, err, app.ErrorCode(err), c.want)
		}
	}
	if st, err := w.store.GetState(t.Context(), w.p.Node); err == nil && st.LastSeq != 0 {
		t.Fatalf("a refused request was stored: last seq %d", st.LastSeq)
	}
	if _, err := w.svc.Ingest(t.Context(), good); err != nil {
		t.Fatalf("good request: %v", err)
	}
	_, err := w.svc.Ingest(t.Context(), good)
	if app.ErrorCode(err) != app.EUnauthorized || app.ErrorMessage(err) != "unauthorized: "+app.ErrReplay.Error() {
		t.Fatalf("replay: %v (kind %q)", err, app.ErrorCode(err))
	}
}
