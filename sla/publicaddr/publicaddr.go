// Package publicaddr says whether a network address is a public one that
// gpusla may fetch from on the renter's behalf (the provider's status
// page), or one inside somebody's network: loopback, private, carrier-
// grade NAT, link-local, multicast, unspecified, reserved — and, above
// all, a cloud metadata service, whose answers are credentials. An IPv6
// address that carries an IPv4 one (IPv4-mapped ::ffff:a.b.c.d, the old
// IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) is judged
// by the IPv4 address it reaches. Pure tables: the terms validator uses
// it on literal addresses, the poller on every address it resolves and
// dials.
package publicaddr

import (
	"net/netip"
	"strings"
)

// Kind is why an address is not public ("" when it is).
type Kind string

// Kinds of non-public addresses.
const (
	Public      Kind = ""
	Metadata    Kind = "cloud metadata"
	Loopback    Kind = "loopback"
	Private     Kind = "private"
	CGNAT       Kind = "carrier-grade NAT (shared)"
	LinkLocal   Kind = "link-local"
	Multicast   Kind = "multicast"
	Unspecified Kind = "unspecified"
	Reserved    Kind = "reserved"
)

// metadata are the cloud metadata services' addresses: AWS, GCP, Azure,
// Oracle (169.254.169.254), AWS over IPv6 (fd00:ec2::254), AWS ECS task
// metadata (169.254.170.2), Alibaba Cloud (100.100.100.200), Tencent Cloud
// (169.254.0.23). Each is also in a non-public range; named apart because
// no allowance of the terms ever opens them.
var metadata = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("169.254.170.2"),
	netip.MustParseAddr("100.100.100.200"),
	netip.MustParseAddr("169.254.0.23"),
}

type span struct {
	p    netip.Prefix
	kind Kind
}

// ranges are the IANA special-purpose registries' ranges that are not
// globally reachable (RFC 6890 and its updates), most specific first
// where they nest.
var ranges = func() []span {
	var out []span
	for _, r := range []struct {
		kind     Kind
		prefixes string
	}{
		{Unspecified, "0.0.0.0/8 ::/128"},
		{Loopback, "127.0.0.0/8 ::1/128"},
		{Private, "10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fc00::/7 fec0::/10"},
		{CGNAT, "100.64.0.0/10"},
		{LinkLocal, "169.254.0.0/16 fe80::/10"},
		{Multicast, "224.0.0.0/4 ff00::/8"},
		{Reserved, "192.0.0.0/24 192.0.2.0/24 198.18.0.0/15 198.51.100.0/24 203.0.113.0/24 240.0.0.0/4 100::/64 2001:db8::/32"},
	} {
		for _, p := range strings.Fields(r.prefixes) {
			out = append(out, span{netip.MustParsePrefix(p), r.kind})
		}
	}
	return out
}()

// Of says what kind of address a is: Public, or why not. An invalid
// address is Unspecified.
func Of(a netip.Addr) Kind {
	if !a.IsValid() {
		return Unspecified
	}
	a = a.WithZone("")
	if v4, ok := embedded(a); ok {
		a = v4
	}
	for _, m := range metadata {
		if a == m {
			return Metadata
		}
	}
	for _, r := range ranges {
		if r.p.Contains(a) {
			return r.kind
		}
	}
	return Public
}

var (
	nat64   = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4  = netip.MustParsePrefix("2002::/16")
	compat4 = netip.MustParsePrefix("::/96")
)

// embedded is the IPv4 address an IPv6 address reaches, if it carries one.
func embedded(a netip.Addr) (netip.Addr, bool) {
	if a.Is4In6() {
		return a.Unmap(), true
	}
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	switch {
	case nat64.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixTo4.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	case compat4.Contains(a) && a != netip.IPv6Unspecified() && a != netip.IPv6Loopback():
		return netip.AddrFrom4([4]byte(b[12:16])), true
	}
	return netip.Addr{}, false
}

// OfName says what a host name is whatever DNS answers for it: Loopback
// for localhost and *.localhost (RFC 6761), Metadata for the metadata
// services' own names, Public (judge its addresses) for any other.
func OfName(host string) Kind {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	switch {
	case h == "localhost" || strings.HasSuffix(h, ".localhost"):
		return Loopback
	case h == "metadata" || h == "metadata.google.internal" || h == "metadata.tencentyun.com" ||
		h == "instance-data" || strings.HasPrefix(h, "instance-data."):
		return Metadata
	}
	return Public
}

// Opens says whether an address or name of kind k may be fetched: Public
// always; a non-public kind only when the renter allowed private
// addresses for the host, and never a metadata service, an unspecified or
// a multicast address (no page lives there).
func Opens(k Kind, allowPrivate bool) bool {
	switch k {
	case Public:
		return true
	case Metadata, Unspecified, Multicast:
		return false
	}
	return allowPrivate
}
