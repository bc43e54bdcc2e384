package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/terms"
)

// adminEnv is a service under acme-std with a delivery target of 90
// minutes counted to the first passing acceptance check, one node ordered
// an hour before t0.
func adminEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, adminBook(t))
}

// adminBook is adminEnv's terms: acme-std, delivered by its acceptance.
func adminBook(t testing.TB) app.TermsBook {
	t.Helper()
	src := strings.Replace(apptest.TermsYAML, "claim:", "delivery:\n  within: 90m\n  counts_until: acceptance_passed\nclaim:", 1)
	ts, err := terms.Parse("acme-std.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return app.TermsBook{ts[0].Contract: ts[0]}
}

// adminStores runs a test on adminEnv and on the same on DynamoDB
// (dynalite).
func adminStores(t *testing.T, run func(t *testing.T, e *env)) {
	t.Run("bolt", func(t *testing.T) { run(t, adminEnv(t)) })
	t.Run("dynamo", func(t *testing.T) { run(t, newEnvOn(t, adminBook(t), dynamotest.NewStore(t))) })
}

// call sends method path with a JSON body and the bearer token.
func call(h http.Handler, method, path, body, token string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func nodeViews(t *testing.T, e *env, token string) map[string]httpapi.NodeView {
	t.Helper()
	w := get(e.api, httpapi.PathNodes, token)
	if w.Code != 200 {
		t.Fatalf("GET /v1/nodes: %d %s", w.Code, w.Body)
	}
	var vs []httpapi.NodeView
	if err := json.Unmarshal(w.Body.Bytes(), &vs); err != nil {
		t.Fatal(err)
	}
	out := map[string]httpapi.NodeView{}
	for _, v := range vs {
		out[v.ID] = v
	}
	return out
}

// Releasing a node and recording maintenance over HTTP need the admin
// scope (no key 401, read 403, admin 200), are checked as the CLI checks
// them (each refusal names the field), and show in GET /v1/nodes and GET
// /v1/maintenance.
func TestAdminReleaseAndMaintenance(t *testing.T) {
	e := adminEnv(t)
	read, admin := e.key(t, "read"), e.key(t, "admin")
	release := strings.Replace(httpapi.PathNodeRelease, "{id}", "node-a", 1)
	at := t0.Add(-10 * time.Minute).Format(time.RFC3339)
	for _, c := range []struct {
		name, path, body, token string
		status                  int
		field, msg              string
	}{
		{"release without a key", release, `{"at":"` + at + `"}`, "", 401, "", "API key"},
		{"release with the read scope", release, `{"at":"` + at + `"}`, read, 403, "scope", "admin"},
		{"maintenance with the read scope", httpapi.PathMaintenance, `{}`, read, 403, "scope", "admin"},
		{"release at a non-time", release, `{"at":"yesterday"}`, admin, 400, "at", `"yesterday" is not an RFC 3339 time`},
		{"release before the order", release, `{"at":"2026-01-01T00:00:00Z"}`, admin, 400, "at", "before the node was ordered"},
		{"release in the future", release, `{"at":"` + t0.Add(time.Hour).Format(time.RFC3339) + `"}`, admin, 400, "at", "in the future"},
		{"release with an unknown field", release, `{"when":"` + at + `"}`, admin, 400, "when", "unknown field"},
		{"release of an unknown node", strings.Replace(httpapi.PathNodeRelease, "{id}", "node-z", 1), `{}`, admin, 404, "node", `"node-z" is not registered`},
		{"maintenance without a start", httpapi.PathMaintenance, `{"node":"node-a","end":"` + at + `"}`, admin, 400, "start", "missing"},
		{"maintenance ending before it starts", httpapi.PathMaintenance, `{"node":"node-a","start":"` + at + `","end":"2026-11-01T00:00:00Z"}`, admin, 400, "end", "not after the start"},
		{"maintenance for node and contract", httpapi.PathMaintenance, `{"node":"node-a","contract":"acme-std","start":"` + at + `","end":"` + t0.Format(time.RFC3339) + `"}`, admin, 400, "contract", "exactly one"},
		{"maintenance of an unknown contract", httpapi.PathMaintenance, `{"contract":"nope","start":"` + at + `","end":"` + t0.Format(time.RFC3339) + `"}`, admin, 400, "contract", "unknown contract; known: acme-std"},
	} {
		w := call(e.api, http.MethodPost, c.path, c.body, c.token)
		if w.Code != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, w.Code, w.Body, c.status)
			continue
		}
		if we := decodeErr(t, w); we.Field != c.field || !strings.Contains(we.Error, c.msg) {
			t.Errorf("%s: %+v, want field %q and %q", c.name, we, c.field, c.msg)
		}
	}
	if v := nodeViews(t, e, read)["node-a"]; !v.InService || !v.ReleasedAt.IsZero() {
		t.Fatalf("a refused release changed the node: %+v", v)
	}

	// A notice for the node, announced now; the same again is a no-op.
	body := `{"node":"node-a","start":"2026-12-05T02:00:00Z","end":"2026-12-05T04:00:00Z","summary":"switch upgrade"}`
	for i := 0; i < 2; i++ {
		if w := call(e.api, http.MethodPost, httpapi.PathMaintenance, body, admin); w.Code != 200 {
			t.Fatalf("maintenance (try %d): %d %s", i+1, w.Code, w.Body)
		}
	}
	w := get(e.api, httpapi.PathMaintenance+"?from=2026-12-01T00:00:00Z&to=2026-12-31T00:00:00Z", read)
	var ms []map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &ms); w.Code != 200 || err != nil || len(ms) != 1 || ms[0]["node"] != "node-a" ||
		ms[0]["announced_at"] != t0.Format(time.RFC3339) || ms[0]["summary"] != "switch upgrade" {
		t.Fatalf("GET /v1/maintenance: %d %s", w.Code, w.Body)
	}
	if w := get(e.api, httpapi.PathMaintenance+"?from=2026-12-31T00:00:00Z&to=2026-12-01T00:00:00Z", read); w.Code != 400 || decodeErr(t, w).Field != "from" {
		t.Fatalf("an empty window: %d %s", w.Code, w.Body)
	}

	// The release: shown in the node list; the same instant again is
	// accepted, another refused naming the recorded one.
	w = call(e.api, http.MethodPost, release, `{"at":"`+at+`"}`, admin)
	var got httpapi.NodeView
	if err := json.Unmarshal(w.Body.Bytes(), &got); w.Code != 200 || err != nil || got.InService || got.ReleasedAt.Format(time.RFC3339) != at {
		t.Fatalf("release: %d %s", w.Code, w.Body)
	}
	if v := nodeViews(t, e, read)["node-a"]; v.InService || v.ReleasedAt.Format(time.RFC3339) != at {
		t.Fatalf("GET /v1/nodes after the release: %+v", v)
	}
	if w := call(e.api, http.MethodPost, release, `{"at":"`+at+`"}`, admin); w.Code != 200 {
		t.Fatalf("the same release again: %d %s", w.Code, w.Body)
	}
	w = call(e.api, http.MethodPost, release, `{}`, admin)
	if we := decodeErr(t, w); w.Code != 409 || we.Field != "at" || !strings.Contains(we.Error, "already released at "+t0.Add(-10*time.Minute).Format(time.RFC3339)) {
		t.Fatalf("another release: %d %+v", w.Code, we)
	}
}

// GET /v1/nodes shows the order, the first passing acceptance check and
// the delivery judged under the contract: pending until the acceptance
// passes (a heartbeat alone does not deliver under acceptance_passed),
// then met or breached with how long it took.
func TestNodeViewShowsAcceptanceAndDelivery(t *testing.T) {
	e := adminEnv(t)
	read := e.key(t, "read")
	v := nodeViews(t, e, read)["node-a"]
	if v.OrderedAt.IsZero() || v.Delivery == nil || v.Delivery.Status != "pending" || v.Delivery.CountsUntil != "acceptance_passed" ||
		v.Delivery.TookSeconds != 3600 || !v.Delivery.Due.Equal(v.OrderedAt.Add(90*time.Minute)) || !v.DeliveredAt.IsZero() {
		t.Fatalf("before any batch: %+v %+v", v, v.Delivery)
	}
	// A heartbeat: delivered by the first heartbeat's rule, not this contract's.
	_, body := e.a.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 1)...)
	if w := e.post(e.a.Request(t0, body)); w.Code != 200 {
		t.Fatalf("ingest: %d %s", w.Code, w.Body)
	}
	if v := nodeViews(t, e, read)["node-a"]; v.FirstHeartbeatAt.IsZero() || !v.AcceptedAt.IsZero() || v.Delivery.Status != "pending" {
		t.Fatalf("after a heartbeat: %+v %+v", v, v.Delivery)
	}
	// The acceptance check passes 40 minutes later: 100 minutes after the
	// order, 10 past the target.
	e.clock.Advance(40 * time.Minute)
	now := e.clock.Now()
	g := 0
	_, body = e.a.Batch(now, apptest.Check(now,
		wire.Check{Name: "gpu.model", Category: wire.CategoryInventory, Verdict: wire.Pass, GPU: &g, Value: "NVIDIA H100 80GB HBM3"},
		wire.Check{Name: "gpu.order.model", Category: wire.CategoryInventory, Verdict: wire.Pass, GPU: &g, Criterion: "H100 (ordered)"}))
	if w := e.post(e.a.Request(now, body)); w.Code != 200 {
		t.Fatalf("ingest: %d %s", w.Code, w.Body)
	}
	v = nodeViews(t, e, read)["node-a"]
	if !v.AcceptedAt.Equal(now) || !v.DeliveredAt.Equal(now) || v.Delivery.Status != "breached" ||
		v.Delivery.TookSeconds != 100*60 || v.Delivery.LateSeconds != 10*60 {
		t.Fatalf("after the acceptance check: %+v %+v", v, v.Delivery)
	}
	// The same acceptance as a state recorded it before acceptance was
	// held to the registration: neither shown nor judged until judged again.
	st, err := e.store.GetState(t.Context(), "node-a")
	if err != nil {
		t.Fatal(err)
	}
	st.AcceptanceHeld = false
	if _, err := e.store.PutState(t.Context(), st, st.Version); err != nil {
		t.Fatal(err)
	}
	if v := nodeViews(t, e, read)["node-a"]; !v.AcceptedAt.IsZero() || !v.DeliveredAt.IsZero() || v.Delivery != nil {
		t.Fatalf("an acceptance not held to the registration: %+v %+v", v, v.Delivery)
	}
}
