package netcheck

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/probe/wire"
)

// envPingChild makes the test binary, run again as another user, ping
// loopback and print the checks.
const envPingChild = "GPUSLA_NETCHECK_PING_CHILD"

// TestPingWithoutRightsIsNotAFailure: gpuprobe check run by a user who may
// not open an ICMP socket (not root, and outside net.ipv4.ping_group_range)
// failed net.gateway.reach — the network blamed for the process's rights.
// Such a run either pings (the kernel lets the group) or skips the three
// rows saying to run as root; it never fails them. As root the test runs
// its own binary as nobody with the group's ping shut, as a fresh machine
// may have it.
func TestPingWithoutRightsIsNotAFailure(t *testing.T) {
	if os.Getenv(envPingChild) != "" {
		pingChild()
		return
	}
	var cs []wire.Check
	if os.Geteuid() != 0 {
		cs = loopbackPing(context.Background())
	} else {
		cs = pingAsNobody(t)
	}
	for _, c := range cs {
		if c.Verdict == wire.Fail {
			t.Errorf("%s failed without the right to ping: %+v", c.Name, c)
		}
	}
	if cs[0].Verdict == wire.Skipped && (!strings.Contains(cs[0].Detail, "may not open an ICMP socket") || !strings.Contains(cs[0].Detail, "run gpuprobe as root")) {
		t.Errorf("skipped without saying why and what to do: %+v", cs[0])
	}
	t.Logf("%s %s: %s", cs[0].Name, cs[0].Verdict, cs[0].Detail)
}

func loopbackPing(ctx context.Context) []wire.Check {
	return pingChecks(ctx, "net.gateway", "127.0.0.1", PingOpts{Count: 2, Interval: 10 * time.Millisecond, Timeout: 5 * time.Second, MaxAvg: time.Second, MaxLossPct: 5})
}

func pingChild() {
	_ = json.NewEncoder(os.Stdout).Encode(loopbackPing(context.Background()))
	os.Exit(0)
}

// pingAsNobody runs this test's binary as nobody (testenv.AsNobody) with
// the kernel's unprivileged ping shut for every group ("1 0"), then put
// back.
func pingAsNobody(t *testing.T) []wire.Check {
	t.Helper()
	const rng = "/proc/sys/net/ipv4/ping_group_range"
	old, err := os.ReadFile(rng)
	if err != nil {
		t.Skipf("no %s: %v", rng, err)
	}
	if err := os.WriteFile(rng, []byte("1 0"), 0o644); err != nil {
		t.Skipf("cannot shut unprivileged ping in this namespace: %v", err)
	}
	defer func() {
		if err := os.WriteFile(rng, old, 0o644); err != nil {
			t.Errorf("put back %s (%s): %v", rng, strings.TrimSpace(string(old)), err)
		}
	}()
	out := testenv.AsNobody(t, "TestPingWithoutRightsIsNotAFailure", envPingChild)
	var cs []wire.Check
	if err := json.Unmarshal(out, &cs); err != nil || len(cs) != 3 {
		t.Fatalf("the child printed %q: %v", out, err)
	}
	if cs[0].Verdict != wire.Skipped {
		t.Errorf("with the group's ping shut, nobody's net.gateway.reach is %s, want skipped: %+v", cs[0].Verdict, cs[0])
	}
	return cs
}
