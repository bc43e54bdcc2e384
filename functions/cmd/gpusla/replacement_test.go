package main

import (
	"archive/zip"
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/app/apptest"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/probe/wire"
)

// TestRequestReplacementCommand: `gpusla ticket request-replacement` on a
// node whose GPU fell off prints the bilingual text, opens one hardware
// ticket however often it runs, and writes a pack `gpusla verify` accepts
// — and refuses once a byte of it changed.
func TestRequestReplacementCommand(t *testing.T) {
	t.Setenv(wiring.EnvTable, "")
	t.Setenv(wiring.EnvTerms, "../../../testdata/terms")
	data := t.TempDir()
	st, box, err := wiring.OpenData(data, true)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := app.New(app.Config{Store: st, Notifier: &apptest.Notifier{}, Box: box, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	book, _ := wiring.LoadTerms("../../../testdata/terms")
	svc.SetTerms(book)
	n, secret, err := svc.AddNode(t.Context(), app.NewNode{ID: "gz-01", Provider: "acme", Contract: "cn-example",
		OrderedAt: time.Now().Add(-time.Hour), GPUModel: "H200", GPUCount: 8})
	if err != nil {
		t.Fatal(err)
	}
	p := &apptest.Probe{Node: n.ID, Secret: secret}
	now := time.Now().Add(-time.Second)
	_, body := p.Batch(now, wire.Observation{At: now, Kind: wire.KindHeartbeat}, apptest.Check(now,
		wire.Check{Name: "gpu.count", Category: wire.CategoryGPULost, Verdict: wire.Fail, Value: "7", Criterion: "8"}))
	if _, err := svc.Ingest(t.Context(), p.Request(time.Now(), body)); err != nil {
		t.Fatal(err)
	}
	st.Close()

	var ticketLine string
	for i := 0; i < 2; i++ {
		out, err := runTicketCLI(t, "ticket", "request-replacement", "gz-01", "--data", data)
		if err != nil || !strings.Contains(out, "请更换物理机") || !strings.Contains(out, "please replace the physical machine") ||
			!strings.Contains(out, "measured 7, criterion 8") {
			t.Fatalf("run %d: %v\n%s", i, err, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "ticket T-") {
				if i == 1 && !strings.Contains(l, "already open") {
					t.Fatalf("second run: %q", l)
				}
				l, _, _ = strings.Cut(l, " opened")
				l, _, _ = strings.Cut(l, " already open")
				if i == 1 && l != ticketLine {
					t.Fatalf("second run names %q, first %q", l, ticketLine)
				}
				ticketLine = l
			}
		}
	}
	if ticketLine == "" {
		t.Fatal("no ticket line")
	}
	packs, _ := filepath.Glob(filepath.Join(data, "replacements", "*.zip"))
	if len(packs) != 1 {
		t.Fatalf("packs %v", packs)
	}
	out, err := runCLI(t, "verify", packs[0])
	if err != nil || !strings.Contains(out, "OK: the signature") {
		t.Fatalf("verify pack: %v\n%s", err, out)
	}
	if _, err := runCLI(t, "verify", "--key", "0123456789abcdef0123456789abcdef", packs[0]); err == nil {
		t.Fatal("a pack verified against another key")
	}

	// One byte of the raw batch changed.
	zb, _ := os.ReadFile(packs[0])
	zr, _ := zip.NewReader(bytes.NewReader(zb), int64(len(zb)))
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, zf := range zr.File {
		rc, _ := zf.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		if strings.HasPrefix(zf.Name, "batches/") {
			b = bytes.Replace(b, []byte(`"value":"7"`), []byte(`"value":"8"`), 1)
		}
		w, _ := zw.Create(zf.Name)
		w.Write(b)
	}
	zw.Close()
	bad := filepath.Join(t.TempDir(), "bad.zip")
	os.WriteFile(bad, buf.Bytes(), 0o644)
	out, err = runCLI(t, "verify", bad)
	if err == nil || !strings.Contains(out, "MISMATCH batches/") {
		t.Fatalf("tampered pack: %v\n%s", err, out)
	}

	if _, err := runCLI(t, "ticket", "request-replacement", "gz-01", "--data", data, "--lang", "fr"); err == nil || !strings.Contains(err.Error(), `lang "fr"`) {
		t.Fatalf("--lang fr: %v", err)
	}
}
