// Package storetest is the one contract test suite every store.Store must
// pass: the embedded store (infra/store/bolt) and DynamoDB (infra/store/dynamo) call Run
// with a constructor of a fresh, empty store.
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { return openFresh(t) })
//	}
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/msg"
)

// NewStore returns a fresh, empty store; the suite closes it.
type NewStore func(t *testing.T) store.Store

// Run runs every contract test against stores made by newStore.
func Run(t *testing.T, newStore NewStore) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Nodes", testNodes},
		{"NodeRelease", testNodeRelease},
		{"NodeReleaseRace", testNodeReleaseRace},
		{"Maintenance", testMaintenance},
		{"StateVersioning", testStateVersioning},
		{"StateConcurrentWriters", testStateConcurrent},
		{"StateReadIsACopy", testStateCopy},
		{"Batches", testBatches},
		{"Incidents", testIncidents},
		{"IncidentCreateOnce", testIncidentCreateOnce},
		{"Runs", testRuns},
		{"Alerts", testAlerts},
		{"Evidence", testEvidence},
		{"BackendRuns", testBackendRuns},
		{"OpsCounted", testOps},
		{"TicketStore", testTicketStore},                 // ticket.go
		{"ProviderStatusStore", testProviderStatusStore}, // provstatus.go
		{"History", testHistory},                         // history.go
		{"EnrolmentStore", testEnrolmentStore},           // enrol.go
		{"LedgerStore", testLedgerStore},                 // ledger.go
		{"Digests", testDigests},                         // digest.go
		{"DigestVoids", testDigestVoids},                 // digest.go
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			t.Cleanup(func() { _ = s.Close() })
			tc.fn(t, s)
		})
	}
}

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func ctx() context.Context { return context.Background() }

func mustIs(t *testing.T, err, want error, what string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

func must(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func sampleNode(id string) store.Node {
	return store.Node{
		ID: id, Provider: "acme", Contract: "acme-2026", OrderedAt: t0.Add(-time.Hour),
		GPUModel: "NVIDIA H100 80GB HBM3", GPUCount: 8, GPUMemoryMiB: 81559, GPUDriver: "580", PricePerHour: 17.5, Currency: "USD",
		HeartbeatInterval: 30 * time.Second, PushInterval: time.Minute, Grace: time.Minute,
		SealedSecret: []byte{1, 2, 3, 0, 255}, CreatedAt: t0,
	}
}

func testNodes(t *testing.T, s store.Store) {
	_, err := s.GetNode(ctx(), "n1")
	mustIs(t, err, store.ErrNotFound, "GetNode before create")
	for _, id := range []string{"n2", "n1", "n3"} {
		must(t, s.CreateNode(ctx(), sampleNode(id)), "CreateNode "+id)
	}
	mustIs(t, s.CreateNode(ctx(), sampleNode("n1")), store.ErrExists, "CreateNode twice")
	got, err := s.GetNode(ctx(), "n1")
	must(t, err, "GetNode")
	want := sampleNode("n1")
	if got.Provider != want.Provider || got.GPUCount != 8 || got.GPUModel != want.GPUModel ||
		!got.OrderedAt.Equal(want.OrderedAt) || got.PricePerHour != 17.5 || got.Grace != time.Minute ||
		got.HeartbeatInterval != 30*time.Second || got.PushInterval != time.Minute ||
		!bytes.Equal(got.SealedSecret, want.SealedSecret) || got.Contract != "acme-2026" {
		t.Fatalf("GetNode round trip:\n got %+v\nwant %+v", got, want)
	}
	list, err := s.ListNodes(ctx())
	must(t, err, "ListNodes")
	if len(list) != 3 || list[0].ID != "n1" || list[1].ID != "n2" || list[2].ID != "n3" {
		t.Fatalf("ListNodes = %v, want n1 n2 n3 in order", ids(list))
	}
}

// testNodeRelease: a release is stored with its record (when and by
// whom it was recorded, and the override), kept as first
// recorded when the same release is recorded again.
func testNodeRelease(t *testing.T, s store.Store) {
	_, err := s.ReleaseNode(ctx(), "n1", store.Release{At: t0})
	mustIs(t, err, store.ErrNotFound, "ReleaseNode of an unknown node")
	must(t, s.CreateNode(ctx(), sampleNode("n1")), "CreateNode")
	at := t0.Add(90 * time.Minute).Add(123 * time.Millisecond)
	rel := store.Release{At: at, RecordedAt: at.Add(2 * time.Hour).Add(456 * time.Millisecond), By: "api:k7q2m4xa (ops 运维)",
		Override: "given back by phone on the 3rd, provider ticket P-77"}
	n, err := s.ReleaseNode(ctx(), "n1", rel)
	must(t, err, "ReleaseNode")
	if !n.ReleasedAt.Equal(at) || n.GPUModel != sampleNode("n1").GPUModel {
		t.Fatalf("ReleaseNode returned %+v, want the node released at %s", n, at)
	}
	got, err := s.GetNode(ctx(), "n1")
	must(t, err, "GetNode")
	if !got.ReleasedAt.Equal(at) || !bytes.Equal(got.SealedSecret, sampleNode("n1").SealedSecret) || got.Contract != "acme-2026" {
		t.Fatalf("GetNode after release = %+v, want released at %s and the rest kept", got, at)
	}
	if !got.ReleaseRecordedAt.Equal(rel.RecordedAt) || got.ReleaseRecordedBy != rel.By || got.ReleaseOverride != rel.Override {
		t.Fatalf("release record round trip: recorded %s by %q, override %q; want %s by %q, %q",
			got.ReleaseRecordedAt, got.ReleaseRecordedBy, got.ReleaseOverride, rel.RecordedAt, rel.By, rel.Override)
	}
	again := store.Release{At: at, RecordedAt: rel.RecordedAt.Add(time.Hour), By: "cli:someone-else"}
	if n, err := s.ReleaseNode(ctx(), "n1", again); err != nil || !n.ReleasedAt.Equal(at) || n.ReleaseRecordedBy != rel.By ||
		!n.ReleaseRecordedAt.Equal(rel.RecordedAt) {
		t.Fatalf("ReleaseNode again at the same instant: %+v, %v; want a no-op keeping the first record", n, err)
	}
	_, err = s.ReleaseNode(ctx(), "n1", store.Release{At: at.Add(time.Second)})
	mustIs(t, err, store.ErrConflict, "ReleaseNode at another instant")
	list, err := s.ListNodes(ctx())
	must(t, err, "ListNodes")
	if len(list) != 1 || !list[0].ReleasedAt.Equal(at) {
		t.Fatalf("ListNodes after release = %+v", list)
	}
}

// testNodeReleaseRace: releases at different instants racing each other:
// exactly one wins, every other gets ErrConflict, and the stored release is
// the winner's.
func testNodeReleaseRace(t *testing.T, s store.Store) {
	must(t, s.CreateNode(ctx(), sampleNode("n1")), "CreateNode")
	const n = 8
	var wg sync.WaitGroup
	var wins atomic.Int32
	var won atomic.Int64
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at := t0.Add(time.Duration(i+1) * time.Minute)
			_, err := s.ReleaseNode(ctx(), "n1", store.Release{At: at, RecordedAt: at})
			switch {
			case err == nil:
				wins.Add(1)
				won.Store(at.UnixNano())
			case !errors.Is(err, store.ErrConflict):
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("racing release: %v", err)
	}
	got, err := s.GetNode(ctx(), "n1")
	must(t, err, "GetNode")
	if wins.Load() != 1 || got.ReleasedAt.UnixNano() != won.Load() {
		t.Fatalf("%d releases won (want 1); stored %s", wins.Load(), got.ReleasedAt)
	}
}

func testMaintenance(t *testing.T, s store.Store) {
	list, err := s.ListMaintenance(ctx(), t0.Add(-24*time.Hour), t0.Add(24*time.Hour))
	must(t, err, "ListMaintenance of none")
	if len(list) != 0 {
		t.Fatalf("ListMaintenance of an empty store = %+v", list)
	}
	mk := func(contract, node string, start time.Time, d time.Duration) store.Maintenance {
		return store.Maintenance{ID: store.MaintenanceID(contract, node, start), Contract: contract, Node: node, Start: start, End: start.Add(d),
			AnnouncedAt: start.Add(-72 * time.Hour), Summary: "core switch 交换机", CreatedAt: t0.Add(7 * time.Millisecond),
			RecordedBy: "api:k7q2m4xa (ops)", Override: "the provider's e-mail of the 1st reached us on the 4th"}
	}
	a := mk("acme-2026", "", t0.Add(2*time.Hour), time.Hour)
	b := mk("", "n1", t0.Add(-time.Hour), 30*time.Minute)
	c := mk("acme-2026", "", t0.Add(10*24*time.Hour), time.Hour)
	for _, m := range []store.Maintenance{a, b, c} {
		must(t, s.PutMaintenance(ctx(), m), "PutMaintenance "+m.ID)
	}
	mustIs(t, s.PutMaintenance(ctx(), a), store.ErrExists, "PutMaintenance twice")
	list, err = s.ListMaintenance(ctx(), t0.Add(-45*time.Minute), t0.Add(3*time.Hour))
	must(t, err, "ListMaintenance")
	if len(list) != 2 || list[0].ID != b.ID || list[1].ID != a.ID {
		t.Fatalf("ListMaintenance = %+v, want %s then %s", list, b.ID, a.ID)
	}
	got := list[1]
	if !got.Start.Equal(a.Start) || !got.End.Equal(a.End) || !got.AnnouncedAt.Equal(a.AnnouncedAt) || got.Summary != a.Summary ||
		got.Contract != "acme-2026" || got.Node != "" || !got.CreatedAt.Equal(a.CreatedAt) || got.RecordedBy != a.RecordedBy || got.Override != a.Override {
		t.Fatalf("maintenance round trip: got %+v, want %+v", got, a)
	}
	// A window ending exactly at from does not overlap.
	list, err = s.ListMaintenance(ctx(), b.End, t0.Add(time.Hour))
	must(t, err, "ListMaintenance after b")
	if len(list) != 0 {
		t.Fatalf("ListMaintenance from b's end = %+v, want none", list)
	}
}

func ids(ns []store.Node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.ID)
	}
	return out
}

func sampleState(node string) store.NodeState {
	return store.NodeState{
		Node: node, LastSeq: 7, LastHash: "abc", LastBatchID: "b7",
		Recent:          []store.SeqID{{Seq: 6, ID: "b6"}, {Seq: 7, ID: "b7"}},
		Signatures:      []store.SigSeen{{Sig: "s1", At: t0}},
		LastReceivedAt:  t0.Add(time.Second),
		LastHeartbeatAt: t0, FirstHeartbeatAt: t0.Add(-time.Hour), AcceptedAt: t0.Add(-50 * time.Minute), AcceptanceKnown: true, AcceptanceHeld: true, ClockSkewMS: -42,
		Run: store.HeartbeatRun{Node: node, From: t0.Add(-time.Hour), To: t0, Count: 120, ReceivedFrom: t0.Add(-time.Hour), ReceivedTo: t0},
		Eval: incident.State{V: incident.StateVersion, LastReceived: t0.Add(time.Second), LastAt: t0,
			Checks:      map[string]*incident.Hysteresis{"gpu_degraded|gpu.x": {Kind: incident.GPUDegraded, Open: true, Since: t0, Evidence: "gpu.xid (GPU 3) fail: 79", FailRun: 2, Last: t0}},
			Unreachable: &incident.Gap{Since: t0.Add(-time.Minute), Cause: incident.CauseNoData},
			Recent:      []incident.Gap{{Since: t0.Add(-2 * time.Hour), Until: t0.Add(-time.Hour), Cause: incident.CauseBackendOnly, Alive: 3, ConnPass: 2}}},
	}
}

func testStateVersioning(t *testing.T, s store.Store) {
	_, err := s.GetState(ctx(), "n1")
	mustIs(t, err, store.ErrNotFound, "GetState before any write")
	st := sampleState("n1")
	_, err = s.PutState(ctx(), st, 3)
	mustIs(t, err, store.ErrConflict, "PutState with prev 3 on no state")
	v, err := s.PutState(ctx(), st, 0)
	must(t, err, "PutState create")
	if v != 1 {
		t.Fatalf("first PutState returned version %d, want 1", v)
	}
	_, err = s.PutState(ctx(), st, 0)
	mustIs(t, err, store.ErrConflict, "PutState create twice")
	got, err := s.GetState(ctx(), "n1")
	must(t, err, "GetState")
	if got.Version != 1 || got.LastSeq != 7 || got.LastHash != "abc" || got.ClockSkewMS != -42 ||
		len(got.Recent) != 2 || got.Recent[1].ID != "b7" || got.Run.Count != 120 ||
		!got.Run.From.Equal(t0.Add(-time.Hour)) || len(got.Signatures) != 1 ||
		got.Eval.Checks["gpu_degraded|gpu.x"] == nil || !got.Eval.Checks["gpu_degraded|gpu.x"].Open ||
		got.Eval.Checks["gpu_degraded|gpu.x"].FailRun != 2 || got.Eval.Unreachable == nil ||
		!got.Eval.Unreachable.Since.Equal(t0.Add(-time.Minute)) || len(got.Eval.Recent) != 1 || got.Eval.Recent[0].ConnPass != 2 ||
		!got.LastReceivedAt.Equal(t0.Add(time.Second)) || !got.AcceptedAt.Equal(t0.Add(-50*time.Minute)) || !got.AcceptanceKnown || !got.AcceptanceHeld {
		t.Fatalf("state round trip: %+v", got)
	}
	got.LastSeq = 8
	v, err = s.PutState(ctx(), got, 1)
	must(t, err, "PutState update")
	if v != 2 {
		t.Fatalf("second PutState returned %d, want 2", v)
	}
	_, err = s.PutState(ctx(), got, 1)
	mustIs(t, err, store.ErrConflict, "PutState with stale version")
	got, _ = s.GetState(ctx(), "n1")
	if got.Version != 2 || got.LastSeq != 8 {
		t.Fatalf("after update: version %d seq %d, want 2 8", got.Version, got.LastSeq)
	}
}

// What GetState returns belongs to the caller: changing its slices and
// maps (as ingest does before PutState) must not change what the store
// holds, whether or not the store keeps states in memory.
func testStateCopy(t *testing.T, s store.Store) {
	_, err := s.PutState(ctx(), sampleState("n1"), 0)
	must(t, err, "PutState")
	got, err := s.GetState(ctx(), "n1")
	must(t, err, "GetState")
	got.Recent[0].ID = "changed"
	got.Recent = append(got.Recent[:1], store.SeqID{Seq: 99})
	got.Signatures[0].Sig = "changed"
	got.Eval.Checks["gpu_degraded|gpu.x"].FailRun = 99
	got.Eval.Checks["gpu_lost|gpu.y"] = &incident.Hysteresis{}
	got.Eval.Unreachable.Cause = "changed"
	got.Eval.Recent[0].Alive = 99
	again, err := s.GetState(ctx(), "n1")
	must(t, err, "GetState again")
	if again.Recent[0].ID != "b6" || again.Recent[1].Seq != 7 || again.Signatures[0].Sig != "s1" ||
		again.Eval.Checks["gpu_degraded|gpu.x"].FailRun != 2 || len(again.Eval.Checks) != 1 ||
		again.Eval.Unreachable.Cause != incident.CauseNoData || again.Eval.Recent[0].Alive != 3 {
		t.Fatalf("changing a read state changed the stored one: %+v", again)
	}
}

// Many writers race on one state item with read-modify-write; every
// increment must survive exactly once.
func testStateConcurrent(t *testing.T, s store.Store) {
	const writers, each = 8, 10
	var wg sync.WaitGroup
	var conflicts atomic.Int64
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				for {
					st, err := s.GetState(ctx(), "n1")
					var prev int64
					if errors.Is(err, store.ErrNotFound) {
						st = store.NodeState{Node: "n1"}
					} else if err != nil {
						t.Error(err)
						return
					} else {
						prev = st.Version
					}
					st.LastSeq++
					if _, err := s.PutState(ctx(), st, prev); errors.Is(err, store.ErrConflict) {
						conflicts.Add(1)
						continue
					} else if err != nil {
						t.Error(err)
						return
					}
					break
				}
			}
		}()
	}
	wg.Wait()
	st, err := s.GetState(ctx(), "n1")
	must(t, err, "GetState")
	if st.LastSeq != writers*each || st.Version != writers*each {
		t.Fatalf("after %d increments: seq %d version %d (conflicts %d)", writers*each, st.LastSeq, st.Version, conflicts.Load())
	}
}

func testBatches(t *testing.T, s store.Store) {
	for seq := uint64(1); seq <= 5; seq++ {
		b := store.BatchRecord{Node: "n1", Seq: seq, ID: fmt.Sprintf("b%d", seq), Hash: "h", ReceivedAt: t0,
			Why: []string{"checks"}, Body: []byte(fmt.Sprintf(`{"seq":%d}`, seq)), ExpiresAt: t0.Add(400 * 24 * time.Hour)}
		must(t, s.PutBatch(ctx(), b), "PutBatch")
	}
	must(t, s.PutBatch(ctx(), store.BatchRecord{Node: "n2", Seq: 3, ID: "other", ReceivedAt: t0, Body: []byte("{}"), ExpiresAt: t0.Add(400 * 24 * time.Hour)}), "PutBatch other node")
	mustIs(t, s.PutBatch(ctx(), store.BatchRecord{Node: "n1", Seq: 3, ID: "b3-again", ReceivedAt: t0, Body: []byte("{}"), ExpiresAt: t0.Add(400 * 24 * time.Hour)}), store.ErrExists, "PutBatch same seq")
	got, err := s.GetBatch(ctx(), "n1", 3)
	must(t, err, "GetBatch")
	if got.ID != "b3" || string(got.Body) != `{"seq":3}` || len(got.Why) != 1 || !got.ExpiresAt.Equal(t0.Add(400*24*time.Hour)) {
		t.Fatalf("GetBatch = %+v", got)
	}
	_, err = s.GetBatch(ctx(), "n1", 99)
	mustIs(t, err, store.ErrNotFound, "GetBatch absent")
	list, err := s.ListBatches(ctx(), "n1", 2, 4)
	must(t, err, "ListBatches")
	if len(list) != 3 || list[0].Seq != 2 || list[2].Seq != 4 {
		t.Fatalf("ListBatches 2..4 returned %d batches", len(list))
	}
	// Seq ordering must be numeric, not lexical.
	must(t, s.PutBatch(ctx(), store.BatchRecord{Node: "n1", Seq: 10, ID: "b10", ReceivedAt: t0, Body: []byte("{}"), ExpiresAt: t0.Add(400 * 24 * time.Hour)}), "PutBatch 10")
	list, _ = s.ListBatches(ctx(), "n1", 1, 1<<62)
	if len(list) != 6 || list[5].Seq != 10 {
		t.Fatalf("ListBatches all: %d batches, last seq %d", len(list), list[len(list)-1].Seq)
	}
	testBatchForm(t, s)
}

// testBatchForm: a record's decoded form is kept beside its body, byte for
// byte, and a record written without one reads without one (it is read
// from its body).
func testBatchForm(t *testing.T, s store.Store) {
	form := append([]byte("gbf\x01"), bytes.Repeat([]byte{0, 1, 0xff, '"', '\\'}, 300)...)
	must(t, s.PutBatch(ctx(), store.BatchRecord{Node: "n3", Seq: 1, ID: "f1", Hash: "h", ReceivedAt: t0, Why: []string{"measurements"},
		Body: []byte(`{"seq":1}`), Form: form, ExpiresAt: t0.Add(400 * 24 * time.Hour)}), "PutBatch with its form")
	must(t, s.PutBatch(ctx(), store.BatchRecord{Node: "n3", Seq: 2, ID: "f2", Hash: "h", ReceivedAt: t0, Body: []byte(`{"seq":2}`),
		ExpiresAt: t0.Add(400 * 24 * time.Hour)}), "PutBatch without a form")
	got, err := s.GetBatch(ctx(), "n3", 1)
	must(t, err, "GetBatch")
	if !bytes.Equal(got.Form, form) || string(got.Body) != `{"seq":1}` {
		t.Fatalf("GetBatch: form of %d bytes (want %d), body %q", len(got.Form), len(form), got.Body)
	}
	list, err := s.ListBatches(ctx(), "n3", 1, 2)
	must(t, err, "ListBatches")
	if len(list) != 2 || !bytes.Equal(list[0].Form, form) || list[1].Form != nil {
		t.Fatalf("ListBatches: %d records, forms %d and %v bytes", len(list), len(list[0].Form), list[1:])
	}
}

func testIncidents(t *testing.T, s store.Store) {
	mk := func(node, kind string, start time.Time, end time.Time) store.Incident {
		return store.Incident{Node: node, ID: store.IncidentID(kind, start), Kind: kind, Start: start, End: end,
			ConfirmedAt: start.Add(time.Minute), Counted: true, Cause: "no_data",
			Failed: []notify.FailedCheck{{Name: "gpu.count", Category: "gpu_lost", Verdict: "fail", Value: "7", Criterion: "= 8", Since: start}}}
	}
	a := mk("n1", "unreachable", t0, t0.Add(10*time.Minute))
	// An unreachable incident keeps its evidence for the split by cause.
	a.Split = &incident.GapEvidence{Interval: time.Minute, Seen: incident.Coverage{Tol: int64(3 * time.Minute),
		Spans: []incident.Span{{First: t0.Add(-time.Hour).UnixNano(), Last: t0.Add(4 * time.Minute).UnixNano()}}},
		Conns: []incident.Conn{{At: t0.Add(time.Minute), Fail: true, Evidence: "net.internet fail"}, {At: t0.Add(3 * time.Minute)}}}
	b := mk("n1", "gpu_lost", t0.Add(20*time.Minute), time.Time{})
	// A failing check keeps the probe's coded texts (a nested sentence, a
	// number, a string), for the pages that translate them.
	seven, eight, mem := 7.0, 8.0, "memory"
	b.Failed[0].Detail = "7 usable GPUs, the order says 8; memory: not in the readings"
	b.Failed[0].DetailText = &msg.Coded{Key: "%s; %s", Args: []msg.Arg{
		{T: &msg.Coded{Key: "%d usable GPUs, the order says %d", Args: []msg.Arg{{N: &seven}, {N: &eight}}}},
		{T: &msg.Coded{Key: "%s: not in the readings", Args: []msg.Arg{{S: &mem}}}}}}
	// An incident keeps the engine's sentence of its evidence with every
	// kind of argument (an instant, a duration, a word, a zero, an empty
	// string, uncoded words, nested sentences), for the pages that
	// translate it; c, kept without one, reads back without one.
	why := msg.New("%s at %s for %s (%d, %d, %.4g, %s) %s%s%s; %s", msg.Plain("gpu.xid"), msg.At(t0, time.UTC), 90*time.Second, 0, 7,
		2.5, msg.Exact{V: 81559.0}, msg.Word("no_data"), msg.Plain(""), msg.New(" on GPU %d", 3),
		msg.New("%s / %s", msg.ProbeWords("GPU has fallen off the bus"), msg.RecordedWords("no data since then")))
	a.Evidence = why.String()
	kept, err := msg.Keep(why)
	must(t, err, "Keep")
	a.EvidenceText = kept
	c := mk("n1", "unreachable", t0.Add(-3*time.Hour), t0.Add(-2*time.Hour))
	c.Evidence = "nothing heard in time"
	d := mk("n2", "unreachable", t0.Add(5*time.Minute), t0.Add(6*time.Minute))
	for _, i := range []store.Incident{a, b, c, d} {
		must(t, s.CreateIncident(ctx(), i), "CreateIncident "+i.ID)
	}
	got, err := s.GetIncident(ctx(), "n1", b.ID)
	must(t, err, "GetIncident")
	if got.Version != 1 || !got.Open() || got.Kind != "gpu_lost" || len(got.Failed) != 1 || got.Failed[0].Value != "7" || !got.Counted {
		t.Fatalf("GetIncident = %+v", got)
	}
	if dt := got.Failed[0].DetailText; dt == nil || dt.String() != b.Failed[0].Detail || !reflect.DeepEqual(*dt, *b.Failed[0].DetailText) {
		t.Fatalf("a failing check's coded detail round trip: got %+v", dt)
	}
	_, err = s.GetIncident(ctx(), "n2", b.ID)
	mustIs(t, err, store.ErrNotFound, "GetIncident of other node")
	ga, err := s.GetIncident(ctx(), "n1", a.ID)
	must(t, err, "GetIncident a")
	if sp := ga.Split; sp == nil || sp.Interval != time.Minute || sp.Seen.Tol != int64(3*time.Minute) || len(sp.Seen.Spans) != 1 ||
		sp.Seen.Spans[0] != a.Split.Seen.Spans[0] || len(sp.Conns) != 2 || !sp.Conns[0].At.Equal(t0.Add(time.Minute)) || !sp.Conns[0].Fail ||
		sp.Conns[0].Evidence != "net.internet fail" || sp.Conns[1].Fail {
		t.Fatalf("incident evidence round trip: got %+v, want %+v", ga.Split, a.Split)
	}
	if ga.EvidenceText == nil || ga.EvidenceSentence().String() != a.Evidence || !reflect.DeepEqual(ga.EvidenceSentence(), why) {
		t.Fatalf("an incident's evidence sentence round trip: got %#v, want %#v", ga.EvidenceSentence(), why)
	}
	if gc, err := s.GetIncident(ctx(), "n1", c.ID); err != nil || gc.EvidenceText != nil || gc.EvidenceSentence().String() != c.Evidence {
		t.Fatalf("an incident kept without its evidence sentence: got %+v, %v", gc.EvidenceText, err)
	}

	list, err := s.ListIncidents(ctx(), "n1", t0.Add(-time.Hour), t0.Add(time.Hour))
	must(t, err, "ListIncidents")
	if len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("ListIncidents n1 in [t0-1h, t0+1h) = %d items", len(list))
	}
	// An open incident overlaps any later window.
	list, _ = s.ListIncidents(ctx(), "n1", t0.Add(24*time.Hour), t0.Add(25*time.Hour))
	if len(list) != 1 || list[0].ID != b.ID {
		t.Fatalf("open incident not listed in a later window: %d items", len(list))
	}
	list, _ = s.ListIncidents(ctx(), "", t0.Add(-time.Hour), t0.Add(time.Hour))
	if len(list) != 3 {
		t.Fatalf("ListIncidents all nodes = %d items, want 3", len(list))
	}

	got.End = t0.Add(30 * time.Minute)
	must(t, s.UpdateIncident(ctx(), got, 1), "UpdateIncident")
	mustIs(t, s.UpdateIncident(ctx(), got, 1), store.ErrConflict, "UpdateIncident stale")
	ghost := mk("n1", "gpu_degraded", t0, time.Time{})
	err = s.UpdateIncident(ctx(), ghost, 1)
	if !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrConflict) {
		t.Fatalf("UpdateIncident of an absent incident: %v", err)
	}
	got, _ = s.GetIncident(ctx(), "n1", b.ID)
	if got.Version != 2 || got.Open() {
		t.Fatalf("after update: %+v", got)
	}
}

func testIncidentCreateOnce(t *testing.T, s store.Store) {
	inc := store.Incident{Node: "n1", ID: store.IncidentID("unreachable", t0), Kind: "unreachable", Start: t0}
	var wg sync.WaitGroup
	var won atomic.Int64
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.CreateIncident(ctx(), inc)
			if err == nil {
				won.Add(1)
			} else if !errors.Is(err, store.ErrExists) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Fatalf("%d concurrent creators won, want exactly 1", won.Load())
	}
}

func testRuns(t *testing.T, s store.Store) {
	r1 := store.HeartbeatRun{Node: "n1", From: t0, To: t0.Add(time.Hour), Count: 120, ReceivedFrom: t0, ReceivedTo: t0.Add(time.Hour)}
	r2 := store.HeartbeatRun{Node: "n1", From: t0.Add(2 * time.Hour), To: t0.Add(3 * time.Hour), Count: 120}
	must(t, s.PutRun(ctx(), r2), "PutRun r2")
	must(t, s.PutRun(ctx(), r1), "PutRun r1")
	mustIs(t, s.PutRun(ctx(), r1), store.ErrExists, "PutRun twice")
	list, err := s.ListRuns(ctx(), "n1", t0.Add(30*time.Minute), t0.Add(150*time.Minute))
	must(t, err, "ListRuns")
	if len(list) != 2 || !list[0].From.Equal(t0) || list[0].Count != 120 {
		t.Fatalf("ListRuns = %+v", list)
	}
	list, _ = s.ListRuns(ctx(), "n1", t0.Add(70*time.Minute), t0.Add(80*time.Minute))
	if len(list) != 0 {
		t.Fatalf("ListRuns in the gap = %d runs, want 0", len(list))
	}
}

func testAlerts(t *testing.T, s store.Store) {
	a := store.AlertRecord{Node: "n1", IncidentID: store.IncidentID("unreachable", t0), Kind: notify.AlertUnreachable, CreatedAt: t0,
		Alert: notify.Alert{Kind: notify.AlertUnreachable, Node: "n1", Provider: "acme", Since: t0}}
	must(t, s.CreateAlert(ctx(), a), "CreateAlert")
	mustIs(t, s.CreateAlert(ctx(), a), store.ErrExists, "CreateAlert twice")
	b := a
	b.Kind = notify.AlertRecovered
	must(t, s.CreateAlert(ctx(), b), "CreateAlert recovered")
	pend, err := s.ListPendingAlerts(ctx())
	must(t, err, "ListPendingAlerts")
	if len(pend) != 2 {
		t.Fatalf("pending = %d, want 2", len(pend))
	}
	got, err := s.GetAlert(ctx(), "n1", a.IncidentID, notify.AlertUnreachable, "")
	must(t, err, "GetAlert")
	if got.Version != 1 || got.Alert.Provider != "acme" || !got.Alert.Since.Equal(t0) {
		t.Fatalf("GetAlert = %+v", got)
	}
	got.SentAt = t0.Add(time.Minute)
	got.Thread = "1700000000.000100"
	must(t, s.UpdateAlert(ctx(), got, 1), "UpdateAlert")
	mustIs(t, s.UpdateAlert(ctx(), got, 1), store.ErrConflict, "UpdateAlert stale")
	got, _ = s.GetAlert(ctx(), "n1", a.IncidentID, notify.AlertUnreachable, "")
	if got.Thread != "1700000000.000100" || got.Version != 2 {
		t.Fatalf("after update: %+v", got)
	}
	pend, _ = s.ListPendingAlerts(ctx())
	if len(pend) != 1 || pend[0].Kind != notify.AlertRecovered {
		t.Fatalf("pending after send = %+v", pend)
	}
	_, err = s.GetAlert(ctx(), "n1", a.IncidentID, notify.AlertReclassified, "")
	mustIs(t, err, store.ErrNotFound, "GetAlert absent")

	// The same alert on two named channels: two records, claimed, sent
	// and read apart from each other and from the channel-less one.
	for _, ch := range []string{"ops-feishu", "oncall"} {
		c := a
		c.Channel = ch
		must(t, s.CreateAlert(ctx(), c), "CreateAlert on "+ch)
		mustIs(t, s.CreateAlert(ctx(), c), store.ErrExists, "CreateAlert twice on "+ch)
	}
	f, err := s.GetAlert(ctx(), "n1", a.IncidentID, notify.AlertUnreachable, "ops-feishu")
	must(t, err, "GetAlert ops-feishu")
	if f.Channel != "ops-feishu" || f.Version != 1 || !f.SentAt.IsZero() {
		t.Fatalf("GetAlert ops-feishu = %+v", f)
	}
	f.SentAt = t0.Add(2 * time.Minute)
	must(t, s.UpdateAlert(ctx(), f, 1), "UpdateAlert ops-feishu")
	pend, _ = s.ListPendingAlerts(ctx())
	var chans []string
	for _, p := range pend {
		chans = append(chans, string(p.Kind)+"/"+p.Channel)
	}
	sort.Strings(chans)
	if strings.Join(chans, ",") != "recovered/,unreachable/oncall" {
		t.Fatalf("pending after the feishu send = %v, want the recovered alert and the oncall copy", chans)
	}
	if got, _ := s.GetAlert(ctx(), "n1", a.IncidentID, notify.AlertUnreachable, ""); got.Version != 2 || got.Channel != "" {
		t.Fatalf("the channel-less record changed: %+v", got)
	}
	_, err = s.GetAlert(ctx(), "n1", a.IncidentID, notify.AlertUnreachable, "nowhere")
	mustIs(t, err, store.ErrNotFound, "GetAlert on an unknown channel")
}

func testEvidence(t *testing.T, s store.Store) {
	e := store.Evidence{Node: "n1", At: t0, Kind: store.EvidenceChainBreak, Seq: 9, BatchID: "b9", Detail: "prev x != last y"}
	must(t, s.PutEvidence(ctx(), e), "PutEvidence")
	mustIs(t, s.PutEvidence(ctx(), e), store.ErrExists, "PutEvidence twice")
	e2 := e
	e2.Kind = store.EvidenceDrop
	e2.At = t0.Add(time.Minute)
	must(t, s.PutEvidence(ctx(), e2), "PutEvidence drop")
	list, err := s.ListEvidence(ctx(), "n1", t0, t0.Add(time.Hour))
	must(t, err, "ListEvidence")
	if len(list) != 2 || list[0].Kind != store.EvidenceChainBreak || list[1].Kind != store.EvidenceDrop || list[0].Detail != e.Detail {
		t.Fatalf("ListEvidence = %+v", list)
	}
	list, _ = s.ListEvidence(ctx(), "n1", t0.Add(time.Second), t0.Add(time.Hour))
	if len(list) != 1 {
		t.Fatalf("ListEvidence from t0+1s = %d, want 1", len(list))
	}
}

func testBackendRuns(t *testing.T, s store.Store) {
	r := store.BackendRun{ID: "serve-1", Start: t0, LastTick: t0}
	v, err := s.PutBackendRun(ctx(), r, 0)
	must(t, err, "PutBackendRun")
	if v != 1 {
		t.Fatalf("version %d, want 1", v)
	}
	_, err = s.PutBackendRun(ctx(), r, 0)
	mustIs(t, err, store.ErrConflict, "PutBackendRun create twice")
	r.LastTick = t0.Add(time.Hour)
	r.Stopped = true
	_, err = s.PutBackendRun(ctx(), r, 1)
	must(t, err, "PutBackendRun update")
	r2 := store.BackendRun{ID: "serve-2", Start: t0.Add(2 * time.Hour), LastTick: t0.Add(3 * time.Hour)}
	_, err = s.PutBackendRun(ctx(), r2, 0)
	must(t, err, "PutBackendRun 2")
	list, err := s.ListBackendRuns(ctx(), t0.Add(30*time.Minute), t0.Add(150*time.Minute))
	must(t, err, "ListBackendRuns")
	if len(list) != 2 || list[0].ID != "serve-1" || !list[0].Stopped || list[0].Version != 2 || !list[0].LastTick.Equal(t0.Add(time.Hour)) {
		t.Fatalf("ListBackendRuns = %+v", list)
	}
	list, _ = s.ListBackendRuns(ctx(), t0.Add(70*time.Minute), t0.Add(80*time.Minute))
	if len(list) != 0 {
		t.Fatalf("ListBackendRuns in the gap = %+v", list)
	}
}

func testOps(t *testing.T, s store.Store) {
	before := s.Ops()
	_, _ = s.GetState(ctx(), "n1")
	_, _ = s.PutState(ctx(), store.NodeState{Node: "n1"}, 0)
	_, _ = s.PutState(ctx(), store.NodeState{Node: "n1"}, 0) // conflict
	after := s.Ops()
	if after.Total("/write")-before.Total("/write") < 2 {
		t.Fatalf("2 PutState calls counted as %d writes (a failed conditional write is billed too): %v",
			after.Total("/write")-before.Total("/write"), after)
	}
	if after.Total("/read")-before.Total("/read") < 1 {
		t.Fatalf("GetState not counted as a read: %v", after)
	}
	if after.Total("/"+store.OpCondFailure)-before.Total("/"+store.OpCondFailure) != 1 {
		t.Fatalf("conditional failure not counted: %v", after)
	}
}

// Parallel runs fn(0..n-1) at once and fails the test on any error.
func Parallel(t *testing.T, n int, fn func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if err := fn(i); err != nil {
				errs <- err
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
}
