package spool

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/wire"
)

var obsBase = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// hb is heartbeat number i; its time identifies it in the batches.
func hb(i int) wire.Observation {
	return wire.Observation{At: obsBase.Add(time.Duration(i) * time.Millisecond), Kind: wire.KindHeartbeat}
}

// observed lists the heartbeat numbers in the batches, in order.
func observed(t *testing.T, bodies [][]byte) []int {
	t.Helper()
	var out []int
	for _, body := range bodies {
		b, err := wire.Decode(body)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range b.Observations {
			out = append(out, int(o.At.Sub(obsBase)/time.Millisecond))
		}
	}
	return out
}

func onDisk(t *testing.T, dir string) [][]byte {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*"+batchExt))
	var bodies [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	return bodies
}

func TestStageWaitsAndSealMakesOneBatch(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, 1<<20)
	if err := s.Stage([]wire.Observation{hb(0)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Stage([]wire.Observation{hb(1)}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Stats(); n != 0 || s.Staged() != 2 {
		t.Fatalf("after staging: %d batches, %d staged; want 0 and 2", n, s.Staged())
	}
	seqs, err := s.Seal()
	if err != nil || len(seqs) != 1 || seqs[0] != 1 {
		t.Fatalf("seal: %v %v, want [1]", seqs, err)
	}
	if _, err := os.Stat(filepath.Join(dir, pendingFile)); !os.IsNotExist(err) {
		t.Fatalf("pending file survives sealing: %v", err)
	}
	if seqs, err := s.Seal(); err != nil || len(seqs) != 0 {
		t.Fatalf("sealing nothing: %v %v", seqs, err)
	}
	s.Append(heartbeat())
	s.Stage([]wire.Observation{hb(2)})
	s.Seal()
	bodies := take(t, s)
	checkChain(t, bodies, 1)
	b, _ := wire.Decode(bodies[0])
	if len(b.Observations) != 2 {
		t.Fatalf("sealed batch holds %d observations, want 2", len(b.Observations))
	}
	if len(bodies) != 3 {
		t.Fatalf("%d batches, want 3", len(bodies))
	}
}

func TestStageRefusesBadObservation(t *testing.T) {
	s := open(t, t.TempDir(), 1<<20)
	err := s.Stage([]wire.Observation{hb(0), {Kind: "nonsense"}})
	if err == nil || !strings.Contains(err.Error(), "observation 1") {
		t.Fatalf("stage of a bad observation: %v", err)
	}
	if s.Staged() != 0 {
		t.Fatalf("%d staged after a refused stage, want 0", s.Staged())
	}
}

// Each case leaves the directory as a crash during Stage or Seal would,
// then checks that reopening seals every staged observation exactly once.
func TestPendingRecovery(t *testing.T) {
	stage := func(t *testing.T, dir string, n int) *Spool {
		s, err := Open(Options{Dir: dir, MaxBytes: 1 << 20, Node: "node-1"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := s.Stage([]wire.Observation{hb(i)}); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	want := func(t *testing.T, dir string, n int) {
		t.Helper()
		s := open(t, dir, 1<<20)
		if _, err := os.Stat(filepath.Join(dir, pendingFile)); !os.IsNotExist(err) {
			t.Fatalf("pending file left after reopen: %v", err)
		}
		bodies := onDisk(t, dir)
		checkChain(t, bodies, 1)
		got := observed(t, bodies)
		if len(got) != n {
			t.Fatalf("observations %v, want 0..%d once each", got, n-1)
		}
		for i, g := range got {
			if g != i {
				t.Fatalf("observations %v, want 0..%d in order", got, n-1)
			}
		}
		// The chain goes on after recovery.
		if seqs, err := s.Append(heartbeat()); err != nil || seqs[0] != uint64(len(bodies))+1 {
			t.Fatalf("append after recovery: %v %v", seqs, err)
		}
	}
	t.Run("killed before sealing", func(t *testing.T) {
		dir := t.TempDir()
		stage(t, dir, 3).Close()
		want(t, dir, 3)
	})
	t.Run("torn last line", func(t *testing.T) {
		dir := t.TempDir()
		stage(t, dir, 2).Close()
		f, _ := os.OpenFile(filepath.Join(dir, pendingFile), os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"at":"2026-11-30T12:00:00.005Z","ki`)
		f.Close()
		want(t, dir, 2)
	})
	t.Run("damaged line in the middle", func(t *testing.T) {
		dir := t.TempDir()
		stage(t, dir, 1).Close()
		f, _ := os.OpenFile(filepath.Join(dir, pendingFile), os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("{\"at\":\"2026-11-30T12:00:00.001Z\",\"kind\":\"nonsense\"}\nnot json\n")
		f.Close()
		s := stage(t, dir, 0)
		s.Stage([]wire.Observation{hb(1)})
		s.Close()
		want(t, dir, 2)
	})
	t.Run("sealing marked, batch not written", func(t *testing.T) {
		dir := t.TempDir()
		s := stage(t, dir, 3)
		s.st.Sealing = &sealing{Seq: s.st.NextSeq, Upto: 3}
		if err := s.saveState(); err != nil {
			t.Fatal(err)
		}
		s.Close()
		want(t, dir, 3)
	})
	t.Run("batch written, state not moved on", func(t *testing.T) {
		dir := t.TempDir()
		s := stage(t, dir, 3)
		b, body, n, err := s.encodeNext(s.staged)
		if err != nil {
			t.Fatal(err)
		}
		s.st.Sealing = &sealing{Seq: b.Seq, Upto: n}
		if err := s.saveState(); err != nil {
			t.Fatal(err)
		}
		if err := writeFileAtomic(dir, filepath.Base(s.path(b.Seq)), body); err != nil {
			t.Fatal(err)
		}
		s.Close()
		want(t, dir, 3)
	})
	t.Run("pending file removed, count not reset", func(t *testing.T) {
		dir := t.TempDir()
		s := stage(t, dir, 2)
		if _, err := s.Seal(); err != nil {
			t.Fatal(err)
		}
		s.st.PendingDone = 2
		s.saveState()
		s.Close()
		s = stage(t, dir, 0)
		s.Stage([]wire.Observation{hb(2)})
		s.Close()
		want(t, dir, 3)
	})
}

const stageHelperEnv = "GPUPROBE_SPOOL_STAGE_CRASH_DIR"

// TestHelperStageLoop is not a test: TestKillBetweenStageAndSeal runs the
// test binary with stageHelperEnv set, and this stages numbered heartbeats
// as fast as it can, sealing every third, printing each number once Stage
// has returned (the promise of durability), until it is killed.
func TestHelperStageLoop(t *testing.T) {
	dir := os.Getenv(stageHelperEnv)
	if dir == "" {
		t.Skip("helper process for TestKillBetweenStageAndSeal")
	}
	next, _ := strconv.Atoi(os.Getenv(stageHelperEnv + "_NEXT"))
	s, err := Open(Options{Dir: dir, MaxBytes: 1 << 30, Node: "node-1", Probe: "crash",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	for i := next; ; i++ {
		if err := s.Stage([]wire.Observation{hb(i)}); err != nil {
			fmt.Fprintln(w, "stage:", err)
			w.Flush()
			os.Exit(2)
		}
		fmt.Fprintln(w, i)
		w.Flush()
		if i%3 == 2 {
			if _, err := s.Seal(); err != nil {
				fmt.Fprintln(w, "seal:", err)
				w.Flush()
				os.Exit(2)
			}
		}
	}
}

// A process staging and sealing in a tight loop is SIGKILLed at random
// moments, so kills land inside Stage's append and every step of Seal.
// After every kill, reopening must seal every observation whose Stage
// returned, each exactly once, in order, in an unbroken chain.
func TestKillBetweenStageAndSeal(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns and kills processes; skipped with -short")
	}
	dir := t.TempDir()
	next := 0 // the first heartbeat number not yet staged by anyone
	for round := range 12 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperStageLoop$", "-test.count=1")
		cmd.Env = append(os.Environ(), stageHelperEnv+"="+dir, fmt.Sprintf("%s_NEXT=%d", stageHelperEnv, next))
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		promised := -1
		started := make(chan struct{})
		done := make(chan string)
		go func() {
			first := true
			for sc.Scan() {
				l := sc.Text()
				n, err := strconv.Atoi(l)
				if err != nil {
					done <- l
					return
				}
				promised = n
				if first {
					close(started)
					first = false
				}
			}
			done <- ""
		}()
		select {
		case <-started:
		case l := <-done:
			cmd.Process.Kill()
			t.Fatalf("round %d: helper stopped: %s", round, l)
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("round %d: helper staged nothing in 30s", round)
		}
		// The crash point, random by design, not a wait: the checks
		// below hold wherever it lands, so a loaded machine only moves it.
		time.Sleep(time.Duration(5+rand.N(60)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		if l := <-done; l != "" {
			t.Fatalf("round %d helper: %s", round, l)
		}
		cmd.Wait()

		s, err := Open(Options{Dir: dir, MaxBytes: 1 << 30, Node: "node-1", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		bodies := onDisk(t, dir)
		checkChain(t, bodies, 1)
		got := observed(t, bodies)
		// Everything promised is there once, in order; a heartbeat staged
		// but killed before its promise was printed may be there too.
		if len(got) < promised+1 {
			t.Fatalf("round %d: %d observations sealed, but Stage had returned for number %d", round, len(got), promised)
		}
		for i, g := range got {
			if g != i {
				t.Fatalf("round %d: observation %d is heartbeat %d (lost or duplicated): %v", round, i, g, got)
			}
		}
		if s.Staged() != 0 {
			t.Fatalf("round %d: %d observations still staged after reopen", round, s.Staged())
		}
		next = len(got)
		s.Close()
		t.Logf("round %d: %d observations in %d batches, intact", round, len(got), len(bodies))
	}
	if next < 12*3 {
		t.Fatalf("only %d observations staged; the kills did not hit many writes", next)
	}
}
