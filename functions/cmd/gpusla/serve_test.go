package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/nodeadd"
	"github.com/gpusla/gpusla/functions/serve"
	"github.com/gpusla/gpusla/functions/serve/servetest"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/internal/waitfor"
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
	reg := servetest.Register(t, dir)
	n, secret, readKey := reg.Node, reg.Secret, reg.ReadKey
	var out bytes.Buffer
	if err := nodeadd.Print(&out, n, secret, nodeadd.Probe{BackendURL: "http://127.0.0.1:8080/v1/batches", SecretFile: "/etc/gpuprobe/secret", GPUMemoryGB: 80}); err != nil {
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
	waitfor.True(t, "serve up", func() bool {
		resp, err := http.Get(base + httpapi.PathHealth)
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
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
	if resp, err := http.Get(base + httpapi.PathNodes); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("nodes without an API key: %v %v, want 401", resp, err)
	} else {
		resp.Body.Close()
	}
	req, _ = http.NewRequest(http.MethodGet, base+httpapi.PathNodes, nil)
	req.Header.Set("Authorization", "Bearer "+readKey)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var views []httpapi.NodeView
	_ = json.NewDecoder(resp.Body).Decode(&views)
	resp.Body.Close()
	if len(views) != 1 || views[0].ID != "gz-01" || views[0].LastSeq != 1 {
		t.Fatalf("nodes: %+v (the demo must stay off when a real node is registered)", views)
	}
	// The admin commands reach the running serve with --server (its store
	// is locked): the key from the environment, refusals as the local
	// command words them, the release then in GET /v1/nodes.
	t.Setenv(wiring.EnvAPIKey, "")
	if _, err := runCmd(newNodeCmd(), "release", "gz-01", "--at", now.Format(time.RFC3339), "--server", base); err == nil ||
		!strings.Contains(err.Error(), "$"+wiring.EnvAPIKey) {
		t.Fatalf("release over HTTP without a key: %v", err)
	}
	t.Setenv(wiring.EnvAPIKey, reg.ReadKey)
	if _, err := runCmd(newNodeCmd(), "release", "gz-01", "--at", now.Format(time.RFC3339), "--server", base); err == nil ||
		!strings.Contains(err.Error(), `"admin"`) {
		t.Fatalf("release over HTTP with a read key: %v", err)
	}
	t.Setenv(wiring.EnvAPIKey, reg.AdminKey)
	if _, err := runCmd(newNodeCmd(), "release", "gz-01", "--at", "2020-01-01T00:00:00Z", "--server", base); err == nil ||
		!strings.HasPrefix(err.Error(), "--at: 2020-01-01T00:00:00Z is before the node was ordered") {
		t.Fatalf("release before the order over HTTP: %v", err)
	}
	if _, err := runCmd(newNodeCmd(), "release", "gz-01", "--at", now.Format(time.RFC3339), "--server", "ftp://x"); err == nil ||
		!strings.Contains(err.Error(), "--server") {
		t.Fatalf("a bad --server: %v", err)
	}
	relAt := now
	if out, err := runCmd(newNodeCmd(), "release", "gz-01", "--at", relAt.Format(time.RFC3339Nano), "--server", base); err != nil ||
		!strings.Contains(out, "node gz-01 released at "+relAt.Format(time.RFC3339Nano)) {
		t.Fatalf("release over HTTP: %v %s", err, out)
	}
	if out, err := runCmd(newMaintenanceCmd(), "add", "--node", "gz-01", "--start", relAt.Add(time.Hour).Format(time.RFC3339),
		"--end", relAt.Add(2*time.Hour).Format(time.RFC3339), "--announced-at", relAt.Format(time.RFC3339), "--server", base); err != nil ||
		!strings.Contains(out, "maintenance node:gz-01@") {
		t.Fatalf("maintenance over HTTP: %v %s", err, out)
	}
	req, _ = http.NewRequest(http.MethodGet, base+httpapi.PathNodes, nil)
	req.Header.Set("Authorization", "Bearer "+readKey)
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	views = nil
	_ = json.NewDecoder(resp.Body).Decode(&views)
	resp.Body.Close()
	if len(views) != 1 || views[0].InService || !views[0].ReleasedAt.Equal(relAt) {
		t.Fatalf("nodes after the release: %+v", views)
	}
	// A backup while serve runs comes from serve itself; a restore over the
	// running store is refused.
	backup := filepath.Join(t.TempDir(), "snap.db")
	if out, err := runCmd(newBackupCmd(), "--data", dir, "-o", backup); err != nil || !strings.Contains(out, "wrote "+backup) {
		t.Fatalf("backup while serving: %v %s", err, out)
	}
	if _, err := runCmd(newRestoreCmd(), "--data", dir, "--from", backup); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("restore while serving: %v", err)
	}
	// A backup pointed at the live store is refused
	// before serve writes a byte, the store's file (its inode) untouched.
	liveDB := filepath.Join(dir, wiring.StoreFile)
	fiBefore, _ := os.Stat(liveDB)
	if _, err := runCmd(newBackupCmd(), "--data", dir, "-o", liveDB); err == nil || !strings.Contains(err.Error(), "a file the backend lives on") {
		t.Fatalf("backup over the live store: %v", err)
	}
	if fiAfter, err := os.Stat(liveDB); err != nil || !os.SameFile(fiBefore, fiAfter) {
		t.Fatalf("the live store was replaced: %v", err)
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
	st, _, err := wiring.OpenData(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.ListBackendRuns(context.Background(), time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	if err != nil || len(runs) != 1 || !runs[0].Stopped {
		t.Fatalf("backend runs %+v, %v: want one, stopped", runs, err)
	}
	st.Close()
	// Restored once serve is gone: the snapshot has the batch, not the stop.
	if out, err := runCmd(newRestoreCmd(), "--data", dir, "--from", backup); err != nil || !strings.Contains(out, "kept as") {
		t.Fatalf("restore: %v %s", err, out)
	}
	st, _, err = wiring.OpenData(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := st.GetState(t.Context(), "gz-01"); err != nil || s.LastSeq != 1 {
		t.Fatalf("restored state %+v, %v", s, err)
	}
	if runs, _ := st.ListBackendRuns(t.Context(), time.Now().Add(-time.Hour), time.Now().Add(time.Hour)); len(runs) != 1 || runs[0].Stopped {
		t.Fatalf("restored backend runs %+v: want the one running when the snapshot was taken", runs)
	}
	// What was sent with --server is recorded by the admin key,
	// what the command line records locally by cli:USER.
	rn, err := st.GetNode(t.Context(), "gz-01")
	ms, _ := st.ListMaintenance(t.Context(), relAt, relAt.Add(3*time.Hour))
	if err != nil || !strings.HasPrefix(rn.ReleaseRecordedBy, "api:") || rn.ReleaseRecordedAt.IsZero() || len(ms) != 1 || !strings.HasPrefix(ms[0].RecordedBy, "api:") {
		t.Fatalf("the release %+v and notices %+v: want both recorded by the admin key", rn, ms)
	}
	st.Close()
	cli, err := runCmd(newMaintenanceCmd(), "add", "--node", "gz-01", "--start", relAt.Add(3*time.Hour).Format(time.RFC3339),
		"--end", relAt.Add(4*time.Hour).Format(time.RFC3339), "--announced-at", relAt.Format(time.RFC3339), "--data", dir)
	if err != nil || !strings.Contains(cli, " by cli:") {
		t.Fatalf("maintenance recorded by the command line: %v %s; want it recorded by cli:USER", err, cli)
	}
}

func runCmd(cmd *cobra.Command, args ...string) (string, error) {
	var out bytes.Buffer
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	return out.String(), err
}

// TestServeRefusesDamagedStore: an empty or truncated store file, or a
// data folder with a master key and no store, stops serve at once with an
// error naming the file and what is wrong; nothing is created or changed.
func TestServeRefusesDamagedStore(t *testing.T) {
	good := t.TempDir()
	st, _, err := wiring.OpenData(good, true)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	raw, err := os.ReadFile(filepath.Join(good, wiring.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	key, _ := os.ReadFile(filepath.Join(good, wiring.MasterKeyFile))
	cases := map[string]struct {
		store []byte // nil: no store file
		want  string
	}{
		"empty store":           {[]byte{}, "empty (0 bytes)"},
		"truncated store":       {raw[:3*4096], "truncated"},
		"store missing, key on": {nil, "has a master key but no store"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, wiring.MasterKeyFile), key, 0o600); err != nil {
				t.Fatal(err)
			}
			if c.store != nil {
				if err := os.WriteFile(filepath.Join(dir, wiring.StoreFile), c.store, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := serve.Run(t.Context(), serve.Config{Listen: "127.0.0.1:0", Data: dir, Watchdog: "@every 1m", Demo: "off"}, wiring.Env{}, true, wiring.QuietLogger())
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("serve: %v; want an error naming %s and saying %q", err, dir, c.want)
			}
			after, statErr := os.ReadFile(filepath.Join(dir, wiring.StoreFile))
			if c.store == nil && statErr == nil {
				t.Fatal("serve created a store where one was missing")
			}
			if c.store != nil && !bytes.Equal(after, c.store) {
				t.Fatal("serve changed the damaged store")
			}
		})
	}
}

// TestServeRefusesWrongMasterKey: serve started with a key other than the
// one the node secrets were sealed with stops at once, naming the key file
// (it used to report healthy and answer every push with 500); the key may
// live outside the data folder (--master-key-file), and then none is made
// in the folder.
func TestServeRefusesWrongMasterKey(t *testing.T) {
	dir := t.TempDir()
	keyPath := filepath.Join(t.TempDir(), "elsewhere.key")
	env := wiring.Env{MasterKeyFile: keyPath}
	st, box, _, err := env.OpenStore(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := app.New(app.Config{Store: st, Notifier: wiring.NoNotifier{}, Box: box, Log: wiring.QuietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.AddNode(t.Context(), app.NewNode{ID: "gz-01", Provider: "acme", Contract: "c", OrderedAt: time.Now(), GPUCount: 8}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := os.Stat(filepath.Join(dir, wiring.MasterKeyFile)); err == nil {
		t.Fatal("a master key was made in the data folder although --master-key-file was given")
	}
	// The right key from outside the folder opens it.
	st2, _, _, err := env.OpenStore(t.Context(), dir)
	if err != nil {
		t.Fatalf("open with the key outside the data folder: %v", err)
	}
	st2.Close()
	// Another key is refused, naming its file and a node it cannot open.
	other := filepath.Join(t.TempDir(), "other.key")
	if err := os.WriteFile(other, []byte(strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(e wiring.Env) error {
		return serve.Run(t.Context(), serve.Config{Listen: "127.0.0.1:0", Data: dir, Watchdog: "@every 1m", Demo: "off"}, e, true, wiring.QuietLogger())
	}
	if err := run(wiring.Env{MasterKeyFile: other}); !errors.Is(err, app.ErrWrongMasterKey) || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), "gz-01") {
		t.Fatalf("serve with another key: %v; want the wrong-key error naming %s and gz-01", err, other)
	}
	// No key given, and none in the folder: refused, and no new key made
	// (it would seal nothing the store holds).
	if err := run(wiring.Env{}); err == nil || !strings.Contains(err.Error(), "does not exist, but the store") {
		t.Fatalf("serve without the key: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, wiring.MasterKeyFile)); err == nil {
		t.Fatal("serve made a new master key for a store that has one")
	}
}
