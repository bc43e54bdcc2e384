package store

import (
	"context"
	"errors"
	"strconv"
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
	// Voided is a day whose digest a batch stored after the day was over
	// took away (Body is nil): the day is read from its records until it
	// is sealed again. Void is the mark of the day's last such batch (""
	// for a day never voided): a digest written over a voided day carries
	// the mark its writer saw before it read the day's records, and is
	// refused if the day was voided again meanwhile.
	Voided bool
	Void   string
}

// Digests keeps the nodes' day digests: written once, never rewritten,
// and voided by the store itself when a batch record is stored with a
// receive time in a day that is already over by the store's clock
// (PutBatch, PutBatches): such a day may have been sealed without it.
// A day's digest never holds less than the day's records: a report read
// from it is never stale.
type Digests interface {
	// PutDigest stores d (not Voided) if the node's day has no digest and
	// its void mark is d.Void ("": the day was never voided); ErrExists
	// otherwise (the first written stays, and a writer that read the
	// day's records before its last void writes nothing).
	PutDigest(ctx context.Context, d DayDigest) error
	// EachDigest walks the node's unexpired digests of the days beginning
	// in [from, to), in day order, the voided days among them (Voided,
	// Body nil). A record it cannot read is an error naming the node and
	// the day, never skipped.
	EachDigest(ctx context.Context, node string, from, to time.Time, fn func(*DayDigest) error) error
}

// DayBatches reads a node's batch records received in a period through
// an index of receive days, without reading the rest of its history: what
// a daily sealer reads, and what the month's books read of the days not
// sealed.
type DayBatches interface {
	// EachBatchReceived walks the node's unexpired batch records received
	// in [from, to), in sequence order, as EachBatch does. ErrNoReceipts
	// when the store cannot tell those records from the rest (a day before
	// it began to index them).
	EachBatchReceived(ctx context.Context, node string, from, to time.Time, fn func(*BatchRecord) error) error
}

// ErrNoReceipts: the store does not index that day's records by receive
// day; read them with History.EachBatch.
var ErrNoReceipts = errors.New("the day's records are not indexed by receive day")

// LateForDay tells whether a batch record received at receivedAt and
// stored at now lands in a day that is already over, and so voids that
// day's digest. A sealer seals a day an hour after it ended at the
// earliest (functions/app, DigestSealDelay), so a record stored before
// its day ended by the store's clock is read by every sealer of the day.
func LateForDay(receivedAt, now time.Time) bool {
	return !now.Before(DayOf(receivedAt).Add(24 * time.Hour))
}

// VoidMark is the mark a store writes when a batch record voids its
// day's digest: distinct for every record and instant, so a sealer that
// saw an earlier void cannot write over a later one.
func VoidMark(now time.Time, seq uint64) string {
	return strconv.FormatInt(now.UnixNano(), 36) + "." + strconv.FormatUint(seq, 36)
}

// DayOf is the UTC day holding t: its first instant.
func DayOf(t time.Time) time.Time {
	return t.UTC().Truncate(24 * time.Hour)
}
