package bolt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/storetest"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := Open(filepath.Join(t.TempDir(), "gpusla.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestSweepAndExpiry(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "gpusla.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	now := t0
	s.SetClock(func() time.Time { return now })
	for seq, exp := range map[uint64]time.Time{1: t0.Add(time.Hour), 2: t0.Add(2 * time.Hour)} {
		if err := s.PutBatch(t.Context(), store.BatchRecord{Node: "n", Seq: seq, ID: "b", Body: []byte("{}"), ExpiresAt: exp}); err != nil {
			t.Fatal(err)
		}
	}
	now = t0.Add(90 * time.Minute)
	if _, err := s.GetBatch(t.Context(), "n", 1); err == nil {
		t.Fatal("expired batch still returned")
	}
	if l, _ := s.ListBatches(t.Context(), "n", 0, 10); len(l) != 1 {
		t.Fatalf("ListBatches after expiry = %d, want 1", len(l))
	}
	n, err := s.Sweep(now)
	if err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1", n, err)
	}
}

func TestOpenLocked(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gpusla.db")
	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := Open(p); err == nil {
		t.Fatal("second Open of a locked file succeeded")
	}
}

// Opening a complete store writes nothing: the file is byte for byte what
// it was (every write transaction rewrites a meta page; the open used to
// make one each time, a refused or read-only use of the store too).
func TestOpenWritesNothing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gpusla.db")
	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateNode(t.Context(), store.Node{ID: "gz-01", Provider: "acme", Contract: "c", GPUCount: 8}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, open := range []func(string) (*Store, error){Open, OpenExisting} {
		s, err := open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetNode(t.Context(), "gz-01"); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
			t.Fatal("opening the store rewrote its file")
		}
	}
}

// PutBatches writes all of its records in one transaction, or none: one
// already stored (or one given twice) refuses the lot, naming it.
func TestPutBatchesAllOrNone(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	rec := func(seq uint64) store.BatchRecord {
		return store.BatchRecord{Node: "n1", Seq: seq, ID: fmt.Sprint("b", seq), ReceivedAt: t0, Body: []byte(`{}`), Form: []byte{1, 2}}
	}
	if err := s.PutBatches(ctx, []store.BatchRecord{rec(1), rec(2), rec(3)}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]store.BatchRecord{{rec(4), rec(2)}, {rec(5), rec(5)}} {
		err := s.PutBatches(ctx, bad)
		if !errors.Is(err, store.ErrExists) || !strings.Contains(err.Error(), fmt.Sprintf("n1/%d", bad[1].Seq)) {
			t.Fatalf("PutBatches %d, %d: %v", bad[0].Seq, bad[1].Seq, err)
		}
	}
	list, err := s.ListBatches(ctx, "n1", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[2].Seq != 3 || string(list[0].Form) != "\x01\x02" {
		t.Fatalf("after the refused lots: %+v", list)
	}
}
