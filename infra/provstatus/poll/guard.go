package poll

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"

	"github.com/gpusla/gpusla/sla/publicaddr"
)

// Resolver looks up a host's addresses (net.DefaultResolver; tests give
// their own, to make a name resolve to 127.0.0.1).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// guard keeps one fetch outside the renter's and the cloud's networks:
// every host the fetch reaches — the page's, each redirect's — is
// resolved, and the fetch is refused if any of its addresses is not
// public (sla/publicaddr); the connection is then made to an address so
// checked, and checked once more as it is dialled, so a name that answers
// differently the second time (DNS rebinding) gains nothing. allowHost
// (lower case), when set, is the one host whose non-public addresses the
// terms allowed (provider_status_page.allow_private); a metadata address
// is refused whatever the terms say.
type guard struct {
	resolver  Resolver
	allowHost string
}

// RefusedError is a host or address the poller will not reach.
type RefusedError struct {
	Host string
	Addr netip.Addr // invalid when the name itself is refused
	Kind publicaddr.Kind
}

func (e *RefusedError) Error() string {
	what := e.Host
	if e.Addr.IsValid() && e.Addr.String() != e.Host {
		what = fmt.Sprintf("%s (%s)", e.Host, e.Addr)
	}
	msg := fmt.Sprintf("refused to reach %s: a %s address", what, e.Kind)
	if publicaddr.Opens(e.Kind, true) {
		msg += "; only public addresses are fetched unless the terms set provider_status_page.allow_private for the page's own host"
	}
	return msg
}

// ErrRefused matches every *RefusedError (errors.Is).
var ErrRefused = errors.New("address refused")

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// allows says whether host may be reached at a (its kind judged).
func (g guard) allows(host string, a netip.Addr) error {
	kind := publicaddr.Of(a)
	if !publicaddr.Opens(kind, g.allowHost != "" && strings.EqualFold(host, g.allowHost)) {
		return &RefusedError{Host: host, Addr: a, Kind: kind}
	}
	return nil
}

// resolve returns host's addresses, every one of them allowed: a literal
// address is its own, a name is looked up. A name never leaving the
// machine (localhost) or a metadata service's name is judged as such
// before any lookup.
func (g guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, g.allows(host, a)
	}
	allowed := g.allowHost != "" && strings.EqualFold(host, g.allowHost)
	if k := publicaddr.OfName(host); !publicaddr.Opens(k, allowed) {
		return nil, &RefusedError{Host: host, Kind: k}
	}
	r := g.resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s resolves to no address", host)
	}
	for _, a := range addrs {
		// One non-public answer refuses the name: a public name that also
		// answers 127.0.0.1 is the rebinding trick, not a mirror.
		if err := g.allows(host, a); err != nil {
			return nil, err
		}
	}
	return addrs, nil
}

// dial is the transport's DialContext: it connects to host's checked
// addresses in turn, each dial checked again at the socket (Control).
func (g guard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: 10 * time.Second, Control: g.control(host)}
	var errs []error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// control is the dialer's last check, on the address the socket is about
// to connect to.
func (g guard) control(host string) func(network, address string, c syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("dialling %q: not an address", address)
		}
		return g.allows(host, ap.Addr())
	}
}
