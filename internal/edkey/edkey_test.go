package edkey

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Created once, 0600, in a folder made for it; every later (or
// concurrent) call reads the same key; a file that is no key is named.
func TestLoadOrCreateMakesOneKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "node-ed25519.pem")
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := LoadOrCreate(path)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = ID(k.Public().(ed25519.PublicKey))
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] || len(id) != 32 {
			t.Fatalf("keys %v", ids)
		}
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key file %v %v", st, err)
	}
	if _, err := Parse("x.pem", []byte("not a key")); err == nil || !strings.Contains(err.Error(), `signing key x.pem: not a PEM "PRIVATE KEY" block`) {
		t.Errorf("garbage: %v", err)
	}
}
