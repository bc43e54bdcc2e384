package netcheck

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
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

// waitListening waits until something listens on 127.0.0.1:port, without
// connecting to it or binding it: it reads the kernel's socket table.
func waitListening(t testing.TB, port string) {
	t.Helper()
	want := fmt.Sprintf("0100007F:%04X", atoi(port)) // local_address, little-endian IPv4 as the kernel prints it
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile("/proc/net/tcp")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 3 && f[1] == want && f[3] == "0A" { // TCP_LISTEN
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("nothing started listening on 127.0.0.1:%s", port)
}

func contextBackground() context.Context { return context.Background() }
