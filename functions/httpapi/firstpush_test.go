package httpapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
)

// What a node may send first: each edge of its first pushes, through the
// real handler and a real store, on both sides of each line.

// onStores runs a test on bolt and on DynamoDB (dynalite): each store's
// put-if-absent, hash and state encoding decide some of these edges.
func onStores(t *testing.T, run func(t *testing.T, mk func(testing.TB) *env)) {
	t.Run("bolt", func(t *testing.T) { run(t, newEnv) })
	t.Run("dynamo", func(t *testing.T) {
		run(t, func(t testing.TB) *env { return newEnvOn(t, nil, dynamotest.NewStore(t)) })
	})
}

// noState says the node has no state: nothing of a refused first batch
// was half-written.
func noState(t *testing.T, e *env, node string) {
	t.Helper()
	if st, err := e.store.GetState(t.Context(), node); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("state of %s after a refused first batch: %+v, %v", node, st, err)
	}
}

func evidenceOf(t *testing.T, e *env, node, kind string) []store.Evidence {
	t.Helper()
	evs, err := e.store.ListEvidence(t.Context(), node, t0.AddDate(-1, 0, 0), t0.AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Evidence
	for _, ev := range evs {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// The body limit is 1 MiB exactly: a signed first batch of 1,048,576 bytes
// is taken, one byte more is 413 with nothing stored.
func TestFirstPushBodyLimitExactly(t *testing.T) { onStores(t, testFirstPushBodyLimitExactly) }

func testFirstPushBodyLimitExactly(t *testing.T, mk func(testing.TB) *env) {
	e := mk(t)
	_, body := e.a.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
	// JSON allows trailing white space: pad the real batch to the limit.
	at := append(body[:len(body):len(body)], bytes.Repeat([]byte(" "), wire.MaxBodyBytes-len(body))...)
	over := append(at[:len(at):len(at)], ' ')
	if w := e.post(e.a.Request(t0, over)); w.Code != 413 || !strings.Contains(decodeErr(t, w).Error, "1048576") {
		t.Fatalf("%d bytes: %d %s", len(over), w.Code, w.Body)
	}
	noState(t, e, "node-a")
	if w := e.post(e.a.Request(t0, at)); w.Code != 200 {
		t.Fatalf("%d bytes: %d %s", len(at), w.Code, w.Body)
	}
	// The size is judged before the signature: a forged body over the
	// limit is refused as too large without its MAC being computed.
	forged := e.a.Request(t0, over)
	forged.Signature = "v1=" + strings.Repeat("00", 32)
	if w := e.post(forged); w.Code != 413 {
		t.Fatalf("forged oversize body: %d %s", w.Code, w.Body)
	}
}

// The first seq: 0 is no seq (400 naming it, nothing written); 1 with a
// prev is refused; a first batch at 3 is taken with the gap as evidence.
func TestFirstPushSeq(t *testing.T) { onStores(t, testFirstPushSeq) }

func testFirstPushSeq(t *testing.T, mk func(testing.TB) *env) {
	e := mk(t)
	raw := func(seq int, prev string) []byte {
		return []byte(fmt.Sprintf(`{"v":1,"id":"first-%d","node":"node-a","probe":"t","seq":%d,"prev":%q,"created_at":"2026-11-30T10:00:00Z","observations":[{"at":"2026-11-30T10:00:00Z","kind":"heartbeat"}]}`, seq, seq, prev))
	}
	for _, c := range []struct {
		name  string
		body  []byte
		field string
		msg   string
	}{
		{"seq 0", raw(0, ""), "seq", "must be 1 or more"},
		{"seq 1 with a prev", raw(1, strings.Repeat("ab", 32)), "prev", "must be empty for the first batch"},
		{"seq -1", []byte(`{"v":1,"id":"x","node":"node-a","probe":"t","seq":-1,"created_at":"2026-11-30T10:00:00Z","observations":[]}`), "seq", ""},
	} {
		w := e.post(e.a.Request(t0, c.body))
		if we := decodeErr(t, w); w.Code != 400 || we.Field != c.field || !strings.Contains(we.Error, c.msg) {
			t.Errorf("%s: %d %s; want 400 naming %s", c.name, w.Code, w.Body, c.field)
		}
	}
	noState(t, e, "node-a")
	if w := e.post(e.a.Request(t0, raw(3, strings.Repeat("ab", 32)))); w.Code != 200 {
		t.Fatalf("first batch at seq 3: %d %s", w.Code, w.Body)
	}
	gap := evidenceOf(t, e, "node-a", store.EvidenceSeqGap)
	if len(gap) != 1 || !strings.Contains(gap[0].Detail, "seq 3 follows seq 0; 2 batches never arrived") {
		t.Fatalf("seq_gap evidence %+v", gap)
	}
	// A first chain at seq 1 is no gap.
	_, body := e.b.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 1)...)
	if w := e.post(e.b.Request(t0, body)); w.Code != 200 || len(evidenceOf(t, e, "node-b", store.EvidenceSeqGap)) != 0 {
		t.Fatalf("seq 1: %d %s, evidence %+v", w.Code, w.Body, evidenceOf(t, e, "node-b", store.EvidenceSeqGap))
	}
}

// The first batch sent again: the same signed request is a replay (401);
// the same bytes re-signed are a duplicate that writes nothing; another
// batch claiming seq 1 is kept as evidence and never replaces the first.
func TestFirstBatchAgainIsIdempotent(t *testing.T) {
	onStores(t, func(t *testing.T, mk func(testing.TB) *env) {
		for _, chain := range []string{"c1", ""} { // today's probe, and one older than chain ids
			t.Run("chain "+chain, func(t *testing.T) { firstBatchAgain(t, mk(t), chain) })
		}
	})
}

func firstBatchAgain(t *testing.T, e *env, chain string) {
	e.a.Chain = chain
	fail := wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "7"}
	_, first := e.a.Batch(t0, apptest.Check(t0, fail))
	req := e.a.Request(t0, first)
	if w := e.post(req); w.Code != 200 {
		t.Fatalf("first: %d %s", w.Code, w.Body)
	}
	st0, err := e.store.GetState(t.Context(), "node-a")
	if err != nil {
		t.Fatal(err)
	}
	if w := e.post(req); w.Code != 401 || !strings.Contains(w.Body.String(), "replayed") {
		t.Fatalf("the same signed request: %d %s", w.Code, w.Body)
	}
	e.clock.Advance(2 * time.Second)
	before := e.store.Ops().Total("/write")
	if w := e.post(e.a.Request(e.clock.Now(), first)); w.Code != 200 || !strings.Contains(w.Body.String(), `"duplicate"`) {
		t.Fatalf("re-signed: %d %s", w.Code, w.Body)
	}
	if n := e.store.Ops().Total("/write") - before; n != 0 {
		t.Fatalf("a duplicate wrote %d times", n)
	}
	// Seq 1 again with other content, under another id and under the same.
	other := &wire.Batch{V: 1, ID: "other-1", Node: "node-a", Probe: "t", Seq: 1, Chain: chain, CreatedAt: t0,
		Observations: []wire.Observation{apptest.Check(t0, wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Pass, Value: "8"})}}
	same := *other
	same.ID = "node-a-b1"
	for _, b := range []*wire.Batch{other, &same} {
		e.clock.Advance(time.Second)
		body, err := wire.Encode(b)
		if err != nil {
			t.Fatal(err)
		}
		if w := e.post(e.a.Request(e.clock.Now(), body)); w.Code != 200 || !strings.Contains(w.Body.String(), `"duplicate"`) {
			t.Fatalf("seq 1 as %s with other content: %d %s", b.ID, w.Code, w.Body)
		}
	}
	reuse := evidenceOf(t, e, "node-a", store.EvidenceSeqReuse)
	if len(reuse) != 2 || !strings.Contains(reuse[0].Detail+reuse[1].Detail, "seq 1 already used by batch node-a-b1") ||
		!strings.Contains(reuse[0].Detail+reuse[1].Detail, "batch node-a-b1 sent again with other content") {
		t.Fatalf("seq_reuse evidence %+v; want one for each batch with other content", reuse)
	}
	if ev := evidenceOf(t, e, "node-a", store.EvidenceChainRestart); len(ev) != 0 {
		t.Fatalf("seq 1 again read as a chain restart: %+v", ev)
	}
	got, err := e.store.GetBatch(t.Context(), "node-a", 1)
	if err != nil || !bytes.Equal(got.Body, first) {
		t.Fatalf("seq 1's body was replaced: %v %s", err, got.Body)
	}
	st, err := e.store.GetState(t.Context(), "node-a")
	if err != nil || st.LastHash != st0.LastHash || st.LastBatchID != st0.LastBatchID || len(st.Eval.Checks) != len(st0.Eval.Checks) {
		t.Fatalf("state moved: %+v", st)
	}
}

// The first batch again after the backend forgot its id (four batches
// later): its stored body says it was taken, so it is a duplicate and is
// not judged a second time; other content under its id is evidence.
func TestFirstBatchAgainLongAfter(t *testing.T) { onStores(t, testFirstBatchAgainLongAfter) }

func testFirstBatchAgainLongAfter(t *testing.T, mk func(testing.TB) *env) {
	e := mk(t)
	e.a.Chain = "c1"
	fail := wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "7"}
	_, first := e.a.Batch(t0, apptest.Check(t0, fail))
	if w := e.post(e.a.Request(t0, first)); w.Code != 200 {
		t.Fatalf("first: %d %s", w.Code, w.Body)
	}
	for i := 0; i < store.RecentBatches+1; i++ {
		e.clock.Advance(time.Minute)
		_, body := e.a.Batch(e.clock.Now(), apptest.Heartbeats(e.clock.Now(), 30*time.Second, 2)...)
		if w := e.post(e.a.Request(e.clock.Now(), body)); w.Code != 200 {
			t.Fatalf("batch %d: %d %s", i+2, w.Code, w.Body)
		}
	}
	incs, err := e.svc.Incidents(t.Context(), "node-a", t0.Add(-time.Hour), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	if w := e.post(e.a.Request(e.clock.Now(), first)); w.Code != 200 || !strings.Contains(w.Body.String(), `"duplicate"`) {
		t.Fatalf("seq 1 again: %d %s", w.Code, w.Body)
	}
	// The same id with other content: evidence, and the first body stays.
	b := &wire.Batch{V: 1, ID: "node-a-b1", Node: "node-a", Probe: "t", Seq: 1, Chain: "c1", CreatedAt: t0,
		Observations: []wire.Observation{apptest.Check(t0, fail), apptest.Check(t0.Add(time.Second), fail)}}
	body, _ := wire.Encode(b)
	e.clock.Advance(time.Second)
	if w := e.post(e.a.Request(e.clock.Now(), body)); w.Code != 200 || !strings.Contains(w.Body.String(), `"duplicate"`) {
		t.Fatalf("seq 1 with other content: %d %s", w.Code, w.Body)
	}
	if ev := evidenceOf(t, e, "node-a", store.EvidenceSeqReuse); len(ev) != 1 || !strings.Contains(ev[0].Detail, "other content") {
		t.Fatalf("seq_reuse evidence %+v", ev)
	}
	if ev := evidenceOf(t, e, "node-a", store.EvidenceOutOfOrder); len(ev) != 0 {
		t.Fatalf("the first batch again was judged as late data: %+v", ev)
	}
	after, err := e.svc.Incidents(t.Context(), "node-a", t0.Add(-time.Hour), t0.Add(time.Hour))
	if err != nil || len(after) != len(incs) {
		t.Fatalf("incidents %d -> %d (%v)", len(incs), len(after), err)
	}
	if got, err := e.store.GetBatch(t.Context(), "node-a", 1); err != nil || !bytes.Equal(got.Body, first) {
		t.Fatalf("seq 1's body was replaced: %v", err)
	}
}

// The window of an observation's time, exactly at each line and one
// second past it, in a first batch: 5 minutes ahead of the receipt is
// taken (dated at the receipt), 5 min 1 s is set aside; 100 days before is
// taken, 100 days and 1 s is set aside. A set-aside heartbeat is not the
// node's first.
func TestFirstPushObservationTimeLines(t *testing.T) { onStores(t, testFirstPushObservationTimeLines) }

func testFirstPushObservationTimeLines(t *testing.T, mk func(testing.TB) *env) {
	for _, c := range []struct {
		name  string
		at    time.Time
		skew  time.Duration
		aside bool
		first time.Time
	}{
		{"lead at the line", t0.Add(events.MaxObservationLead), 0, false, t0},
		{"lead a second past", t0.Add(events.MaxObservationLead + time.Second), 0, true, time.Time{}},
		{"age at the line", t0.Add(-events.MaxObservationAge), 0, false, t0.Add(-events.MaxObservationAge)},
		{"age a second past", t0.Add(-events.MaxObservationAge - time.Second), 0, true, time.Time{}},
		// A probe an hour ahead that has measured it: its skew brings the
		// time back inside; the same time without the skew is set aside.
		{"an hour ahead, skew reported", t0.Add(time.Hour), time.Hour, false, t0},
		{"an hour ahead, skew unknown", t0.Add(time.Hour), 0, true, time.Time{}},
		{"an hour behind, skew reported", t0.Add(-time.Hour), -time.Hour, false, t0},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := mk(t)
			// Registered long before: the window alone is at stake here.
			p := addNodeAt(t, e, "node-old", t0.Add(-2*events.MaxObservationAge))
			p.SkewMS = c.skew.Milliseconds()
			_, body := p.Batch(t0, wire.Observation{At: c.at, Kind: wire.KindHeartbeat})
			if w := e.post(p.Request(t0, body)); w.Code != 200 {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			st, err := e.store.GetState(t.Context(), "node-old")
			if err != nil {
				t.Fatal(err)
			}
			if !st.FirstHeartbeatAt.Equal(c.first) {
				t.Errorf("first heartbeat %s, want %s", st.FirstHeartbeatAt, c.first)
			}
			ev := evidenceOf(t, e, "node-old", store.EvidenceTimeBounds)
			if aside := len(ev) == 1 && strings.Contains(ev[0].Detail, "set aside") && strings.Contains(ev[0].Detail, "observations[0].at"); aside != c.aside {
				t.Errorf("set aside %v, want %v: %+v", aside, c.aside, ev)
			}
			if st.LastReceivedAt != t0 {
				t.Errorf("the receipt is the sign of life whatever the times: last received %s", st.LastReceivedAt)
			}
		})
	}
}

// A skew no clock can have (past the range of a duration) is refused
// naming the field, not wrapped into some other time.
func TestFirstPushSkewOutOfRange(t *testing.T) { onStores(t, testFirstPushSkewOutOfRange) }

func testFirstPushSkewOutOfRange(t *testing.T, mk func(testing.TB) *env) {
	e := mk(t)
	for _, ms := range []int64{wire.MaxClockSkewMS + 1, -wire.MaxClockSkewMS - 1, 1<<63 - 1, -1 << 63} {
		// wire.Encode refuses it: the bytes a broken or hostile probe sends.
		body, err := json.Marshal(&wire.Batch{V: 1, ID: fmt.Sprint("s", ms), Node: "node-a", Probe: "t", Seq: 1, CreatedAt: t0, ClockSkewMS: ms,
			Observations: []wire.Observation{{At: t0, Kind: wire.KindHeartbeat}}})
		if err != nil {
			t.Fatal(err)
		}
		w := e.post(e.a.Request(t0, body))
		if we := decodeErr(t, w); w.Code != 400 || we.Field != "clock_skew_ms" || !strings.Contains(we.Error, fmt.Sprint(ms)) {
			t.Errorf("skew %d ms: %d %s", ms, w.Code, w.Body)
		}
	}
	noState(t, e, "node-a")
	// A clock reset to 1970 is far off but a clock: its skew is taken.
	e.a.SkewMS = wire.MaxClockSkewMS
	_, body := e.a.Batch(t0, wire.Observation{At: t0.Add(time.Duration(wire.MaxClockSkewMS) * time.Millisecond), Kind: wire.KindHeartbeat})
	if w := e.post(e.a.Request(t0, body)); w.Code != 200 {
		t.Fatalf("skew at the bound: %d %s", w.Code, w.Body)
	}
	st, err := e.store.GetState(t.Context(), "node-a")
	if err != nil || !st.FirstHeartbeatAt.Equal(t0) {
		t.Fatalf("first heartbeat %s (%v), want %s", st.FirstHeartbeatAt, err, t0)
	}
}

// A node that is not registered yet gets the same 401 as a wrong secret,
// and nothing is stored; once registered its spooled first batch is taken.
// After its release a batch is still acknowledged (the spool drains), but
// nothing it observed after the release opens an incident.
func TestFirstPushBeforeRegistrationAndAfterRelease(t *testing.T) {
	onStores(t, testFirstPushBeforeRegistrationAndAfterRelease)
}

func testFirstPushBeforeRegistrationAndAfterRelease(t *testing.T, mk func(testing.TB) *env) {
	e := mk(t)
	early := &apptest.Probe{Node: "node-c", Secret: bytes.Repeat([]byte{7}, 32)}
	_, body := early.Batch(t0, apptest.Heartbeats(t0, 30*time.Second, 2)...)
	if w := e.post(early.Request(t0, body)); w.Code != 401 || !strings.Contains(w.Body.String(), "unknown node or signature does not match") {
		t.Fatalf("before registration: %d %s", w.Code, w.Body)
	}
	noState(t, e, "node-c")
	c := apptest.AddNode(t, e.svc, "node-c")
	// The probe now holds the real secret and re-signs its spooled batch.
	if w := e.post(c.Request(t0, body)); w.Code != 200 {
		t.Fatalf("after registration: %d %s", w.Code, w.Body)
	}

	rel := t0.Add(time.Minute)
	e.clock.Set(rel)
	if _, err := e.svc.ReleaseNode(t.Context(), app.NodeRelease{Node: "node-a", At: rel, By: "cli:test"}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	now := e.clock.Now()
	fail := wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "0"}
	_, body = e.a.Batch(now, apptest.Check(now.Add(-2*time.Second), fail), apptest.Check(now, fail))
	w := e.post(e.a.Request(now, body))
	var ack wire.Ack
	if err := json.Unmarshal(w.Body.Bytes(), &ack); w.Code != 200 || err != nil || ack.Status != wire.AckStored {
		t.Fatalf("first batch after release: %d %s", w.Code, w.Body)
	}
	incs, err := e.svc.Incidents(t.Context(), "node-a", t0.Add(-time.Hour), t0.Add(time.Hour))
	if err != nil || len(incs) != 0 {
		t.Fatalf("incidents after release: %+v %v", incs, err)
	}
}

// A first batch spooled for days while the backend was unreachable comes
// in all at once: every batch of the spool is taken in order, the node's
// first heartbeat is the spool's first (its evidence), and the silence
// before the first receipt is no unreachable incident.
func TestFirstPushAfterDaysInTheSpool(t *testing.T) { onStores(t, testFirstPushAfterDaysInTheSpool) }

func testFirstPushAfterDaysInTheSpool(t *testing.T, mk func(testing.TB) *env) {
	e := mk(t)
	start := t0.Add(-3 * 24 * time.Hour)
	// Registered as its probe started, three days before the backend hears it.
	p := addNodeAt(t, e, "node-c", start)
	var bodies [][]byte
	for at := start; at.Before(t0); at = at.Add(time.Hour) {
		// An hour a batch: 120 heartbeats, every 30 s.
		_, body := p.Batch(at.Add(time.Hour), apptest.Heartbeats(at.Add(time.Hour-30*time.Second), 30*time.Second, 120)...)
		if len(body) > wire.MaxBodyBytes {
			t.Fatalf("a spooled batch of %d bytes", len(body))
		}
		bodies = append(bodies, body)
	}
	for i, body := range bodies {
		if w := e.post(p.Request(e.clock.Now(), body)); w.Code != 200 || !strings.Contains(w.Body.String(), `"stored"`) {
			t.Fatalf("spooled batch %d: %d %s", i+1, w.Code, w.Body)
		}
		e.clock.Advance(10 * time.Millisecond)
	}
	st, err := e.store.GetState(t.Context(), "node-c")
	if err != nil {
		t.Fatal(err)
	}
	if !st.FirstHeartbeatAt.Equal(start) || st.LastSeq != uint64(len(bodies)) {
		t.Fatalf("first heartbeat %s (want %s), last seq %d", st.FirstHeartbeatAt, start, st.LastSeq)
	}
	for _, k := range []string{store.EvidenceSeqGap, store.EvidenceOutOfOrder, store.EvidenceChainBreak, store.EvidenceTimeBounds} {
		if ev := evidenceOf(t, e, "node-c", k); len(ev) != 0 {
			t.Errorf("%s evidence from an in-order spool: %+v", k, ev)
		}
	}
	if _, err := e.svc.Watchdog(t.Context()); err != nil {
		t.Fatal(err)
	}
	incs, err := e.svc.Incidents(t.Context(), "node-c", start.Add(-time.Hour), e.clock.Now().Add(time.Hour))
	if err != nil || len(incs) != 0 {
		t.Fatalf("incidents from days in the spool: %+v %v", incs, err)
	}
}

// A probe's first contact is its enrolment: the body's size is judged,
// then the token, and only a request with a good token has its body
// parsed (a bad token with a malformed or unknown-field body is 401, not
// a 400 that would describe the body to a stranger). A token is good one
// second before its expiry and refused at it; its first batch is taken.
func TestFirstContactTokenBeforeBody(t *testing.T) {
	e := adminEnv(t)
	admin := e.key(t, "admin")
	tok := makeToken(t, e, admin, `{"provider":"acme","contract":"acme-std","gpu_model":"H200","gpus":8,"expires_at":"`+t0.Add(time.Hour).Format(time.RFC3339)+`"}`)
	bad := flipLast(tok.Token)
	for _, c := range []struct {
		name, token, body string
		status            int
		field, msg        string
	}{
		{"a bad token, a body that is no JSON", bad, `{"node":`, 401, "", "invalid enrolment token"},
		{"a bad token, an unknown field", bad, `{"node":"x","key":"` + enrolKey + `","gpus":1}`, 401, "", "invalid enrolment token"},
		{"a bad token, text that is not UTF-8", bad, "{\"node\":\"x\xff\"}", 401, "", "invalid enrolment token"},
		{"a bad token, a body over the limit", bad, `{"hostname":"` + strings.Repeat("h", wire.MaxEnrolBody) + `"}`, 413, "", "over the limit"},
		{"a good token, a body that is no JSON", tok.Token, `{"node":`, 400, "body", "not a JSON object"},
		{"a good token, an unknown field", tok.Token, `{"node":"x","key":"` + enrolKey + `","gpus":1}`, 400, "gpus", "unknown field"},
		{"a good token, a node given twice", tok.Token, `{"node":"x","node":"node-a","key":"` + enrolKey + `"}`, 400, "node", `"node" is given twice`},
		{"a good token, NODE for node", tok.Token, `{"NODE":"x","key":"` + enrolKey + `"}`, 400, "NODE", "not spelled as the protocol"},
		{"a bad token, a node given twice", bad, `{"node":"x","node":"node-a","key":"` + enrolKey + `"}`, 401, "", "invalid enrolment token"},
	} {
		wantRefusal(t, c.name, enrolReq(e.api, c.token, c.body), c.status, c.field, c.msg)
	}
	e.clock.Set(t0.Add(time.Hour - time.Second))
	r := enrolled(t, enrolReq(e.api, tok.Token, `{"node":"gpu-01","key":"`+enrolKey+`"}`))
	e.clock.Set(t0.Add(time.Hour))
	wantRefusal(t, "at the expiry", enrolReq(e.api, tok.Token, `{"node":"gpu-02","key":"`+strings.Repeat("e", 32)+`"}`), 403, "token", "expired at")
	p := &apptest.Probe{Node: r.Node, Secret: []byte(r.Secret), Chain: "c1"}
	now := e.clock.Now()
	_, body := p.Batch(now, apptest.Heartbeats(now, 30*time.Second, 2)...)
	if w := e.post(p.Request(now, body)); w.Code != 200 {
		t.Fatalf("the enrolled node's first batch: %d %s", w.Code, w.Body)
	}
}

// A first batch whose heartbeats predate the order (a node registered after
// its probe started, or a clock behind with its skew not yet measured) is
// the node's evidence, but nothing is delivered before it was ordered: the
// live view says delivered at the order, as the monthly report does.
func TestFirstPushHeardBeforeTheOrder(t *testing.T) {
	onStores(t, func(t *testing.T, mk func(testing.TB) *env) {
		e := mk(t)
		e.svc.SetTerms(apptest.Terms(t))
		read := e.key(t, "read")
		ordered := t0.Add(10 * time.Minute)
		for _, c := range []struct {
			node  string
			first time.Time
			want  time.Time
		}{
			{"before-order", t0, ordered},                                       // twenty minutes of heartbeats before the order
			{"at-order", ordered, ordered},                                      // the first one at the order
			{"after-order", ordered.Add(time.Second), ordered.Add(time.Second)}, // one second after it
		} {
			e.clock.Set(t0) // registered when its probe started, before the order
			_, secret, err := e.svc.AddNode(t.Context(), app.NewNode{ID: c.node, Provider: "acme", Contract: "acme-std",
				OrderedAt: ordered, GPUModel: "NVIDIA H100 80GB HBM3", GPUCount: 8, PricePerHour: 20})
			if err != nil {
				t.Fatal(err)
			}
			p := &apptest.Probe{Node: c.node, Secret: secret, Chain: "c1"}
			e.clock.Set(ordered.Add(20 * time.Minute))
			now := e.clock.Now()
			obs := append([]wire.Observation{{At: c.first, Kind: wire.KindHeartbeat}}, apptest.Heartbeats(now, 30*time.Second, 2)...)
			_, body := p.Batch(now, obs...)
			if w := e.post(p.Request(now, body)); w.Code != 200 {
				t.Fatalf("%s: %d %s", c.node, w.Code, w.Body)
			}
			st, err := e.store.GetState(t.Context(), c.node)
			if err != nil || !st.FirstHeartbeatAt.Equal(c.first) {
				t.Fatalf("%s: the node's first heartbeat %s (%v), want %s kept as its word", c.node, st.FirstHeartbeatAt, err, c.first)
			}
			var views []httpapi.NodeView
			if err := json.Unmarshal(get(e.api, httpapi.PathNodes, read).Body.Bytes(), &views); err != nil {
				t.Fatal(err)
			}
			for _, v := range views {
				if v.ID == c.node && !v.DeliveredAt.Equal(c.want) {
					t.Errorf("%s: delivered at %s, want %s", c.node, v.DeliveredAt, c.want)
				}
			}
		}
	})
}

// addNodeAt registers node id at the instant at, the clock left at now.
func addNodeAt(t *testing.T, e *env, id string, at time.Time) *apptest.Probe {
	t.Helper()
	now := e.clock.Now()
	e.clock.Set(at)
	p := apptest.AddNode(t, e.svc, id)
	e.clock.Set(now)
	return p
}

// What a node says it saw before it was registered is not its evidence:
// it had no secret then, and the probe enrols before it observes. A first
// batch's observation dated at the registration less 5 minutes
// (events.RegistrationSlack, for clocks) is taken; a second earlier is set
// aside with time_bounds evidence naming it, the body kept whole. Set aside,
// a failing GPU a day before cannot open an outage (a month inflated) and a
// week of heartbeats cannot deliver the node before it existed (a delivery
// deflated); neither reaches the export the report reads. A probe an hour
// behind that reports its skew is corrected into the window; one whose skew
// is not known yet has its first observations set aside.
func TestFirstPushBeforeRegistration(t *testing.T) { onStores(t, testFirstPushBeforeRegistration) }

func testFirstPushBeforeRegistration(t *testing.T, mk func(testing.TB) *env) {
	reg := t0 // node-a's registration
	now := reg.Add(10 * time.Minute)
	fail := wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "7", Criterion: "8 GPUs visible"}
	for _, c := range []struct {
		name  string
		obs   []wire.Observation
		skew  time.Duration
		aside int       // observations set aside
		first time.Time // the node's first heartbeat
		opens bool      // the failing check opens an incident
	}{
		{"at the slack's line", []wire.Observation{{At: reg.Add(-events.RegistrationSlack), Kind: wire.KindHeartbeat}}, 0, 0, reg.Add(-events.RegistrationSlack), false},
		{"a second past it", []wire.Observation{{At: reg.Add(-events.RegistrationSlack - time.Second), Kind: wire.KindHeartbeat}}, 0, 1, now, false},
		{"a failing GPU at the line", []wire.Observation{apptest.Check(reg.Add(-events.RegistrationSlack), fail)}, 0, 0, reg.Add(-events.RegistrationSlack), true},
		{"a failing GPU a day before", []wire.Observation{apptest.Check(reg.Add(-24*time.Hour), fail)}, 0, 1, now, false},
		{"a week of heartbeats before", apptest.Heartbeats(reg.Add(-7*24*time.Hour), 24*time.Hour, 7), 0, 7, now, false},
		{"an hour behind, skew reported", []wire.Observation{{At: reg.Add(-time.Hour + time.Minute), Kind: wire.KindHeartbeat}}, -time.Hour, 0, reg.Add(time.Minute), false},
		{"ten minutes behind, skew not known yet", []wire.Observation{{At: reg.Add(-10 * time.Minute), Kind: wire.KindHeartbeat}}, 0, 1, now, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := mk(t)
			e.clock.Set(now)
			e.a.SkewMS = c.skew.Milliseconds()
			obs := append(c.obs, wire.Observation{At: now.Add(c.skew), Kind: wire.KindHeartbeat})
			_, body := e.a.Batch(now, obs...)
			if w := e.post(e.a.Request(now, body)); w.Code != 200 || !strings.Contains(w.Body.String(), `"stored"`) {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			st, err := e.store.GetState(t.Context(), "node-a")
			if err != nil {
				t.Fatal(err)
			}
			if !st.FirstHeartbeatAt.Equal(c.first) {
				t.Errorf("first heartbeat %s, want %s", st.FirstHeartbeatAt, c.first)
			}
			ev := evidenceOf(t, e, "node-a", store.EvidenceTimeBounds)
			switch {
			case c.aside == 0 && len(ev) != 0:
				t.Errorf("time_bounds evidence %+v, want none", ev)
			case c.aside > 0 && (len(ev) != 1 || !strings.Contains(ev[0].Detail, fmt.Sprintf("%d observations set aside", c.aside)) ||
				!strings.Contains(ev[0].Detail, "before the node was registered ("+reg.Format(time.RFC3339)+")")):
				t.Errorf("time_bounds evidence %+v, want %d set aside before the registration", ev, c.aside)
			}
			if got, err := e.store.GetBatch(t.Context(), "node-a", 1); c.aside > 0 && (err != nil || !bytes.Equal(got.Body, body)) {
				t.Errorf("the body is not kept whole: %v", err)
			}
			incs, err := e.svc.Incidents(t.Context(), "node-a", reg.Add(-30*24*time.Hour), now.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if opened := len(incs) > 0; opened != c.opens {
				t.Errorf("incidents %+v, want opened %v", incs, c.opens)
			}
			// The export, which the report and the bundle read, holds the
			// observations taken and no other.
			var exported int
			if _, err := app.Export(t.Context(), e.store, app.ExportSelect{From: reg.Add(-30 * 24 * time.Hour), To: now.Add(time.Hour)}, func(ev *events.Event) error {
				if ev.Type == events.TypeObservation && ev.Node == "node-a" {
					exported++
					if ev.CorrectedAt().Before(reg.Add(-events.RegistrationSlack)) {
						t.Errorf("exported an observation of %s, before the registration", ev.CorrectedAt())
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if want := len(obs) - c.aside; exported != want {
				t.Errorf("%d observations exported, want %d", exported, want)
			}
		})
	}
}
