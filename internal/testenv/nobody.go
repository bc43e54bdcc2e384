package testenv

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// AsNobody runs test (a test of the calling test binary) again in a copy
// of the binary as uid and gid 65534, with env=1 in its environment so the
// test knows it is the child, and returns what it printed: how a check
// behaves for a user without root's rights, from a suite run as root. The
// copy sits in a folder nobody may enter, as the binary's own may not be.
func AsNobody(t testing.TB, test, env string) []byte {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, filepath.Base(os.Args[0]))
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+test+"$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s as nobody: %v\n%s", test, err, out)
	}
	return out
}
