package netcheck

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"
)

func freePort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	return p
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func waitTCP(t testing.TB, addr string) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s did not start listening", addr)
}

func contextBackground() context.Context { return context.Background() }
