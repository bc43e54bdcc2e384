package spool

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/atomicfile"
	"github.com/gpusla/gpusla/probe/wire"
)

func open(t *testing.T, dir string, max int64) *Spool {
	t.Helper()
	s, err := Open(Options{Dir: dir, MaxBytes: max, Node: "node-1", Probe: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func heartbeat() []wire.Observation {
	return []wire.Observation{{At: time.Now().UTC(), Kind: wire.KindHeartbeat}}
}

// drain acks everything in order and returns the decoded batches.
func drain(t *testing.T, s *Spool) []*wire.Batch {
	t.Helper()
	var out []*wire.Batch
	for {
		it, ok, err := s.Oldest()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		b, err := wire.Decode(it.Body)
		if err != nil {
			t.Fatalf("spooled body does not decode: %v", err)
		}
		if b.ID != it.ID || b.Seq != it.Seq {
			t.Fatalf("item %d/%s does not match its body %d/%s", it.Seq, it.ID, b.Seq, b.ID)
		}
		out = append(out, b)
		if err := s.Ack(it.Seq); err != nil {
			t.Fatal(err)
		}
	}
}

// checkChain verifies seqs are consecutive from first and each prev is the
// hash of the previous body.
func checkChain(t *testing.T, bodies [][]byte, first uint64) {
	t.Helper()
	prev := ""
	for i, body := range bodies {
		b, err := wire.Decode(body)
		if err != nil {
			t.Fatal(err)
		}
		if b.Seq != first+uint64(i) {
			t.Fatalf("batch %d has seq %d, want %d", i, b.Seq, first+uint64(i))
		}
		if i > 0 && b.Prev != prev {
			t.Fatalf("seq %d: prev %s, want %s", b.Seq, b.Prev, prev)
		}
		if b0, _ := wire.Decode(bodies[0]); b.Chain == "" || b.Chain != b0.Chain {
			t.Fatalf("seq %d: chain %q, want the first batch's %q (and not empty)", b.Seq, b.Chain, b0.Chain)
		}
		prev = wire.BodyHash(body)
	}
}

func take(t *testing.T, s *Spool) [][]byte {
	t.Helper()
	var bodies [][]byte
	for {
		it, ok, err := s.Oldest()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return bodies
		}
		bodies = append(bodies, it.Body)
		if err := s.Ack(it.Seq); err != nil {
			t.Fatal(err)
		}
	}
}

func TestChainSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, 1<<20)
	for range 3 {
		if _, err := s.Append(heartbeat()); err != nil {
			t.Fatal(err)
		}
	}
	bodies := take(t, s)
	s.Append(heartbeat())
	s.Close()

	s2 := open(t, dir, 1<<20)
	if n, _ := s2.Stats(); n != 1 {
		t.Fatalf("after reopen %d batches waiting, want 1", n)
	}
	s2.Append(heartbeat())
	bodies = append(bodies, take(t, s2)...)
	if len(bodies) != 5 {
		t.Fatalf("got %d batches, want 5", len(bodies))
	}
	checkChain(t, bodies, 1)
	b1, _ := wire.Decode(bodies[0])
	if b1.Prev != "" || b1.Node != "node-1" || b1.Probe != "test" {
		t.Fatalf("first batch: %+v", b1)
	}
}

func TestSecondOpenIsRefused(t *testing.T) {
	dir := t.TempDir()
	open(t, dir, 1<<20)
	if _, err := Open(Options{Dir: dir, MaxBytes: 1 << 20, Node: "node-1"}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second open: %v", err)
	}
}

func TestOtherNodeIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, 1<<20)
	s.Append(heartbeat())
	s.Close()
	if _, err := Open(Options{Dir: dir, MaxBytes: 1 << 20, Node: "node-2"}); err == nil || !strings.Contains(err.Error(), `"node-1"`) {
		t.Fatalf("open for another node: %v", err)
	}
}

// Each case leaves the directory as a crash at one step would, then checks
// that reopening repairs it without losing or duplicating a batch.
func TestRecoverFromCrashPoints(t *testing.T) {
	t.Run("leftover temp files", func(t *testing.T) {
		dir := t.TempDir()
		s := open(t, dir, 1<<20)
		s.Append(heartbeat())
		s.Close()
		os.WriteFile(filepath.Join(dir, atomicfile.TempPrefix+"00000000000000000002.batch-123"), []byte(`{"half`), 0o600)
		os.WriteFile(filepath.Join(dir, atomicfile.TempPrefix+stateFile+"-9"), []byte(`{`), 0o600)
		s2 := open(t, dir, 1<<20)
		s2.Append(heartbeat())
		checkChain(t, take(t, s2), 1)
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			if strings.HasPrefix(de.Name(), atomicfile.TempPrefix) {
				t.Fatalf("temp file %s left", de.Name())
			}
		}
	})
	t.Run("batch written, state not updated", func(t *testing.T) {
		dir := t.TempDir()
		s := open(t, dir, 1<<20)
		s.Append(heartbeat())
		oldState, _ := os.ReadFile(filepath.Join(dir, stateFile))
		s.Append(heartbeat())
		s.Close()
		// Put back the state from before batch 2: as if the process died
		// after batch 2's rename and before the state rename.
		os.WriteFile(filepath.Join(dir, stateFile), oldState, 0o600)
		s2 := open(t, dir, 1<<20)
		s2.Append(heartbeat())
		bodies := take(t, s2)
		if len(bodies) != 3 {
			t.Fatalf("got %d batches, want 3", len(bodies))
		}
		checkChain(t, bodies, 1)
	})
	t.Run("drop recorded, files not deleted", func(t *testing.T) {
		dir := t.TempDir()
		s := open(t, dir, 1<<20)
		s.Append(heartbeat())
		s.Append(heartbeat())
		keep1, _ := os.ReadFile(s.path(1))
		s.mu.Lock()
		if err := s.drop([]entry{s.items[0]}, "test", false); err != nil {
			t.Fatal(err)
		}
		s.mu.Unlock()
		s.Close()
		os.WriteFile(filepath.Join(dir, "00000000000000000001.batch"), keep1, 0o600) // undo the delete
		s2 := open(t, dir, 1<<20)
		if n, _ := s2.Stats(); n != 1 {
			t.Fatalf("%d batches after recovery, want 1 (batch 1 was dropped)", n)
		}
		s2.Append(heartbeat())
		bs := drain(t, s2)
		if bs[0].Seq != 2 || bs[1].Dropped == nil || bs[1].Dropped.FromSeq != 1 || bs[1].Dropped.Batches != 1 {
			t.Fatalf("batches after recovered drop: %+v %+v", bs[0], bs[1].Dropped)
		}
	})
}

func TestCapDropsOldestAndReportsOnce(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, 1<<20)
	s.Append(heartbeat())
	_, size := s.Stats()
	s.Close()
	// Room for four batches of this size: later ones are bigger (the prev
	// hash, a drop report with the span of what it dropped), so about two
	// of those.
	limit := 4 * size
	s = open(t, dir, limit)
	for range 5 {
		if _, err := s.Append(heartbeat()); err != nil {
			t.Fatal(err)
		}
	}
	if n, bytes := s.Stats(); n < 2 || bytes > limit {
		t.Fatalf("spool holds %d batches, %d bytes; want at least 2 within the cap", n, bytes)
	}
	bs := drain(t, s)
	// The spool is empty now: this batch carries the last pending report.
	s.Append(heartbeat())
	bs = append(bs, drain(t, s)...)
	// Every batch is either delivered or counted in exactly one drop
	// report that is itself delivered.
	seen := map[uint64]bool{}
	dropped := 0
	for _, b := range bs {
		seen[b.Seq] = true
		if d := b.Dropped; d != nil {
			if !strings.Contains(d.Reason, "spool full") || d.ToSeq >= b.Seq {
				t.Fatalf("batch %d drop report %+v", b.Seq, d)
			}
			dropped += d.Batches
		}
	}
	missing := 0
	for seq := uint64(1); seq <= bs[len(bs)-1].Seq; seq++ {
		if !seen[seq] {
			missing++
		}
	}
	if missing == 0 || missing != dropped {
		t.Fatalf("%d batches missing, drop reports account for %d", missing, dropped)
	}
}

func TestRejectMovesAsideAndReports(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, 1<<20)
	s.Append(heartbeat())
	s.Append(heartbeat())
	if err := s.Reject(1, "400 observations[0].kind"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, rejectDir, "00000000000000000001.batch")); err != nil {
		t.Fatalf("rejected batch not kept for inspection: %v", err)
	}
	s.Append(heartbeat())
	bs := drain(t, s)
	if len(bs) != 2 || bs[0].Seq != 2 || bs[1].Dropped == nil || !strings.Contains(bs[1].Dropped.Reason, "rejected by backend: 400") {
		t.Fatalf("after reject: %d batches, last drop %+v", len(bs), bs[len(bs)-1].Dropped)
	}
}

func TestLargeAppendIsSplit(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, 64<<20)
	detail := strings.Repeat("x", wire.MaxDetailBytes)
	var obs []wire.Observation
	for range 2400 {
		obs = append(obs, wire.Observation{At: time.Now().UTC(), Kind: wire.KindCheck,
			Checks: []wire.Check{{Name: "c", Category: wire.CategoryHost, Verdict: wire.Pass, Detail: detail}}})
	}
	seqs, err := s.Append(obs)
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) < 3 {
		t.Fatalf("2.4 MB of observations went into %d batches", len(seqs))
	}
	total := 0
	for _, b := range drain(t, s) {
		total += len(b.Observations)
	}
	if total != 2400 {
		t.Fatalf("%d observations came out, want 2400", total)
	}
}

// Observations of more distinct checks than a batch may hold go into as
// many batches as the bound needs, each one the backend takes; a text past
// the wire's bounds is clipped, not refused.
func TestAppendWithinTheCheckBounds(t *testing.T) {
	s := open(t, t.TempDir(), 64<<20)
	var obs []wire.Observation
	for i := range 9 {
		o := wire.Observation{At: time.Now().UTC(), Kind: wire.KindCheck}
		for j := range wire.MaxChecks {
			o.Checks = append(o.Checks, wire.Check{Name: fmt.Sprintf("c.%d.%d", i, j), Category: wire.CategoryHost, Verdict: wire.Pass})
		}
		o.Checks[0].Detail = strings.Repeat("d", 4000)
		obs = append(obs, o)
	}
	seqs, err := s.Append(obs)
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 3 { // 2,048 distinct checks a batch: four observations, two, three
		t.Fatalf("%d distinct checks went into %d batches", 9*wire.MaxChecks, len(seqs))
	}
	total := 0
	for _, b := range drain(t, s) {
		if err := b.Validate(); err != nil {
			t.Fatalf("batch %d: %v", b.Seq, err)
		}
		for _, o := range b.Observations {
			total += len(o.Checks)
			if d := o.Checks[0].Detail; len(d) > wire.MaxDetailBytes || !strings.HasSuffix(d, "…") {
				t.Fatalf("detail of %d bytes", len(d))
			}
		}
	}
	if total != 9*wire.MaxChecks {
		t.Fatalf("%d checks came out", total)
	}
}

// A damaged batch file (a disk that lied) must not block the queue or stop
// the daemon: it is set aside and, once in the chain, reported as dropped.
func TestDamagedBatchIsSetAside(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, 1<<20)
	s.Append(heartbeat())
	s.Append(heartbeat())
	s.Append(heartbeat())
	os.WriteFile(s.path(1), []byte(`{"v":1,"id":"x","se`), 0o600) // in the chain, damaged
	bs := drain(t, s)
	if len(bs) != 2 || bs[0].Seq != 2 {
		t.Fatalf("after a damaged head: %d batches", len(bs))
	}
	s.Append(heartbeat())
	bs = drain(t, s)
	if d := bs[0].Dropped; d == nil || d.FromSeq != 1 || !strings.Contains(d.Reason, "damaged on disk") {
		t.Fatalf("drop report %+v", bs[0].Dropped)
	}
	if _, err := os.Stat(filepath.Join(dir, rejectDir, "00000000000000000001.batch")); err != nil {
		t.Fatal("damaged batch not kept in rejected/")
	}
	// The newest batch damaged after the state moved on: start anyway.
	s.Append(heartbeat())
	newest := s.path(5)
	s.Close()
	os.WriteFile(newest, []byte("garbage"), 0o600)
	s2 := open(t, dir, 1<<20)
	if _, err := s2.Append(heartbeat()); err != nil {
		t.Fatal(err)
	}
	if bs := drain(t, s2); len(bs) != 1 || bs[0].Seq != 6 {
		t.Fatalf("after reopen: %+v", bs)
	}
}

// The batch being sent is never the one the cap drops.
func TestCapSparesTheBatchInFlight(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, 1<<20)
	s.Append(heartbeat())
	_, size := s.Stats()
	s.Close()
	s = open(t, dir, 2*size+size/2)
	it, _, _ := s.Oldest() // batch 1 is on the wire
	for range 4 {
		s.Append(heartbeat())
	}
	if _, err := os.Stat(s.path(it.Seq)); err != nil {
		t.Fatalf("batch %d in flight was dropped", it.Seq)
	}
	if d := s.PendingDrop(); d == nil || d.FromSeq != 2 {
		t.Fatalf("drop %+v, want from seq 2", d)
	}
}

// A spool whose state is lost starts a new chain: seq 1, empty prev, and a
// chain id of its own, so the backend can tell it from a replay.
func TestLostStateStartsANewChain(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, 1<<20)
	s.Append(heartbeat())
	s.Append(heartbeat())
	old := take(t, s)
	s.Close()
	dir2 := t.TempDir() // the disk was replaced
	s2 := open(t, dir2, 1<<20)
	s2.Append(heartbeat())
	fresh := take(t, s2)
	a, _ := wire.Decode(old[0])
	b, _ := wire.Decode(fresh[0])
	if b.Seq != 1 || b.Prev != "" || b.Chain == "" || b.Chain == a.Chain {
		t.Fatalf("fresh state's first batch: seq %d prev %q chain %q (old chain %q)", b.Seq, b.Prev, b.Chain, a.Chain)
	}
}
