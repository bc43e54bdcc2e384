package wiring

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/infra/store"
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

// Opening a data folder writes nothing to a complete store: not when the
// open succeeds (a read command), not when the master key check then
// refuses it ("nothing was changed", the error says). Every bbolt write
// rewrites a meta page, and the open used to make one each time.
func TestOpenLeavesTheStoreAsItWas(t *testing.T) {
	dir := t.TempDir()
	st, _, err := OpenData(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	// A node whose secret no key opens: the next open is refused as a wrong key.
	if err := st.CreateNode(t.Context(), store.Node{ID: "gz-01", Provider: "acme", Contract: "c", GPUCount: 8, SealedSecret: []byte("sealed with another key")}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	file := filepath.Join(dir, StoreFile)
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenData(dir, false); err == nil || !strings.Contains(err.Error(), "wrong master key") {
		t.Fatalf("open: %v, want the wrong key refused", err)
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
		t.Fatal("a refused open rewrote the store file")
	}
}
