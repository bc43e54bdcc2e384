package netcheck

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"time"

	probing "github.com/prometheus-community/pro-bing"

	"github.com/gpusla/gpusla/internal/ctxsleep"
)

// PingResult is what one ping run measured.
type PingResult struct {
	Addr     string
	Sent     int // requests sent or refused by the local stack
	Received int
	// SendErrors are requests the local stack refused (firewall, no route):
	// they never left, but they are lost all the same, so they count.
	SendErrors    int
	LastSendError error
	LossPct       float64
	Avg, P99      time.Duration
	Min, Max      time.Duration
}

// Ping sends opts.Count ICMP echo requests to host. As root it uses a raw
// socket; otherwise the unprivileged ICMP datagram socket, which needs
// net.ipv4.ping_group_range to include the process's group.
//
// pro-bing gives up the whole run when the local stack refuses its first
// request (a firewall dropping some outgoing packets returns EPERM), while
// later refusals only count as lost. On a node with 10 % local loss that
// made one gateway check in ten report "unreachable". So a run whose first
// request was refused counts that request as lost and starts again, after
// one interval, with the requests still to send, within the same overall
// timeout; only when every request is refused does Ping report none
// arrived.
func Ping(ctx context.Context, host string, opts PingOpts) (PingResult, error) {
	// The timeout bounds the whole call, retries included. It is pro-bing's
	// own Timeout (which ends a run with its statistics), not a context
	// deadline (which would end it with an error and no statistics).
	var deadline time.Time
	if opts.Timeout > 0 {
		deadline = time.Now().Add(opts.Timeout)
	}
	var refusedFirst int // runs abandoned at their first request
	var lastErr error
	for remaining := max(opts.Count, 1); ; remaining-- {
		r, refused, err := pingOnce(ctx, host, opts, remaining, deadline)
		if refused {
			refusedFirst++
			lastErr = err
			if remaining <= 1 || (!deadline.IsZero() && time.Until(deadline) <= opts.Interval) || ctxsleep.Sleep(ctx, opts.Interval) != nil {
				// Every request tried was refused: none arrived.
				return PingResult{Addr: host, Sent: refusedFirst, SendErrors: refusedFirst, LastSendError: lastErr, LossPct: 100}, nil
			}
			continue
		}
		if err != nil {
			return PingResult{}, err
		}
		r.Sent += refusedFirst
		r.SendErrors += refusedFirst
		if r.LastSendError == nil {
			r.LastSendError = lastErr
		}
		if r.Sent > 0 {
			r.LossPct = math.Max(0, float64(r.Sent-r.Received)/float64(r.Sent)*100)
		}
		return r, nil
	}
}

// pingOnce is one pro-bing run of count requests. refused reports that the
// run stopped because its first request was refused by the local stack.
func pingOnce(ctx context.Context, host string, opts PingOpts, count int, deadline time.Time) (PingResult, bool, error) {
	p, err := probing.NewPinger(host)
	if err != nil {
		return PingResult{}, false, fmt.Errorf("ping %s: %w", host, err)
	}
	p.Count = count
	p.Interval = opts.Interval
	if !deadline.IsZero() {
		p.Timeout = time.Until(deadline)
	}
	p.RecordRtts = true
	p.SetPrivileged(os.Geteuid() == 0)
	p.SetLogger(probing.NoopLogger{}) // it logs send errors as "FATAL"; we report them
	var sendErrs, sent int
	var lastErr error
	p.OnSendError = func(_ *probing.Packet, err error) {
		// pro-bing retries a refused request with the same sequence
		// number, so each refusal is one more request that did not arrive.
		sendErrs++
		lastErr = err
	}
	p.OnSend = func(*probing.Packet) { sent++ }
	if err := p.RunWithContext(ctx); err != nil {
		if sent == 0 && sendErrs == 0 && errors.Is(err, os.ErrPermission) {
			return PingResult{}, false, &NoSocketError{Host: host, UID: os.Geteuid(), Err: err}
		}
		return PingResult{}, sent == 0 && sendErrs > 0, fmt.Errorf("ping %s: %w", host, err)
	}
	st := p.Statistics()
	return PingResult{Addr: st.IPAddr.String(), Sent: st.PacketsSent + sendErrs, Received: st.PacketsRecv,
		SendErrors: sendErrs, LastSendError: lastErr,
		Avg: st.AvgRtt, Min: st.MinRtt, Max: st.MaxRtt, P99: percentile(st.Rtts, 0.99)}, false, nil
}

// NoSocketError is a ping that could not start because this process may
// not open an ICMP socket: not root (nor CAP_NET_RAW), and the kernel's
// net.ipv4.ping_group_range leaves out its group. Nothing was sent, so it
// says nothing of the network: the check is not run, never failed.
type NoSocketError struct {
	Host string
	UID  int
	Err  error
}

func (e *NoSocketError) Error() string {
	return fmt.Sprintf("ping %s: this process (uid %d) may not open an ICMP socket (%v): run gpuprobe as root with CAP_NET_RAW (sudo gpuprobe check), or let its group ping with sysctl net.ipv4.ping_group_range",
		e.Host, e.UID, e.Err)
}

func (e *NoSocketError) Unwrap() error { return e.Err }

// percentile is the nearest-rank percentile (q in (0,1]).
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}
