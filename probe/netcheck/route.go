package netcheck

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
)

// RouteFile is where Linux lists the IPv4 routing table.
const RouteFile = "/proc/net/route"

// Route flags from linux/route.h.
const (
	rtfUp      = 0x1
	rtfGateway = 0x2
)

// Route is the default route found in the routing table.
type Route struct {
	Iface   string
	Gateway net.IP
	Metric  int
}

// ErrNoDefaultRoute means the table has no usable default route.
var ErrNoDefaultRoute = fmt.Errorf("no default route with a gateway in the routing table")

// DefaultGateway reads the default gateway (the lowest-metric route to
// 0.0.0.0/0 that is up and goes through a gateway) from a routing table in
// /proc/net/route format.
//
// It is not procfs's NetRoute (github.com/prometheus/procfs v0.22): that
// reads the Flags column as decimal, while the kernel prints it in hex
// (RTF_UP|RTF_GATEWAY|RTF_DYNAMIC is "0013", which it takes for 0xD: no
// gateway bit), and it refuses the whole table for one line without
// exactly 11 columns.
func DefaultGateway(r io.Reader) (Route, error) {
	sc := bufio.NewScanner(r)
	best := Route{Metric: -1}
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if line == 1 {
			if len(f) < 8 || f[0] != "Iface" || f[1] != "Destination" || f[2] != "Gateway" {
				return Route{}, fmt.Errorf("route table: line 1 is not the /proc/net/route header")
			}
			continue
		}
		if len(f) < 8 {
			return Route{}, fmt.Errorf("route table: line %d has %d fields, want at least 8", line, len(f))
		}
		if f[1] != "00000000" || f[7] != "00000000" {
			continue // not a default route
		}
		flags, err := strconv.ParseUint(f[3], 16, 32)
		if err != nil {
			return Route{}, fmt.Errorf("route table: line %d: flags %q: %w", line, f[3], err)
		}
		if flags&rtfUp == 0 || flags&rtfGateway == 0 {
			continue
		}
		gw, err := hexIP(f[2])
		if err != nil {
			return Route{}, fmt.Errorf("route table: line %d: gateway %q: %w", line, f[2], err)
		}
		metric, err := strconv.Atoi(f[6])
		if err != nil || metric < 0 {
			return Route{}, fmt.Errorf("route table: line %d: metric %q is not a number", line, f[6])
		}
		if best.Metric < 0 || metric < best.Metric {
			best = Route{Iface: f[0], Gateway: gw, Metric: metric}
		}
	}
	if err := sc.Err(); err != nil {
		return Route{}, fmt.Errorf("route table: %w", err)
	}
	if best.Metric < 0 {
		return Route{}, ErrNoDefaultRoute
	}
	return best, nil
}

// hexIP decodes the kernel's 8 hex digits, an IPv4 address in host byte order.
func hexIP(s string) (net.IP, error) {
	if len(s) != 8 {
		return nil, fmt.Errorf("want 8 hex digits")
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, err
	}
	// The kernel printed the u32 in host order; reading those bytes back
	// as big-endian and writing them in host order restores network order.
	v := binary.BigEndian.Uint32(b)
	ip := make(net.IP, 4)
	binary.NativeEndian.PutUint32(ip, v)
	if ip.IsUnspecified() {
		return nil, fmt.Errorf("gateway is 0.0.0.0")
	}
	return ip, nil
}

// ReadDefaultGateway reads it from the file at path.
func ReadDefaultGateway(path string) (Route, error) {
	f, err := os.Open(path)
	if err != nil {
		return Route{}, fmt.Errorf("route table: %w", err)
	}
	defer f.Close()
	return DefaultGateway(f)
}
