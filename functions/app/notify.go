package app

import (
	"time"
)

// Clock is the time source; domain code never reads time.Now directly.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock, in UTC.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// SecretBox seals node secrets at rest (see NewAESGCMBox) so a copy of the
// store alone does not let anyone sign batches.
type SecretBox interface {
	Seal(plain []byte, node string) ([]byte, error)
	Open(sealed []byte, node string) ([]byte, error)
}
