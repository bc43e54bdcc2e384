package wiring

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store/bolt"
)

// CheckBackupTarget refuses, before anything is written, a backup output
// path out that would replace or alias a file the backend lives on: the
// data folder dir's store, master key, status token, action-link secret,
// backup socket or a store a restore kept beside it, the master key at
// keyPath, or any store in use (locked by a running process) — whether out
// names it, is a symbolic link to it, reaches it through a linked folder,
// or is a hard link to it (the same inode). A backup written there would be
// renamed over the live store under serve, past its lock.
func CheckBackupTarget(dir, out, keyPath string) error {
	target, err := resolvePath(out)
	if err != nil {
		return fmt.Errorf("-o %s: %w", out, err)
	}
	protected := []string{filepath.Join(dir, StoreFile), filepath.Join(dir, MasterKeyFile), filepath.Join(dir, StatusTokenFile),
		filepath.Join(dir, ActionSecretFile), filepath.Join(dir, BackupSocket), keyPath}
	kept, _ := filepath.Glob(filepath.Join(dir, StoreFile+".replaced-*"))
	outInfo, outErr := os.Stat(out)
	for _, p := range append(protected, kept...) {
		if p == "" {
			continue
		}
		rp, err := resolvePath(p)
		if err != nil {
			return fmt.Errorf("-o %s: %w", out, err)
		}
		same := rp == target
		if pi, err := os.Stat(p); err == nil && outErr == nil && os.SameFile(pi, outInfo) {
			same = true
		}
		if same {
			return fmt.Errorf("-o %s: that is %s, a file the backend lives on (%s); write the backup elsewhere, outside the data folder. Nothing was written", out, p, linkNote(out, target, rp))
		}
	}
	if outErr == nil && outInfo.Mode().IsRegular() {
		if used, err := bolt.InUse(target); err != nil {
			return fmt.Errorf("-o %s: %w", out, err)
		} else if used {
			return fmt.Errorf("-o %s: %s is a store in use (locked by a running process, `gpusla serve`?); write the backup elsewhere. Nothing was written", out, target)
		}
	}
	return nil
}

// linkNote says how out reaches the file it names (target, resolved; rp
// the protected file's own resolved path).
func linkNote(out, target, rp string) string {
	if fi, err := os.Lstat(out); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return "through a symbolic link to " + target
	}
	if abs, err := filepath.Abs(out); err == nil && filepath.Clean(abs) != target {
		return "through a linked folder: " + target
	}
	if target != rp {
		return "a hard link to it: the same inode"
	}
	return "the same file"
}

// resolvePath is p's absolute path with every symbolic link on it
// followed, p itself included (a dangling one too: a new file would be
// written where it points, once the link is resolved by a later tool).
func resolvePath(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	for range 40 {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			break
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = filepath.Clean(to)
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(p))
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil // a folder that does not exist holds no store
	}
	if err != nil {
		return "", err
	}
	return filepath.Join(parent, filepath.Base(p)), nil
}

// CheckRestoreKey refuses, before anything changes, a backup (from) whose
// node secrets the master key at keyPath does not open: restored, it would
// leave a data folder every command refuses with "wrong master key". The
// backup is only read.
func CheckRestoreKey(ctx context.Context, from, keyPath string) error {
	snap, err := bolt.OpenSnapshot(from)
	if err != nil {
		return fmt.Errorf("restore from %s: %w", from, err)
	}
	defer snap.Close()
	box, err := LoadMasterKey(keyPath, false)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restore from %s: master key %s does not exist: put the key the backup was made with there (or give --master-key-file) first; nothing was changed", from, keyPath)
	}
	if err != nil {
		return fmt.Errorf("restore from %s: %w", from, err)
	}
	if _, err := app.CheckMasterKey(ctx, snap, box); err != nil {
		return fmt.Errorf("restore from %s: the backup does not belong with master key %s: %w", from, keyPath, err)
	}
	return nil
}
