package checkrun

import (
	"context"
	"net"
	"net/url"

	"github.com/gpusla/gpusla/probe/netcheck"
	"github.com/gpusla/gpusla/probe/wire"
)

// NetworkGroup runs the daemon's quick network checks once, through
// probe/netcheck (the same code the daemon's network job runs): the
// gateway ping against the 2 ms bar with its loss, the configured ping and
// TCP targets, the package mirror's HTTP HEAD and the DNS lookups. It
// measures rather than reads, so a recorded snapshot lists its rows as
// skipped. Rows for what the one-shot check has nothing to measure (no
// mirror named, iperf3) are always there, skipped with the reason.
func NetworkGroup(c *netcheck.Checker) Group {
	return Group{
		Name: "network",
		Run: func(ctx context.Context) []wire.Check {
			return append(c.Quick(ctx), notMeasured(c.Spec)...)
		},
		Skip: func(why string) []wire.Check { return append(c.Skipped(why), notMeasured(c.Spec)...) },
	}
}

// NoNetworkGroup is NetworkGroup left out (`check --no-network`): every
// row it would give, skipped with why, so none is silently absent.
func NoNetworkGroup(c *netcheck.Checker, why string) Group {
	rows := func(string) []wire.Check { return append(c.Skipped(why), notMeasured(c.Spec)...) }
	return Group{Name: "network", Run: func(context.Context) []wire.Check { return rows(why) }, Skip: rows}
}

// MirrorDNS gives a spec that names no DNS target one lookup of each
// mirror's host name: the name apt or pip resolves before the seed's
// `curl -I` can answer, timed on its own. A mirror given by IP address
// needs none.
func MirrorDNS(s *netcheck.Spec) {
	if len(s.DNS) > 0 {
		return
	}
	for _, h := range s.HTTP {
		u, err := url.Parse(h.URL)
		if err != nil || u.Hostname() == "" || net.ParseIP(u.Hostname()) != nil {
			continue
		}
		s.DNS = append(s.DNS, netcheck.DNSTarget{Name: h.Name, Host: u.Hostname(), Timeout: h.Timeout})
	}
}

// notMeasured are the rows of checks the spec gives the one-shot check
// nothing to run.
func notMeasured(s netcheck.Spec) []wire.Check {
	var out []wire.Check
	row := func(name, cat, criterion, why string) {
		out = append(out, wire.Check{Name: name, Category: cat, Verdict: wire.Skipped, Value: "-", Criterion: criterion, Detail: why})
	}
	if s.Gateway.Disabled {
		row("net.gateway.reach", wire.CategoryConnectivity, "the default gateway answers ping", "network.gateway.disabled is set in the config")
	}
	if len(s.HTTP) == 0 {
		row("net.http.reach", wire.CategoryConnectivity, "the package mirror answers HEAD with status below 400",
			"no package mirror named: give --mirror URL, or network.http in --config")
	}
	if len(s.DNS) == 0 {
		row("net.dns.reach", wire.CategoryConnectivity, "the name resolves",
			"no name to resolve: give --dns NAME or a --mirror URL with a host name, or network.dns in --config")
	}
	if p := s.Iperf3; p != nil {
		row("net.iperf3."+p.Name, wire.CategoryNetwork, "iperf3 to the peer",
			"not run by `gpuprobe check`: it saturates the link for its duration; the daemon runs it in the quiet window")
	}
	return out
}
