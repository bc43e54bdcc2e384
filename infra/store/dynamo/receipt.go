package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gpusla/gpusla/infra/store"
)

// Batch bodies are keyed by the probe's sequence number, which says
// nothing of when a batch arrived (a spooled batch comes days late with an
// old number), so a day of a node's records could only be read by a Query
// of the node's whole history. Each batch stored is therefore preceded by
// its receipt: a key-only item in the node's partition sorted by receive
// day and sequence (RECV#<yyyymmdd>#<seq>), written by a conditional put
// (a retried request writes nothing twice). A day's records are then one
// Query of its receipts and a read of each batch they name
// (EachBatchReceived): what the daily sealer reads.
//
// A table written before receipts existed holds batches without them, so
// the table records when its writers began (receiptsPK): CreateTable
// writes it with the table, and otherwise the first PutBatch of each
// store writes the instant, once for the table. A day
// is read by its receipts only if it began a whole day after that, when
// no writer of the older kind can still be storing a batch into it.

const (
	receiptsPK = "RECEIPTS"
	receiptsSK = "SINCE"
)

// receiptsFromTheStart is the instant CreateTable records: every batch of
// a table it made has its receipt. (A table made by CloudFormation gets
// its instant from its first PutBatch.)
var receiptsFromTheStart = time.Unix(0, 0).UTC()

func receiptSK(day time.Time, seq uint64) string {
	return fmt.Sprintf("RECV#%s#%020d", day.UTC().Format(digestDay), seq)
}

// receiptsSince caches the table's first receipt instant.
type receiptsSince struct {
	mu    sync.Mutex
	since time.Time // zero: not known yet
}

// markReceipts writes the table's receipts instant unless this store has
// seen it; the first writer's stays.
func (s *Store) markReceipts(ctx context.Context) error {
	s.receipts.mu.Lock()
	defer s.receipts.mu.Unlock()
	if !s.receipts.since.IsZero() {
		return nil
	}
	now := s.now().UTC()
	err := s.putNew(ctx, "PutReceiptsSince", map[string]types.AttributeValue{
		PartitionKey: str(receiptsPK), SortKey: str(receiptsSK), "since": str(now.Format(time.RFC3339Nano)),
	})
	switch {
	case err == nil:
		s.receipts.since = now
		return nil
	case errors.Is(err, store.ErrExists):
		return s.readReceiptsSince(ctx)
	}
	return err
}

// readReceiptsSince reads the table's receipts instant into the cache
// (zero when none is written); the caller holds the lock.
func (s *Store) readReceiptsSince(ctx context.Context) error {
	var it rawItem
	err := s.get(ctx, "GetReceiptsSince", receiptsPK, receiptsSK, true, &it)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	t, ok := itemTime(it.m, "since")
	if !ok {
		return fmt.Errorf("%s/%s: no since attribute", receiptsPK, receiptsSK)
	}
	s.receipts.since = t.UTC()
	return nil
}

// putReceipt writes b's receipt: key and expiry alone.
func (s *Store) putReceipt(ctx context.Context, b store.BatchRecord) error {
	if err := s.markReceipts(ctx); err != nil {
		return err
	}
	item := map[string]types.AttributeValue{PartitionKey: str(nodePK(b.Node)), SortKey: str(receiptSK(store.DayOf(b.ReceivedAt), b.Seq))}
	if !b.ExpiresAt.IsZero() {
		item[TTLAttribute] = num(ttlSeconds(b.ExpiresAt))
	}
	if err := s.putNew(ctx, "PutReceipt", item); err != nil && !errors.Is(err, store.ErrExists) {
		return err
	}
	return nil
}

// ttlSeconds is t as DynamoDB's TTL wants it: whole Unix seconds, rounded
// up so the item never disappears before t.
func ttlSeconds(t time.Time) int64 {
	sec := t.Unix()
	if t.Nanosecond() > 0 {
		sec++
	}
	return sec
}

// voidDigest voids the digest of b's receive day if that day is over
// (store.LateForDay): an unconditional put of the voided day over
// whatever the day held, after b is stored, so a sealer that read the
// day before b finds its conditional put refused (PutDigest).
func (s *Store) voidDigest(ctx context.Context, b store.BatchRecord) error {
	now := s.now()
	if !store.LateForDay(b.ReceivedAt, now) {
		return nil
	}
	day := store.DayOf(b.ReceivedAt)
	item := map[string]types.AttributeValue{
		PartitionKey: str(nodePK(b.Node)), SortKey: str(digestSK(day)),
		"node": str(b.Node), "day": str(day.Format(time.RFC3339)),
		voidedAttr: &types.AttributeValueMemberBOOL{Value: true}, voidMarkAttr: str(store.VoidMark(now, b.Seq)),
	}
	if !b.ExpiresAt.IsZero() {
		item["expires_at"] = str(b.ExpiresAt.UTC().Format(time.RFC3339Nano))
		item[TTLAttribute] = num(ttlSeconds(b.ExpiresAt))
	}
	return s.put(ctx, "VoidDigest", item, "", nil)
}

// EachBatchReceived reads the period's receipts, then each batch they
// name.
func (s *Store) EachBatchReceived(ctx context.Context, node string, from, to time.Time, fn func(*store.BatchRecord) error) error {
	what := fmt.Sprintf("walk batches of %s received %s to %s", node, from.Format(time.RFC3339), to.Format(time.RFC3339))
	s.receipts.mu.Lock()
	var err error
	if s.receipts.since.IsZero() {
		err = s.readReceiptsSince(ctx)
	}
	since := s.receipts.since
	s.receipts.mu.Unlock()
	if err != nil {
		return wrap(what, err)
	}
	if since.IsZero() || store.DayOf(from).Before(store.DayOf(since).Add(24*time.Hour)) {
		return store.ErrNoReceipts
	}
	if !from.Before(to) {
		return nil
	}
	var seqs []uint64
	lo := "RECV#" + store.DayOf(from).Format(digestDay) + "#"
	hi := "RECV#" + store.DayOf(to.Add(-1)).Format(digestDay) + "#~"
	err = s.query(ctx, "EachBatchReceived", "", nodePK(node), lo, hi, true, func(it map[string]types.AttributeValue) error {
		sk, _ := it[SortKey].(*types.AttributeValueMemberS)
		var day string
		var seq uint64
		if sk == nil {
			return fmt.Errorf("receipt without its key")
		}
		if _, err := fmt.Sscanf(strings.ReplaceAll(sk.Value, "#", " "), "RECV %s %d", &day, &seq); err != nil {
			return fmt.Errorf("receipt %s: %w", sk.Value, err)
		}
		seqs = append(seqs, seq)
		return nil
	})
	if err != nil {
		return wrap(what, err)
	}
	slices.Sort(seqs)
	seqs = slices.Compact(seqs)
	now := s.now()
	for _, seq := range seqs {
		var it rawItem
		err := s.get(ctx, "EachBatchReceived", nodePK(node), seqSK(seq), true, &it)
		if errors.Is(err, store.ErrNotFound) {
			continue // its put failed after the receipt, or it expired
		}
		if err != nil {
			return wrap(what, err)
		}
		b, err := decodeBatch(it.m)
		if err != nil {
			return wrap(what, err)
		}
		// A receipt names a sequence number; the batch under it may have
		// been received another time (a retry under the same number a day
		// later has a receipt of each day, one batch).
		if b.ReceivedAt.Before(from) || !b.ReceivedAt.Before(to) || (!b.ExpiresAt.IsZero() && !now.Before(b.ExpiresAt)) {
			continue
		}
		if err := fn(&b); err != nil {
			return err
		}
	}
	return nil
}

var _ store.DayBatches = (*Store)(nil)
