package image_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/deploy/image"
)

// Building an image twice from the same files gives the same digest; the
// layer's entries are sorted and dated at the given instant.
func TestImagesAreReproducible(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "gpusla")
	if err := os.WriteFile(bin, []byte("#!/bin/false\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var digests [2]string
	for i := range digests {
		s, err := image.Serve(bin, "v1", at)
		if err != nil {
			t.Fatal(err)
		}
		img, err := image.Build(s)
		if err != nil {
			t.Fatal(err)
		}
		d, err := img.Digest()
		if err != nil {
			t.Fatal(err)
		}
		digests[i] = d.String()
	}
	if digests[0] != digests[1] {
		t.Fatalf("two builds: %s and %s", digests[0], digests[1])
	}
	raw, err := image.Layer([]image.File{{Path: "b/x", Mode: 0o644, Data: []byte("x")}, {Path: "a", Mode: 0o644}}, at)
	if err != nil {
		t.Fatal(err)
	}
	if i, j, k := strings.Index(string(raw), "a\x00"), strings.Index(string(raw), "b/\x00"), strings.Index(string(raw), "b/x\x00"); i < 0 || j < i || k < j {
		t.Fatalf("entries not sorted with their folders: %d %d %d", i, j, k)
	}
	if _, err := image.Layer([]image.File{{Path: "a", Data: []byte("1")}, {Path: "/a", Data: []byte("2")}}, at); err == nil {
		t.Fatal("a path given twice was accepted")
	}
}

// scripts/build-images.sh run twice from the same checkout gives images
// of the same digests and sizes: the binaries (-trimpath, no build id or
// VCS stamp), libc6's files, the dates (SOURCE_DATE_EPOCH, the commit's
// time) and the layer's order are all fixed. (A second build in a fresh
// Go build cache gave the same digests too: docs/BENCHMARKS.md.)
func TestBuildImagesTwiceGivesTheSameDigests(t *testing.T) {
	first, err := os.ReadFile(filepath.Join(buildImages(t), "images.txt"))
	if err != nil {
		t.Fatal(err)
	}
	again := t.TempDir()
	cmd := exec.Command("bash", "scripts/build-images.sh", again)
	cmd.Dir = root()
	cmd.Env = append(os.Environ(), "VERSION=test")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/build-images.sh again: %v\n%s", err, out)
	}
	second, err := os.ReadFile(filepath.Join(again, "images.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// name digest bytes folder: all but the folder must agree.
	fields := func(raw []byte) []string {
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			f := strings.Fields(line)
			if len(f) != 4 || !strings.HasPrefix(f[1], "sha256:") {
				t.Fatalf("images.txt line %q: want name, digest, bytes, folder", line)
			}
			out = append(out, strings.Join(f[:3], " "))
		}
		return out
	}
	a, b := fields(first), fields(second)
	if len(a) != 2 || strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("two builds:\n%s\n---\n%s", first, second)
	}
	t.Logf("both builds: %s", strings.Join(a, "; "))
}

// gpuprobe's image, built by scripts/build-images.sh, runs under runc
// from Debian's packages: it starts (version), reads a good config and
// runs the daemon until SIGTERM, and refuses a bad config with the file,
// line and field.
func TestProbeImageRunsUnderRunc(t *testing.T) {
	runc := needRunc(t)
	img := readImage(t, filepath.Join(buildImages(t), "gpuprobe"))
	cf, _ := img.ConfigFile()
	if cf.Config.User != "0:0" || cf.Config.Entrypoint[0] != "/usr/local/bin/gpuprobe" {
		t.Fatalf("config %+v", cf.Config)
	}

	b := newBundle(t, img, []string{"NET_RAW", "SYSLOG"})
	b.args("version")
	out, _, err := b.run(t, runc, "")
	if err != nil || strings.TrimSpace(out) != "test" {
		t.Fatalf("gpuprobe version: %v\n%s", err, out)
	}

	b = newBundle(t, img, []string{"NET_RAW", "SYSLOG"})
	b.file(t, "/etc/gpuprobe/probe.yaml", "node: gpu-01\nbackend:\n  url: ftp://sla.example.com/v1/batches\nsecret_file: secret\n", 0o600)
	out, _, err = b.run(t, runc, "")
	if err == nil || !strings.Contains(out, "/etc/gpuprobe/probe.yaml:3: backend.url:") || !strings.Contains(out, "is not an http(s) URL") {
		t.Fatalf("a bad config: %v\n%s", err, out)
	}

	b = newBundle(t, img, []string{"NET_RAW", "SYSLOG"})
	b.file(t, "/etc/gpuprobe/probe.yaml", "node: gpu-01\nbackend: {url: http://127.0.0.1:9/v1/batches}\nsecret_file: secret\n"+
		"schedules: {health: \"off\", network: \"off\", stress: \"off\", usage: \"off\", heartbeat: 1s}\n", 0o600)
	b.file(t, "/etc/gpuprobe/secret", "0123456789abcdef0123456789abcdef\n", 0o600)
	b.writable("/var/lib/gpuprobe", 0)
	b.writable("/run/gpuprobe", 0)
	out, took, err := b.run(t, runc, `"msg":"gpuprobe running"`)
	if took == 0 || err != nil || !strings.Contains(out, `"node":"gpu-01"`) || !strings.Contains(out, `"msg":"gpuprobe stopped"`) {
		t.Fatalf("the daemon with a good config: %v (ready after %s)\n%s", err, took, out)
	}
	d, _ := img.Digest()
	size, _ := image.Size(img)
	t.Logf("gpuprobe image %s, %d bytes, daemon running %s after runc run", d, size, took.Round(time.Millisecond))
}

// serve's image runs as the non-root user under runc: it starts on an
// empty data folder, and refuses a bad config naming the field.
func TestServeImageRunsUnderRunc(t *testing.T) {
	runc := needRunc(t)
	img := readImage(t, filepath.Join(buildImages(t), "gpusla"))
	cf, _ := img.ConfigFile()
	if cf.Config.User != "65532:65532" {
		t.Fatalf("serve runs as %q, want the non-root 65532", cf.Config.User)
	}

	b := newBundle(t, img, nil)
	b.args("serve", "--config", "/etc/gpusla/serve.yaml", "--data", "/data")
	b.file(t, "/etc/gpusla/serve.yaml", "listen: nope\n", 0o644)
	b.writable("/data", image.NonRoot)
	out, _, err := b.run(t, runc, "")
	if err == nil || !strings.Contains(out, "listen") {
		t.Fatalf("a bad config: %v\n%s", err, out)
	}

	b = newBundle(t, img, nil)
	b.args("serve", "--listen", "0.0.0.0:8080", "--data", "/data", "--demo", "off", "--log-format", "json")
	b.writable("/data", image.NonRoot)
	out, took, err := b.run(t, runc, "gpusla serve is up")
	if took == 0 || err != nil {
		t.Fatalf("serve: %v (ready after %s)\n%s", err, took, out)
	}
	d, _ := img.Digest()
	size, _ := image.Size(img)
	t.Logf("gpusla image %s, %d bytes, serve up %s after runc run", d, size, took.Round(time.Millisecond))
}
