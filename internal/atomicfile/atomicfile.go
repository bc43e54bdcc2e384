// Package atomicfile replaces a file whole or not at all. The probe's
// spool, state and snapshots and the backend's blobs, backups, reports,
// exports, keys and tokens are all written through it, so every one of
// them obeys the same rule after a crash or a full disk: a reader finds the
// old file (or none) or the whole new one, never a part.
//
// How: the data goes into a temporary file in the same folder (a rename is
// atomic only within one file system), named ".tmp-BASE-RANDOM" so that a
// folder's reader can pass over it and a recovery can remove what a crash
// left; the file is fsync'ed, given its mode, optionally checked, renamed
// over the target, and then the folder is fsync'ed. Both fsyncs matter:
// without the first a crash can leave the new name pointing at blocks never
// written (ext4's delayed allocation, XFS), and without the second the
// rename itself may not survive a power cut, bringing back the old file
// after the caller was told the new one is stored. Write returns nil only
// when both have been done. A file system that cannot sync a folder at all
// (EINVAL, ENOTSUP: some FUSE and network file systems) is taken as having
// nothing more to do.
//
// On any error the temporary file is removed and the target is left as it
// was; errors keep their cause (errors.Is sees ENOSPC, for a caller that
// frees room and tries again).
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// TempPrefix starts the name of every temporary file this package makes.
// A folder's reader skips names with it; a recovery may remove them.
const TempPrefix = ".tmp-"

// IsTemp reports whether name (a base name) is one of this package's
// temporary files, left behind only by a crash.
func IsTemp(name string) bool { return strings.HasPrefix(name, TempPrefix) }

// Option changes how Write writes.
type Option func(*options)

type options struct {
	check func(tmp string) error
}

// Check runs check on the temporary file once it is complete and synced,
// before it replaces the target: an error leaves the target as it was. A
// backup is verified this way, so that a kept backup can be restored.
func Check(check func(tmp string) error) Option {
	return func(o *options) { o.check = check }
}

// Write runs write into a temporary file beside path (through a buffer)
// and puts it in place with mode, durably, only when write and every step
// after it succeeded. The error is write's or the file system's, wrapped
// with the path.
func Write(path string, mode os.FileMode, write func(io.Writer) error, opts ...Option) error {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	if err := fill(f, mode, write); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if o.check != nil {
		if err := o.check(tmp); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// fill writes, flushes, sets the mode of, syncs and closes f.
func fill(f *os.File, mode os.FileMode, write func(io.Writer) error) error {
	bw := bufio.NewWriterSize(f, 1<<16)
	err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		// Chmod, not CreateTemp's 0600 and the umask: the mode asked for,
		// exactly (a report 0640, a snapshot 0644, a key 0600).
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteFile writes data to path as Write does.
func WriteFile(path string, data []byte, mode os.FileMode, opts ...Option) error {
	return Write(path, mode, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, opts...)
}

// SyncDir makes the folder's entries durable: after a rename, a create or
// a remove in it. A file system that cannot sync folders (EINVAL, ENOTSUP)
// has nothing to make durable and is no error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}
