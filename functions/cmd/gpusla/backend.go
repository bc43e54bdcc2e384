package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

// The data folder of the local backend: the store, the master key that
// seals node secrets, and the demo probe's spool.
const (
	storeFile     = "gpusla.db"
	masterKeyFile = "master.key"
)

// openData opens (creating if asked) the data folder's store and secret box.
func openData(dir string, create bool) (*bolt.Store, app.SecretBox, error) {
	if !create {
		if _, err := os.Stat(filepath.Join(dir, storeFile)); err != nil {
			return nil, nil, fmt.Errorf("data folder %s has no store (%s): run `gpusla serve --data %s` or `gpusla node add --data %s` first", dir, storeFile, dir, dir)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("data folder: %w", err)
	}
	// A master key with no store beside it means the store was there and
	// is gone (deleted, moved, a wrong --data): starting an empty one would
	// hide that all history is missing.
	if _, err := os.Stat(filepath.Join(dir, storeFile)); errors.Is(err, fs.ErrNotExist) {
		if _, kerr := os.Stat(filepath.Join(dir, masterKeyFile)); kerr == nil {
			return nil, nil, fmt.Errorf("data folder %s has a master key but no store %s: the store is missing. Restore it (`gpusla restore --data %s --from BACKUP`), or move %s away to start an empty store",
				dir, storeFile, dir, masterKeyFile)
		}
	}
	box, err := loadMasterKey(filepath.Join(dir, masterKeyFile), create)
	if err != nil {
		return nil, nil, err
	}
	st, err := bolt.Open(filepath.Join(dir, storeFile))
	if err != nil {
		return nil, nil, err
	}
	return st, box, nil
}

// loadMasterKey reads the 0600 key file, creating it (32 random bytes, hex)
// when create is set and it does not exist. A key readable by others is
// refused: it unseals every node's secret.
func loadMasterKey(path string, create bool) (app.SecretBox, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && create {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := writeFileAtomic(path, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("master key: %w", err)
		}
		return app.NewAESGCMBox(key)
	}
	if err != nil {
		return nil, fmt.Errorf("master key: %w", err)
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("master key %s is readable by others (mode %04o); chmod 600 it", path, st.Mode().Perm())
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("master key %s: want 64 hex digits", path)
	}
	return app.NewAESGCMBox(key)
}

// writeFileAtomic writes data to path via a temp file, fsync and rename,
// so a crash leaves the old file or the new one, never half of one.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// noNotifier is for offline commands that change no incident; it refuses,
// so a code path that did try to alert would fail loudly, not silently.
type noNotifier struct{}

var errOffline = errors.New("this command sends no messages")

func (noNotifier) Notify(context.Context, notify.Alert) (string, error) { return "", errOffline }

func (noNotifier) NotifyTicket(context.Context, notify.TicketMessage) (string, error) {
	return "", errOffline
}

// quietLogger logs warnings and errors only, for offline commands.
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
