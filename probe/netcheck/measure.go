package netcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// TCPResult is what a run of TCP connects measured.
type TCPResult struct {
	Attempts, Connected int
	Avg, Max            time.Duration
	LastErr             error
}

// TCPConnect opens (and closes) count connections to addr, one after the
// other, and times each handshake.
func TCPConnect(ctx context.Context, addr string, count int, timeout time.Duration) TCPResult {
	var r TCPResult
	var total time.Duration
	d := net.Dialer{Timeout: timeout}
	for range count {
		if ctx.Err() != nil {
			r.LastErr = ctx.Err()
			break
		}
		r.Attempts++
		start := time.Now()
		c, err := d.DialContext(ctx, "tcp", addr)
		el := time.Since(start)
		if err != nil {
			r.LastErr = err
			continue
		}
		c.Close()
		r.Connected++
		total += el
		r.Max = max(r.Max, el)
	}
	if r.Connected > 0 {
		r.Avg = total / time.Duration(r.Connected)
	}
	return r
}

// HTTPResult is what one request measured.
type HTTPResult struct {
	Status  int
	Latency time.Duration // until the response headers arrived
}

// HTTPProbe makes one request on a fresh connection (so the time includes
// DNS, TCP and TLS, as a first download from the mirror would).
func HTTPProbe(ctx context.Context, method, url string, timeout time.Duration) (HTTPResult, error) {
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, DisableKeepAlives: true,
		TLSHandshakeTimeout: timeout, ResponseHeaderTimeout: timeout}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr, Timeout: timeout}
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return HTTPResult{}, err
	}
	req.Header.Set("User-Agent", "gpuprobe")
	start := time.Now()
	resp, err := cl.Do(req)
	if err != nil {
		return HTTPResult{}, err
	}
	el := time.Since(start)
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return HTTPResult{Status: resp.StatusCode, Latency: el}, nil
}

// DNSResult is what one lookup measured.
type DNSResult struct {
	Addrs []string
	Time  time.Duration
}

// Resolve looks host up, through server (ip:port) if given, else the
// system's resolver configuration.
func Resolve(ctx context.Context, host, server string, timeout time.Duration) (DNSResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r := &net.Resolver{PreferGo: true}
	if server != "" {
		r.Dial = func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, server)
		}
	}
	start := time.Now()
	addrs, err := r.LookupHost(ctx, host)
	el := time.Since(start)
	if err != nil {
		var de *net.DNSError
		if errors.As(err, &de) && de.IsNotFound {
			return DNSResult{Time: el}, fmt.Errorf("%s: no such host", host)
		}
		if de != nil && server != "" {
			// The resolver names the server of resolv.conf, which our
			// Dial replaced: name the one actually asked.
			de.Server = server
		}
		return DNSResult{Time: el}, err
	}
	return DNSResult{Addrs: addrs, Time: el}, nil
}
