package e2e

import (
	"io"
	"math"
	"net"
	"runtime"

	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gpusla/gpusla/internal/testenv"
)

// TestNetworkDegradedWithNetem runs a probe inside its own network
// namespace, joined to this one by a veth pair; serve listens on this side's
// veth address. netem then delays the probe's traffic by 100 ms: the
// probe's ping to its peer measures it, the backend opens a
// network_degraded incident whose failed check carries the measured
// round trip, alerts, and recovers when the delay is removed. Traffic
// stays between the two namespaces. Needs root and ip/tc; skips otherwise.
func TestNetworkDegradedWithNetem(t *testing.T) {
	testenv.NeedRoot(t, "ip netns and tc netem")
	for _, tool := range []string{"ip", "tc"} {
		testenv.LookPath(t, tool, "Debian package iproute2")
	}
	ns, hostIP := setupNetns(t)
	sl := newFakeSlack(t)
	b := newBackend(t, storeEmbedded, sl, "127.0.0.1")
	reg := b.addNode("net-1")
	b.start()
	// The probe refuses plain http except to localhost, so it pushes to a
	// forwarder listening on the namespace's own loopback.
	fwd := forwardFromNetns(t, ns, b.addr)
	reg.Config["backend"].(map[string]any)["url"] = "http://" + fwd + "/v1/batches"
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("serve log:\n%s", tail(b.logs.String(), 4000))
		}
	})
	pr := newProbe(t, reg, snapHealthy, map[string]any{"network": map[string]any{
		"gateway": map[string]any{"disabled": true},
		"ping": []any{map[string]any{"name": "peer", "host": hostIP, "count": 8, "interval": "50ms", "max_avg": "50ms",
			"max_loss_pct": 10}},
	}})
	pr.prefix = []string{"ip", "netns", "exec", ns}
	pr.start()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("probe log:\n%s", tail(pr.logs.String(), 3000))
		}
	})
	eventually(t, 30*time.Second, "net-1's batches arrive from its namespace", func() bool { return b.nodes()["net-1"].LastSeq >= 3 })
	if msgs := sl.all(); len(msgs) != 0 {
		t.Fatalf("alerts before any fault: %+v", msgs)
	}

	// The fault: 100 ms of netem delay on the namespace's side of the link;
	// where the kernel has no netem (sch_netem), nftables dropping three of
	// every four echo requests instead. Either way the probe measures it.
	fault := degradeLink(t, ns)
	eventually(t, 30*time.Second, "a network degraded alert for net-1", func() bool {
		return len(sl.messages("[network_degraded] net-1 network degraded")) == 1
	})
	alert := sl.messages("[network_degraded] net-1 network degraded")[0]
	inc, err := incidentOf(b.incidents("net-1"), "network_degraded")
	if err != nil {
		t.Fatal(err)
	}
	if len(inc.Failed) == 0 || inc.Failed[0].Name != fault.check {
		t.Fatalf("incident's failed checks %+v, want %s", inc.Failed, fault.check)
	}
	fault.judge(t, inc.Failed[0].Value)
	if !strings.Contains(alert.Text, inc.Failed[0].Value) || !strings.Contains(alert.Text, fault.criterion) {
		t.Errorf("alert does not carry the measured value %q and the criterion %q: %s", inc.Failed[0].Value, fault.criterion, alert.Text)
	}

	fault.undo()
	eventually(t, 30*time.Second, "net-1 recovers when the fault is removed", func() bool {
		return len(sl.messages("[recovered] net-1 recovered: network degraded")) == 1
	})
	if incs := b.incidents("net-1"); len(incs) != 1 || incs[0].Open() {
		t.Errorf("net-1 incidents after recovery: %+v, want the one network_degraded, closed", incs)
	}
	pr.stop()
	b.stop()
}

// Interface names inside and outside the namespace (≤ 15 bytes).
var vethNS = "ge2e-ns"

// netnsMade counts the namespaces setupNetns made, for their subnets.
var netnsMade atomic.Int32

// setupNetns makes a namespace joined to this one by a veth pair on a
// private /30, and removes it at the end. It returns the namespace's name
// and this side's address.
func setupNetns(t *testing.T) (string, string) {
	t.Helper()
	id := randHex(3)
	ns, host := "gpusla-e2e-"+id, "ge2e-"+id
	// A /30 of its own for each namespace made by this run (several may
	// exist at once: TestCountedOutageMatchesNetworkCuts cuts three).
	octet := 16 + int(netnsMade.Add(1)-1)%200
	hostIP, nsIP := fmt.Sprintf("10.231.%d.1", octet), fmt.Sprintf("10.231.%d.2", octet)
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		testenv.Missing(t, "cannot create a network namespace here (%v): %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	sh(t, "ip", "link", "add", host, "type", "veth", "peer", "name", vethNS, "netns", ns)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", host).Run() })
	sh(t, "ip", "addr", "add", hostIP+"/30", "dev", host)
	sh(t, "ip", "link", "set", host, "up")
	sh(t, "ip", "netns", "exec", ns, "ip", "addr", "add", nsIP+"/30", "dev", vethNS)
	sh(t, "ip", "netns", "exec", ns, "ip", "link", "set", vethNS, "up")
	sh(t, "ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")
	return ns, hostIP
}

func sh(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
}

// forwardFromNetns listens on 127.0.0.1 inside namespace ns and forwards
// every connection to addr in this namespace. Only the listening socket is
// made in ns (on a locked thread switched there and back); dials happen
// here.
func forwardFromNetns(t *testing.T, ns, addr string) string {
	t.Helper()
	l, err := listenInNetns(ns)
	if err != nil {
		testenv.Missing(t, "cannot listen inside namespace %s: %v", ns, err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { _, _ = io.Copy(up, c); up.(*net.TCPConn).CloseWrite() }()
				_, _ = io.Copy(c, up)
			}()
		}
	}()
	return l.Addr().String()
}

func listenInNetns(ns string) (net.Listener, error) {
	runtime.LockOSThread()
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer orig.Close()
	target, err := os.Open("/var/run/netns/" + ns)
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	l, lerr := net.Listen("tcp", "127.0.0.1:0")
	if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
		// Leave the thread locked: the runtime retires it with this
		// goroutine rather than reuse a thread in the wrong namespace.
		if l != nil {
			l.Close()
		}
		return nil, fmt.Errorf("back to the original namespace: %w", err)
	}
	runtime.UnlockOSThread()
	return l, lerr
}

// linkFault is a degradation applied to the namespace's link and what the
// probe must measure under it.
type linkFault struct {
	check, criterion string
	judge            func(t *testing.T, value string)
	undo             func()
}

func degradeLink(t *testing.T, ns string) linkFault {
	t.Helper()
	in := func(args ...string) *exec.Cmd {
		return exec.Command("ip", append([]string{"netns", "exec", ns}, args...)...)
	}
	out, err := in("tc", "qdisc", "add", "dev", vethNS, "root", "netem", "delay", "100ms").CombinedOutput()
	if err == nil {
		t.Log("fault: netem delay 100ms")
		return linkFault{check: "net.ping.peer.rtt", criterion: "avg ≤ 50",
			judge: func(t *testing.T, v string) {
				m := regexp.MustCompile(`^avg ([0-9.]+) ms`).FindStringSubmatch(v)
				if m == nil {
					t.Fatalf("rtt value %q names no average in ms", v)
				}
				if avg, _ := strconv.ParseFloat(m[1], 64); avg < 100 || avg > 400 {
					t.Errorf("measured average rtt %.1f ms, want the 100 ms netem delay (100–400 ms)", avg)
				}
			},
			undo: func() { sh(t, "ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", vethNS, "root") }}
	}
	t.Logf("no netem in this kernel (%s); dropping 3 of 4 echo requests with nftables instead", strings.TrimSpace(string(out)))
	for _, args := range [][]string{
		{"nft", "add", "table", "inet", "gpusla_e2e"},
		{"nft", "add", "chain", "inet", "gpusla_e2e", "out", "{ type filter hook output priority 0; }"},
		{"nft", "add", "rule", "inet", "gpusla_e2e", "out", "icmp", "type", "echo-request", "numgen", "inc", "mod", "4", "!=", "0", "drop"},
	} {
		if out, err := in(args...).CombinedOutput(); err != nil {
			testenv.Missing(t, "neither netem nor nftables can degrade the link here: %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return linkFault{check: "net.ping.peer.loss", criterion: "≤ 10 %",
		judge: func(t *testing.T, v string) {
			// Three of every four requests are dropped; the pinger may send
			// more than its count while it waits for replies. The run that
			// opens the incident may have begun before the rule was added
			// (on a busy machine a run is long), so its loss lies between
			// the criterion it failed and the rule's 3 of 4, never above.
			m := regexp.MustCompile(`^([0-9.]+) % \((\d+) of (\d+) lost\)$`).FindStringSubmatch(v)
			if m == nil {
				t.Fatalf("loss value %q is not \"P %% (L of S lost)\"", v)
			}
			pct, _ := strconv.ParseFloat(m[1], 64)
			lost, sent := atoi(m[2]), atoi(m[3])
			if sent < 8 || pct <= 10 || lost*4 > sent*3+4 || math.Abs(pct-100*float64(lost)/float64(sent)) > 0.1 {
				t.Errorf("measured loss %q, want above the 10 %% criterion and at most 3 of every 4 dropped, the percentage matching the counts", v)
			}
		},
		undo: func() { sh(t, "ip", "netns", "exec", ns, "nft", "delete", "table", "inet", "gpusla_e2e") }}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }
