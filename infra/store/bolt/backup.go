package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/gpusla/gpusla/internal/atomicfile"

	bbolt "go.etcd.io/bbolt"
)

// Backups. A store in use is locked by its process (`gpusla serve`), so a
// backup of a running store is written by that process: Backup copies the
// file inside one read transaction (bbolt's Tx.WriteTo), which sees one
// committed state while ingest goes on writing. ServeBackups offers that
// copy on a unix socket in the data folder (owner-only, like the folder),
// and FetchBackup takes it from there. A store nobody has open is copied
// by opening it read-only (BackupFile). Either way the copy is written
// whole or not at all and verified before it is kept.

// Backup writes a consistent snapshot of the store to w and returns its size.
func (s *Store) Backup(w io.Writer) (int64, error) { return snapshot(s.db)(w) }

// snapshot writes db as one read transaction sees it.
func snapshot(db *bbolt.DB) func(io.Writer) (int64, error) {
	return func(w io.Writer) (int64, error) {
		var n int64
		err := db.View(func(tx *bbolt.Tx) error {
			var err error
			n, err = tx.WriteTo(w)
			return err
		})
		if err != nil {
			return n, fmt.Errorf("backup: %w", err)
		}
		return n, nil
	}
}

// ServeBackups answers every connection on ln with a snapshot: its size
// (8 bytes, big-endian), then the file. It returns when ln is closed.
func (s *Store) ServeBackups(ln net.Listener) error {
	for {
		c, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("backup socket: %w", err)
		}
		go func() {
			defer c.Close()
			_ = s.db.View(func(tx *bbolt.Tx) error {
				if err := binary.Write(c, binary.BigEndian, tx.Size()); err != nil {
					return err
				}
				_, err := tx.WriteTo(c)
				return err
			})
		}()
	}
}

// ListenBackups creates the backup socket at path, owner-only. A socket
// left by a process that is gone is replaced; the caller holds the store
// open (and so its lock), so no live process can own it.
func ListenBackups(path string) (net.Listener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("backup socket %s: %w", path, err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("backup socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("backup socket %s: %w", path, err)
	}
	return ln, nil
}

// FetchBackup writes the snapshot a running store offers on the socket at
// sock to dst (see WriteBackup). ok is false when nothing answers there.
func FetchBackup(sock, dst string) (n int64, ok bool, err error) {
	c, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		return 0, false, nil
	}
	defer c.Close()
	var size int64
	if err := binary.Read(c, binary.BigEndian, &size); err != nil {
		return 0, true, fmt.Errorf("backup from %s: %w", sock, err)
	}
	n, err = writeBackup(dst, func(w io.Writer) (int64, error) { return io.Copy(w, c) })
	if err == nil && n != size {
		os.Remove(dst)
		err = fmt.Errorf("backup from %s: got %d of %d bytes", sock, n, size)
	}
	return n, true, err
}

// BackupFile copies the store at path, which no process may have open, to dst.
func BackupFile(path, dst string) (int64, error) {
	if err := verifyUnlocked(path); err != nil {
		return 0, err
	}
	db, err := openBolt(path, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return writeBackup(dst, snapshot(db))
}

// WriteBackup writes the snapshot s holds now to dst (see writeBackup).
func (s *Store) WriteBackup(dst string) (int64, error) {
	return writeBackup(dst, s.Backup)
}

// writeBackup writes a snapshot to dst, checked as Open would check it
// before it replaces dst: a backup that is kept can be restored.
func writeBackup(dst string, write func(io.Writer) (int64, error)) (int64, error) {
	var n int64
	err := atomicfile.Write(dst, 0o600, func(w io.Writer) (err error) {
		n, err = write(w)
		return err
	}, atomicfile.Check(func(tmp string) error {
		if err := verifyCopy(tmp); err != nil {
			return fmt.Errorf("the copy does not verify: %w", err)
		}
		return nil
	}))
	if err != nil {
		return n, fmt.Errorf("backup: %w", err)
	}
	return n, nil
}

// verifyCopy checks a store file as Open does (Verify, then bbolt's check)
// without changing it.
func verifyCopy(path string) error {
	if err := Verify(path); err != nil {
		return err
	}
	db, err := openBolt(path, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return err
	}
	defer db.Close()
	return check(db, path)
}

// Restore puts the backup at src in place of the store at path. The
// backup is verified first; a store in use (locked: `gpusla serve` is
// running) is refused, and a store already there is kept beside it as
// path.replaced-<time>, which Restore returns. Nothing is overwritten.
func Restore(src, path string) (kept string, err error) {
	if err := verifyCopy(src); err != nil {
		return "", fmt.Errorf("restore from %s: %w", src, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("restore: %w", err)
	}
	// Hold the store's lock (exclusive, as bbolt's writer takes it) from
	// the check until the new file is in place.
	if cur, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		defer cur.Close()
		if err := flockExclusive(cur); err != nil {
			return "", fmt.Errorf("restore: store %s is in use (is `gpusla serve` running on this data folder? stop it first): %w", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("restore: %w", err)
	}
	in, err := os.Open(src)
	if err != nil {
		return "", fmt.Errorf("restore: %w", err)
	}
	defer in.Close()
	if _, err := os.Stat(path); err == nil {
		kept = fmt.Sprintf("%s.replaced-%s", path, time.Now().UTC().Format("20060102T150405Z"))
		if err := os.Link(path, kept); err != nil {
			return "", fmt.Errorf("restore: keep the current store as %s: %w", kept, err)
		}
	}
	if err := atomicfile.Write(path, 0o600, func(w io.Writer) error { _, err := io.Copy(w, in); return err }); err != nil {
		if kept != "" {
			os.Remove(kept) // the store is still in place under its own name
		}
		return "", fmt.Errorf("restore from %s: %w", src, err)
	}
	return kept, nil
}
