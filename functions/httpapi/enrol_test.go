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
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

const enrolKey = "0123456789abcdef0123456789abcdef"

// enrolReq posts an enrolment with token and body.
func enrolReq(h http.Handler, token, body string) *httptest.ResponseRecorder {
	return call(h, http.MethodPost, wire.PathEnrol, body, token)
}

func makeToken(t *testing.T, e *env, admin, body string) httpapi.TokenView {
	t.Helper()
	w := call(e.api, http.MethodPost, httpapi.PathEnrolTokens, body, admin)
	if w.Code != 200 {
		t.Fatalf("create token %s: %d %s", body, w.Code, w.Body)
	}
	var v httpapi.TokenView
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil || !strings.HasPrefix(v.Token, "gpe_") {
		t.Fatalf("token view %s: %v", w.Body, err)
	}
	return v
}

func enrolled(t *testing.T, w *httptest.ResponseRecorder) wire.EnrolResponse {
	t.Helper()
	if w.Code != 200 {
		t.Fatalf("enrol: %d %s", w.Code, w.Body)
	}
	var r wire.EnrolResponse
	if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// wantRefusal checks a refusal's status, field and words.
func wantRefusal(t *testing.T, what string, w *httptest.ResponseRecorder, status int, field, msg string) {
	t.Helper()
	var we wire.Error
	_ = json.Unmarshal(w.Body.Bytes(), &we)
	if w.Code != status || we.Field != field || !strings.Contains(we.Error, msg) {
		t.Errorf("%s: %d %s; want %d, field %q, %q", what, w.Code, w.Body, status, field, msg)
	}
}

// A token carries the order: a probe enrolling with it gets a node of
// that order (never its own word) and its own secret, which then signs
// batches like any node's; a retry with the same key gets the same
// secret, a second probe cannot take the id, and the use limit, expiry
// and revocation hold.
func TestEnrolWithAToken(t *testing.T) {
	e := adminEnv(t)
	admin, read := e.key(t, "admin"), e.key(t, "read")
	order := `{"provider":"acme","contract":"acme-std","gpu_model":"H200","gpus":8,"gpu_memory_gb":141,"gpu_driver":"580.95","price_per_hour":148,"uses":2,"expires_at":"` +
		t0.Add(time.Hour).Format(time.RFC3339) + `"}`
	if w := call(e.api, http.MethodPost, httpapi.PathEnrolTokens, order, read); w.Code != 403 {
		t.Fatalf("a read key made a token: %d", w.Code)
	}
	tok := makeToken(t, e, admin, order)
	if tok.MaxUses != 2 || tok.GPUModel != "H200" || tok.GPUMemoryMiB != 141*1024 || tok.GPUDriver != "580.95" || !strings.HasPrefix(tok.CreatedBy, "api:") {
		t.Fatalf("token %+v", tok)
	}
	r := enrolled(t, enrolReq(e.api, tok.Token, `{"node":"gpu-01","key":"`+enrolKey+`","hostname":"gpu-01.dc","probe_version":"v9"}`))
	if r.Node != "gpu-01" || len(r.Secret) != 64 || r.GPUModel != "H200" || r.GPUs != 8 || r.GPUMemoryGB != 141 || r.GPUDriver != "580.95" || r.Contract != "acme-std" ||
		r.Heartbeat != "30s" || r.Push != "1m0s" {
		t.Fatalf("enrolled %+v", r)
	}
	again := enrolled(t, enrolReq(e.api, tok.Token, `{"node":"gpu-01","key":"`+enrolKey+`"}`))
	if again.Secret != r.Secret {
		t.Fatal("a retry with the same key got another secret")
	}
	// The secret signs batches.
	p := &apptest.Probe{Node: r.Node, Secret: []byte(r.Secret)}
	_, body := p.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 1)...)
	if w := e.post(p.Request(t0, body)); w.Code != 200 {
		t.Fatalf("a batch of the enrolled node: %d %s", w.Code, w.Body)
	}
	other := strings.Replace(enrolKey, "0", "f", -1)
	wantRefusal(t, "another probe taking the id", enrolReq(e.api, tok.Token, `{"node":"gpu-01","key":"`+other+`"}`), 409, "node", "already registered")
	wantRefusal(t, "a token taking a node added by hand", enrolReq(e.api, tok.Token, `{"node":"node-a","key":"`+other+`"}`), 409, "node", "already registered")
	enrolled(t, enrolReq(e.api, tok.Token, `{"node":"gpu-02","key":"`+other+`"}`))
	// Re-enrolling the node keeps its order, the driver included.
	if re := makeToken(t, e, admin, `{"reenrol":"gpu-01"}`); re.GPUDriver != "580.95" || re.GPUs != 8 || re.GPUModel != "H200" {
		t.Fatalf("re-enrolment token of an enrolled node %+v; want its order", re)
	}
	wantRefusal(t, "a third use of a two-use token", enrolReq(e.api, tok.Token, `{"node":"gpu-03","key":"`+other+`"}`), 403, "token", "used up: 2 of 2")

	for _, c := range []struct {
		name, token, body string
		status            int
		field, msg        string
	}{
		{"no token", "", `{"node":"x","key":"` + enrolKey + `"}`, 401, "", "enrolment token is required"},
		{"an API key for a token", admin, `{"node":"x","key":"` + enrolKey + `"}`, 401, "", "invalid enrolment token"},
		{"a wrong secret", flipLast(tok.Token), `{"node":"x","key":"` + enrolKey + `"}`, 401, "", "invalid enrolment token"},
		{"an unknown id", "gpe_aaaaaaaa_" + tok.Token[13:], `{"node":"x","key":"` + enrolKey + `"}`, 401, "", "invalid enrolment token"},
		{"a bad node id", tok.Token, `{"node":"a b","key":"` + enrolKey + `"}`, 400, "node", "not a node id"},
		{"a short key", tok.Token, `{"node":"x","key":"abc"}`, 400, "key", "32 to 128"},
		{"an unknown field", tok.Token, `{"node":"x","key":"` + enrolKey + `","gpus":1}`, 400, "gpus", "unknown field"},
		{"a control character", tok.Token, `{"node":"x","key":"` + enrolKey + `","hostname":"a\u0007"}`, 400, "hostname", "control character"},
	} {
		wantRefusal(t, c.name, enrolReq(e.api, c.token, c.body), c.status, c.field, c.msg)
	}
	if w := enrolReq(e.api, tok.Token, `{"node":"x","key":"`+enrolKey+`","hostname":"`+strings.Repeat("h", 5000)+`"}`); w.Code != 413 {
		t.Errorf("a body over the limit: %d", w.Code)
	}

	// Expiry and revocation.
	late := makeToken(t, e, admin, strings.Replace(order, `"uses":2`, `"uses":5`, 1))
	e.clock.Advance(time.Hour)
	wantRefusal(t, "an expired token", enrolReq(e.api, late.Token, `{"node":"gpu-09","key":"`+enrolKey+`"}`), 403, "token", "expired at")
	live := makeToken(t, e, admin, strings.Replace(order, t0.Add(time.Hour).Format(time.RFC3339), t0.Add(3*time.Hour).Format(time.RFC3339), 1))
	if w := call(e.api, http.MethodPost, strings.Replace(httpapi.PathTokenRevoke, "{id}", live.ID, 1), "", admin); w.Code != 200 {
		t.Fatalf("revoke: %d %s", w.Code, w.Body)
	}
	wantRefusal(t, "a revoked token", enrolReq(e.api, live.Token, `{"node":"gpu-09","key":"`+enrolKey+`"}`), 403, "token", "revoked at")

	// The books: each enrolment with who, when and which token.
	w := get(e.api, httpapi.PathEnrolments, read)
	var recs []struct{ Node, Token, By, Hostname string }
	if err := json.Unmarshal(w.Body.Bytes(), &recs); err != nil || len(recs) != 2 || recs[0].Node != "gpu-01" || recs[0].Token != tok.ID ||
		!strings.HasPrefix(recs[0].By, "api:") || recs[0].Hostname != "gpu-01.dc" {
		t.Fatalf("enrolments: %s", w.Body)
	}
	// The event log, and so the evidence bundle, carries each enrolment.
	var got []events.Event
	if _, err := app.Export(t.Context(), e.store, app.ExportSelect{From: t0.Add(-time.Hour), To: t0.Add(2 * time.Hour)}, func(ev *events.Event) error {
		if ev.Type == events.TypeNodeEnrolled {
			got = append(got, *ev)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Node != "gpu-01" || got[0].Token != tok.ID || !strings.HasPrefix(got[0].RecordedBy, "api:") ||
		!got[0].RecordedAt.Equal(t0) || !strings.Contains(got[0].Summary, "host gpu-01.dc") || got[0].Validate() != nil {
		t.Fatalf("node_enrolled events: %+v", got)
	}
}

// The secret is given again only for the enrolment's own retry while the
// token lives and the node has not pushed: a retry a second before the
// expiry gets it, one at the expiry, after a revocation or after the node's
// first batch gets nothing (and no secret in the body); a re-enrolment's
// retry is not stopped by batches signed with the secret it replaced.
func TestEnrolAgainHoldsTheToken(t *testing.T) {
	adminStores(t, func(t *testing.T, e *env) {
		admin := e.key(t, "admin")
		exp := t0.Add(time.Hour)
		tok := makeToken(t, e, admin, `{"provider":"acme","contract":"acme-std","gpu_model":"H200","gpus":8,"uses":3,"expires_at":"`+exp.Format(time.RFC3339)+`"}`)
		first := `{"node":"gpu-01","key":"` + enrolKey + `"}`
		e.clock.Set(exp.Add(-2 * time.Second))
		r := enrolled(t, enrolReq(e.api, tok.Token, first))
		e.clock.Set(exp.Add(-time.Second))
		if again := enrolled(t, enrolReq(e.api, tok.Token, first)); again.Secret != r.Secret {
			t.Fatal("a retry a second before the expiry got another secret")
		}
		e.clock.Set(exp)
		noSecret := func(what, secret string, w *httptest.ResponseRecorder, status int, field, msg string) {
			t.Helper()
			wantRefusal(t, what, w, status, field, msg)
			if strings.Contains(w.Body.String(), secret) || strings.Contains(w.Body.String(), `"secret"`) {
				t.Errorf("%s: the answer carries a secret: %s", what, w.Body)
			}
		}
		noSecret("a retry at the expiry", r.Secret, enrolReq(e.api, tok.Token, first), 403, "token", "expired at")
		// Judged before the body is read: an expired token with a body
		// that is no JSON is refused for the token, not described.
		noSecret("an expired token, no JSON", r.Secret, enrolReq(e.api, tok.Token, `{"node":`), 403, "token", "expired at")

		// Revoked: the retry gets nothing either.
		e.clock.Set(t0)
		live := makeToken(t, e, admin, `{"provider":"acme","contract":"acme-std","gpu_model":"H200","gpus":8,"uses":3}`)
		second := `{"node":"gpu-02","key":"` + strings.Repeat("e", 32) + `"}`
		r2 := enrolled(t, enrolReq(e.api, live.Token, second))
		if w := call(e.api, http.MethodPost, strings.Replace(httpapi.PathTokenRevoke, "{id}", live.ID, 1), "", admin); w.Code != 200 {
			t.Fatalf("revoke: %d %s", w.Code, w.Body)
		}
		noSecret("a retry after the revocation", r2.Secret, enrolReq(e.api, live.Token, second), 403, "token", "revoked at")

		// A node that has pushed has its secret: its retry gets nothing.
		third := makeToken(t, e, admin, `{"provider":"acme","contract":"acme-std","gpu_model":"H200","gpus":8}`)
		req := `{"node":"gpu-03","key":"` + strings.Repeat("f", 32) + `"}`
		r3 := enrolled(t, enrolReq(e.api, third.Token, req))
		p := &apptest.Probe{Node: r3.Node, Secret: []byte(r3.Secret), Chain: "c1"}
		_, body := p.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 1)...)
		if w := e.post(p.Request(t0, body)); w.Code != 200 {
			t.Fatalf("the first batch: %d %s", w.Code, w.Body)
		}
		noSecret("a retry after the node pushed", r3.Secret, enrolReq(e.api, third.Token, req), 409, "node", "has pushed")

		// node-a pushed with its first secret; its re-enrolment is retried
		// and gets the new one again, until the new secret signs a batch.
		_, body = e.a.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 1)...)
		if w := e.post(e.a.Request(t0, body)); w.Code != 200 {
			t.Fatalf("node-a's batch: %d %s", w.Code, w.Body)
		}
		e.clock.Advance(time.Second)
		re := makeToken(t, e, admin, `{"reenrol":"node-a"}`)
		rr := enrolled(t, enrolReq(e.api, re.Token, `{"key":"`+enrolKey+`"}`))
		if again := enrolled(t, enrolReq(e.api, re.Token, `{"key":"`+enrolKey+`"}`)); again.Secret != rr.Secret {
			t.Fatal("a re-enrolment's retry got another secret")
		}
		// The probe lost its state with its secret: a new chain.
		np := &apptest.Probe{Node: "node-a", Secret: []byte(rr.Secret)}
		np.Restart("c2")
		now := e.clock.Now()
		_, body = np.Batch(now, apptest.Heartbeats(now, 30*time.Second, 1)...)
		if w := e.post(np.Request(now, body)); w.Code != 200 {
			t.Fatalf("the new secret's batch: %d %s", w.Code, w.Body)
		}
		noSecret("a re-enrolment's retry after the new secret pushed", rr.Secret, enrolReq(e.api, re.Token, `{"key":"`+enrolKey+`"}`), 409, "node", "has pushed")
	})
}

// Token requests are checked field by field before anything is stored.
func TestEnrolTokenRefusals(t *testing.T) {
	e := adminEnv(t)
	admin := e.key(t, "admin")
	base := `"provider":"acme","contract":"acme-std","gpu_model":"H200","gpus":8`
	for _, c := range []struct {
		name, body string
		field, msg string
	}{
		{"an unknown contract", `{"provider":"acme","contract":"nope","gpu_model":"H200","gpus":8}`, "contract", `"nope" is not in the loaded terms`},
		{"no GPU model", `{"provider":"acme","contract":"acme-std","gpus":8}`, "gpu_model", "carries the order"},
		{"no provider", `{"contract":"acme-std","gpu_model":"H200","gpus":8}`, "provider", "missing"},
		{"a past expiry", `{` + base + `,"expires_at":"2020-01-01T00:00:00Z"}`, "expires", "not in the future"},
		{"a year-long token", `{` + base + `,"expires_at":"` + t0.AddDate(1, 0, 0).Format(time.RFC3339) + `"}`, "expires", "more than"},
		{"too many uses", `{` + base + `,"uses":10001}`, "uses", "not between 1 and 10000"},
		{"negative uses", `{` + base + `,"uses":-1}`, "uses", "not between"},
		{"a bad heartbeat", `{` + base + `,"heartbeat":"soon"}`, "heartbeat", "not a duration"},
		{"a driver named by its branch", `{` + base + `,"gpu_driver":"r580"}`, "gpu_driver", "not a driver version"},
		{"a driver ending in a dot", `{` + base + `,"gpu_driver":"580."}`, "gpu_driver", "not a driver version"},
		{"a driver with a letter", `{` + base + `,"gpu_driver":"580.95.x"}`, "gpu_driver", "not a driver version"},
		{"a re-enrolment of an unknown node", `{"reenrol":"node-z"}`, "node", "not registered"},
		{"a re-enrolment good twice", `{"reenrol":"node-a","uses":2}`, "uses", "good once"},
	} {
		w := call(e.api, http.MethodPost, httpapi.PathEnrolTokens, c.body, admin)
		var we wire.Error
		_ = json.Unmarshal(w.Body.Bytes(), &we)
		if w.Code/100 != 4 || we.Field != c.field || !strings.Contains(we.Error, c.msg) {
			t.Errorf("%s: %d %s; want field %q, %q", c.name, w.Code, w.Body, c.field, c.msg)
		}
	}
}

// Re-enrolment is the renter's act: a token made for one existing node
// replaces its secret once; the old secret stops signing, the order stays
// the node's.
func TestReenrolReplacesTheSecretOnce(t *testing.T) {
	e := adminEnv(t)
	admin := e.key(t, "admin")
	tok := makeToken(t, e, admin, `{"reenrol":"node-a"}`)
	if tok.Reenrol != "node-a" || tok.MaxUses != 1 {
		t.Fatalf("re-enrolment token %+v", tok)
	}
	wantRefusal(t, "another node with it", enrolReq(e.api, tok.Token, `{"node":"node-b","key":"`+enrolKey+`"}`), 403, "node", "re-enrols node node-a alone")
	r := enrolled(t, enrolReq(e.api, tok.Token, `{"key":"`+enrolKey+`"}`))
	if r.Node != "node-a" || !r.Reenrol || r.Secret == string(e.a.Secret) {
		t.Fatalf("re-enrolled %+v", r)
	}
	_, body := e.a.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 1)...)
	if w := e.post(e.a.Request(t0, body)); w.Code != 401 {
		t.Fatalf("the old secret still signs: %d", w.Code)
	}
	p := &apptest.Probe{Node: "node-a", Secret: []byte(r.Secret), Chain: "c2"}
	_, body = p.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 1)...)
	if w := e.post(p.Request(t0, body)); w.Code != 200 {
		t.Fatalf("the new secret: %d %s", w.Code, w.Body)
	}
	wantRefusal(t, "a second re-enrolment with it", enrolReq(e.api, tok.Token, `{"key":"`+strings.Repeat("e", 32)+`"}`), 403, "token", "used up")
}

// flipLast changes a token's last character, always to another one.
func flipLast(s string) string {
	c := byte('a')
	if s[len(s)-1] == 'a' {
		c = 'b'
	}
	return s[:len(s)-1] + string(c)
}
