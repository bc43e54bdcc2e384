package bolt

import (
	"errors"
	"fmt"
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
