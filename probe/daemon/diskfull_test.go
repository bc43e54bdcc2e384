package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/push/pushtest"
)

// The spool's disk fills up (a tmpfs the test mounts and fills to the last
// byte) while the backend is down: the daemon keeps running from memory,
// is stopped with batches held only there, starts again on the still-full
// disk, delivers heartbeats from memory, and the real receiver gets a drop
// report naming the batches the stop lost.
func TestDiskFullStartsKeepsReportingAndReportsTheDrop(t *testing.T) {
	h := newHarness(t)
	mnt := testenv.Tmpfs(t, 512<<10)
	if err := os.Symlink(mnt, filepath.Join(h.dir, "spool")); err != nil {
		t.Fatal(err)
	}
	noJobs := func(*config.Config) (Jobs, error) { return Jobs{}, nil }
	h.write("schedules:\n  heartbeat: 100ms\n  push: 200ms\n  health: \"off\"\n  network: \"off\"\n  stress: \"off\"\n")
	h.start(noJobs, nil)
	h.waitFor("heartbeats while the disk has room", func() bool { return h.heartbeats() >= 2 })

	if err := h.recv.SetMode(pushtest.Refused); err != nil {
		t.Fatal(err)
	}
	testenv.Fill(t, mnt, "filler")
	var held []uint64
	h.waitFor("batches held in memory, listed in the state file", func() bool {
		raw, err := os.ReadFile(filepath.Join(mnt, "state.json"))
		var st struct {
			Memory []uint64 `json:"memory"`
		}
		if err != nil || json.Unmarshal(raw, &st) != nil {
			return false
		}
		held = st.Memory
		return len(held) >= 2
	})
	if err := h.stop(); err != nil {
		t.Fatalf("daemon on a full disk stopped with %v", err)
	}

	// Start again on the full disk, the backend up.
	if err := h.recv.SetMode(pushtest.Up); err != nil {
		t.Fatal(err)
	}
	before := h.heartbeats()
	h.start(noJobs, nil)
	h.waitFor("heartbeats sent from memory after a start on a full disk", func() bool { return h.heartbeats() >= before+3 })
	h.waitFor("the drop report at the receiver", func() bool {
		for _, b := range h.recv.Batches() {
			if d := b.Dropped; d != nil && strings.Contains(d.Reason, "held in memory only") {
				// At least what the state file listed when we looked (more
				// may have been held before the stop).
				if d.FromSeq > held[0] || d.Batches < len(held) {
					t.Fatalf("drop report %+v does not cover the held batches %v", d, held)
				}
				return true
			}
		}
		return false
	})
	if _, err := os.Stat(filepath.Join(mnt, "filler")); err != nil {
		t.Fatal(err)
	}
	if err := h.stop(); err != nil {
		t.Fatalf("daemon stopped with %v", err)
	}
	if c := h.recv.Counts(); c.BadSignatures != 0 || c.BadSchema != 0 {
		t.Fatalf("receiver counts %+v", c)
	}
}
