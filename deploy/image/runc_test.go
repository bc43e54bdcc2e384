package image_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/gpusla/gpusla/internal/testenv"
)

// built is what scripts/build-images.sh wrote, once per test binary.
var built struct {
	once sync.Once
	dir  string
	out  string
	err  error
}

func root() string {
	_, f, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(f), "..", ".."))
}

// buildImages runs the project's own script, as a release would.
func buildImages(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "gpusla-images")
		if built.err != nil {
			return
		}
		cmd := exec.Command("bash", "scripts/build-images.sh", built.dir)
		cmd.Dir = root()
		cmd.Env = append(os.Environ(), "VERSION=test")
		out, err := cmd.CombinedOutput()
		built.out, built.err = string(out), err
	})
	if built.err != nil {
		t.Fatalf("scripts/build-images.sh: %v\n%s", built.err, built.out)
	}
	return built.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// readImage reads the one image of an OCI layout.
func readImage(t *testing.T, dir string) v1.Image {
	t.Helper()
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		t.Fatalf("%s: %v manifests, %v", dir, len(m.Manifests), err)
	}
	img, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// unpack writes img's file system under rootfs, as a runtime would.
func unpack(t *testing.T, img v1.Image, rootfs string) {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(rootfs, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, os.FileMode(h.Mode).Perm())
		case tar.TypeSymlink:
			err = os.Symlink(h.Linkname, p)
		case tar.TypeReg:
			var f *os.File
			if f, err = os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode).Perm()); err == nil {
				_, err = io.Copy(f, tr)
				f.Close()
			}
		}
		if err == nil {
			err = os.Lchown(p, h.Uid, h.Gid)
		}
		if err == nil && h.Typeflag != tar.TypeSymlink {
			err = os.Chmod(p, os.FileMode(h.Mode)&os.ModePerm|modeBits(h.Mode))
		}
		if err != nil {
			t.Fatalf("unpack %s: %v", h.Name, err)
		}
	}
}

func modeBits(m int64) os.FileMode {
	if m&0o1000 != 0 {
		return os.ModeSticky
	}
	return 0
}

// bundle is an OCI runtime bundle of an image: its root file system
// (read-only) and a config.json made from the image's config.
type bundle struct {
	dir  string
	conf map[string]any
}

func newBundle(t *testing.T, img v1.Image, caps []string) *bundle {
	t.Helper()
	dir := t.TempDir()
	// The root folder as an image's is: searchable by every user.
	if err := os.Mkdir(filepath.Join(dir, "rootfs"), 0o755); err != nil {
		t.Fatal(err)
	}
	unpack(t, img, filepath.Join(dir, "rootfs"))
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	var uid, gid int
	fmt.Sscanf(cf.Config.User, "%d:%d", &uid, &gid)
	capList := make([]string, 0, len(caps))
	for _, c := range caps {
		capList = append(capList, "CAP_"+c)
	}
	b := &bundle{dir: dir, conf: map[string]any{
		"ociVersion": "1.0.2",
		"process": map[string]any{"terminal": false, "user": map[string]any{"uid": uid, "gid": gid},
			"args": append(append([]string{}, cf.Config.Entrypoint...), cf.Config.Cmd...), "env": cf.Config.Env, "cwd": cf.Config.WorkingDir,
			"noNewPrivileges": true,
			"capabilities":    map[string]any{"bounding": capList, "effective": capList, "permitted": capList}},
		"root":     map[string]any{"path": "rootfs", "readonly": true},
		"hostname": "image-test",
		"mounts": []any{
			map[string]any{"destination": "/proc", "type": "proc", "source": "proc"},
			map[string]any{"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": []string{"nosuid", "strictatime", "mode=755", "size=65536k"}},
			map[string]any{"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": []string{"nosuid", "noexec", "nodev", "ro"}},
			map[string]any{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": []string{"nosuid", "nodev", "mode=1777"}},
		},
		"linux": map[string]any{"namespaces": []any{map[string]any{"type": "pid"}, map[string]any{"type": "ipc"},
			map[string]any{"type": "uts"}, map[string]any{"type": "mount"}, map[string]any{"type": "network"}}},
	}}
	return b
}

// args replaces the process's arguments after the entrypoint.
func (b *bundle) args(cmd ...string) {
	p := b.conf["process"].(map[string]any)
	entry := p["args"].([]string)[:1]
	p["args"] = append(append([]string{}, entry...), cmd...)
}

// file puts a host file into the container, read-only, at dst.
func (b *bundle) file(t *testing.T, dst, content string, mode os.FileMode) {
	t.Helper()
	src := filepath.Join(b.dir, "files", strings.ReplaceAll(dst, "/", "_"))
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	b.mount(map[string]any{"destination": dst, "type": "bind", "source": src, "options": []string{"bind", "ro"}})
}

// writable makes dst a tmpfs owned by uid.
func (b *bundle) writable(dst string, uid int) {
	b.mount(map[string]any{"destination": dst, "type": "tmpfs", "source": "tmpfs",
		"options": []string{"nosuid", "nodev", "mode=700", fmt.Sprintf("uid=%d", uid), fmt.Sprintf("gid=%d", uid)}})
}

func (b *bundle) mount(m map[string]any) { b.conf["mounts"] = append(b.conf["mounts"].([]any), m) }

// run runs the bundle under runc until it exits or until the output holds
// ready, then stops it with SIGTERM; it returns the output, how long after the
// start ready appeared, and the exit error.
func (b *bundle) run(t *testing.T, runc, ready string) (string, time.Duration, error) {
	t.Helper()
	raw, _ := json.Marshal(b.conf)
	if err := os.WriteFile(filepath.Join(b.dir, "config.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("gpusla-image-test-%d", time.Now().UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, runc, "run", "--bundle", b.dir, id)
	var out syncBuf
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var took time.Duration
	for {
		select {
		case err := <-done:
			return out.String(), took, err
		case <-time.After(20 * time.Millisecond):
		}
		if ready != "" && took == 0 && strings.Contains(out.String(), ready) {
			took = time.Since(start)
			_ = exec.Command(runc, "kill", id, "TERM").Run()
		}
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func needRunc(t *testing.T) string {
	t.Helper()
	testenv.NeedRoot(t, "runc runs containers as root")
	return testenv.LookPath(t, "runc", "apt-get install runc (scripts/setup.sh)")
}
