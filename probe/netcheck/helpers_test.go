package netcheck

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/waitfor"
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
	waitListeningIn(t, "/proc/net/tcp", "127.0.0.1", port)
}

// waitListeningIn waits until the socket table at table shows a listener
// on the IPv4 address ip and port; /proc/PID/net/tcp is the table of the
// network namespace process PID is in.
func waitListeningIn(t testing.TB, table, ip, port string) {
	t.Helper()
	a := net.ParseIP(ip).To4()
	want := fmt.Sprintf("%02X%02X%02X%02X:%04X", a[3], a[2], a[1], a[0], atoi(port)) // local_address as the kernel prints it
	waitfor.True(t, "something listening on "+ip+":"+port, func() bool {
		b, err := os.ReadFile(table)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 3 && f[1] == want && f[3] == "0A" { // TCP_LISTEN
				return true
			}
		}
		return false
	})
}

func contextBackground() context.Context { return context.Background() }
