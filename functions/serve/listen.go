package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/gpusla/gpusla/functions/httpapi"
)

// listen opens serve's address, or says what is in the way and what to do
// about it: the two mistakes of a first day are a second serve started
// while one runs and a port below 1024 without root.
func listen(ctx context.Context, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	switch {
	case err == nil:
		return ln, nil
	case errors.Is(err, syscall.EADDRINUSE) && isServe(ctx, addr):
		return nil, fmt.Errorf("listen on %s: %w: a gpusla serve already runs there (its %s answered); stop it first (Ctrl-C where it runs), or give this one --listen with another port and a --data folder of its own",
			addr, err, httpapi.PathHealth)
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("listen on %s: %w: another program listens there (`ss -ltnp` names it); stop it, or give serve --listen with a free port (127.0.0.1:8081)", addr, err)
	case errors.Is(err, syscall.EACCES):
		return nil, fmt.Errorf("listen on %s: %w: a port below 1024 needs root (or CAP_NET_BIND_SERVICE); give --listen with a port of 1024 or more", addr, err)
	}
	return nil, fmt.Errorf("listen on %s: %w (--listen takes HOST:PORT with an address of this machine, 127.0.0.1:8080 by default)", addr, err)
}

// isServe says whether what listens on addr answers serve's health check
// the way serve does.
func isServe(ctx context.Context, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+httpapi.PathHealth, nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var h struct {
		Status string    `json:"status"`
		Time   time.Time `json:"time"`
	}
	return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&h) == nil && h.Status == "ok" && !h.Time.IsZero()
}
