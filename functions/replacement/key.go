package replacement

import (
	"crypto/ed25519"
	"path/filepath"

	"github.com/gpusla/gpusla/internal/edkey"
)

// KeyFile is where the signing key lives in the data folder.
const KeyFile = "replacement-ed25519.pem"

// PacksDir is the data folder's subfolder packs are written to by default.
const PacksDir = "replacements"

// LoadOrCreateKey reads the pack signing key from dir, creating it (mode
// 0600) on first use, whole or not at all (internal/edkey), so two
// commands starting at once end up with the same key, never one each.
func LoadOrCreateKey(dir string) (ed25519.PrivateKey, error) {
	return edkey.LoadOrCreate(filepath.Join(dir, KeyFile))
}

// ParseKey reads a PEM "PRIVATE KEY" (PKCS #8) ed25519 key, as `openssl
// genpkey -algorithm ed25519` writes it (the Lambda's SSM parameter); path
// names where it came from in errors.
func ParseKey(path string, raw []byte) (ed25519.PrivateKey, error) { return edkey.Parse(path, raw) }
