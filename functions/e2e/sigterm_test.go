package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/httpapi"
)

// fakeDingTalk is a DingTalk group robot that holds its documented quota
// as the real one does: 20 messages in any minute, the 21st refused with
// errcode 130101 "send too fast" ("每个机器人每分钟最多发送20条消息到群里，
// 如果超过20条，会限流10分钟"; here only the refusal, not the ten minutes).
type fakeDingTalk struct {
	srv      *httptest.Server
	mu       sync.Mutex
	accepted []time.Time
	texts    []string
	refused  int
	changed  chan struct{}
}

func newFakeDingTalk(t *testing.T) *fakeDingTalk {
	f := &fakeDingTalk{changed: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeDingTalk) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m struct {
		Markdown struct{ Title, Text string } `json:"markdown"`
	}
	_ = json.Unmarshal(body, &m)
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() { close(f.changed); f.changed = make(chan struct{}) }()
	w.Header().Set("Content-Type", "application/json")
	recent := 0
	for _, at := range f.accepted {
		if now.Sub(at) <= time.Minute { // a closed minute: the strictest reading
			recent++
		}
	}
	if recent >= 20 {
		f.refused++
		fmt.Fprint(w, `{"errcode":130101,"errmsg":"send too fast, exceed 20 times per minute"}`)
		return
	}
	f.accepted, f.texts = append(f.accepted, now), append(f.texts, m.Markdown.Title+"\n"+m.Markdown.Text)
	fmt.Fprint(w, `{"errcode":0,"errmsg":"ok"}`)
}

// await waits until cond holds of the accepted texts (a failure guard of
// limit, not a timing: it wakes on every request).
func (f *fakeDingTalk) await(t *testing.T, limit time.Duration, what string, cond func(texts []string) bool) {
	t.Helper()
	guard := time.After(limit)
	for {
		f.mu.Lock()
		ok, ch, n := cond(f.texts), f.changed, len(f.texts)
		f.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-guard:
			t.Fatalf("after %s: %s (%d accepted)", limit, what, n)
		}
	}
}

// TestServeSIGTERMWithRobotBacklog: a real `gpusla serve` with a
// DingTalk robot that holds its quota of 20 a minute; 13 nodes, ordered an
// hour ago, send their first heartbeat and fall silent: each raises a
// "delivered late" alert and, 4 s later, an unreachable one, 26 in all, so
// 20 go out and 6 wait for the quota. SIGTERM then: the process exits
// within 10 s of the signal (measured from the signal to the exit),
// cleanly. Restarted on the same data folder, it sends what it had left
// once the robot's minute allows, and every alert reaches the robot
// exactly once.
func TestServeSIGTERMWithRobotBacklog(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for about two minutes")
	}
	const n = 13 // nodes; two alerts each
	expected := []string{" unreachable\n", " delivered "}
	ding := newFakeDingTalk(t)
	b := newBackend(t, storeEmbedded, newFakeSlack(t), "127.0.0.1")
	nodes := registerSimEvery(t, b.dir, "sig", n, time.Second, 3*time.Second)
	cfg := filepath.Join(t.TempDir(), "gpusla.yaml")
	if err := os.WriteFile(cfg, []byte("alerts:\n  channels:\n    ops-dingtalk:\n      type: dingtalk\n      webhook_url: "+
		ding.srv.URL+"/robot/send?access_token=e2e\n  default: [ops-dingtalk]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b.args = []string{"--config", cfg}
	b.start()
	for _, nd := range nodes { // heard once, then silent: unreachable 4 s later
		if _, err := nd.push(t.Context(), http.DefaultClient, b.url(httpapi.PathBatches)); err != nil {
			t.Fatal(err)
		}
	}
	ding.await(t, 2*time.Minute, "20 alerts, the robot's minute", func(texts []string) bool { return len(texts) >= 20 })
	// Every alert raised (each node's unreachable incident open: its alert
	// is claimed with it), so the 6 not yet sent wait in the outbox for the
	// robot's minute to pass.
	eventually(t, 2*time.Minute, "every node unreachable", func() bool {
		for _, nd := range nodes {
			open := false
			for _, inc := range b.incidents(nd.id) {
				open = open || inc.Kind == "unreachable"
			}
			if !open {
				return false
			}
		}
		return true
	})
	start := time.Now()
	_ = b.p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.p.done:
	case <-time.After(10 * time.Second):
		b.p.kill()
		t.Fatalf("serve did not exit within 10 s of SIGTERM with a backlog:\n%s", tail(b.logs.String(), 3000))
	}
	took := time.Since(start)
	if b.p.err != nil {
		t.Fatalf("serve exited with %v after SIGTERM:\n%s", b.p.err, tail(b.logs.String(), 3000))
	}
	ding.mu.Lock()
	before := len(ding.texts)
	ding.mu.Unlock()
	t.Logf("exit %s after SIGTERM, %d alerts delivered before it", took.Round(time.Millisecond), before)
	if before >= 2*n {
		t.Fatalf("all %d alerts were delivered before SIGTERM: no backlog was tested", before)
	}
	b.start()
	ding.await(t, 4*time.Minute, "every alert after the restart", func(texts []string) bool {
		for _, nd := range nodes {
			for _, what := range expected {
				if countAlerts(texts, nd.id, what) == 0 {
					return false
				}
			}
		}
		return true
	})
	b.stop()
	ding.mu.Lock()
	defer ding.mu.Unlock()
	for _, nd := range nodes {
		for _, what := range expected {
			if got := countAlerts(ding.texts, nd.id, what); got != 1 {
				t.Errorf("%s: its %q alert reached the robot %d times, want exactly once", nd.id, strings.TrimSpace(what), got)
			}
		}
	}
	// Whatever else the restart raised (a reclassification: the backend
	// itself was down meanwhile) went once too: every message names its
	// node, kind and incident, so a message seen twice was sent twice.
	seen := map[string]bool{}
	for _, tx := range ding.texts {
		if seen[tx] {
			t.Errorf("sent twice:\n%s", tx)
		}
		seen[tx] = true
	}
	t.Logf("%d refused by the robot as over its quota after the restart (its limiter forgets the last minute); waited out", ding.refused)
}

// countAlerts counts the messages titled as node's alert of what (the
// title's words after the node id).
func countAlerts(texts []string, node, what string) int {
	got := 0
	for _, tx := range texts {
		if strings.HasPrefix(tx, "🔴 "+node+what) || strings.HasPrefix(tx, "🟢 "+node+what) {
			got++
		}
	}
	return got
}
