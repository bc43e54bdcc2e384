package netcheck

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/netcheck/netchecktest"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/trial"
)

// These tests build their own network: two namespaces joined by a veth
// pair, 10.231.0.1 (the probe, namespace A, default route via B) and
// 10.231.0.2 (the "gateway" and peer, namespace B, running HTTP, DNS and
// iperf3 servers). Impairments are set with tc on A's side, so they apply
// to the probe's outgoing packets. No packet leaves the two namespaces, and
// both are deleted when the test ends. The probe and the servers run as
// this test binary re-executed inside a namespace (TestMain), because a
// Go process cannot reliably move its threads between namespaces.

const (
	roleEnv = "GPUPROBE_NETNS_ROLE"
	specEnv = "GPUPROBE_NETNS_SPEC"
	probeIP = "10.231.0.1"
	peerIP  = "10.231.0.2"
)

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "serve":
		os.Exit(serveRole())
	case "quick", "bandwidth":
		os.Exit(probeRole(os.Getenv(roleEnv)))
	}
	os.Exit(m.Run())
}

// serveRole runs HTTP on :8080 and DNS on udp :5353 until stdin closes.
func serveRole() int {
	ln, err := net.Listen("tcp", ":8080")
	if err != nil {
		fmt.Println("listen:", err)
		return 1
	}
	go http.Serve(ln, netchecktest.MirrorHandler())
	pc, err := net.ListenPacket("udp", ":5353")
	if err != nil {
		fmt.Println("listen:", err)
		return 1
	}
	go netchecktest.ServeDNS(pc, [4]byte{10, 231, 0, 2})
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

func probeRole(job string) int {
	var spec Spec
	if err := json.Unmarshal([]byte(os.Getenv(specEnv)), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "spec:", err)
		return 1
	}
	c := &Checker{Spec: spec}
	var cs []wire.Check
	if job == "quick" {
		cs = c.Quick(contextBackground())
	} else {
		cs = c.Bandwidth(contextBackground())
	}
	json.NewEncoder(os.Stdout).Encode(cs)
	return 0
}

type netns struct {
	t                  *testing.T
	a, b, vethA, vethB string
}

func sh(args ...string) (string, error) {
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func newNetns(t *testing.T) *netns {
	t.Helper()
	testenv.NeedRoot(t, "network namespace tests run ip netns add")
	for _, tool := range []string{"ip", "tc"} {
		testenv.LookPath(t, tool, "Debian package iproute2")
	}
	pid := strconv.Itoa(os.Getpid())
	n := &netns{t: t, a: "gpuprobe-a-" + pid, b: "gpuprobe-b-" + pid, vethA: "gpva" + pid}
	if out, err := sh("ip", "netns", "add", n.a); err != nil {
		testenv.Missing(t, "cannot create a network namespace here (%s)", out)
	}
	t.Cleanup(func() { sh("ip", "netns", "del", n.a) })
	n.must("ip", "netns", "add", n.b)
	t.Cleanup(func() { sh("ip", "netns", "del", n.b) })
	n.vethB = "gpvb" + pid
	vethB := n.vethB
	n.must("ip", "link", "add", n.vethA, "netns", n.a, "type", "veth", "peer", "name", vethB, "netns", n.b)
	n.must("ip", "-n", n.a, "addr", "add", probeIP+"/24", "dev", n.vethA)
	n.must("ip", "-n", n.b, "addr", "add", peerIP+"/24", "dev", vethB)
	for _, c := range [][]string{{n.a, n.vethA}, {n.b, vethB}, {n.a, "lo"}, {n.b, "lo"}} {
		n.must("ip", "-n", c[0], "link", "set", c[1], "up")
	}
	n.must("ip", "-n", n.a, "route", "add", "default", "via", peerIP)
	return n
}

func (n *netns) must(args ...string) {
	n.t.Helper()
	if out, err := sh(args...); err != nil {
		n.t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// serve starts the HTTP/DNS helper and an iperf3 server in namespace B.
func (n *netns) serve() {
	n.t.Helper()
	cmd := exec.Command("ip", "netns", "exec", n.b, os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"=serve")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		n.t.Fatalf("server helper: %q", line)
	}
	if bin, err := exec.LookPath("iperf3"); err == nil {
		ip := exec.Command("ip", "netns", "exec", n.b, bin, "-s", "-B", peerIP, "-p", "5201")
		if err := ip.Start(); err != nil {
			n.t.Fatal(err)
		}
		n.t.Cleanup(func() { ip.Process.Kill(); ip.Wait() })
		waitListeningIn(n.t, fmt.Sprintf("/proc/%d/net/tcp", ip.Process.Pid), peerIP, "5201")
	}
}

// impair replaces the qdisc on the probe's side; it skips the subtest when
// the kernel lacks the qdisc (e.g. no sch_netem in a minimal VM kernel).
func (n *netns) impair(t *testing.T, qdisc ...string) {
	t.Helper()
	args := append([]string{"ip", "netns", "exec", n.a, "tc", "qdisc", "replace", "dev", n.vethA, "root"}, qdisc...)
	if out, err := sh(args...); err != nil {
		if strings.Contains(out, "unknown") || strings.Contains(out, "Unknown") {
			// A kernel feature, not a tool setup.sh can install (some CI
			// kernels lack sch_netem). Delay, loss and rate each have a
			// tbf or nftables case that runs on such kernels instead, so
			// this one skips even under CI=true.
			t.Skipf("this kernel has no %s qdisc (%s); skipping", qdisc[0], out)
		}
		t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
	}
	t.Cleanup(func() { sh("ip", "netns", "exec", n.a, "tc", "qdisc", "del", "dev", n.vethA, "root") })
}

// probe runs the checks inside namespace A.
func (n *netns) probe(t *testing.T, job string, spec Spec) map[string]wire.Check {
	t.Helper()
	spec.SetDefaults()
	if err := spec.Validate(); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(spec)
	cmd := exec.Command("ip", "netns", "exec", n.a, os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"="+job, specEnv+"="+string(raw))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("probe in namespace: %v", err)
	}
	var cs []wire.Check
	if err := json.Unmarshal(out, &cs); err != nil {
		t.Fatalf("probe output %q: %v", out, err)
	}
	for _, c := range cs {
		t.Logf("%-28s %-7s %s  %s  [%s]", c.Name, c.Verdict, c.Value, c.Criterion, c.Detail)
	}
	return netchecktest.ByName(cs)
}

func quickSpec(pingCount int, interval time.Duration) Spec {
	return Spec{
		Gateway: Gateway{PingOpts: PingOpts{Count: pingCount, Interval: interval}},
		TCP:     []TCPTarget{{Name: "peer", Address: peerIP + ":8080", Count: 5}},
		HTTP:    []HTTPTarget{{Name: "mirror", URL: "http://" + peerIP + ":8080/"}},
		DNS:     []DNSTarget{{Name: "mirror", Host: "mirror.test", Server: peerIP + ":5353"}},
	}
}

func number(t *testing.T, cs map[string]wire.Check, name string) float64 {
	t.Helper()
	c, ok := cs[name]
	if !ok || c.Number == nil {
		t.Fatalf("%s: no number in %+v", name, c)
	}
	return *c.Number
}

func verdictIs(t *testing.T, cs map[string]wire.Check, name, want string) {
	t.Helper()
	if cs[name].Verdict != want {
		t.Errorf("%s: verdict %q (%s; %s), want %q", name, cs[name].Verdict, cs[name].Value, cs[name].Detail, want)
	}
}

// trialRow is the seed's criterion key judged on the checks as the trial
// page and the signed record judge them (sla/trial).
func trialRow(t *testing.T, cs map[string]wire.Check, key string) trial.Row {
	t.Helper()
	var rs []trial.Result
	for _, c := range cs {
		rs = append(rs, trial.Result{Name: c.Name, Category: c.Category, Verdict: c.Verdict, Value: c.Value, Criterion: c.Criterion,
			Number: c.Number, Unit: c.Unit, GPU: c.GPU, Detail: c.Detail, DetailText: c.DetailText, Idle: true})
	}
	for _, r := range trial.Judge(trial.Node{Results: rs}) {
		if r.Key == key {
			return r
		}
	}
	t.Fatalf("no %s row", key)
	return trial.Row{}
}

// lossyRow: fast replies, about one in ten lost — the trial's gateway row
// fails on the loss over its 5 % line (the draw decides the side; 300
// pings at 10 % land over it all but about once in 500 runs), never
// passes on the round trip alone.
func lossyRow(t *testing.T, cs map[string]wire.Check) {
	t.Helper()
	loss := number(t, cs, "net.gateway.loss")
	if r := trialRow(t, cs, trial.KeyGateway); (r.Verdict == trial.Fail) != (loss > 5) || (loss > 5 && !strings.Contains(r.Detail, "over 5 %")) {
		t.Errorf("a gateway losing %.1f %%: the trial's row %s (%s)", loss, r.Verdict, r.Detail)
	}
}

func TestNetworkChecksSeeImpairments(t *testing.T) {
	n := newNetns(t)
	n.serve()

	t.Run("clean link", func(t *testing.T) {
		cs := n.probe(t, "quick", quickSpec(20, 10*time.Millisecond))
		for _, c := range []string{"net.gateway.reach", "net.gateway.rtt", "net.gateway.loss", "net.tcp.peer.reach", "net.http.mirror.reach", "net.dns.mirror.reach"} {
			verdictIs(t, cs, c, wire.Pass)
		}
		if !strings.Contains(cs["net.gateway.reach"].Detail, peerIP) {
			t.Errorf("gateway not found from the namespace's routing table: %+v", cs["net.gateway.reach"])
		}
		// The seed's rows: ping within 2 ms, the mirror answered and timed.
		for _, key := range []string{trial.KeyGateway, trial.KeyMirror} {
			if r := trialRow(t, cs, key); r.Verdict != trial.Pass {
				t.Errorf("clean link: %s row %s (%s)", key, r.Verdict, r.Detail)
			}
		}
	})

	t.Run("netem delay 20ms", func(t *testing.T) {
		n.impair(t, "netem", "delay", "20ms")
		cs := n.probe(t, "quick", quickSpec(10, 50*time.Millisecond))
		if rtt := number(t, cs, "net.gateway.rtt"); rtt < 19 || rtt > 40 {
			t.Errorf("gateway rtt %.2f ms, want about 20", rtt)
		}
		verdictIs(t, cs, "net.gateway.rtt", wire.Fail) // the seed checklist's 2 ms average
		verdictIs(t, cs, "net.gateway.reach", wire.Pass)
		if r := trialRow(t, cs, trial.KeyGateway); r.Verdict != trial.Fail || *r.Value < 19 {
			t.Errorf("20 ms to the gateway: the trial's row %s %v (%s)", r.Verdict, r.Value, r.Detail)
		}
		if v := number(t, cs, "net.tcp.peer.connect"); v < 19 {
			t.Errorf("tcp connect %.2f ms, want ≥ 20", v)
		}
		if v := number(t, cs, "net.http.mirror.latency"); v < 38 {
			t.Errorf("http latency %.2f ms, want ≥ 40 (handshake and request)", v)
		}
		if v := number(t, cs, "net.dns.mirror.time"); v < 19 {
			t.Errorf("dns time %.2f ms, want ≥ 20", v)
		}
	})

	t.Run("netem loss 10%", func(t *testing.T) {
		n.impair(t, "netem", "loss", "10%")
		spec := Spec{Gateway: Gateway{PingOpts: PingOpts{Count: 300, Interval: 5 * time.Millisecond, MaxLossPct: 2}}}
		cs := n.probe(t, "quick", spec)
		if loss := number(t, cs, "net.gateway.loss"); loss < 3 || loss > 22 {
			t.Errorf("loss %.1f %%, want about 10", loss)
		}
		verdictIs(t, cs, "net.gateway.loss", wire.Fail)
		verdictIs(t, cs, "net.gateway.reach", wire.Pass)
		lossyRow(t, cs)
	})

	// Kernels without sch_netem (minimal VM kernels, like some CI hosts)
	// still have nftables: the peer drops 10 % of what arrives at random
	// (downstream loss); then the probe's own stack refuses 10 % of what
	// it sends (local loss, which pro-bing would otherwise retry silently).
	nftLoss := func(t *testing.T, ns, hook, dir, dev string) {
		testenv.LookPath(t, "nft", "scripts/setup.sh installs nftables")
		table := []string{"ip", "netns", "exec", ns, "nft"}
		if out, err := sh(append(table, "add", "table", "inet", "gpuprobe_loss")...); err != nil {
			testenv.Missing(t, "nftables unavailable in this kernel (%s)", out)
		}
		t.Cleanup(func() { sh(append(table, "delete", "table", "inet", "gpuprobe_loss")...) })
		n.must(append(table, "add", "chain", "inet", "gpuprobe_loss", "c", "{ type filter hook "+hook+" priority 0; }")...)
		n.must(append(table, "add", "rule", "inet", "gpuprobe_loss", "c", dir, dev, "numgen", "random", "mod", "100", "<", "10", "drop")...)
		spec := Spec{Gateway: Gateway{PingOpts: PingOpts{Count: 300, Interval: 5 * time.Millisecond, MaxLossPct: 2}}}
		cs := n.probe(t, "quick", spec)
		if loss := number(t, cs, "net.gateway.loss"); loss < 3 || loss > 22 {
			t.Errorf("loss %.1f %%, want about 10", loss)
		}
		verdictIs(t, cs, "net.gateway.loss", wire.Fail)
		verdictIs(t, cs, "net.gateway.reach", wire.Pass)
		lossyRow(t, cs)
	}
	// pro-bing abandons a run whose first request the local stack refuses;
	// Ping must count that one request as lost and send the rest.
	refuse := func(t *testing.T, expr ...string) map[string]wire.Check {
		testenv.LookPath(t, "nft", "scripts/setup.sh installs nftables")
		table := []string{"ip", "netns", "exec", n.a, "nft"}
		if out, err := sh(append(table, "add", "table", "inet", "gpuprobe_refuse")...); err != nil {
			testenv.Missing(t, "nftables unavailable in this kernel (%s)", out)
		}
		t.Cleanup(func() { sh(append(table, "delete", "table", "inet", "gpuprobe_refuse")...) })
		n.must(append(table, "add", "chain", "inet", "gpuprobe_refuse", "c", "{ type filter hook output priority 0; }")...)
		n.must(append(append(table, "add", "rule", "inet", "gpuprobe_refuse", "c", "oifname", n.vethA, "meta", "l4proto", "icmp"), append(expr, "drop")...)...)
		spec := Spec{Gateway: Gateway{PingOpts: PingOpts{Count: 20, Interval: 5 * time.Millisecond, MaxLossPct: 2}}}
		return n.probe(t, "quick", spec)
	}
	t.Run("nftables refuses the first request only", func(t *testing.T) {
		cs := refuse(t, "numgen", "inc", "mod", "1000000", "<", "1")
		verdictIs(t, cs, "net.gateway.reach", wire.Pass)
		if v := cs["net.gateway.reach"].Value; v != "19/20 replies" {
			t.Errorf("reach %q, want 19/20 replies", v)
		}
		if loss := number(t, cs, "net.gateway.loss"); loss != 5 {
			t.Errorf("loss %.1f %%, want 5 (the refused first request)", loss)
		}
		if d := cs["net.gateway.loss"].Detail; !strings.Contains(d, "1 requests refused by the local stack") {
			t.Errorf("loss detail %q does not name the refusal", d)
		}
	})
	t.Run("nftables refuses every request", func(t *testing.T) {
		cs := refuse(t)
		verdictIs(t, cs, "net.gateway.reach", wire.Fail)
		if d := cs["net.gateway.reach"].Detail; !strings.Contains(d, "20 requests refused by the local stack") {
			t.Errorf("reach detail %q does not name the refusals", d)
		}
	})

	t.Run("nftables loss 10% at the peer", func(t *testing.T) { nftLoss(t, n.b, "input", "iifname", n.vethB) })
	t.Run("nftables loss 10% at the probe", func(t *testing.T) { nftLoss(t, n.a, "output", "oifname", n.vethA) })

	t.Run("netem delay loss rate together", func(t *testing.T) {
		n.impair(t, "netem", "delay", "20ms", "loss", "10%", "rate", "50mbit")
		spec := Spec{Gateway: Gateway{PingOpts: PingOpts{Count: 200, Interval: 5 * time.Millisecond, MaxLossPct: 2}}}
		cs := n.probe(t, "quick", spec)
		if rtt := number(t, cs, "net.gateway.rtt"); rtt < 19 {
			t.Errorf("rtt %.2f ms, want ≥ 20", rtt)
		}
		if loss := number(t, cs, "net.gateway.loss"); loss < 2 {
			t.Errorf("loss %.1f %%, want about 10", loss)
		}
	})

	rate := func(t *testing.T, qdisc ...string) {
		testenv.LookPath(t, "iperf3", "scripts/setup.sh installs it")
		n.impair(t, qdisc...)
		spec := Spec{Iperf3: &Iperf{Host: peerIP, Duration: 3 * time.Second, NominalMbps: 100}}
		cs := n.probe(t, "bandwidth", spec)
		mbps := number(t, cs, "net.iperf3.peer")
		if mbps < 30 || mbps > 56 {
			t.Errorf("iperf3 %.1f Mbit/s through a 50 Mbit/s limit", mbps)
		}
		verdictIs(t, cs, "net.iperf3.peer", wire.Fail) // < 70 % of 100
		spec.Iperf3.NominalMbps = 50
		spec.Iperf3.MinPct = 60
		cs = n.probe(t, "bandwidth", spec)
		verdictIs(t, cs, "net.iperf3.peer", wire.Pass) // ≥ 60 % of 50
	}
	t.Run("netem rate 50mbit", func(t *testing.T) { rate(t, "netem", "rate", "50mbit") })
	t.Run("tbf rate 50mbit", func(t *testing.T) { rate(t, "tbf", "rate", "50mbit", "burst", "64kb", "latency", "50ms") })
}

// Kernels without sch_netem still queue: a token bucket (tbf) at 2 Mbit/s
// that may hold 60 ms of packets, kept full by a UDP stream slightly above
// the rate, delays every packet behind it, as an oversubscribed uplink does.
// Ping, TCP connect, HTTP and DNS must all see that delay, and the gateway
// ping must fail the 2 ms goal.
func TestChecksSeeQueueingDelay(t *testing.T) {
	bin := testenv.LookPath(t, "iperf3", "scripts/setup.sh installs it")
	n := newNetns(t)
	n.serve()
	n.impair(t, "tbf", "rate", "2mbit", "burst", "4kb", "latency", "60ms")
	srv := exec.Command("ip", "netns", "exec", n.b, bin, "-s", "-B", peerIP, "-p", "5202")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	waitListeningIn(t, fmt.Sprintf("/proc/%d/net/tcp", srv.Process.Pid), peerIP, "5202")
	load := exec.Command("ip", "netns", "exec", n.a, bin, "-c", peerIP, "-p", "5202", "-u", "-b", "2.4M", "-t", "20")
	if err := load.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { load.Process.Kill(); load.Wait() })
	// The queue is full once the token bucket drops: the stream, above
	// the rate, keeps it so for the rest of its 20 s.
	waitfor.True(t, "the tbf queue full (dropping packets)", func() bool {
		out, _ := sh("ip", "netns", "exec", n.a, "tc", "-s", "qdisc", "show", "dev", n.vethA)
		m := regexp.MustCompile(`dropped (\d+)`).FindStringSubmatch(out)
		return m != nil && m[1] != "0"
	})
	spec := quickSpec(20, 100*time.Millisecond)
	spec.Gateway.MaxLossPct = 100
	cs := n.probe(t, "quick", spec)
	if rtt := number(t, cs, "net.gateway.rtt"); rtt < 30 || rtt > 200 {
		t.Errorf("gateway rtt %.1f ms behind a 60 ms queue", rtt)
	}
	for _, c := range []string{"net.tcp.peer.connect", "net.http.mirror.latency", "net.dns.mirror.time"} {
		if v := number(t, cs, c); v < 30 {
			t.Errorf("%s %.1f ms behind a 60 ms queue", c, v)
		}
	}
	verdictIs(t, cs, "net.gateway.rtt", wire.Fail)
	verdictIs(t, cs, "net.gateway.reach", wire.Pass)
	// "如果平均延迟超过2ms": the trial's gateway row fails on the queue.
	if r := trialRow(t, cs, trial.KeyGateway); r.Verdict != trial.Fail || *r.Value < 30 {
		t.Errorf("behind a 60 ms queue: the trial's row %s %v (%s)", r.Verdict, r.Value, r.Detail)
	}
}
