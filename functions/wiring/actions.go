package wiring

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpusla/gpusla/functions/actionlink"
)

// ActionSecretFile is the data folder's secret that signs the alert links
// (functions/actionlink): 64 hex digits, 0600, made on the first start with
// a public URL. Replacing or deleting it (a new one is made) rotates it:
// every link signed before is refused from then on.
const ActionSecretFile = "action-link.key"

// LocalActionLinks is serve's link signer: nil when $GPUSLA_PUBLIC_URL is not
// set (alerts then carry no links and the action routes are not served);
// the secret is <data>/action-link.key, created on first use.
func (e Env) LocalActionLinks(dir string) (*actionlink.Signer, error) {
	if e.PublicURL == "" {
		return nil, nil
	}
	path := filepath.Join(dir, ActionSecretFile)
	raw, err := readOrCreateSecret("action link secret", path, 32)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("action link secret %s is readable by others (mode %04o); chmod 600 it", path, st.Mode().Perm())
	}
	return e.actionLinks(path, raw)
}

// actionLinks parses a secret (64 hex digits; where names it in errors)
// and builds the signer for the public URL.
func (e Env) actionLinks(where, raw string) (*actionlink.Signer, error) {
	key, err := hex.DecodeString(strings.TrimSpace(raw))
	if err != nil || len(key) < actionlink.MinSecret {
		return nil, fmt.Errorf("action link secret %s: want 64 hex digits (openssl rand -hex 32)", where)
	}
	s, err := actionlink.NewSigner(key, e.PublicURL, 0, time.Now)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvPublicURL, err)
	}
	return s, nil
}
