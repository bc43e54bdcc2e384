package wiring

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/infra/notify"
)

// An offline command that reads opens only an existing store; one that
// registers creates it. The ticket desk reads the data folder's terms/.
func TestOpenOffline(t *testing.T) {
	dir := t.TempDir()
	env := Env{}
	if _, err := env.OpenOffline(t.Context(), dir, false); err == nil || !strings.Contains(err.Error(), "has no store") {
		t.Fatalf("read-only open of an empty folder: %v", err)
	}
	o, err := env.OpenOffline(t.Context(), dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, StoreFile)); err != nil {
		t.Fatalf("no store created: %v", err)
	}
	// No terms yet: the desk opens, with no contract to time against.
	if _, err := o.Tickets(); err != nil {
		t.Fatalf("desk without terms: %v", err)
	}
	if _, err := (NoNotifier{}).Notify(t.Context(), notify.Alert{}); !errors.Is(err, ErrOffline) {
		t.Fatalf("offline notifier sent a message: %v", err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	o, err = env.OpenOffline(t.Context(), dir, false)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer o.Close()
	if err := os.MkdirAll(filepath.Join(dir, TermsDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, TermsDir, "bad.yaml"), []byte("contract: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Tickets(); err == nil || !strings.Contains(err.Error(), "bad.yaml") {
		t.Fatalf("desk on a malformed terms file: %v", err)
	}
}

// serve's first log line says where its store is; when serve made it just
// now it says so, with the absolute path, so that a mistyped --data or a
// serve started in another directory is seen for the empty store it is.
func TestOpenStoreSaysWhenItCreatedTheStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dta")
	abs, err := filepath.Abs(filepath.Join(dir, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"embedded " + filepath.Join(dir, StoreFile) + ", created now: there was none (" + abs + ")", "embedded " + filepath.Join(dir, StoreFile)} {
		st, _, where, err := Env{}.OpenStore(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		if where != want {
			t.Errorf("open %d: store at %q, want %q", i+1, where, want)
		}
	}
}
