package checkrun

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/netcheck"
	"github.com/gpusla/gpusla/probe/netcheck/netchecktest"
	"github.com/gpusla/gpusla/probe/wire"
)

// The network group against a loopback mirror and DNS server: the rows are
// netcheck's, the exit code follows them (pass, or fail on a 404), and a
// recorded snapshot names each row skipped rather than dropping them.
func TestNetworkGroupOnLoopback(t *testing.T) {
	httpAddr, dnsAddr, stop := netchecktest.StartServers(t, "127.0.0.1")
	defer stop()
	spec := netcheck.Spec{Gateway: netcheck.Gateway{Disabled: true},
		HTTP: []netcheck.HTTPTarget{{Name: "mirror", URL: "http://" + httpAddr + "/"}},
		DNS:  []netcheck.DNSTarget{{Name: "mirror", Host: "mirrors.example.test", Server: dnsAddr}},
		// Never contacted: check does not run iperf3.
		Iperf3: &netcheck.Iperf{Host: "127.0.0.1", NominalMbps: 1000}}
	spec.SetDefaults()
	if err := spec.Validate(); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Groups: []Group{NetworkGroup(&netcheck.Checker{Spec: spec})}}
	s, rep, err := r.Live(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := netchecktest.ByName(rep.Checks)
	for name, v := range map[string]string{
		"net.http.mirror.reach": wire.Pass, "net.http.mirror.latency": wire.Pass,
		"net.dns.mirror.reach": wire.Pass, "net.dns.mirror.time": wire.Pass,
		"net.gateway.reach": wire.Skipped, "net.iperf3.peer": wire.Skipped,
	} {
		if got[name].Verdict != v {
			t.Errorf("%s: %+v, want %s", name, got[name], v)
		}
	}
	if c := got["net.dns.mirror.reach"]; c.Value != "10.1.2.3" {
		t.Errorf("dns answer: %+v", c)
	}
	if c := got["net.gateway.reach"]; !strings.Contains(c.Detail, "network.gateway.disabled") {
		t.Errorf("disabled gateway: %+v", c)
	}
	if rep.ExitCode != ExitPass {
		t.Errorf("exit %d, want %d: %+v", rep.ExitCode, ExitPass, rep.Checks)
	}

	rec := r.Recorded(s, "snapshot:x")
	recGot := netchecktest.ByName(rec.Checks)
	for _, name := range []string{"net.http.mirror.reach", "net.http.mirror.latency", "net.dns.mirror.reach", "net.dns.mirror.time", "net.iperf3.peer"} {
		if c := recGot[name]; c.Verdict != wire.Skipped || c.Detail == "" {
			t.Errorf("recorded %s: %+v", name, c)
		}
	}
	if rec.ExitCode != ExitPass || !strings.Contains(recGot["net.http.mirror.reach"].Detail, "recorded snapshot") {
		t.Errorf("recorded: exit %d %+v", rec.ExitCode, rec.Checks)
	}

	spec.HTTP[0].URL = "http://" + httpAddr + "/missing"
	rep = mustLive(t, &Runner{Groups: []Group{NetworkGroup(&netcheck.Checker{Spec: spec})}})
	if c := netchecktest.ByName(rep.Checks)["net.http.mirror.reach"]; c.Verdict != wire.Fail || c.Value != "HTTP 404" || rep.ExitCode != ExitFail {
		t.Errorf("404 mirror: exit %d, %+v", rep.ExitCode, c)
	}
}

func mustLive(t *testing.T, r *Runner) *Report {
	t.Helper()
	_, rep, err := r.Live(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// --no-network: every row the group would give is there, skipped with the
// reason, and nothing is sent (the targets are a closed loopback port).
func TestNoNetworkGroupListsEveryRow(t *testing.T) {
	spec := netcheck.Spec{Gateway: netcheck.Gateway{Address: "127.0.0.1"},
		HTTP: []netcheck.HTTPTarget{{Name: "mirror", URL: "http://127.0.0.1:1/"}},
		TCP:  []netcheck.TCPTarget{{Name: "backend", Address: "127.0.0.1:1"}}}
	spec.SetDefaults()
	rep := mustLive(t, &Runner{Groups: []Group{NoNetworkGroup(&netcheck.Checker{Spec: spec}, "--no-network")}})
	want := []string{"net.gateway.reach", "net.gateway.rtt", "net.gateway.loss", "net.tcp.backend.reach", "net.tcp.backend.connect",
		"net.http.mirror.reach", "net.http.mirror.latency", "net.dns.reach"}
	if len(rep.Checks) != len(want) {
		t.Fatalf("rows: %+v", rep.Checks)
	}
	for i, c := range rep.Checks {
		if c.Name != want[i] || c.Verdict != wire.Skipped || c.Detail == "" {
			t.Errorf("row %d: %+v, want %s skipped", i, c, want[i])
		}
	}
	if rep.ExitCode != ExitPass {
		t.Errorf("exit %d", rep.ExitCode)
	}
	var tab bytes.Buffer
	if err := rep.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tab.String(), "Skipped:\n  net.gateway.reach, net.gateway.rtt, net.gateway.loss, net.tcp.backend.reach, net.tcp.backend.connect, net.http.mirror.reach, net.http.mirror.latency: --no-network\n  net.dns.reach: no name to resolve") {
		t.Errorf("table does not say why:\n%s", tab.String())
	}
}

func TestMirrorDNS(t *testing.T) {
	s := netcheck.Spec{HTTP: []netcheck.HTTPTarget{{Name: "mirror", URL: "https://mirrors.example.test/pypi/"},
		{Name: "byip", URL: "http://127.0.0.1:8080/"}, {Name: "v6", URL: "http://[::1]:8080/"}}}
	s.SetDefaults()
	MirrorDNS(&s)
	if len(s.DNS) != 1 || s.DNS[0].Name != "mirror" || s.DNS[0].Host != "mirrors.example.test" {
		t.Fatalf("dns: %+v", s.DNS)
	}
	s.SetDefaults()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	named := netcheck.Spec{HTTP: s.HTTP, DNS: []netcheck.DNSTarget{{Name: "pypi", Host: "pypi.example.test"}}}
	MirrorDNS(&named)
	if len(named.DNS) != 1 || named.DNS[0].Name != "pypi" {
		t.Fatalf("a named DNS target was added to: %+v", named.DNS)
	}
}
