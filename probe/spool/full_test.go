package spool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/probe/wire"
)

func heartbeatAt(at time.Time) []wire.Observation {
	return []wire.Observation{{At: at, Kind: wire.KindHeartbeat}}
}

// A spool on a disk with no room left keeps working from memory: nothing
// errors, what the cap drops is reported with its seqs, observation count
// and interval, a restart on the still-full disk starts and reports what
// the last run held in memory instead of reusing its seqs, and once the
// disk has room the held batches go to disk.
func TestFullDiskKeepsGoingFromMemory(t *testing.T) {
	dir := testenv.Tmpfs(t, 256<<10)
	s := open(t, dir, 2500)
	if _, err := s.Append(heartbeat()); err != nil {
		t.Fatal(err)
	}
	testenv.Fill(t, dir, "filler")

	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for i := range 20 {
		if _, err := s.Append(heartbeatAt(t0.Add(time.Duration(i) * 30 * time.Second))); err != nil {
			t.Fatalf("append %d on a full disk: %v", i, err)
		}
	}
	if held, err := s.Full(); err == nil || held == 0 {
		t.Fatalf("Full() = %v, %d held; want the ENOSPC and batches held in memory", err, held)
	}
	if _, bytes := s.Stats(); bytes > 2500 {
		t.Fatalf("%d bytes held, over the 2500 cap", bytes)
	}
	bs := drain(t, s)
	// The last drop waits for the next batch to carry it.
	reports := []*wire.Drop{s.PendingDrop()}
	seen, dropped := map[uint64]bool{}, 0
	for _, b := range bs {
		seen[b.Seq] = true
		reports = append(reports, b.Dropped)
	}
	var reasons []string
	for _, d := range reports {
		if d != nil {
			dropped += d.Batches
			reasons = append(reasons, d.Reason)
		}
	}
	last := bs[len(bs)-1].Seq
	if last != 21 || len(reasons) == 0 {
		t.Fatalf("last seq %d (want 21), drop reports %v", last, reasons)
	}
	all := strings.Join(reasons, "\n")
	for _, want := range []string{"spool full", "(spool disk full)", " observations 2026-03-01T10:00:00Z/"} {
		if !strings.Contains(all, want) {
			t.Errorf("drop reasons %q lack %q", all, want)
		}
	}
	missing := 0
	for seq := uint64(1); seq <= last; seq++ {
		if !seen[seq] {
			missing++
		}
	}
	if missing != dropped {
		t.Fatalf("%d seqs never delivered, %d reported dropped", missing, dropped)
	}

	// Two more held in memory, then a stop: they are lost with the process.
	s.Append(heartbeatAt(t0.Add(time.Hour)))
	s.Append(heartbeatAt(t0.Add(time.Hour + 30*time.Second)))
	s.Close()
	s2, err := Open(Options{Dir: dir, MaxBytes: 2500, Node: "node-1", Probe: "test"})
	if err != nil {
		t.Fatalf("open on a full disk: %v", err)
	}
	t.Cleanup(func() { s2.Close() })
	if _, err := s2.Append(heartbeat()); err != nil {
		t.Fatal(err)
	}
	bs = drain(t, s2)
	if len(bs) != 1 || bs[0].Seq != 24 {
		t.Fatalf("after restart: %d batches, first seq %d; want one, seq 24 (22 and 23 were held and lost)", len(bs), bs[0].Seq)
	}
	if d := bs[0].Dropped; d == nil || d.Batches != 2 || d.FromSeq != 22 || d.ToSeq != 23 || !strings.Contains(d.Reason, "held in memory only") {
		t.Fatalf("after restart the drop report is %+v; want batches 22-23 held in memory", d)
	}

	// Room again: the next batch, and any held, land on disk.
	s2.Append(heartbeat()) // held: the disk is still full
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	s2.Append(heartbeat())
	if held, err := s2.Full(); err != nil || held != 0 {
		t.Fatalf("after making room Full() = %v, %d held", err, held)
	}
	for _, f := range []string{"00000000000000000025.batch", "00000000000000000026.batch", reserveFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("after making room: %v", err)
		}
	}
}

func TestDropReasonStaysBounded(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var d *wire.Drop
	for i := range 100 {
		d = mergeDrop(d, &wire.Drop{Batches: 1, FromSeq: uint64(i + 1), ToSeq: uint64(i + 1),
			Reason: joinReason(dropFull+" (max_bytes 9)", obsSpan{n: 2, first: at.Add(time.Duration(i) * time.Minute), last: at.Add(time.Duration(i)*time.Minute + 30*time.Second)})})
	}
	d = mergeDrop(d, &wire.Drop{Batches: 1, FromSeq: 101, ToSeq: 101, Reason: dropCorrupt})
	want := "spool full (max_bytes 9); damaged on disk — 200 observations 2026-03-01T10:00:00Z/2026-03-01T11:39:30Z"
	if d.Batches != 101 || d.FromSeq != 1 || d.ToSeq != 101 || d.Reason != want {
		t.Fatalf("merged drop %+v\nwant reason %q", d, want)
	}
	if base, sp := splitReason("an older probe's reason"); base != "an older probe's reason" || sp.n != 0 {
		t.Fatalf("splitReason of a plain reason: %q %+v", base, sp)
	}
}
