package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/netcheck/netchecktest"
	"github.com/gpusla/gpusla/probe/wire"
)

// Every test here stays on loopback: the gateway, mirror and DNS server
// are always given, by flag, config or a fixture routing table whose
// default gateway is 127.0.0.1.

// hostRoot is the bare host fixture with the routing table route (a file
// of probe/netcheck/testdata) as its /proc/net/route.
func hostRoot(t *testing.T, route string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("../../host/testdata/bare")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("../../netcheck/testdata", route))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "proc/net"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "proc/net/route"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func checkJSON(t *testing.T, args ...string) (map[string]wire.Check, int, string) {
	t.Helper()
	out, err := runCmd(t, append([]string{"check", "--no-progress", "--no-stress", "--json", "--steal-window", "0",
		"--kernel-log", "../../kmsg/testdata/dmesg-T.txt"}, args...)...)
	var rep checkrun.Report
	if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil {
		t.Fatalf("%v: not a report (%v): %v\n%s", args, err, jerr, out)
	}
	if exitCode(err) != rep.ExitCode {
		t.Errorf("exit %d, report says %d", exitCode(err), rep.ExitCode)
	}
	return netchecktest.ByName(rep.Checks), rep.ExitCode, out
}

// With nothing naming a gateway, check pings the default route's gateway
// from /proc/net/route under --host-root (the lowest metric: lo's
// 127.0.0.1 over eth0's 127.0.0.2: the fixture keeps even a wrong pick on
// loopback), and says where the address came from.
func TestCheckGatewayFromRouteFixture(t *testing.T) {
	got, _, out := checkJSON(t, "--host-root", hostRoot(t, "route-loopback"))
	for _, name := range []string{"net.gateway.reach", "net.gateway.loss"} {
		if c := got[name]; !strings.Contains(c.Detail, "default route via lo") || !strings.Contains(c.Detail, "127.0.0.1") {
			t.Errorf("%s: %+v\n%s", name, c, out)
		}
	}
	if c := got["net.http.reach"]; c.Verdict != wire.Skipped || !strings.Contains(c.Detail, "--mirror") {
		t.Errorf("no mirror named: %+v", c)
	}

	got, _, _ = checkJSON(t, "--host-root", hostRoot(t, "route-no-default"))
	if c := got["net.gateway.reach"]; c.Verdict != wire.Fail || c.Category != wire.CategoryConnectivity || !strings.Contains(c.Detail, "no default route") {
		t.Errorf("no default route: %+v", c)
	}
}

// The root-only half: the gateway's echo replies are counted and its RTT
// judged against the seed's 2 ms bar.
func TestCheckPingsGatewayOnLoopback(t *testing.T) {
	testenv.NeedRoot(t, "ICMP echo through a raw socket")
	got, _, out := checkJSON(t, "--host-root", hostRoot(t, "route-loopback"))
	if c := got["net.gateway.reach"]; c.Verdict != wire.Pass || c.Value != "10/10 replies" {
		t.Errorf("gateway from the routing table: %+v\n%s", c, out)
	}
	got, _, _ = checkJSON(t, "--host-root", hostRoot(t, "route-no-default"), "--gateway", "127.0.0.1")
	if c := got["net.gateway.reach"]; c.Verdict != wire.Pass || !strings.Contains(c.Detail, "configured") {
		t.Errorf("--gateway over a table without a default route: %+v", c)
	}
	if c := got["net.gateway.rtt"]; c.Number == nil || c.Unit != "ms" || c.Criterion != "avg ≤ 2.00 ms" {
		t.Errorf("rtt: %+v", c)
	}
	if c := got["net.gateway.loss"]; c.Verdict != wire.Pass || c.Criterion != "≤ 5 %" {
		t.Errorf("loss: %+v", c)
	}
}

// A mirror and a DNS server on loopback, given by flags over a config
// whose own mirror (a closed port) they replace.
func TestCheckMirrorAndDNSOnLoopback(t *testing.T) {
	httpAddr, dnsAddr, stop := netchecktest.StartServers(t, "127.0.0.1")
	defer stop()
	cfg := filepath.Join(t.TempDir(), "probe.yaml")
	if err := os.WriteFile(cfg, []byte("network:\n  gateway: {disabled: true}\n  http:\n    - {name: old, url: 'http://127.0.0.1:1/'}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := hostRoot(t, "route-no-default")
	got, _, out := checkJSON(t, "--host-root", root, "--config", cfg,
		"--mirror", "http://"+httpAddr+"/", "--dns", "mirrors.example.test", "--dns-server", dnsAddr)
	for name, v := range map[string]string{
		"net.http.mirror.reach": wire.Pass, "net.http.mirror.latency": wire.Pass,
		"net.dns.mirrors.example.test.reach": wire.Pass, "net.dns.mirrors.example.test.time": wire.Pass,
		"net.gateway.reach": wire.Skipped,
	} {
		if got[name].Verdict != v {
			t.Errorf("%s: %+v, want %s\n%s", name, got[name], v, out)
		}
	}
	if _, ok := got["net.http.old.reach"]; ok {
		t.Error("--mirror did not replace the config's mirror")
	}
	if c := got["net.dns.mirrors.example.test.reach"]; c.Value != "10.1.2.3" || !strings.Contains(c.Detail, "via "+dnsAddr) {
		t.Errorf("dns: %+v", c)
	}

	// The config's mirror alone: a closed port fails the check.
	got, code, _ := checkJSON(t, "--host-root", root, "--config", cfg)
	if c := got["net.http.old.reach"]; c.Verdict != wire.Fail || !strings.Contains(c.Detail, "refused") || code != checkrun.ExitFail {
		t.Errorf("closed mirror: exit %d, %+v", code, c)
	}
}

// The exit code of the network checks through the command's own flag
// handling: 0 when they pass or are skipped, 3 when one fails (a mirror
// answering 404), 1 when they cannot be set up. They never warn: a check
// either reached its target within its bar or did not.
func TestCheckNetworkExitCodes(t *testing.T) {
	httpAddr, dnsAddr, stop := netchecktest.StartServers(t, "127.0.0.1")
	defer stop()
	cfg := filepath.Join(t.TempDir(), "probe.yaml")
	if err := os.WriteFile(cfg, []byte("network:\n  gateway: {disabled: true}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n    checkNetwork
		exit int
	}{
		{checkNetwork{mirror: "http://" + httpAddr + "/", dns: "mirror.test", dnsServer: dnsAddr}, checkrun.ExitPass},
		{checkNetwork{none: true, mirror: "http://127.0.0.1:1/"}, checkrun.ExitPass},
		{checkNetwork{mirror: "http://" + httpAddr + "/missing"}, checkrun.ExitFail},
		{checkNetwork{mirror: "http://" + httpAddr + "/", dns: "mirror.test", dnsServer: "127.0.0.1:1"}, checkrun.ExitFail},
	} {
		c, err := tc.n.checker(cfg, "/nonexistent")
		if err != nil {
			t.Fatal(err)
		}
		_, rep, err := (&checkrun.Runner{Groups: []checkrun.Group{tc.n.group(c)}}).Live(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if rep.ExitCode != tc.exit || rep.Counts[wire.Warn] != 0 {
			t.Errorf("%+v: exit %d, want %d: %+v", tc.n, rep.ExitCode, tc.exit, rep.Checks)
		}
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("network:\n  http:\n    - {url: 'ftp://m/'}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	real := snapshots + "h200x2-real.json"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mirror", "ftp://mirror/"}, `--mirror "ftp://mirror/": not an http:// or https:// URL`},
		{[]string{"--gateway", "gw.local"}, `--gateway "gw.local": not an IP address`},
		{[]string{"--dns", "m.test", "--dns-server", "127.0.0.1"}, `--dns-server "127.0.0.1": not ip:port`},
		{[]string{"--dns", strings.Repeat("a", 70) + ".test"}, "dns[0].name"},
		{[]string{"--config", bad}, "bad.yaml:3: network.http[0].url"},
		{[]string{"--snapshot", real, "--mirror", "http://127.0.0.1:1/"}, "--mirror does not apply to a recorded snapshot"},
		{[]string{"--snapshot", real, "--gateway", "127.0.0.1"}, "--gateway does not apply to a recorded snapshot"},
	} {
		out, err := runCmd(t, append([]string{"check", "--no-progress", "--no-stress"}, tc.args...)...)
		if exitCode(err) != checkrun.ExitError || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d, %v; want exit 1 with %q\n%s", tc.args, exitCode(err), err, tc.want, out)
		}
	}
	if _, err := runCmd(t, "snapshot", "--no-network", "-o", filepath.Join(t.TempDir(), "s.json")); err == nil || !strings.Contains(err.Error(), "--no-network does not apply to `gpuprobe snapshot`") {
		t.Errorf("snapshot --no-network: %v", err)
	}
}

// --no-network leaves every network row in, skipped with the reason; and
// a recorded snapshot, which holds no measurements, lists the same rows.
func TestCheckNoNetworkRowsSkipped(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "probe.yaml")
	if err := os.WriteFile(cfg, []byte("network:\n  gateway: {address: 127.0.0.1}\n  http:\n    - {name: mirror, url: 'http://127.0.0.1:1/'}\n"+
		"  dns:\n    - {name: mirror, host: mirror.test, server: '127.0.0.1:1'}\n  iperf3: {host: 127.0.0.1, nominal_mbps: 1000}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := []string{"net.gateway.reach", "net.gateway.rtt", "net.gateway.loss", "net.http.mirror.reach", "net.http.mirror.latency",
		"net.dns.mirror.reach", "net.dns.mirror.time", "net.iperf3.peer"}
	got, _, _ := checkJSON(t, "--host-root", hostRoot(t, "route-loopback"), "--config", cfg, "--no-network")
	for _, name := range want {
		if c := got[name]; c.Verdict != wire.Skipped || c.Detail == "" {
			t.Errorf("--no-network: %s: %+v", name, c)
		}
	}
	if c := got["net.http.mirror.reach"]; !strings.Contains(c.Detail, "--no-network") {
		t.Errorf("reason: %+v", c)
	}

	out, err := runCmd(t, "check", "--no-progress", "--json", "--snapshot", snapshots+"h200x2-real.json", "--config", cfg)
	var rep checkrun.Report
	if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil {
		t.Fatalf("%v %v\n%s", err, jerr, out)
	}
	got = netchecktest.ByName(rep.Checks)
	for _, name := range want {
		if c := got[name]; c.Verdict != wire.Skipped || c.Detail == "" {
			t.Errorf("snapshot: %s: %+v", name, c)
		}
	}
}
