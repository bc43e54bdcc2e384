package wiring

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMasterKeyPermissions(t *testing.T) {
	dir := t.TempDir()
	st, _, err := OpenData(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	key := filepath.Join(dir, MasterKeyFile)
	if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("master key mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	if err := os.Chmod(key, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenData(dir, false); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("open with a world-readable key: %v", err)
	}
}
