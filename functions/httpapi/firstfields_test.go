package httpapi_test

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

// firstBody is a node's first batch as JSON text, one check at t0, with
// the replacements made in order (old, new, old, new…).
func firstBody(t *testing.T, repl ...string) []byte {
	t.Helper()
	s := `{"v":1,"id":"b-1","node":"node-a","probe":"t","seq":1,"prev":"","created_at":"2026-11-30T10:00:00Z",` +
		`"observations":[{"at":"2026-11-30T10:00:00Z","kind":"check","checks":[{"name":"gpu.count","category":"gpu_lost","verdict":"pass","value":"8","gpu":0}]}]}`
	for i := 0; i+1 < len(repl); i += 2 {
		if !strings.Contains(s, repl[i]) {
			t.Fatalf("%q is not in the body", repl[i])
		}
		s = strings.Replace(s, repl[i], repl[i+1], 1)
	}
	return []byte(s)
}

// manyObs is n observations of one check each, named by name(i).
func manyObs(n int, name func(i int) string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"at":"2026-11-30T10:00:00Z","kind":"check","checks":[{"name":%q,"category":"host","verdict":"pass"}]}`, name(i))
	}
	return b.String()
}

// Every field of a node's first batch, on both sides of its bound, through
// the handler on bolt and DynamoDB: a refusal is 400 naming the field
// (and the value or the bound), and leaves nothing written — no state, no
// body, no evidence; the edge itself is taken. Keys are spelled once and
// as the protocol spells them: encoding/json would keep the last of a key
// given twice and take "Seq" or "ſeq" for seq, so a signed body could say
// two things.
func TestFirstPushFields(t *testing.T) { onStores(t, testFirstPushFields) }

func testFirstPushFields(t *testing.T, mk func(testing.TB) *env) {
	long := func(n int) string { return strings.Repeat("x", n) }
	obsList := func(obs string) []string {
		return []string{`"observations":[{"at":"2026-11-30T10:00:00Z","kind":"check","checks":[{"name":"gpu.count","category":"gpu_lost","verdict":"pass","value":"8","gpu":0}]}]`, `"observations":[` + obs + `]`}
	}
	checks := func(n int, distinct bool) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			name := "c"
			if distinct {
				name = fmt.Sprint("c", i)
			}
			fmt.Fprintf(&b, `{"name":%q,"category":"host","verdict":"pass"}`, name)
		}
		return `{"at":"2026-11-30T10:00:00Z","kind":"check","checks":[` + b.String() + `]}`
	}
	drop := func(d string) []string {
		return []string{`"seq":1,"prev":""`, `"seq":5,"prev":"` + strings.Repeat("ab", 32) + `","dropped":` + d}
	}
	for _, c := range []struct {
		name  string
		body  []byte
		field string // "" : taken
		msg   string
	}{
		// Keys.
		{"seq given twice", firstBody(t, `"seq":1`, `"seq":1,"seq":2`), "seq", `"seq" is given twice`},
		{"a verdict given twice", firstBody(t, `"verdict":"pass"`, `"verdict":"pass","verdict":"fail"`), "observations[0].checks[0].verdict", "given twice"},
		{"Seq for seq", firstBody(t, `"seq":1`, `"Seq":1`), "Seq", "not spelled as the protocol"},
		{"the long s for seq", firstBody(t, `"seq":1`, `"ſeq":1`), "ſeq", "not spelled as the protocol"},
		{"an escaped key", firstBody(t, `"seq":1`, `"s\u0065q":1`), "seq", "not spelled as the protocol"},
		{"an unknown key, plain", firstBody(t, `"probe":"t"`, `"probe":"t","later_field":{"x":1}`), "", ""},
		{"not JSON", []byte(`{"v":1,`), "body", "unexpected end"},
		{"an array", []byte(`[]`), "body", "wrong type"},
		{"empty", []byte(``), "body", "unexpected end"},
		// The batch's own fields.
		{"v 2", firstBody(t, `"v":1`, `"v":2`), "v", "unsupported version 2"},
		{"another node", firstBody(t, `"node":"node-a"`, `"node":"node-b"`), "node", `"node-b" does not match the signing node "node-a"`},
		{"an id of 128", firstBody(t, `"id":"b-1"`, `"id":"`+long(128)+`"`), "", ""},
		{"an id of 129", firstBody(t, `"id":"b-1"`, `"id":"`+long(129)+`"`), "id", "1 to 128"},
		{"an id with a space", firstBody(t, `"id":"b-1"`, `"id":"b 1"`), "id", `"b 1" is not a batch id`},
		{"an id with a slash", firstBody(t, `"id":"b-1"`, `"id":"b/1"`), "id", `"b/1" is not a batch id`},
		{"a probe of 128 bytes", firstBody(t, `"probe":"t"`, `"probe":"`+long(128)+`"`), "", ""},
		{"a probe of 129 bytes", firstBody(t, `"probe":"t"`, `"probe":"`+long(129)+`"`), "probe", "at most 128 bytes"},
		{"a probe with a control character", firstBody(t, `"probe":"t"`, `"probe":"1.0\n"`), "probe", "control characters"},
		{"seq 0", firstBody(t, `"seq":1`, `"seq":0`), "seq", "1 or more"},
		{"seq -1", firstBody(t, `"seq":1`, `"seq":-1`), "seq", "wrong type: number -1"},
		{"seq 1.5", firstBody(t, `"seq":1`, `"seq":1.5`), "seq", "wrong type: number 1.5"},
		{"seq 2^64", firstBody(t, `"seq":1`, `"seq":18446744073709551616`), "seq", "wrong type: number 18446744073709551616"},
		{"seq 2^64-1", firstBody(t, `"seq":1`, `"seq":18446744073709551615`), "seq", "18446744073709551615 is over the limit of 1099511627776"},
		{"seq 2^40+1", firstBody(t, `"seq":1,"prev":""`, `"seq":1099511627777,"prev":"`+strings.Repeat("ab", 32)+`"`), "seq", "1099511627777 is over the limit"},
		{"seq 2^40", firstBody(t, `"seq":1,"prev":""`, `"seq":1099511627776,"prev":"`+strings.Repeat("ab", 32)+`"`), "", ""},
		{"seq 1 with a prev", firstBody(t, `"prev":""`, `"prev":"`+strings.Repeat("ab", 32)+`"`), "prev", "must be empty"},
		{"a prev not hex", firstBody(t, `"seq":1,"prev":""`, `"seq":2,"prev":"zz"`), "prev", "64 hex"},
		{"a chain of 65", firstBody(t, `"probe":"t"`, `"probe":"t","chain":"`+long(65)+`"`), "chain", "at most 64"},
		{"no created_at", firstBody(t, `"created_at":"2026-11-30T10:00:00Z",`, ``), "created_at", "missing"},
		{"created_at not a time", firstBody(t, `"created_at":"2026-11-30T10:00:00Z"`, `"created_at":"2026-11-30T10:00:60Z"`), "created_at", `"2026-11-30T10:00:60Z" is not an RFC 3339 time`},
		{"clock_skew_ms past a century", firstBody(t, `"probe":"t"`, `"probe":"t","clock_skew_ms":3153600000001`), "clock_skew_ms", "3153600000001"},
		// A drop report: batches before this one, from 1, a bounded reason.
		{"a drop report", firstBody(t, drop(`{"batches":4,"from_seq":1,"to_seq":4,"reason":"`+long(1024)+`"}`)...), "", ""},
		{"a drop of no batch", firstBody(t, drop(`{"batches":0,"from_seq":1,"to_seq":4,"reason":"full"}`)...), "dropped.batches", "0: a drop report counts 1 or more"},
		{"a drop from seq 0", firstBody(t, drop(`{"batches":1,"from_seq":0,"to_seq":4,"reason":"full"}`)...), "dropped.from_seq", "0: the dropped seqs run from 1"},
		{"a drop from after its end", firstBody(t, drop(`{"batches":1,"from_seq":4,"to_seq":3,"reason":"full"}`)...), "dropped.from_seq", "to_seq (3)"},
		{"a drop of this very batch", firstBody(t, drop(`{"batches":1,"from_seq":1,"to_seq":5,"reason":"full"}`)...), "dropped.to_seq", "before this batch's seq 5"},
		{"a drop reason of 1025 bytes", firstBody(t, drop(`{"batches":4,"from_seq":1,"to_seq":4,"reason":"`+long(1025)+`"}`)...), "dropped.reason", "at most 1024 bytes"},
		// Observations and checks.
		{"5000 observations", firstBody(t, obsList(manyObs(5000, func(int) string { return "c" }))...), "", ""},
		{"5001 observations", firstBody(t, obsList(manyObs(5001, func(int) string { return "c" }))...), "observations", "5001 is over the limit of 5000"},
		{"512 checks in one", firstBody(t, obsList(checks(512, false))...), "", ""},
		{"513 checks in one", firstBody(t, obsList(checks(513, false))...), "observations[0].checks", "513 is over the limit of 512"},
		{"2048 distinct checks", firstBody(t, obsList(manyObs(2048, func(i int) string { return fmt.Sprint("c", i) }))...), "", ""},
		{"2049 distinct checks", firstBody(t, obsList(manyObs(2049, func(i int) string { return fmt.Sprint("c", i) }))...), "observations", "2049 distinct checks"},
		{"no at", firstBody(t, `{"at":"2026-11-30T10:00:00Z",`, `{`), "observations[0].at", "missing"},
		{"an at that is no time", firstBody(t, `{"at":"2026-11-30T10:00:00Z"`, `{"at":"yesterday"`), "observations[0].at", `"yesterday" is not an RFC 3339 time`},
		{"a kind unknown", firstBody(t, `"kind":"check"`, `"kind":"guess"`), "observations[0].kind", `"guess"`},
		{"a category unknown", firstBody(t, `"category":"gpu_lost"`, `"category":"gpu_gone"`), "observations[0].checks[0].category", `"gpu_gone"`},
		{"a verdict unknown", firstBody(t, `"verdict":"pass"`, `"verdict":"ok"`), "observations[0].checks[0].verdict", `"ok"`},
		{"no name", firstBody(t, `"name":"gpu.count",`, ``), "observations[0].checks[0].name", "missing"},
		{"a name of 128 bytes", firstBody(t, `"name":"gpu.count"`, `"name":"`+long(128)+`"`), "", ""},
		{"a name of 129 bytes", firstBody(t, `"name":"gpu.count"`, `"name":"`+long(129)+`"`), "observations[0].checks[0].name", "129 bytes is over the limit of 128"},
		{"a value of 256 bytes", firstBody(t, `"value":"8"`, `"value":"`+long(256)+`"`), "", ""},
		{"a value of 257 bytes", firstBody(t, `"value":"8"`, `"value":"`+long(257)+`"`), "observations[0].checks[0].value", "257 bytes is over the limit of 256"},
		{"a criterion of 257 bytes", firstBody(t, `"value":"8"`, `"criterion":"`+long(257)+`"`), "observations[0].checks[0].criterion", "257 bytes"},
		{"a unit of 32 bytes", firstBody(t, `"value":"8"`, `"unit":"`+long(32)+`"`), "", ""},
		{"a unit of 33 bytes", firstBody(t, `"value":"8"`, `"unit":"`+long(33)+`"`), "observations[0].checks[0].unit", "33 bytes"},
		{"a detail of 2048 bytes", firstBody(t, `"value":"8"`, `"detail":"`+long(2048)+`"`), "", ""},
		{"a detail of 2049 bytes", firstBody(t, `"value":"8"`, `"detail":"`+long(2049)+`"`), "observations[0].checks[0].detail", "2049 bytes is over the limit of 2048"},
		{"text not UTF-8", firstBody(t, `"value":"8"`, "\"value\":\"8\xff\""), "observations[0].checks[0].value", "not valid UTF-8"},
		{"a number past float64", firstBody(t, `"value":"8"`, `"number":1e400`), "observations[0].checks[0].number", "wrong type: number 1e400"},
		{"gpu 1023", firstBody(t, `"gpu":0`, `"gpu":1023`), "", ""},
		{"gpu 1024", firstBody(t, `"gpu":0`, `"gpu":1024`), "observations[0].checks[0].gpu", "1024 is not a GPU index (0 to 1023)"},
		{"gpu -1", firstBody(t, `"gpu":0`, `"gpu":-1`), "observations[0].checks[0].gpu", "-1 is not a GPU index"},
		{"a uuid not NVML's", firstBody(t, `"gpu":0`, `"gpu":0,"uuid":"GPU 1"`), "observations[0].checks[0].uuid", `"GPU 1"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := mk(t)
			if len(c.body) > wire.MaxBodyBytes {
				t.Fatalf("the case is %d bytes, over the body limit", len(c.body))
			}
			w := e.post(e.a.Request(t0, c.body))
			if c.field == "" {
				if w.Code != 200 {
					t.Fatalf("%d %s; want it taken", w.Code, w.Body)
				}
				return
			}
			we := decodeErr(t, w)
			if w.Code != 400 || we.Field != c.field || !strings.Contains(we.Error, c.msg) {
				t.Fatalf("%d %s; want 400 naming %s with %q", w.Code, w.Body, c.field, c.msg)
			}
			nothingWritten(t, e, "node-a")
		})
	}
}

// nothingWritten says a refused first batch left nothing: no state, no
// batch body, no evidence.
func nothingWritten(t *testing.T, e *env, node string) {
	t.Helper()
	noState(t, e, node)
	if recs, err := e.store.ListBatches(t.Context(), node, 0, 1<<63); err != nil || len(recs) != 0 {
		t.Errorf("batches after a refusal: %d (%v)", len(recs), err)
	}
	for _, k := range []string{store.EvidenceTimeBounds, store.EvidenceSeqGap, store.EvidenceSeqReuse, store.EvidenceDrop, store.EvidenceChainBreak, store.EvidenceChainRestart, store.EvidenceOutOfOrder} {
		if ev := evidenceOf(t, e, node, k); len(ev) != 0 {
			t.Errorf("%s evidence after a refusal: %+v", k, ev)
		}
	}
}

// The headers of a first push are judged before a byte of the body:
// who signs (node id as registered, case and all), when (the timestamp
// within 5 minutes, exactly at the line taken), the MAC (v1=, either hex
// case), and the body's form — a Content-Encoding is refused (the chain is
// over the bytes as sent), a Content-Type other than JSON too (none at all
// is taken). Each refusal names what it refuses and writes nothing.
func TestFirstPushHeaders(t *testing.T) { onStores(t, testFirstPushHeaders) }

func testFirstPushHeaders(t *testing.T, mk func(testing.TB) *env) {
	body := firstBody(t)
	send := func(e *env, r app.IngestRequest, hdr ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, httpapi.PathBatches, bytes.NewReader(r.Body))
		for k, v := range map[string]string{wire.HeaderNode: r.Node, wire.HeaderTimestamp: r.Timestamp, wire.HeaderSignature: r.Signature} {
			if v != "" {
				req.Header.Set(k, v)
			}
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Add(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		e.api.ServeHTTP(w, req)
		return w
	}
	with := func(r app.IngestRequest, f func(*app.IngestRequest)) app.IngestRequest { f(&r); return r }
	for _, c := range []struct {
		name   string
		req    func(e *env) app.IngestRequest
		hdr    []string
		status int
		field  string
		msg    string
	}{
		{"as the probe sends it", func(e *env) app.IngestRequest { return e.a.Request(t0, body) }, []string{"Content-Type", "application/json"}, 200, "", ""},
		{"no Content-Type", func(e *env) app.IngestRequest { return e.a.Request(t0, body) }, nil, 200, "", ""},
		{"JSON with a charset", func(e *env) app.IngestRequest { return e.a.Request(t0, body) }, []string{"Content-Type", "application/json; charset=utf-8"}, 200, "", ""},
		{"Content-Encoding identity", func(e *env) app.IngestRequest { return e.a.Request(t0, body) }, []string{"Content-Encoding", "identity"}, 200, "", ""},
		{"text/plain", func(e *env) app.IngestRequest { return e.a.Request(t0, body) }, []string{"Content-Type", "text/plain"}, 415, "Content-Type", `"text/plain"`},
		{"a form", func(e *env) app.IngestRequest { return e.a.Request(t0, body) }, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "Content-Type", "application/json"},
		{"gzip", func(e *env) app.IngestRequest { return e.a.Request(t0, body) }, []string{"Content-Encoding", "gzip"}, 415, "Content-Encoding", `"gzip"`},
		{"two encodings", func(e *env) app.IngestRequest { return e.a.Request(t0, body) }, []string{"Content-Encoding", "identity", "Content-Encoding", "br"}, 415, "Content-Encoding", "identity, br"},
		{"no headers", func(*env) app.IngestRequest { return app.IngestRequest{Body: body} }, nil, 401, "", "missing signature"},
		{"timestamp 5 min behind", func(e *env) app.IngestRequest { return e.a.Request(t0.Add(-wire.TimestampWindow), body) }, nil, 200, "", ""},
		{"timestamp 5 min 1 s behind", func(e *env) app.IngestRequest { return e.a.Request(t0.Add(-wire.TimestampWindow-time.Second), body) }, nil, 401, "", "X-Gpusla-Timestamp 1796032499 is 5m1s from the backend's clock"},
		{"timestamp 5 min ahead", func(e *env) app.IngestRequest { return e.a.Request(t0.Add(wire.TimestampWindow), body) }, nil, 200, "", ""},
		{"timestamp 5 min 1 s ahead", func(e *env) app.IngestRequest { return e.a.Request(t0.Add(wire.TimestampWindow+time.Second), body) }, nil, 401, "", "X-Gpusla-Timestamp 1796033101 is -5m1s from the backend's clock"},
		{"timestamp not decimal", func(e *env) app.IngestRequest {
			return with(e.a.Request(t0, body), func(r *app.IngestRequest) { r.Timestamp = "0x" + r.Timestamp })
		}, nil, 401, "", `X-Gpusla-Timestamp "0x1796032800" is not Unix seconds in decimal`},
		{"signature in capitals", func(e *env) app.IngestRequest {
			return with(e.a.Request(t0, body), func(r *app.IngestRequest) { r.Signature = "v1=" + strings.ToUpper(r.Signature[3:]) })
		}, nil, 200, "", ""},
		{"signature v2", func(e *env) app.IngestRequest {
			return with(e.a.Request(t0, body), func(r *app.IngestRequest) { r.Signature = "v2=" + r.Signature[3:] })
		}, nil, 401, "", "unknown node or signature does not match"},
		{"node id in capitals", func(e *env) app.IngestRequest {
			return with(e.a.Request(t0, body), func(r *app.IngestRequest) { r.Node = "NODE-A" })
		}, nil, 401, "", "unknown node or signature does not match"},
		{"node id in other letters", func(e *env) app.IngestRequest {
			return with(e.a.Request(t0, body), func(r *app.IngestRequest) { r.Node = "nоde-a" }) // Cyrillic о
		}, nil, 401, "", "unknown node or signature does not match"},
		{"another node's id, this node's MAC", func(e *env) app.IngestRequest {
			return with(e.a.Request(t0, body), func(r *app.IngestRequest) { r.Node = "node-b" })
		}, nil, 401, "", "unknown node or signature does not match"},
		{"an unknown node", func(e *env) app.IngestRequest {
			return with(e.a.Request(t0, body), func(r *app.IngestRequest) { r.Node = "node-z" })
		}, nil, 401, "", "unknown node or signature does not match"},
		{"another node signing this node's batch", func(e *env) app.IngestRequest { return e.b.Request(t0, body) }, nil, 400, "node", `"node-a" does not match the signing node "node-b"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := mk(t)
			w := send(e, c.req(e), c.hdr...)
			if c.status == 200 {
				if w.Code != 200 {
					t.Fatalf("%d %s; want it taken", w.Code, w.Body)
				}
				return
			}
			we := decodeErr(t, w)
			if w.Code != c.status || we.Field != c.field || !strings.Contains(we.Error, c.msg) {
				t.Fatalf("%d %s; want %d naming %q with %q", w.Code, w.Body, c.status, c.field, c.msg)
			}
			nothingWritten(t, e, "node-a")
			nothingWritten(t, e, "node-b")
		})
	}
}

// A node's batches are keyed after the seqs of its earlier chains; a
// chain restart whose keys could wrap past 2^64 onto the first chain's is
// refused naming chain, with nothing written. The state is set up near the
// line directly: some 16 million restarts would take the store there.
func TestChainKeysNeverWrap(t *testing.T) { onStores(t, testChainKeysNeverWrap) }

func testChainKeysNeverWrap(t *testing.T, mk func(testing.TB) *env) {
	e := mk(t)
	e.a.Chain = "c1"
	_, body := e.a.Batch(t0, wire.Observation{At: t0, Kind: wire.KindHeartbeat})
	if w := e.post(e.a.Request(t0, body)); w.Code != 200 {
		t.Fatalf("first: %d %s", w.Code, w.Body)
	}
	st, err := e.store.GetState(t.Context(), "node-a")
	if err != nil {
		t.Fatal(err)
	}
	st.SeqBase = math.MaxUint64 - 2*wire.MaxSeq // at the line
	if _, err := e.store.PutState(t.Context(), st, st.Version); err != nil {
		t.Fatal(err)
	}
	restart := func(chain string, at time.Time) *httptest.ResponseRecorder {
		e.a.Restart(chain)
		e.clock.Set(at)
		_, body := e.a.Batch(at, wire.Observation{At: at, Kind: wire.KindHeartbeat})
		return e.post(e.a.Request(at, body))
	}
	if w := restart("c2", t0.Add(time.Minute)); w.Code != 200 {
		t.Fatalf("a restart at the line: %d %s", w.Code, w.Body)
	}
	before, err := e.store.GetState(t.Context(), "node-a")
	if err != nil || before.SeqBase != math.MaxUint64-2*wire.MaxSeq+1 {
		t.Fatalf("seq base %d (%v)", before.SeqBase, err)
	}
	w := restart("c3", t0.Add(2*time.Minute))
	if we := decodeErr(t, w); w.Code != 400 || we.Field != "chain" || !strings.Contains(we.Error, "batch keys are used up") {
		t.Fatalf("a restart past the line: %d %s", w.Code, w.Body)
	}
	after, err := e.store.GetState(t.Context(), "node-a")
	if err != nil || after.Version != before.Version || after.Chain != "c2" {
		t.Fatalf("the refused restart moved the state: %+v (%v)", after, err)
	}
	if ev := evidenceOf(t, e, "node-a", store.EvidenceChainRestart); len(ev) != 1 {
		t.Fatalf("chain_restart evidence %+v, want the one restart taken", ev)
	}
}

// Times a first push may carry and the backend takes as they are: equal
// instants, observations out of time order in a batch, a batch across the
// month's end (each observation in its own month's export), and the
// first two batches arriving seq 2 before seq 1 (both taken, the gap and
// the late one as evidence).
func TestFirstPushTimesTaken(t *testing.T) { onStores(t, testFirstPushTimesTaken) }

func testFirstPushTimesTaken(t *testing.T, mk func(testing.TB) *env) {
	heads := func(t *testing.T, e *env, node string) (first, last time.Time) {
		t.Helper()
		st, err := e.store.GetState(t.Context(), node)
		if err != nil {
			t.Fatal(err)
		}
		return st.FirstHeartbeatAt, st.LastHeartbeatAt
	}
	hb := func(at time.Time) wire.Observation { return wire.Observation{At: at, Kind: wire.KindHeartbeat} }
	t.Run("equal instants", func(t *testing.T) {
		e := mk(t)
		pass := wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Pass, Value: "8"}
		_, body := e.a.Batch(t0, hb(t0), hb(t0), apptest.Check(t0, pass))
		if w := e.post(e.a.Request(t0, body)); w.Code != 200 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		if first, last := heads(t, e, "node-a"); !first.Equal(t0) || !last.Equal(t0) {
			t.Fatalf("first %s, last %s; want both %s", first, last, t0)
		}
		if ev := evidenceOf(t, e, "node-a", store.EvidenceTimeBounds); len(ev) != 0 {
			t.Fatalf("time_bounds evidence %+v", ev)
		}
	})
	t.Run("out of time order in a batch", func(t *testing.T) {
		e := mk(t)
		e.clock.Set(t0.Add(time.Minute))
		_, body := e.a.Batch(t0.Add(time.Minute), hb(t0.Add(time.Minute)), hb(t0), hb(t0.Add(30*time.Second)))
		if w := e.post(e.a.Request(t0.Add(time.Minute), body)); w.Code != 200 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		if first, last := heads(t, e, "node-a"); !first.Equal(t0) || !last.Equal(t0.Add(time.Minute)) {
			t.Fatalf("first %s, last %s", first, last)
		}
	})
	t.Run("across the month's end", func(t *testing.T) {
		e := mk(t)
		dec := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		p := addNodeAt(t, e, "node-m", dec.Add(-10*time.Minute))
		now := dec.Add(time.Minute)
		e.clock.Set(now)
		_, body := p.Batch(now, hb(dec.Add(-30*time.Second)), hb(dec), hb(dec.Add(30*time.Second)))
		if w := e.post(p.Request(now, body)); w.Code != 200 {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		count := func(from, to time.Time) int {
			n := 0
			if _, err := app.Export(t.Context(), e.store, app.ExportSelect{From: from, To: to}, func(ev *events.Event) error {
				if ev.Type == events.TypeObservation && ev.Node == "node-m" {
					n++
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if nov, december := count(dec.AddDate(0, -1, 0), dec), count(dec, dec.AddDate(0, 1, 0)); nov != 1 || december != 2 {
			t.Fatalf("November exports %d observations, December %d; want 1 and 2 (the end's instant is December's)", nov, december)
		}
	})
	t.Run("seq 2 before seq 1", func(t *testing.T) {
		e := mk(t)
		e.a.Chain = "c1"
		_, one := e.a.Batch(t0, hb(t0))
		_, two := e.a.Batch(t0.Add(time.Minute), hb(t0.Add(30*time.Second)))
		e.clock.Set(t0.Add(time.Minute))
		for i, b := range [][]byte{two, one} {
			e.clock.Advance(time.Second)
			if w := e.post(e.a.Request(e.clock.Now(), b)); w.Code != 200 || !strings.Contains(w.Body.String(), `"stored"`) {
				t.Fatalf("batch %d: %d %s", i, w.Code, w.Body)
			}
		}
		if gap := evidenceOf(t, e, "node-a", store.EvidenceSeqGap); len(gap) != 1 || !strings.Contains(gap[0].Detail, "seq 2 follows seq 0") {
			t.Fatalf("seq_gap evidence %+v", gap)
		}
		if late := evidenceOf(t, e, "node-a", store.EvidenceOutOfOrder); len(late) != 1 || !strings.Contains(late[0].Detail, "seq 1 arrived after seq 2") {
			t.Fatalf("out_of_order evidence %+v", late)
		}
		if first, _ := heads(t, e, "node-a"); !first.Equal(t0) {
			t.Fatalf("first heartbeat %s, want seq 1's %s", first, t0)
		}
	})
}
