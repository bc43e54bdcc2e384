package wiring

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/functions/actionlink"
)

// TestLocalActionLinks: no public URL, no links; with one, the secret is
// made once (0600) and kept across starts, so a link made before a restart
// still verifies; a new secret file (a rotation) refuses it; a secret
// others can read, or a bad public URL, stops start-up.
func TestLocalActionLinks(t *testing.T) {
	dir := t.TempDir()
	if s, err := (Env{}).LocalActionLinks(dir); s != nil || err != nil {
		t.Fatalf("without a public URL: %v %v", s, err)
	}
	e := Env{PublicURL: "https://gpusla.example.com"}
	s1, err := e.LocalActionLinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ActionSecretFile)
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v %v", st, err)
	}
	link, _ := s1.ReplacementURL("gz-01", "gpu_lost@20261130T100030.000Z")
	u, _ := url.Parse(link)
	s2, err := e.LocalActionLinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Verify(actionlink.ActionReplacement, u.Query()); err != nil {
		t.Fatalf("after a restart: %v", err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s3, err := e.LocalActionLinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s3.Verify(actionlink.ActionReplacement, u.Query()); !errors.Is(err, actionlink.ErrInvalid) {
		t.Fatalf("after rotating the secret: %v, want ErrInvalid", err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LocalActionLinks(dir); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("a 0644 secret: %v", err)
	}
	os.Chmod(path, 0o600)
	if err := os.WriteFile(path, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.LocalActionLinks(dir); err == nil || !strings.Contains(err.Error(), "64 hex digits") {
		t.Fatalf("a short secret: %v", err)
	}
	if _, err := (Env{PublicURL: "gpusla.example.com"}).LocalActionLinks(t.TempDir()); err == nil || !strings.Contains(err.Error(), EnvPublicURL) {
		t.Fatalf("a public URL without scheme: %v", err)
	}
	if err := (Env{Table: "t", SecretsPath: "/p", PublicURL: "ftp://x"}).Check(); err == nil {
		t.Fatal("Check accepted an ftp public URL")
	}
}
