package publicaddr

import (
	"net/netip"
	"testing"
)

// Every range the issue names, in each of its spellings, and the public
// addresses beside them.
func TestOf(t *testing.T) {
	for s, want := range map[string]Kind{
		"169.254.169.254":        Metadata,
		"::ffff:169.254.169.254": Metadata, // IPv4-mapped
		"::ffff:a9fe:a9fe":       Metadata,
		"64:ff9b::a9fe:a9fe":     Metadata, // NAT64
		"2002:a9fe:a9fe::1":      Metadata, // 6to4
		"::a9fe:a9fe":            Metadata, // IPv4-compatible
		"fd00:ec2::254":          Metadata,
		"100.100.100.200":        Metadata,
		"169.254.170.2":          Metadata,
		"127.0.0.1":              Loopback,
		"127.255.0.9":            Loopback,
		"::1":                    Loopback,
		"::ffff:127.0.0.1":       Loopback,
		"10.1.2.3":               Private,
		"172.16.0.1":             Private,
		"172.31.255.255":         Private,
		"192.168.1.1":            Private,
		"fd12:3456::1":           Private,
		"100.64.0.1":             CGNAT,
		"100.127.255.254":        CGNAT,
		"169.254.1.1":            LinkLocal,
		"fe80::1%eth0":           LinkLocal,
		"224.0.0.1":              Multicast,
		"ff02::1":                Multicast,
		"0.0.0.0":                Unspecified,
		"::":                     Unspecified,
		"255.255.255.255":        Reserved,
		"198.18.0.1":             Reserved,
		"8.8.8.8":                Public,
		"172.32.0.1":             Public, // just past 172.16/12
		"100.128.0.1":            Public, // just past 100.64/10
		"2606:4700:4700::1111":   Public,
		"::ffff:8.8.8.8":         Public,
		"64:ff9b::808:808":       Public,
		"169.253.255.255":        Public,
	} {
		if got := Of(netip.MustParseAddr(s)); got != want {
			t.Errorf("Of(%s) = %q, want %q", s, got, want)
		}
	}
	if Of(netip.Addr{}) != Unspecified {
		t.Error("the zero address is not unspecified")
	}
}

func TestOfNameAndOpens(t *testing.T) {
	for h, want := range map[string]Kind{"localhost": Loopback, "LOCALHOST.": Loopback, "a.localhost": Loopback,
		"metadata.google.internal": Metadata, "metadata.tencentyun.com": Metadata, "status.example.com": Public, "localhost.example.com": Public} {
		if got := OfName(h); got != want {
			t.Errorf("OfName(%s) = %q, want %q", h, got, want)
		}
	}
	for _, c := range []struct {
		k     Kind
		allow bool
		want  bool
	}{
		{Public, false, true}, {Private, false, false}, {Private, true, true}, {Loopback, true, true}, {CGNAT, true, true},
		{Metadata, true, false}, {Unspecified, true, false}, {Multicast, true, false},
	} {
		if got := Opens(c.k, c.allow); got != c.want {
			t.Errorf("Opens(%q, %v) = %v", c.k, c.allow, got)
		}
	}
}
