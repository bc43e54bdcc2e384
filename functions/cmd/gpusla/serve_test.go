package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/serve"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/probe/wire"
)

func TestServeConfigErrorsNameTheField(t *testing.T) {
	cases := map[string]string{
		"listen: [1, 2]\n":                    "listen",
		"lissten: 127.0.0.1:1\n":              "lissten",
		"listen: nope\n":                      "listen",
		"watchdog: every minute\n":            "watchdog",
		"demo: maybe\n":                       "demo",
		"retention: soon\n":                   "retention",
		"slack:\n  webhook_url: ftp://x\n":    "slack.webhook_url",
		"slack:\n  bot_token: xoxb-1\n":       "slack.channel",
		"slack:\n  webhok_url: https://x/y\n": "webhok_url",
	}
	for body, field := range cases {
		p := filepath.Join(t.TempDir(), "serve.yaml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := newServeCmd()
		cmd.SetArgs([]string{"--config", p, "--data", t.TempDir()})
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("config %q: error %v, want one naming %q", body, err, field)
		}
	}
}

// serve end to end: a node registered with `node add`'s code path, a
// signed batch over real HTTP, the node's view, a clean shutdown that records
// the backend's stop.
func TestServeIngestsOverHTTP(t *testing.T) {
	dir := t.TempDir()
	st, box, err := wiring.OpenData(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := app.New(app.Config{Store: st, Notifier: noNotifier{}, Box: box, Log: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	n, secret, err := svc.AddNode(t.Context(), app.NewNode{ID: "gz-01", Provider: "acme", Contract: "c", OrderedAt: time.Now(), GPUCount: 8})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	var out bytes.Buffer
	if err := printNodeAdded(&out, n, secret, "http://127.0.0.1:8080/v1/batches", "/etc/gpuprobe/secret", 80); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), string(secret)) != 1 || !strings.Contains(out.String(), "backend:\n    url: http://127.0.0.1:8080/v1/batches") {
		t.Fatalf("node add output:\n%s", out.String())
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	go func() {
		done <- serve.Run(ctx, serve.Config{Listen: addr, Data: dir, Watchdog: "@every 1m", Demo: "auto"}, wiring.Env{}, true, log)
	}()
	base := "http://" + addr
	for i := 0; ; i++ {
		if resp, err := http.Get(base + httpapi.PathHealth); err == nil {
			resp.Body.Close()
			break
		}
		if i > 100 {
			t.Fatal("serve did not come up")
		}
		time.Sleep(20 * time.Millisecond)
	}
	now := time.Now().UTC()
	body, err := wire.Encode(&wire.Batch{V: wire.Version, ID: "b1", Node: "gz-01", Probe: "test", Seq: 1, CreatedAt: now,
		Observations: []wire.Observation{{At: now, Kind: wire.KindHeartbeat}}})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, base+httpapi.PathBatches, bytes.NewReader(body))
	wire.SetHeaders(req.Header, "gz-01", secret, now, body)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var ack wire.Ack
	_ = json.NewDecoder(resp.Body).Decode(&ack)
	resp.Body.Close()
	if resp.StatusCode != 200 || ack.Status != wire.AckStored {
		t.Fatalf("POST: %d %+v", resp.StatusCode, ack)
	}
	resp, err = http.Get(base + httpapi.PathNodes)
	if err != nil {
		t.Fatal(err)
	}
	var views []httpapi.NodeView
	_ = json.NewDecoder(resp.Body).Decode(&views)
	resp.Body.Close()
	if len(views) != 1 || views[0].ID != "gz-01" || views[0].LastSeq != 1 {
		t.Fatalf("nodes: %+v (the demo must stay off when a real node is registered)", views)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	st, _, err = wiring.OpenData(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.ListBackendRuns(context.Background(), time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	if err != nil || len(runs) != 1 || !runs[0].Stopped {
		t.Fatalf("backend runs %+v, %v: want one, stopped", runs, err)
	}
}
