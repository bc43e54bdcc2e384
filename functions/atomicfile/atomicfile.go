// Package atomicfile writes a file whole or not at all: into a temporary
// file beside it, fsync'ed, then renamed into place, so a crash or an error
// leaves the old file (or none), never half of the new one. Reports,
// bundles, exports, the master key and the status token are written so.
package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// Write runs write into a temporary file beside path (buffered) and renames
// it into place with the given mode only when everything was written and
// synced. The error is write's, or the file system's.
func Write(path string, mode os.FileMode, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	bw := bufio.NewWriterSize(f, 1<<20)
	err = f.Chmod(mode)
	if err == nil {
		err = write(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return err
	}
	// The rename is durable once the folder is synced too.
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// WriteFile writes data to path atomically with the given mode.
func WriteFile(path string, data []byte, mode os.FileMode) error {
	return Write(path, mode, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
