package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/push/pushtest"
)

// buildProbe compiles the real gpuprobe binary for process-level tests.
func buildProbe(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the gpuprobe binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "gpuprobe")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func writeConfig(t *testing.T, dir, url string) string {
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
  max_backoff: 200ms
secret_file: secret
schedules:
  heartbeat: 100ms
  health: "off"
  network: "off"
  stress: "off"
spool:
  dir: %s
`, url, filepath.Join(dir, "spool"))
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
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

	start := func() *exec.Cmd {
		c := exec.Command(bin, "run", "--config", cfg)
		c.Stdout, c.Stderr = logf, logf
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return c
	}
	modes := []pushtest.Mode{pushtest.Up, pushtest.Up, pushtest.Refused, pushtest.Unavailable}
	for i := range 15 {
		if err := recv.SetMode(modes[rand.N(len(modes))]); err != nil {
			t.Fatal(err)
		}
		c := start()
		time.Sleep(time.Duration(150+rand.N(500)) * time.Millisecond)
		c.Process.Signal(syscall.SIGKILL)
		c.Wait()
		t.Logf("kill %d: receiver %+v, %d spooled", i, recv.Counts(), spooled(t, dir))
	}
	if err := recv.SetMode(pushtest.Up); err != nil {
		t.Fatal(err)
	}
	c := start()
	deadline := time.Now().Add(20 * time.Second)
	time.Sleep(300 * time.Millisecond)
	for spooled(t, dir) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	c.Process.Signal(syscall.SIGTERM)
	if err := c.Wait(); err != nil {
		t.Fatalf("clean stop after SIGTERM failed: %v", err)
	}
	if n := spooled(t, dir); n > 0 {
		// Batches written after the last ack are fine only if they are
		// still on disk; deliver them with one more short run.
		c = start()
		time.Sleep(time.Second)
		c.Process.Signal(syscall.SIGTERM)
		c.Wait()
	}

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
	if n < 20 {
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
