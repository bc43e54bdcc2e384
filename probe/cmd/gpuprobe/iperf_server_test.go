package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/netcheck"
)

// `gpuprobe iperf-server` serves a real iperf3 client on loopback, and
// stops its iperf3 when the command is stopped.
func TestIperfServerServesAndStops(t *testing.T) {
	bin := testenv.LookPath(t, "iperf3", "scripts/setup.sh installs it")
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serveIperf(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), bin, port, "127.0.0.1")
	}()
	var (
		res netcheck.IperfResult
		err error
	)
	// The server is up once a client run succeeds.
	waitfor.True(t, "an iperf3 run against iperf-server", func() bool {
		res, err = netcheck.RunIperf(context.Background(), netcheck.Iperf{Host: "127.0.0.1", Port: port,
			Duration: time.Second, Parallel: 1, Binary: bin})
		return err == nil
	})
	if res.Mbps <= 0 {
		t.Fatalf("iperf3 client against iperf-server: %+v %v", res, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("iperf-server did not stop")
	}
	if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
		c.Close()
		t.Fatal("iperf3 still listening after stop")
	}
}
