// Package testenv decides what a test does when something it needs from
// the machine is not there: a tool (iperf3, nft, make, chromium), a
// service (dynalite, the Lambda emulator, s3rver) or a privilege (root for
// network namespaces and raw sockets).
//
// On a developer's machine such a test skips, saying what is missing and
// how to get it (scripts/setup.sh). Under CI=true it fails instead: a
// green CI run must mean every test ran, not that half of them skipped
// quietly on a runner that lacked a package.
//
// GPU absence is not handled here: no CI runner has a GPU, so tests that
// need NVML or CUDA keep calling t.Skip.
package testenv

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// CI reports whether the tests run in CI, where nothing may be missing.
// CI=true (or 1) is what GitHub Actions, GitLab and most runners set.
func CI() bool {
	v, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && v
}

// Missing ends t for want of something the machine lacks: it skips with
// the reason, or under CI=true fails with it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if CI() {
		t.Fatalf("CI=true and a test prerequisite is missing: "+format, args...)
	}
	t.Skipf(format, args...)
}

// LookPath returns the path of the executable name, or ends t with
// Missing, naming the tool and how to get it (hint).
func LookPath(t testing.TB, name, hint string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s is not installed (%s): %v", name, hint, err)
	}
	return p
}

// NeedRoot ends t with Missing unless the test runs as root; why says
// what root is for (ip netns, raw ICMP sockets, mount).
func NeedRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Missing(t, "needs root (%s)", why)
	}
}

// Chromium returns the path of a headless-capable Chromium (Debian's
// chromium, chromium-browser or google-chrome), or ends t with Missing.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, c := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	Missing(t, "chromium not installed (scripts/setup.sh installs Debian's chromium)")
	return ""
}

// Tmpfs mounts a tmpfs of size bytes on a fresh folder and returns it; it
// is unmounted when t ends. It needs root (mount), and ends t with Missing
// where it cannot mount. A tmpfs is how a test fills a disk to the last
// byte without touching the machine's own.
func Tmpfs(t testing.TB, size int64) string {
	t.Helper()
	NeedRoot(t, "mount a tmpfs")
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.FormatInt(size, 10)+",mode=0700", "tmpfs", dir).CombinedOutput()
	if err != nil {
		Missing(t, "cannot mount a tmpfs on %s: %v: %s", dir, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// Fill writes the file name in dir until its file system has no room left
// (ENOSPC) and returns how many bytes it took; the caller removes the file
// to make room again.
func Fill(t testing.TB, dir, name string) int64 {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("fill %s: %v", dir, err)
	}
	defer f.Close()
	var n int64
	chunk := make([]byte, 4096)
	for {
		m, err := f.Write(chunk)
		n += int64(m)
		if errors.Is(err, syscall.ENOSPC) {
			return n
		}
		if err != nil {
			t.Fatalf("fill %s: %v", dir, err)
		}
	}
}
