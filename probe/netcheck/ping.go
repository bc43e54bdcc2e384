package netcheck

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"time"

	probing "github.com/prometheus-community/pro-bing"
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
func Ping(ctx context.Context, host string, opts PingOpts) (PingResult, error) {
	p, err := probing.NewPinger(host)
	if err != nil {
		return PingResult{}, fmt.Errorf("ping %s: %w", host, err)
	}
	p.Count = opts.Count
	p.Interval = opts.Interval
	p.Timeout = opts.Timeout
	p.RecordRtts = true
	p.SetPrivileged(os.Geteuid() == 0)
	p.SetLogger(probing.NoopLogger{}) // it logs send errors as "FATAL"; we report them
	var sendErrs int
	var lastErr error
	p.OnSendError = func(_ *probing.Packet, err error) {
		// pro-bing retries a refused request with the same sequence
		// number, so each refusal is one more request that did not arrive.
		sendErrs++
		lastErr = err
	}
	if err := p.RunWithContext(ctx); err != nil {
		return PingResult{}, fmt.Errorf("ping %s: %w", host, err)
	}
	st := p.Statistics()
	r := PingResult{Addr: st.IPAddr.String(), Sent: st.PacketsSent + sendErrs, Received: st.PacketsRecv,
		SendErrors: sendErrs, LastSendError: lastErr,
		Avg: st.AvgRtt, Min: st.MinRtt, Max: st.MaxRtt, P99: percentile(st.Rtts, 0.99)}
	if r.Sent > 0 {
		r.LossPct = math.Max(0, float64(r.Sent-r.Received)/float64(r.Sent)*100)
	}
	return r, nil
}

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
