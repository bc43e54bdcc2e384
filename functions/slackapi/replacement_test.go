package slackapi_test

import (
	"bytes"
	"crypto/ed25519"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/replacement"
	"github.com/gpusla/gpusla/functions/slackapi"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
	"github.com/gpusla/gpusla/probe/wire"
)

func buttonsOf(a notify.Alert) []*slackgo.ButtonBlockElement {
	var out []*slackgo.ButtonBlockElement
	for _, b := range slack.Blocks(a) {
		if ab, ok := b.(*slackgo.ActionBlock); ok {
			for _, el := range ab.Elements.ElementSet {
				out = append(out, el.(*slackgo.ButtonBlockElement))
			}
		}
	}
	return out
}

// TestRequestReplacementButton: alerts of a hardware incident carry
// "Request replacement"; a click opens the hardware ticket in the alert's
// thread once, however often clicked, and answers with the provider's
// ticket text; a replayed click is refused and changes nothing.
func TestRequestReplacementButton(t *testing.T) {
	dir := t.TempDir()
	st, err := bolt.Open(filepath.Join(dir, "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	key, err := replacement.LoadOrCreateKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvOn(t, nil, st, func(c *slackapi.Config) {
		c.Replacer = &replacement.Requester{Desk: c.Desk, Key: key, Dir: filepath.Join(dir, "packs")}
	})
	svc := e.desk.Service()
	n, secret, err := svc.AddNode(t.Context(), app.NewNode{ID: "gz-h200-01", Provider: "acme", Contract: "cn-example",
		OrderedAt: e.clock.Now().Add(-time.Hour), GPUModel: "H200", GPUCount: 8})
	if err != nil {
		t.Fatal(err)
	}
	p := &apptest.Probe{Node: n.ID, Secret: secret}
	now := e.clock.Now()
	_, body := p.Batch(now, wire.Observation{At: now, Kind: wire.KindHeartbeat}, apptest.Check(now,
		wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "7", Criterion: "8"}))
	if _, err := svc.Ingest(t.Context(), p.Request(now, body)); err != nil {
		t.Fatal(err)
	}
	incs, err := st.ListIncidents(t.Context(), n.ID, now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil || len(incs) != 1 || incs[0].Kind != "gpu_lost" {
		t.Fatalf("incidents %+v %v", incs, err)
	}
	inc := incs[0]

	alert := notify.Alert{Kind: notify.AlertDegraded, Node: n.ID, IncidentID: inc.ID, IncidentKind: inc.Kind, Since: inc.Start}
	bs := buttonsOf(alert)
	if len(bs) != 4 || bs[3].Text.Text != "Request replacement" || bs[3].ActionID != notify.ActionRequestReplacement {
		t.Fatalf("gpu_lost alert buttons: %+v", bs)
	}
	for _, k := range []string{"network_degraded", "performance_below_spec"} {
		if got := buttonsOf(notify.Alert{Kind: notify.AlertDegraded, Node: n.ID, IncidentID: k + "@20261130T100000.000Z", IncidentKind: k}); len(got) != 3 {
			t.Fatalf("%s alert: %d buttons, want no replacement button", k, len(got))
		}
	}

	msgTs := "1764496000.000200"
	reply := func() string {
		rs := e.slack.Responses()
		s, _ := rs[len(rs)-1]["text"].(string)
		return s
	}
	click := clickBody("U7", bs[3].ActionID, n.ID, inc.ID, msgTs, e.slack.responseURL())
	at := time.Now()
	if code := e.do(signed(slackapi.PathInteractions, click, at)).Code; code != http.StatusOK {
		t.Fatalf("click: %d", code)
	}
	for _, want := range []string{"Replacement requested", "请更换物理机", "please replace the physical machine", "measured 7, criterion 8", "Evidence pack: "} {
		if !strings.Contains(reply(), want) {
			t.Fatalf("reply lacks %q:\n%s", want, reply())
		}
	}
	replies := len(e.slack.Responses())
	if code := e.do(signed(slackapi.PathInteractions, click, at)).Code; code != http.StatusUnauthorized {
		t.Fatalf("replayed click: %d, want 401", code)
	}
	if len(e.slack.Responses()) != replies {
		t.Fatal("a replayed click was answered")
	}
	// A second, genuine click (new signature): still one ticket.
	if code := e.do(signed(slackapi.PathInteractions, clickBody("U8", bs[3].ActionID, n.ID, inc.ID, msgTs, e.slack.responseURL()), at.Add(time.Second))).Code; code != http.StatusOK {
		t.Fatalf("second click: %d", code)
	}
	if got := reply(); !strings.Contains(got, "Replacement already requested: ticket *"+app.TicketIDForKey(app.IncidentTicketKey(n.ID, inc.ID))+"*") || !strings.Contains(got, "slack:U7 (mei)") {
		t.Fatalf("second click's reply: %q", got)
	}
	tks := e.tickets()
	if len(tks) != 1 || tks[0].Category != store.CategoryHardware || tks[0].IncidentID != inc.ID || tks[0].Thread != msgTs || tks[0].OpenedBy != "slack:U7 (mei)" {
		t.Fatalf("tickets after two clicks: %+v", tks)
	}
	// The pack it wrote verifies.
	packs, _ := filepath.Glob(filepath.Join(dir, "packs", "*.zip"))
	if len(packs) != 1 {
		t.Fatalf("packs: %v", packs)
	}
	raw, _ := os.ReadFile(packs[0])
	if vr, err := replacement.Verify(bytes.NewReader(raw), int64(len(raw)), replacement.KeyID(key.Public().(ed25519.PublicKey))); err != nil || !vr.OK() {
		t.Fatalf("pack from the button: %v %v", err, vr)
	}

	// Without a Replacer the button says how to do it instead.
	plain := newEnv(t, nil)
	pc := clickBody("U7", bs[3].ActionID, n.ID, inc.ID, msgTs, plain.slack.responseURL())
	if code := plain.do(signed(slackapi.PathInteractions, pc, time.Now())).Code; code != http.StatusOK {
		t.Fatalf("click without replacer: %d", code)
	}
	rs := plain.slack.Responses()
	if got, _ := rs[len(rs)-1]["text"].(string); !strings.Contains(got, "gpusla ticket request-replacement "+n.ID) {
		t.Fatalf("without replacer: %q", got)
	}
}
