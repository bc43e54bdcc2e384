package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/probe/checkrun"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/netcheck"
)

// checkNetwork holds `gpuprobe check`'s network flags. The checks are the
// daemon's (probe/netcheck), set up from the config's `network:` section
// with the flags over it.
type checkNetwork struct {
	none                            bool
	mirror, gateway, dns, dnsServer string
}

// networkOnly are the flags that name what the network checks measure.
var networkOnly = []string{"mirror", "gateway", "dns", "dns-server"}

func (n *checkNetwork) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.BoolVar(&n.none, "no-network", false, "leave out the network checks (gateway ping, DNS, mirror HEAD); each is reported skipped")
	fs.StringVar(&n.mirror, "mirror", "", "package mirror `URL` to send an HTTP HEAD (the seed's curl -I); replaces network.http of --config")
	fs.StringVar(&n.gateway, "gateway", "", "gateway IP to ping (avg RTT ≤ 2 ms, loss ≤ 5 %); default network.gateway.address of --config, else the default route of /proc/net/route under --host-root")
	fs.StringVar(&n.dns, "dns", "", "name to resolve; replaces network.dns of --config (default: the mirror's host name)")
	fs.StringVar(&n.dnsServer, "dns-server", "", "DNS server ip:port for every lookup (default the system resolver)")
}

// checker builds the network checks from the config file (may be empty),
// the flags, and the routing table under hostRoot.
func (n *checkNetwork) checker(configPath, hostRoot string) (*netcheck.Checker, error) {
	var spec netcheck.Spec
	if configPath != "" {
		s, err := config.LoadNetwork(configPath)
		if err != nil {
			return nil, err
		}
		spec = s
	}
	if n.gateway != "" {
		if net.ParseIP(n.gateway) == nil {
			return nil, fmt.Errorf("--gateway %q: not an IP address", n.gateway)
		}
		spec.Gateway.Disabled, spec.Gateway.Address = false, n.gateway
	}
	if n.mirror != "" {
		u, err := url.Parse(n.mirror)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--mirror %q: not an http:// or https:// URL", n.mirror)
		}
		spec.HTTP = []netcheck.HTTPTarget{{Name: "mirror", URL: n.mirror}}
	}
	if n.dns != "" {
		spec.DNS = []netcheck.DNSTarget{{Host: n.dns}}
	}
	spec.SetDefaults()
	checkrun.MirrorDNS(&spec)
	if n.dnsServer != "" {
		if host, _, err := net.SplitHostPort(n.dnsServer); err != nil || net.ParseIP(host) == nil {
			return nil, fmt.Errorf("--dns-server %q: not ip:port", n.dnsServer)
		}
		for i := range spec.DNS {
			spec.DNS[i].Server = n.dnsServer
		}
	}
	spec.SetDefaults()
	if err := spec.Validate(); err != nil {
		// The config's section was validated on load, so what is wrong
		// came from a flag (a --dns name too long to be a check name).
		var fe *netcheck.FieldError
		if errors.As(err, &fe) {
			return nil, fmt.Errorf("network checks (--config and the network flags): %s: %s", fe.Field, fe.Msg)
		}
		return nil, err
	}
	return &netcheck.Checker{Spec: spec, RouteFile: filepath.Join(hostRoot, "proc", "net", "route")}, nil
}

// group is the network group: measured, or with --no-network each row
// skipped.
func (n *checkNetwork) group(c *netcheck.Checker) checkrun.Group {
	if n.none {
		return checkrun.NoNetworkGroup(c, "--no-network: the network checks were left out")
	}
	return checkrun.NetworkGroup(c)
}
