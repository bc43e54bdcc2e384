package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
)

// testHistory holds both stores to store.History: a node's records for a
// period, walked one at a time, exactly what the listing methods return.
func testHistory(t *testing.T, s store.Store) {
	h, ok := s.(store.History)
	if !ok {
		t.Fatalf("%T does not implement store.History", s)
	}
	t.Run("Batches", func(t *testing.T) { testHistoryBatches(t, s, h) })
	t.Run("RunsAndEvidence", func(t *testing.T) { testHistoryRuns(t, s, h) })
}

// historyBatches is more than one chunk of the embedded store's walk (it
// reads 256 records a transaction).
const historyBatches = 300

func testHistoryBatches(t *testing.T, s store.Store, h store.History) {
	keep := t0.Add(400 * 24 * time.Hour)
	put := func(node string, seq uint64, recv, expires time.Time) {
		t.Helper()
		must(t, s.PutBatch(ctx(), store.BatchRecord{Node: node, Seq: seq, ID: fmt.Sprintf("%s-%d", node, seq), Hash: fmt.Sprintf("h%d", seq),
			ReceivedAt: recv, Why: []string{"measurements"}, Body: fmt.Appendf(nil, `{"seq":%d}`, seq), Form: fmt.Appendf(nil, "form %d", seq),
			ExpiresAt: expires}), "PutBatch")
	}
	for seq := uint64(1); seq <= historyBatches; seq++ {
		recv := t0.Add(time.Duration(seq) * time.Minute)
		switch seq {
		case 7:
			recv = t0.Add(1000 * time.Minute) // late: out of its sequence's order
		}
		exp := keep
		if seq == 12 {
			exp = time.Now().Add(-time.Hour) // expired, not yet swept
		}
		put("n1", seq, recv, exp)
	}
	// Another node whose id extends n1's, and one received in the period.
	put("n10", 15, t0.Add(15*time.Minute), keep)
	put("n2", 16, t0.Add(16*time.Minute), keep)

	walk := func(from, to time.Time) []store.BatchRecord {
		t.Helper()
		var got []store.BatchRecord
		must(t, h.EachBatch(ctx(), "n1", from, to, func(b *store.BatchRecord) error {
			got = append(got, *b)
			return nil
		}), "EachBatch")
		return got
	}
	seqs := func(bs []store.BatchRecord) []uint64 {
		var out []uint64
		for _, b := range bs {
			out = append(out, b.Seq)
		}
		return out
	}
	// [t0+10m, t0+20m): seq 10 to 19, not 12 (expired), the end exclusive.
	if got, want := seqs(walk(t0.Add(10*time.Minute), t0.Add(20*time.Minute))), []uint64{10, 11, 13, 14, 15, 16, 17, 18, 19}; !slices.Equal(got, want) {
		t.Fatalf("EachBatch [10m, 20m) = %v, want %v", got, want)
	}
	// A late batch is in the period of its receipt, in sequence order.
	late := walk(t0.Add(5*time.Minute), t0.Add(1001*time.Minute))
	if s := seqs(late); len(s) != historyBatches-4-1 || s[0] != 5 || s[1] != 6 || s[2] != 7 || s[len(s)-1] != historyBatches {
		t.Fatalf("EachBatch [5m, 1001m) = %d batches, starting %v", len(s), s[:min(len(s), 4)])
	}
	// Exactly what ListBatches holds, field by field.
	list, err := s.ListBatches(ctx(), "n1", 0, 1<<62)
	must(t, err, "ListBatches")
	all := walk(t0, t0.Add(24*time.Hour))
	if len(all) != len(list) || len(all) != historyBatches-1 {
		t.Fatalf("EachBatch over the day = %d batches, ListBatches %d, want %d", len(all), len(list), historyBatches-1)
	}
	for i := range all {
		a, b := all[i], list[i]
		if a.Seq != b.Seq || a.ID != b.ID || a.Hash != b.Hash || !a.ReceivedAt.Equal(b.ReceivedAt) || string(a.Body) != string(b.Body) || string(a.Form) != fmt.Sprintf("form %d", a.Seq) || string(b.Form) != string(a.Form) ||
			!slices.Equal(a.Why, b.Why) || !a.ExpiresAt.Equal(b.ExpiresAt) || a.Node != "n1" {
			t.Fatalf("batch %d: walked %+v, listed %+v", i, a, b)
		}
	}
	if got := walk(t0.Add(2000*time.Minute), t0.Add(3000*time.Minute)); len(got) != 0 {
		t.Fatalf("EachBatch after the last receipt = %v, want none", seqs(got))
	}
	// The caller's error stops the walk at once and comes back as it is.
	stop := errors.New("enough")
	calls := 0
	err = h.EachBatch(ctx(), "n1", t0, t0.Add(24*time.Hour), func(*store.BatchRecord) error {
		calls++
		if calls == historyBatches-20 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != historyBatches-20 {
		t.Fatalf("EachBatch stopped after %d calls with %v, want %d calls and the caller's error", calls, err, historyBatches-20)
	}
	must(t, h.EachBatch(ctx(), "nobody", t0, t0.Add(time.Hour), func(*store.BatchRecord) error {
		return errors.New("a node with no batches has none to walk")
	}), "EachBatch of an unknown node")
}

func testHistoryRuns(t *testing.T, s store.Store, h store.History) {
	runs := []store.HeartbeatRun{
		{Node: "n1", From: t0, To: t0.Add(time.Hour), Count: 120, ReceivedFrom: t0, ReceivedTo: t0.Add(time.Hour), MaxGap: 30 * time.Second, FirstSeq: 1, LastSeq: 60},
		{Node: "n1", From: t0.Add(2 * time.Hour), To: t0.Add(2 * time.Hour), Count: 1},
		{Node: "n1", From: t0.Add(3 * time.Hour), To: t0.Add(5 * time.Hour), Count: 240},
		{Node: "n10", From: t0, To: t0.Add(5 * time.Hour), Count: 600},
	}
	for _, r := range runs {
		must(t, s.PutRun(ctx(), r), "PutRun")
	}
	for i := 0; i < 3; i++ {
		e := store.Evidence{Node: "n1", At: t0.Add(time.Duration(i) * time.Hour), Kind: store.EvidenceChainBreak, Seq: uint64(i + 1), Detail: fmt.Sprint("break ", i)}
		must(t, s.PutEvidence(ctx(), e), "PutEvidence")
	}
	must(t, s.PutEvidence(ctx(), store.Evidence{Node: "n10", At: t0, Kind: store.EvidenceDrop, Seq: 1}), "PutEvidence n10")
	for _, w := range [][2]time.Duration{{0, 6 * time.Hour}, {30 * time.Minute, 150 * time.Minute}, {2 * time.Hour, 3 * time.Hour},
		{70 * time.Minute, 80 * time.Minute}, {5 * time.Hour, 6 * time.Hour}, {time.Hour, 2*time.Hour + time.Nanosecond}} {
		from, to := t0.Add(w[0]), t0.Add(w[1])
		want, err := s.ListRuns(ctx(), "n1", from, to)
		must(t, err, "ListRuns")
		var got []store.HeartbeatRun
		must(t, h.EachRun(ctx(), "n1", from, to, func(r *store.HeartbeatRun) error { got = append(got, *r); return nil }), "EachRun")
		if len(got) != len(want) {
			t.Fatalf("EachRun [%s, %s) = %d runs, ListRuns %d", w[0], w[1], len(got), len(want))
		}
		for i := range got {
			if !got[i].From.Equal(want[i].From) || !got[i].To.Equal(want[i].To) || got[i].Count != want[i].Count || got[i].MaxGap != want[i].MaxGap || got[i].Node != "n1" {
				t.Fatalf("EachRun [%s, %s) run %d = %+v, ListRuns %+v", w[0], w[1], i, got[i], want[i])
			}
		}
		wantEv, err := s.ListEvidence(ctx(), "n1", from, to)
		must(t, err, "ListEvidence")
		var gotEv []store.Evidence
		must(t, h.EachEvidence(ctx(), "n1", from, to, func(e *store.Evidence) error { gotEv = append(gotEv, *e); return nil }), "EachEvidence")
		if len(gotEv) != len(wantEv) {
			t.Fatalf("EachEvidence [%s, %s) = %d, ListEvidence %d", w[0], w[1], len(gotEv), len(wantEv))
		}
		for i := range gotEv {
			if gotEv[i].Seq != wantEv[i].Seq || gotEv[i].Detail != wantEv[i].Detail || !gotEv[i].At.Equal(wantEv[i].At) {
				t.Fatalf("EachEvidence [%s, %s) %d = %+v, ListEvidence %+v", w[0], w[1], i, gotEv[i], wantEv[i])
			}
		}
	}
	stop := errors.New("enough")
	if err := h.EachRun(ctx(), "n1", t0, t0.Add(6*time.Hour), func(*store.HeartbeatRun) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("EachRun with a failing caller = %v", err)
	}
	if err := h.EachEvidence(ctx(), "n1", t0, t0.Add(6*time.Hour), func(*store.Evidence) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("EachEvidence with a failing caller = %v", err)
	}
}
