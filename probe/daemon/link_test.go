package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/linkwatch"
	"github.com/gpusla/gpusla/probe/push/pushtest"
	"github.com/gpusla/gpusla/probe/wire"
)

// writeLinkCheck sets backend.link_check in the config h.write wrote.
func writeLinkCheck(h *harness, v string) {
	h.t.Helper()
	doc, err := os.ReadFile(h.cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	out := strings.Replace(string(doc), "  max_backoff: 100ms\n", "  max_backoff: 100ms\n  link_check: "+v+"\n", 1)
	if err := os.WriteFile(h.cfg, []byte(out), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// linkObservations returns the link watch's observations the receiver
// stored, in the order of the batches.
func (h *harness) linkObservations() []wire.Observation {
	var out []wire.Observation
	for _, b := range h.recv.Batches() {
		for _, o := range b.Observations {
			for _, c := range o.Checks {
				if c.Name == linkwatch.CheckName {
					out = append(out, o)
				}
			}
		}
	}
	return out
}

// spooled reports whether a batch in the spool holds a check named name
// with verdict v: what the daemon has recorded but not yet delivered.
func (h *harness) spooled(name, v string) bool {
	files, _ := filepath.Glob(filepath.Join(h.dir, "spool", "*.batch"))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue // sent and removed in the meantime
		}
		var b wire.Batch
		if json.Unmarshal(raw, &b) != nil {
			continue
		}
		for _, o := range b.Observations {
			for _, c := range o.Checks {
				if c.Name == name && c.Verdict == v {
					return true
				}
			}
		}
	}
	return false
}

// The backend's port refuses connections for a while (its listener
// closed) and then answers again: the daemon's link watch records one fail,
// dated at the first failed dial and naming the last success, which is
// spooled and delivered once the backend is back, then one pass. The
// heartbeats are an hour apart, so the watch alone saw the cut. With
// backend.link_check off the same cut leaves no link observation.
func TestLinkWatchRecordsACutOfTheBackend(t *testing.T) {
	for _, c := range []struct {
		name, linkCheck string
		want            int
	}{{"every 250ms", "250ms", 2}, {"off", "\"off\"", 0}} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("schedules:\n  heartbeat: 1h\n  health: \"off\"\n  network: \"off\"\n  stress: \"off\"\n  jitter: 1ms\n")
			writeLinkCheck(h, c.linkCheck)
			h.start(func(*config.Config) (Jobs, error) { return Jobs{}, nil }, nil)
			h.waitFor("the start-up heartbeat", func() bool { return h.heartbeats() == 1 })
			if c.want > 0 {
				n := h.recv.Conns()
				h.waitFor("the watch reaching the backend", func() bool { return h.recv.Conns() >= n+2 })
			}
			cut := time.Now().UTC()
			if err := h.recv.SetMode(pushtest.Refused); err != nil {
				t.Fatal(err)
			}
			if c.want > 0 {
				h.waitFor("the watch's fail in the spool", func() bool { return h.spooled(linkwatch.CheckName, wire.Fail) })
			} else {
				// Nothing can be awaited where nothing is to happen: five
				// times the cadence a watch would have dialled at. On a
				// loaded machine a wrongly running watch dials less in
				// that time: a weaker check, never a false failure.
				time.Sleep(1250 * time.Millisecond)
			}
			back := time.Now().UTC()
			if err := h.recv.SetMode(pushtest.Up); err != nil {
				t.Fatal(err)
			}
			if c.want > 0 {
				h.waitFor("the link's fail and pass", func() bool { return len(h.linkObservations()) >= c.want })
			}
			// A deliberate pause, not a wait: no observation beyond want
			// may follow, and five dial periods give an extra one time to
			// show. A loaded machine can only hide an extra one (a
			// weaker check), never fail a right daemon. The cadence is
			// 250 ms, not less: a dial gives up after half the cadence,
			// and on a machine loaded tenfold over its cores a loopback
			// dial was seen to take more than the 10 ms a 20 ms cadence
			// allows, which the watch rightly records as a cut.
			time.Sleep(1250 * time.Millisecond)
			if err := h.stop(); err != nil {
				t.Fatal(err)
			}
			got := h.linkObservations()
			if len(got) != c.want {
				t.Fatalf("%d link observations, want %d: %+v", len(got), c.want, got)
			}
			if c.want > 0 {
				checkCut(t, got, cut, back)
			}
			if _, err := h.recv.CheckChain(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// checkCut checks the fail and the pass of a cut from cut to back.
func checkCut(t *testing.T, got []wire.Observation, cut, back time.Time) {
	t.Helper()
	fail, pass := got[0].Checks[0], got[1].Checks[0]
	if fail.Verdict != wire.Fail || fail.Category != wire.CategoryConnectivity || !strings.HasPrefix(fail.Detail, "last reached at ") ||
		got[0].At.Before(cut.Add(-time.Second)) || got[0].At.After(back) {
		t.Errorf("fail %v %+v, want a connectivity fail dated between %v and %v", got[0].At, fail, cut, back)
	}
	if pass.Verdict != wire.Pass || pass.Detail != "unreachable since "+got[0].At.Format(time.RFC3339) || !got[1].At.After(back.Add(-time.Second)) {
		t.Errorf("pass %v %+v, want a pass after %v naming the fail's instant", got[1].At, pass, back)
	}
}
