package terms

import (
	"slices"
	"strings"
	"testing"
)

// "页面标注“10Gbps内网”": the provider's advertised internal bandwidth, the
// figure the trial's iperf3 is held to ("达到标称内网带宽的70%以上").
const withNetwork = minimal + `network:
  internal_mbps: 10000
`

func TestNetworkParse(t *testing.T) {
	if got := parseOne(t, withNetwork).Network.InternalMbps; got != 10000 {
		t.Errorf("internal_mbps %v, want 10000", got)
	}
	if got := parseOne(t, minimal).Network.InternalMbps; got != 0 {
		t.Errorf("no network: %v, want 0 (none advertised)", got)
	}
	if got := parseOne(t, withNetwork[:len(withNetwork)-len("10000\n")]+"0.5\n").Network.InternalMbps; got != 0.5 {
		t.Errorf("a fraction of a Mbit/s: %v", got)
	}
}

func TestNetworkErrors(t *testing.T) {
	line := strings.Count(minimal, "\n") + 2 // internal_mbps's line
	checkErrors(t, withNetwork, []errCase{
		{"zero", "internal_mbps: 10000", "internal_mbps: 0", line, "network.internal_mbps", "advertises nothing"},
		{"negative", "internal_mbps: 10000", "internal_mbps: -1", line, "network.internal_mbps", "negative"},
		{"not a number", "internal_mbps: 10000", "internal_mbps: 10Gbps", line, "network.internal_mbps", "not a number"},
		{"unknown field", "internal_mbps: 10000", "internal_gbps: 10", line, "network.internal_gbps", "unknown field"},
		{"no figure", "  internal_mbps: 10000\n", "  {}\n", line, "network", "gives no figure"},
	})
}

// The advertised bandwidth is the provider's published figure: a file
// that cites sources and gives it unbacked lists it as unverified.
func TestNetworkFigureIsSourced(t *testing.T) {
	tm := parseOne(t, withNetwork+"sources: []\n")
	if !slices.Contains(tm.Unverified(), "network.internal_mbps") {
		t.Errorf("unverified %v", tm.Unverified())
	}
}
