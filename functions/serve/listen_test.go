package serve

import (
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/wiring"
)

// TestServeWithThePortTaken: a serve whose address is taken says by what —
// a serve already running there (its health check answers) or another
// program — and what to do, and leaves the folder it was started in as it
// was: started by mistake in another directory, it used to leave a new
// store and master key there.
func TestServeWithThePortTaken(t *testing.T) {
	// A serve already running: its API, health check included.
	log := slog.New(slog.DiscardHandler)
	_, svc := testService(t, t.TempDir(), log)
	running, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: httpapi.New(svc, log)}
	go func() { _ = srv.Serve(running) }()
	defer srv.Close()
	// Another program: it takes connections and answers nothing.
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	go func() {
		for {
			c, err := other.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()

	for _, c := range []struct {
		name, addr string
		want       []string
	}{
		{"serve", running.Addr().String(), []string{"address already in use", "a gpusla serve already runs there", "stop it first", "--listen"}},
		{"other", other.Addr().String(), []string{"address already in use", "another program listens there", "--listen with a free port"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			err := Run(t.Context(), Config{Listen: c.addr, Data: data, Watchdog: "@every 1m", Demo: "auto"}, wiring.Env{}, true, log)
			if err == nil {
				t.Fatal("serve started on a taken address")
			}
			for _, w := range append(c.want, c.addr) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if _, err := os.Stat(data); err == nil {
				t.Errorf("serve that could not listen left %s behind", data)
			}
		})
	}
}
