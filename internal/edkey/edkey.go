// Package edkey keeps an ed25519 signing key in a PEM file: created on
// first use (mode 0600, whole or not at all), read back, and named by a
// fingerprint. The renter's replacement packs (functions/replacement) and
// a node's signed acceptance record (probe/wire/acceptance) are signed
// with such keys, and their verifiers print the same fingerprint.
package edkey

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpusla/gpusla/internal/atomicfile"
)

// ID is the fingerprint of a public key: the first 16 bytes of its
// SHA-256, hex.
func ID(pub ed25519.PublicKey) string {
	s := sha256.Sum256(pub)
	return hex.EncodeToString(s[:16])
}

// LoadOrCreate reads the key at path, creating it (mode 0600, its folder
// 0700) on first use. It is written to a temporary file, synced and linked
// into place, so two processes starting at once end up with the same key,
// never one each, and a crash leaves no half-written key.
func LoadOrCreate(path string) (ed25519.PrivateKey, error) {
	k, err := load(path)
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return k, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
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
	return load(path)
}

func load(path string) (ed25519.PrivateKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	return Parse(path, raw)
}

// Parse reads a PEM "PRIVATE KEY" (PKCS #8) ed25519 key, as `openssl
// genpkey -algorithm ed25519` writes it; path names where it came from in
// errors.
func Parse(path string, raw []byte) (ed25519.PrivateKey, error) {
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
