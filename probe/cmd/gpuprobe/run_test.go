package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/push/pushtest"
)

// buildProbe compiles the real gpuprobe binary for process-level tests.
// GPUPROBE_TEST_BIN names a prebuilt one instead: the GPU machine has no Go
// toolchain, and there these tests are the ones that run the daemon against
// a real GPU.
func buildProbe(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the gpuprobe binary; skipped with -short")
	}
	if bin := os.Getenv("GPUPROBE_TEST_BIN"); bin != "" {
		return bin
	}
	testenv.LookPath(t, "go", "needed to build gpuprobe; or set GPUPROBE_TEST_BIN to a built gpuprobe")
	bin := filepath.Join(t.TempDir(), "gpuprobe")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startProbe starts `gpuprobe run --config cfg` with the given outputs.
func startProbe(t *testing.T, bin, cfg string, stdout, stderr io.Writer) *exec.Cmd {
	t.Helper()
	c := exec.Command(bin, "run", "--config", cfg)
	c.Stdout, c.Stderr = stdout, stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c
}

// writeConfig writes a probe config; schedules adds lines under schedules.
func writeConfig(t *testing.T, dir, url string, schedules ...string) string {
	t.Helper()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("kill-test-secret-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "probe.yaml")
	doc := fmt.Sprintf(`node: kill-test
backend:
  url: %s
  timeout: 2s
  min_backoff: 20ms
  max_backoff: 100ms
secret_file: secret
schedules:
  heartbeat: 100ms
  health: "off"
  network: "off"
  stress: "off"
%sspool:
  dir: %s
`, url, indent(schedules), filepath.Join(dir, "spool"))
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func indent(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// drain runs the probe until its spool is empty and stops it with
// SIGTERM; batches sealed on that stop are delivered by one more run (which
// may seal a last one of its own: the callers count what is left).
func drain(t *testing.T, start func() *exec.Cmd, dir string) {
	t.Helper()
	for run := 0; run == 0 || run == 1 && spooled(t, dir) > 0; run++ {
		before := nextSeq(t, dir)
		c := start()
		// Up (its start-up heartbeat written, its signals handled) and
		// everything sent.
		waitfor.True(t, "the probe's start-up heartbeat", func() bool { return nextSeq(t, dir) > before })
		waitfor.True(t, "the spool delivered", func() bool { return spooled(t, dir) == 0 })
		c.Process.Signal(syscall.SIGTERM)
		if err := c.Wait(); err != nil {
			t.Fatalf("clean stop after SIGTERM failed: %v", err)
		}
	}
}

// nextSeq is the spool's next sequence number as its state file says (0
// before the first batch).
func nextSeq(t *testing.T, dir string) uint64 {
	t.Helper()
	var st struct {
		NextSeq uint64 `json:"next_seq"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "spool", "state.json"))
	if err != nil || json.Unmarshal(raw, &st) != nil {
		return 0 // not written yet, or being replaced right now
	}
	return st.NextSeq
}

// pending counts the heartbeats staged in the spool's pending file.
func pending(dir string) int {
	raw, _ := os.ReadFile(filepath.Join(dir, "spool", "pending.jsonl"))
	return strings.Count(string(raw), "\n")
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func spooled(t *testing.T, dir string) int {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "spool", "*.batch"))
	return len(m)
}

// The daemon is killed with SIGKILL again and again while it writes a batch
// every 100 ms, with the backend refusing connections or answering 503 for
// some of the time. After a last clean run the backend must hold every
// sequence number the probe ever created exactly once, in order, with an
// unbroken hash chain and no bad signature.
func TestKill9LosesNothing(t *testing.T) {
	bin := buildProbe(t)
	recv, err := pushtest.Start("kill-test", []byte("kill-test-secret-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, recv.URL())
	logf, _ := os.Create(filepath.Join(dir, "probe.log"))
	defer logf.Close()

	start := func() *exec.Cmd { return startProbe(t, bin, cfg, logf, logf) }
	modes := []pushtest.Mode{pushtest.Up, pushtest.Up, pushtest.Refused, pushtest.Unavailable}
	for i := range 15 {
		if err := recv.SetMode(modes[rand.N(len(modes))]); err != nil {
			t.Fatal(err)
		}
		// Killed after a random number of new batches: whatever the
		// machine's load, every run gets to write, and the kill falls
		// anywhere in the write path.
		before := nextSeq(t, dir)
		c := start()
		k := uint64(1 + rand.N(5))
		waitfor.True(t, fmt.Sprintf("run %d writing %d batches", i, k), func() bool { return nextSeq(t, dir) >= before+k })
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()
		t.Logf("kill %d: receiver %+v, %d spooled", i, recv.Counts(), spooled(t, dir))
	}
	if err := recv.SetMode(pushtest.Up); err != nil {
		t.Fatal(err)
	}
	drain(t, start, dir)

	n, err := recv.CheckChain()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "probe.log"))
		t.Fatalf("%v\nprobe log tail:\n%s", err, tail(string(log), 3000))
	}
	var st struct {
		NextSeq uint64 `json:"next_seq"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "spool", "state.json"))
	if err != nil || json.Unmarshal(raw, &st) != nil {
		t.Fatalf("state.json: %v %s", err, raw)
	}
	left := spooled(t, dir)
	if st.NextSeq-1 != n+uint64(left) {
		t.Fatalf("the probe created %d batches; the backend stored %d and %d are still spooled", st.NextSeq-1, n, left)
	}
	if n < 10 {
		t.Fatalf("only %d batches in the whole run; the test did not exercise anything", n)
	}
	t.Logf("%d batches, each stored once, chain unbroken; receiver %+v", n, recv.Counts())
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return strings.TrimSpace(s)
}

// The real binary reloads its config on SIGHUP (here: turning the metrics
// endpoint on), refuses a broken config without stopping, and exits 0 on
// SIGTERM.
func TestSighupReloadAndSigterm(t *testing.T) {
	bin := buildProbe(t)
	recv, err := pushtest.Start("kill-test", []byte("kill-test-secret-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, recv.URL())
	var logs lockedBuffer
	c := startProbe(t, bin, cfg, nil, &logs)
	defer c.Process.Kill()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	waitfor.True(t, "the start-up heartbeat", func() bool { return recv.Counts().Stored > 0 })

	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	orig, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte("node: kill-test\nbackend: {url: 'ftp://x'}\n"), 0o600)
	c.Process.Signal(syscall.SIGHUP)
	waitfor.True(t, "the broken reload refused", func() bool { return strings.Contains(logs.String(), "reload refused") })
	select {
	case err := <-done:
		t.Fatalf("the daemon exited on a broken reload: %v\n%s", err, tail(logs.String(), 2000))
	default:
	}
	os.WriteFile(cfg, append(orig, []byte("metrics:\n  listen: "+addr+"\n")...), 0o600)
	c.Process.Signal(syscall.SIGHUP)
	var body []byte
	waitfor.True(t, "metrics served after SIGHUP", func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		return true
	})
	if !strings.Contains(string(body), "gpuprobe_delivery_acked_total") {
		t.Fatalf("no metrics after SIGHUP; log:\n%s", tail(logs.String(), 2000))
	}
	c.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit within 10 s of SIGTERM")
	}
	for _, want := range []string{"reload refused", "backend.url", "reloading config", "gpuprobe stopped"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if _, err := recv.CheckChain(); err != nil {
		t.Fatal(err)
	}
}

// The health job of the real binary reports host checks and GPU checks
// (live NVML here: on a machine without a driver the GPU read fails, and
// that failure is itself the reported evidence).
func TestHealthJobReportsHostAndGPU(t *testing.T) {
	bin := buildProbe(t)
	recv, err := pushtest.Start("kill-test", []byte("kill-test-secret-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, recv.URL())
	raw, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte(strings.Replace(string(raw), `health: "off"`, "health: 500ms", 1)), 0o600)
	var logs lockedBuffer
	c := startProbe(t, bin, cfg, nil, &logs)
	defer func() { c.Process.Signal(syscall.SIGTERM); c.Wait() }()
	var host, gpu bool
	waitfor.True(t, "host and GPU checks from the health job", func() bool {
		for _, b := range recv.Batches() {
			for _, o := range b.Observations {
				for _, ch := range o.Checks {
					host = host || strings.HasPrefix(ch.Name, "host.")
					gpu = gpu || strings.HasPrefix(ch.Name, "gpu.")
				}
			}
		}
		return host && gpu
	})
}

// With a push interval, heartbeats wait staged in the spool's pending file
// between pushes. The daemon is killed with SIGKILL again and again; every
// heartbeat found staged after a kill must reach the backend, and no
// heartbeat may reach it twice.
func TestKill9WhileStagedLosesNothing(t *testing.T) {
	bin := buildProbe(t)
	recv, err := pushtest.Start("kill-test", []byte("kill-test-secret-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, recv.URL(), "push: 500ms", "jitter: 1ms")
	logf, _ := os.Create(filepath.Join(dir, "probe.log"))
	defer logf.Close()
	start := func() *exec.Cmd { return startProbe(t, bin, cfg, logf, logf) }
	staged := map[time.Time]bool{}
	for i := range 10 {
		c := start()
		// Killed once a random number of heartbeats wait staged, 1 to 4
		// (a push takes them every 500 ms, about 5 heartbeats).
		k := 1 + rand.N(4)
		waitfor.True(t, fmt.Sprintf("run %d staging %d heartbeats", i, k), func() bool { return pending(dir) >= k })
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()
		raw, _ := os.ReadFile(filepath.Join(dir, "spool", "pending.jsonl"))
		n := 0
		for _, line := range strings.Split(string(raw), "\n") {
			var o struct {
				At time.Time `json:"at"`
			}
			if json.Unmarshal([]byte(line), &o) == nil && !o.At.IsZero() {
				staged[o.At] = true
				n++
			}
		}
		t.Logf("kill %d: %d observations staged, receiver %+v", i, n, recv.Counts())
	}
	if len(staged) == 0 {
		t.Fatal("no kill found staged observations; the test exercised nothing")
	}
	drain(t, start, dir)
	if _, err := recv.CheckChain(); err != nil {
		t.Fatal(err)
	}
	seen := map[time.Time]int{}
	for _, b := range recv.Batches() {
		for _, o := range b.Observations {
			seen[o.At]++
		}
	}
	for at, n := range seen {
		if n > 1 {
			t.Errorf("observation at %s reached the backend %d times", at.Format(time.RFC3339Nano), n)
		}
	}
	for at := range staged {
		if seen[at] == 0 {
			t.Errorf("observation at %s was staged when the probe was killed and never reached the backend", at.Format(time.RFC3339Nano))
		}
	}
	t.Logf("%d staged observations across the kills, all delivered once; %d observations in all", len(staged), len(seen))
}
