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
	"os"
	"os/exec"
	"strconv"
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
