package serve

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/serve/servetest"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/internal/waitfor"
	"github.com/gpusla/gpusla/probe/config"
	"github.com/gpusla/gpusla/probe/push"
	"github.com/gpusla/gpusla/probe/spool"
	"github.com/gpusla/gpusla/probe/wire"
)

// serve --tls-cert/--tls-key: the probe's own sender, configured with
// backend.ca_file, pushes over https and the batch is stored; without the
// CA the certificate is refused, plain http gets no answer from serve, and
// the probe still refuses plain http to an address that is not loopback.
func TestServeOverTLS(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	certFile, keyFile := servetest.SelfSigned(t, dir)
	reg := servetest.Register(t, data)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := Config{Listen: addr, Data: data, Watchdog: "@every 1m", Demo: "auto", TLSCert: certFile, TLSKey: keyFile}
	if err := c.Validate("test"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, c, wiring.Env{}, true, slog.New(slog.DiscardHandler)) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	base := "https://" + addr

	// The probe's config, as an operator writes it for this serve.
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, reg.Secret, 0o600); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "gpuprobe.yaml")
	doc := fmt.Sprintf("node: gz-01\nbackend:\n  url: %s%s\n  ca_file: cert.pem\nsecret_file: secret\n", base, httpapi.PathBatches)
	if err := os.WriteFile(cfgFile, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	client := push.Client(10*time.Second, cfg.Backend.RootCAs, nil)
	waitfor.True(t, "serve up over https", func() bool {
		resp, err := client.Get(base + httpapi.PathHealth)
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})

	// Without the CA the certificate is not trusted; plain http is no way in.
	var unknown x509.UnknownAuthorityError
	if _, err := push.Client(10*time.Second, nil, nil).Get(base + httpapi.PathHealth); !errors.As(err, &unknown) {
		t.Errorf("https without backend.ca_file: %v, want an unknown-authority error", err)
	}
	if resp, err := http.Get("http://" + addr + httpapi.PathHealth); err == nil {
		if resp.StatusCode == http.StatusOK {
			t.Errorf("plain http to a TLS serve answered 200")
		}
		resp.Body.Close()
	}

	// The probe's sender pushes a spooled heartbeat over https.
	sp, err := spool.Open(spool.Options{Dir: filepath.Join(dir, "spool"), MaxBytes: 8 << 20, Node: cfg.Node, Probe: "test", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	if _, err := sp.Append([]wire.Observation{{At: time.Now().UTC(), Kind: wire.KindHeartbeat}}); err != nil {
		t.Fatal(err)
	}
	snd := &push.Sender{URL: cfg.Backend.URL, Node: cfg.Node, Secret: cfg.Secret, Queue: sp, Client: client,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, Log: slog.New(slog.DiscardHandler)}
	pctx, stopPush := context.WithCancel(ctx)
	pushed := make(chan struct{})
	go func() { defer close(pushed); _ = snd.Run(pctx) }()
	t.Cleanup(stopPush)
	waitfor.True(t, "a push acked over https", func() bool { return snd.Stats().Acked > 0 })
	stopPush()
	<-pushed
	req, _ := http.NewRequest(http.MethodGet, base+httpapi.PathNodes, nil)
	req.Header.Set("Authorization", "Bearer "+reg.ReadKey)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var views []httpapi.NodeView
	_ = json.NewDecoder(resp.Body).Decode(&views)
	resp.Body.Close()
	if len(views) != 1 || views[0].ID != "gz-01" || views[0].LastSeq != 1 {
		t.Fatalf("nodes over https: %+v (the demo must stay off: a real node is registered, and TLS is on)", views)
	}

	// Plain http is still refused by the probe except to loopback.
	_, err = config.Parse([]byte("node: gz-01\nbackend:\n  url: http://192.0.2.10:8080/v1/batches\nsecret_file: secret\n"), "p.yaml")
	if err == nil || !strings.Contains(err.Error(), "plain http is allowed only to localhost") {
		t.Fatalf("plain http to a remote backend: %v", err)
	}
}
