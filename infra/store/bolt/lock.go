package bolt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// verifyUnlocked runs Verify on path under a shared lock on the file, the
// lock bbolt's own writer takes exclusively: a store in use by another
// process is reported as locked, not read half-written and called damaged.
func verifyUnlocked(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("store %s: %w", path, err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return errLocked(path)
		}
		return fmt.Errorf("store %s: lock: %w", path, err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return Verify(path)
}

// flockExclusive takes the lock bbolt's writer takes, without waiting.
func flockExclusive(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// InUse reports whether the file at path is held by a store in use: the
// lock bbolt's writer takes is held (`gpusla serve` has it open). A file
// that does not exist is not in use.
func InUse(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return true, nil
		}
		return false, fmt.Errorf("%s: lock: %w", path, err)
	}
	return false, syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
