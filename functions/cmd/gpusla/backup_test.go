package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

// dataFolder is a data folder with its store and master key and one node
// whose secret is sealed with that key; the store is closed.
func dataFolder(t *testing.T, node string) string {
	t.Helper()
	dir := t.TempDir()
	st, box, err := wiring.OpenData(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := box.Seal([]byte("secret of "+node), node)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateNode(context.Background(), store.Node{ID: node, Contract: "c", SealedSecret: sealed}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// snapshotFiles is every file of dir and its bytes.
func snapshotFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&os.ModeSocket != 0 {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	if len(before) != len(after) {
		t.Errorf("%s: %d files before, %d after", what, len(before), len(after))
	}
	for p, b := range before {
		if after[p] != b {
			t.Errorf("%s: %s changed", what, p)
		}
	}
}

// TestBackupRefusesTheStore: `gpusla backup -o` is
// refused, before anything is written, for an output that is the data
// folder's store or key, a symbolic link to one, a path through a linked
// folder, a hard link (the same inode), or another store in use; the data
// folder is left byte for byte as it was. A path elsewhere is written.
func TestBackupRefusesTheStore(t *testing.T) {
	dir := dataFolder(t, "n1")
	db := filepath.Join(dir, wiring.StoreFile)
	other := t.TempDir()
	link := filepath.Join(other, "link.db")
	if err := os.Symlink(db, link); err != nil {
		t.Fatal(err)
	}
	linkedDir := filepath.Join(other, "data")
	if err := os.Symlink(dir, linkedDir); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(other, "hard.db")
	if err := os.Link(db, hard); err != nil {
		t.Fatal(err)
	}
	keyLink := filepath.Join(other, "key")
	if err := os.Symlink(filepath.Join(dir, wiring.MasterKeyFile), keyLink); err != nil {
		t.Fatal(err)
	}
	// A store in use elsewhere: held open (and locked) as serve holds its own.
	live := filepath.Join(t.TempDir(), "live.db")
	ls, err := bolt.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Close()
	cases := map[string]string{
		db: "a file the backend lives on", filepath.Join(dir, ".", wiring.StoreFile): "a file the backend lives on",
		link: "through a symbolic link", filepath.Join(linkedDir, wiring.StoreFile): "through a linked folder",
		hard: "a hard link", filepath.Join(dir, wiring.MasterKeyFile): "a file the backend lives on", keyLink: "through a symbolic link",
		filepath.Join(dir, wiring.StatusTokenFile): "a file the backend lives on", live: "a store in use",
	}
	for out, want := range cases {
		before, liveBefore := snapshotFiles(t, dir), snapshotFiles(t, filepath.Dir(live))
		_, err := runCmd(newBackupCmd(), "--data", dir, "-o", out)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Nothing was written") {
			t.Errorf("-o %s: %v, want ~%q", out, err, want)
		}
		sameFiles(t, out, before, snapshotFiles(t, dir))
		sameFiles(t, out, liveBefore, snapshotFiles(t, filepath.Dir(live)))
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("-o %s: the link was replaced", out)
		}
	}
	// The key kept apart ($GPUSLA_MASTER_KEY_FILE) is the data folder's too.
	apart := filepath.Join(t.TempDir(), "apart.key")
	if err := os.WriteFile(apart, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runCmd(newBackupCmd(), "--data", dir, "--master-key-file", apart, "-o", apart); err == nil || !strings.Contains(err.Error(), "a file the backend lives on") {
		t.Errorf("-o the master key file: %v", err)
	}
	good := filepath.Join(other, "good.db")
	if out, err := runCmd(newBackupCmd(), "--data", dir, "-o", good); err != nil || !strings.Contains(out, "wrote "+good) {
		t.Fatalf("a backup elsewhere: %v %s", err, out)
	}
}

// TestRestoreRefusesAnotherFoldersBackup: a backup
// whose node secrets the data folder's master key does not open is
// refused before anything changes — the store and the key byte for byte as
// they were, no store kept aside — with an error that says so; the folder's
// own backup is restored.
func TestRestoreRefusesAnotherFoldersBackup(t *testing.T) {
	a, b := dataFolder(t, "a1"), dataFolder(t, "b1")
	backupA := filepath.Join(t.TempDir(), "a.db")
	if _, err := runCmd(newBackupCmd(), "--data", a, "-o", backupA); err != nil {
		t.Fatal(err)
	}
	before, backupBefore := snapshotFiles(t, b), snapshotFiles(t, filepath.Dir(backupA))
	_, err := runCmd(newRestoreCmd(), "--data", b, "--from", backupA)
	if err == nil || !strings.Contains(err.Error(), "restore from "+backupA+": the backup does not belong with master key "+filepath.Join(b, wiring.MasterKeyFile)) ||
		!strings.Contains(err.Error(), "wrong master key") || !strings.Contains(err.Error(), "node a1") {
		t.Fatalf("restore of another folder's backup: %v", err)
	}
	sameFiles(t, "refused restore", before, snapshotFiles(t, b))
	sameFiles(t, "the backup read by the refused restore", backupBefore, snapshotFiles(t, filepath.Dir(backupA)))
	// A folder with no key yet: refused too, saying where the key goes.
	empty := t.TempDir()
	if _, err := runCmd(newRestoreCmd(), "--data", empty, "--from", backupA); err == nil || !strings.Contains(err.Error(), "does not exist: put the key the backup was made with there") {
		t.Fatalf("restore without a key: %v", err)
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Fatalf("a refused restore left %d files", len(ents))
	}
	// Its own backup is restored (and the key the backup was made with,
	// given apart, lets another folder take it).
	if out, err := runCmd(newRestoreCmd(), "--data", a, "--from", backupA); err != nil || !strings.Contains(out, "restored") {
		t.Fatalf("restore of the folder's own backup: %v %s", err, out)
	}
	if out, err := runCmd(newRestoreCmd(), "--data", b, "--master-key-file", filepath.Join(a, wiring.MasterKeyFile), "--from", backupA); err != nil || !strings.Contains(out, "kept as") {
		t.Fatalf("restore with the backup's key: %v %s", err, out)
	}
	if raw, _ := os.ReadFile(backupA); !bytes.Contains(raw, []byte("a1")) {
		t.Fatal("the backup does not hold its node")
	}
}
