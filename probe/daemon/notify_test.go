package daemon

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/probe/config"
)

// The daemon tells systemd it is ready once running and feeds the watchdog
// at half of WATCHDOG_USEC, over the $NOTIFY_SOCKET datagram socket systemd
// would hand it (here one the test listens on), and says when it stops.
func TestNotifiesSystemdReadyWatchdogAndStopping(t *testing.T) {
	h := newHarness(t)
	sock := filepath.Join(t.TempDir(), "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", sock)
	t.Setenv("WATCHDOG_USEC", "200000") // 200 ms: a ping every 100 ms
	h.write("schedules:\n  heartbeat: 1h\n  health: \"off\"\n  network: \"off\"\n  stress: \"off\"\n")
	h.start(func(*config.Config) (Jobs, error) { return Jobs{}, nil }, nil)

	read := func() string {
		t.Helper()
		buf := make([]byte, 256)
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := conn.Read(buf)
		if err != nil {
			t.Fatalf("no notify message: %v", err)
		}
		return string(buf[:n])
	}
	if got := read(); got != "READY=1" {
		t.Fatalf("first message %q, want READY=1", got)
	}
	for i := range 3 {
		if got := read(); got != "WATCHDOG=1" {
			t.Fatalf("message %d after READY %q, want WATCHDOG=1", i, got)
		}
	}
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	for {
		got := read()
		if got == "STOPPING=1" {
			break
		}
		if !strings.HasPrefix(got, "WATCHDOG=") {
			t.Fatalf("unexpected message %q before STOPPING=1", got)
		}
	}
}
