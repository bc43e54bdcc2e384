package replacement

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpusla/gpusla/internal/atomicfile"
)

// KeyFile is where the signing key lives in the data folder.
const KeyFile = "replacement-ed25519.pem"

// PacksDir is the data folder's subfolder packs are written to by default.
const PacksDir = "replacements"

// LoadOrCreateKey reads the pack signing key from dir, creating it (mode
// 0600) on first use. The key is created whole or not at all: written to a
// temporary file and linked into place, so two commands starting at once
// end up with the same key, never one each.
func LoadOrCreateKey(dir string) (ed25519.PrivateKey, error) {
	path := filepath.Join(dir, KeyFile)
	k, err := loadKey(path)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return k, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	tmp := path + ".new-" + rand.Text()
	if err := atomicfile.WriteFile(tmp, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	return loadKey(path)
}

func loadKey(path string) (ed25519.PrivateKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	return ParseKey(path, raw)
}

// ParseKey reads a PEM "PRIVATE KEY" (PKCS #8) ed25519 key, as `openssl
// genpkey -algorithm ed25519` writes it (the Lambda's SSM parameter); path
// names where it came from in errors.
func ParseKey(path string, raw []byte) (ed25519.PrivateKey, error) {
	blk, _ := pem.Decode(raw)
	if blk == nil || blk.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("signing key %s: not a PEM \"PRIVATE KEY\" block", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", path, err)
	}
	ek, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("signing key %s: a %T, want ed25519", path, k)
	}
	return ek, nil
}
