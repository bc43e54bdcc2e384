package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A write that fails leaves the old file as it was and no temporary file;
// one that succeeds replaces it whole, with the mode asked for.
func TestWriteIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "report.json")
	if err := WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, 0o600, func(w io.Writer) error {
		if _, err := w.Write([]byte("half of the new")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), p) {
		t.Fatalf("failed write returned %v, want its own error naming the file", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "old" {
		t.Fatalf("after a failed write the file holds %q, want the old content", got)
	}
	if err := WriteFile(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(got) != "new" || st.Mode().Perm() != 0o600 {
		t.Fatalf("after a write: %q mode %v, want \"new\" 0600", got, st.Mode().Perm())
	}
	onlyFile(t, dir)
}

// The mode is the one asked for, whatever the process's umask would make of
// it, and a file larger than the buffer arrives whole.
func TestModeExactAndLargeFileWhole(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	p := filepath.Join(dir, "snapshot.json")
	data := []byte(strings.Repeat("0123456789abcdef", 1<<14)) // 256 KiB, 4 buffers
	if err := WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(got) != string(data) || st.Mode().Perm() != 0o644 {
		t.Fatalf("got %d bytes mode %v, want %d bytes 0644", len(got), st.Mode().Perm(), len(data))
	}
}

// A check that refuses the complete temporary file keeps the target as it
// was; the check sees the whole new content under a temporary name.
func TestCheckRefusalKeepsTheTarget(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "store.db.bak")
	if err := WriteFile(p, []byte("good backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := errors.New("the copy does not verify")
	var seen string
	err := WriteFile(p, []byte("torn backup"), 0o600, Check(func(tmp string) error {
		b, _ := os.ReadFile(tmp)
		seen = filepath.Base(tmp) + "=" + string(b)
		return bad
	}))
	if !errors.Is(err, bad) {
		t.Fatalf("got %v, want the check's error", err)
	}
	if !strings.HasPrefix(seen, TempPrefix+"store.db.bak-") || !strings.HasSuffix(seen, "=torn backup") {
		t.Fatalf("check saw %q, want the whole new content under a temporary name", seen)
	}
	if got, _ := os.ReadFile(p); string(got) != "good backup" {
		t.Fatalf("after a refused check the file holds %q", got)
	}
	onlyFile(t, dir)
	if err := WriteFile(p, []byte("next"), 0o600, Check(func(string) error { return nil })); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "next" {
		t.Fatalf("after an accepted check the file holds %q", got)
	}
}

// While a write is under way (what a crash leaves) the folder holds the
// target's old version and one temporary file that IsTemp names as such.
func TestTemporaryFileIsRecognisable(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	err := Write(p, 0o600, func(io.Writer) error {
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 || !IsTemp(ents[0].Name()) {
			t.Errorf("during the write the folder holds %v, want one temporary file", ents)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if IsTemp("state.json") || IsTemp("tmp-state") || !IsTemp(".tmp-state.json-123") {
		t.Error("IsTemp misjudges a name")
	}
}

// A folder that is not there cannot take the file; the error says which
// file, and nothing is created.
func TestMissingFolderIsAnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gone", "f")
	if err := WriteFile(p, []byte("x"), 0o600); err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), p) {
		t.Fatalf("got %v, want a not-exist error naming %s", err, p)
	}
	if err := SyncDir(filepath.Dir(p)); err == nil {
		t.Fatal("SyncDir of a missing folder succeeded")
	}
}

// A rename that fails (the target is a folder) keeps its cause for the
// caller, leaves the target as it was and removes the temporary file.
func TestFailedRenameKeepsItsCause(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(p, []byte("new"), 0o600)
	if !errors.Is(err, syscall.EISDIR) && !errors.Is(err, syscall.EEXIST) {
		t.Fatalf("got %v, want the rename's cause", err)
	}
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		t.Fatalf("target changed: %v %v", st, err)
	}
	onlyFile(t, dir)
}

func onlyFile(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("folder holds %d entries, want only the file (no temporary left)", len(ents))
	}
}
