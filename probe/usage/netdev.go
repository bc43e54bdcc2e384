package usage

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/sysfs"

	"github.com/gpusla/gpusla/probe/netcheck"
	"github.com/gpusla/gpusla/probe/wire"
)

// maxIfaces caps the interfaces of one reading when none is physical or
// carries the default route (a container's view: every veth is its own).
const maxIfaces = 64

// readNetDev reads every interface's byte counters from /proc/net/dev
// (procfs), whether it is physical (/sys/class/net/NAME/device exists: not a
// bridge, veth, VLAN, bond or tunnel), its link speed and ifindex (sysfs)
// and whether it
// carries the default route (/proc/net/route, /proc/net/ipv6_route).
// Loopback never leaves the machine and is left out; so are the virtual
// interfaces when a physical one or a default-route one exists, since every
// byte a container sends is counted again on the physical interface.
func readNetDev(r Reader) ([]wire.Check, error) {
	fs, err := procfs.NewFS(r.path("proc"))
	if err != nil {
		return nil, err
	}
	dev, err := fs.NetDev()
	if err != nil {
		return nil, fmt.Errorf("/proc/net/dev: %w", err)
	}
	sys, _ := sysfs.NewFS(r.path("sys"))
	def := r.defaultRouteIfaces()
	type iface struct {
		line           procfs.NetDevLine
		physical, dflt bool
		speed, index   int64
	}
	var all, kept []iface
	for name, l := range dev {
		if name == "lo" {
			continue
		}
		i := iface{line: l, dflt: def[name]}
		if _, err := os.Lstat(r.path("sys", "class", "net", name, "device")); err == nil {
			i.physical = true
		}
		if c, err := sys.NetClassByIface(name); err == nil {
			if c.Speed != nil && *c.Speed > 0 {
				i.speed = *c.Speed
			}
			// The kernel numbers interfaces as they are created: a new
			// ifindex under the same name is a new interface, whose
			// counters started again from zero.
			if c.IfIndex != nil {
				i.index = *c.IfIndex
			}
		}
		all = append(all, i)
		if i.physical || i.dflt {
			kept = append(kept, i)
		}
	}
	sort.Slice(all, func(a, b int) bool { return all[a].line.Name < all[b].line.Name })
	sort.Slice(kept, func(a, b int) bool { return kept[a].line.Name < kept[b].line.Name })
	var capErr error
	if len(kept) == 0 {
		kept = all
		if len(kept) > maxIfaces {
			capErr = fmt.Errorf("%d interfaces, none physical or carrying the default route; the first %d by name are sent", len(kept), maxIfaces)
			kept = kept[:maxIfaces]
		}
	}
	var out []wire.Check
	for _, i := range kept {
		attrs := map[string]string{"rx_bytes": u64(i.line.RxBytes), "tx_bytes": u64(i.line.TxBytes),
			"physical": flag(i.physical), "default_route": flag(i.dflt)}
		if i.speed > 0 {
			attrs["speed_mbps"] = fmt.Sprint(i.speed)
		}
		if i.index > 0 {
			attrs["ifindex"] = fmt.Sprint(i.index)
		}
		value := fmt.Sprintf("sent %s, received %s since boot", bytesText(i.line.TxBytes), bytesText(i.line.RxBytes))
		out = append(out, reading(PrefixNet+i.line.Name, value, float64(i.line.TxBytes), "bytes", attrs))
	}
	return out, capErr
}

// defaultRouteIfaces are the interfaces of the IPv4 default route (the
// probe's own route reader: procfs misreads the flags) and of any IPv6
// default route (::/0 in /proc/net/ipv6_route).
func (r Reader) defaultRouteIfaces() map[string]bool {
	out := map[string]bool{}
	if rt, err := netcheck.ReadDefaultGateway(r.path("proc", "net", "route")); err == nil {
		out[rt.Iface] = true
	}
	f, err := os.Open(r.path("proc", "net", "ipv6_route"))
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// dest prefixlen src srcprefix nexthop metric refcnt use flags iface
		x := strings.Fields(sc.Text())
		if len(x) == 10 && x[0] == strings.Repeat("0", 32) && x[1] == "00" && x[9] != "lo" {
			out[x[9]] = true
		}
	}
	return out
}
