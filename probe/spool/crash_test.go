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

	"github.com/gpusla/gpusla/internal/atomicfile"
	"github.com/gpusla/gpusla/probe/wire"
)

const helperEnv = "GPUPROBE_SPOOL_CRASH_DIR"

// TestHelperAppendLoop is not a test: the crash test runs the test binary
// with helperEnv set, and this appends batches as fast as it can, printing
// each sequence number once Append has returned (the promise of
// durability), until it is killed.
func TestHelperAppendLoop(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("helper process for TestKillDuringWrites")
	}
	s, err := Open(Options{Dir: dir, MaxBytes: 1 << 30, Node: "node-1", Probe: "crash",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	for {
		seqs, err := s.Append([]wire.Observation{{At: time.Now().UTC(), Kind: wire.KindHeartbeat}})
		if err != nil {
			fmt.Fprintln(w, "append:", err)
			w.Flush()
			os.Exit(2)
		}
		fmt.Fprintln(w, seqs[0])
		w.Flush()
	}
}

// A process appending in a tight loop is SIGKILLed at random moments, so
// the kill lands inside a write (temp file, fsync, rename, state update).
// After every kill the spool must reopen, hold every batch whose Append
// returned, with consecutive sequence numbers and an unbroken chain.
func TestKillDuringWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns and kills processes; skipped with -short")
	}
	dir := t.TempDir()
	var promised uint64
	for round := range 12 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppendLoop$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+dir)
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		// Kill only once the helper is writing, at a random moment after.
		var first []string
		select {
		case l := <-lines:
			first = append(first, l)
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("round %d: helper wrote nothing in 30s", round)
		}
		// The crash point, random by design, not a wait: the checks
		// below hold wherever it lands, so a loaded machine only moves it.
		time.Sleep(time.Duration(5+rand.N(60)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		handle := func(l string) {
			seq, err := strconv.ParseUint(l, 10, 64)
			if err != nil {
				if strings.HasPrefix(l, "open:") || strings.HasPrefix(l, "append:") {
					t.Fatalf("round %d helper: %s", round, l)
				}
				return
			}
			promised = max(promised, seq)
		}
		for _, l := range first {
			handle(l)
		}
		for l := range lines {
			handle(l)
		}
		cmd.Wait()

		s, err := Open(Options{Dir: dir, MaxBytes: 1 << 30, Node: "node-1", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		names, _ := filepath.Glob(filepath.Join(dir, "*.batch"))
		var bodies [][]byte
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			bodies = append(bodies, b)
		}
		checkChain(t, bodies, 1)
		if uint64(len(bodies)) < promised {
			t.Fatalf("round %d: %d batches on disk, but Append had returned for seq %d", round, len(bodies), promised)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, atomicfile.TempPrefix+"*")); len(left) > 0 {
			t.Fatalf("round %d: temp files survive reopen: %v", round, left)
		}
		// The chain continues from what is on disk.
		seqs, err := s.Append([]wire.Observation{{At: time.Now().UTC(), Kind: wire.KindHeartbeat}})
		if err != nil || seqs[0] != uint64(len(bodies))+1 {
			t.Fatalf("round %d: next append got %v %v, want seq %d", round, seqs, err, len(bodies)+1)
		}
		promised = seqs[0]
		s.Close()
		t.Logf("round %d: %d batches intact", round, seqs[0])
	}
	if promised < 12*3 {
		t.Fatalf("only %d batches written; the kills did not hit many writes", promised)
	}
}
