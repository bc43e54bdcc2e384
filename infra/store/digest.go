package store

import (
	"context"
	"time"
)

// DayDigest is what one node's stored batches received in one UTC day
// hold for the month's books, written once the day can take no more
// (functions/daydigest encodes Body; the store keeps it as opaque bytes):
// a month's books read a day's digest instead of its batches.
type DayDigest struct {
	Node string
	// Day is the day's first instant, UTC midnight.
	Day  time.Time
	Body []byte
	// ExpiresAt is the earliest expiry of the batches it holds (zero:
	// none expires): from then on the store no longer hands it over, and
	// the day's batches are read as they are.
	ExpiresAt time.Time
}

// Digests keeps the nodes' day digests: written once, never rewritten.
type Digests interface {
	// PutDigest stores d; ErrExists when the node's day has one already
	// (the first written stays).
	PutDigest(ctx context.Context, d DayDigest) error
	// EachDigest walks the node's unexpired digests of the days beginning
	// in [from, to), in day order. A record it cannot read is an error
	// naming the node and the day, never skipped.
	EachDigest(ctx context.Context, node string, from, to time.Time, fn func(*DayDigest) error) error
}

// DayOf is the UTC day holding t: its first instant.
func DayOf(t time.Time) time.Time {
	return t.UTC().Truncate(24 * time.Hour)
}
