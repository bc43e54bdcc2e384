package dynamo_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/dynamo"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
)

// A digest item that cannot be read — its body missing, another node's,
// another day than its key, an expiry that is no time — fails the walk
// naming its node and day; it is never skipped.
func TestDamagedDigestItemIsAnError(t *testing.T) {
	db, table := dynamotest.NewTable(t)
	s, err := dynamo.New(db, table)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	day := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	if err := s.PutDigest(ctx, store.DayDigest{Node: "n1", Day: day, Body: []byte("body"), ExpiresAt: day.AddDate(1, 0, 0)}); err != nil {
		t.Fatal(err)
	}
	key := map[string]types.AttributeValue{dynamo.PartitionKey: &types.AttributeValueMemberS{Value: "NODE#n1"}, dynamo.SortKey: &types.AttributeValueMemberS{Value: "DIGEST#20260304"}}
	raw, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
	if err != nil || raw.Item == nil {
		t.Fatalf("raw item: %v", err)
	}
	for name, damage := range map[string]func(it map[string]types.AttributeValue){
		"no body":      func(it map[string]types.AttributeValue) { delete(it, "body") },
		"another node": func(it map[string]types.AttributeValue) { it["node"] = &types.AttributeValueMemberS{Value: "n2"} },
		"another day": func(it map[string]types.AttributeValue) {
			it["day"] = &types.AttributeValueMemberS{Value: "2026-03-05T00:00:00Z"}
		},
		"bad expiry": func(it map[string]types.AttributeValue) {
			it["expires_at"] = &types.AttributeValueMemberS{Value: "soon"}
		},
	} {
		t.Run(name, func(t *testing.T) {
			it := map[string]types.AttributeValue{}
			for k, v := range raw.Item {
				it[k] = v
			}
			damage(it)
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
				t.Fatal(err)
			}
			err := s.EachDigest(ctx, "n1", day, day.AddDate(0, 0, 1), func(*store.DayDigest) error { return nil })
			if err == nil || !strings.Contains(err.Error(), "digest of n1, day 2026-03-04: damaged") {
				t.Fatalf("a damaged digest item: err = %v", err)
			}
		})
	}
}

// A table made before receipts existed (no RECEIPTS item: its batches
// have none): the first batch a store puts records the instant, and a day
// before the day after it is ErrNoReceipts, never a day read as empty; a
// later day is read by its receipts. Another store on the table reads the
// instant the first wrote.
func TestReceiptsOfATableFromBefore(t *testing.T) {
	db, table := dynamotest.NewTable(t)
	if _, err := db.DeleteItem(t.Context(), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		dynamo.PartitionKey: &types.AttributeValueMemberS{Value: "RECEIPTS"}, dynamo.SortKey: &types.AttributeValueMemberS{Value: "SINCE"}}}); err != nil {
		t.Fatal(err)
	}
	s, err := dynamo.New(db, table)
	if err != nil {
		t.Fatal(err)
	}
	first := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	now := first
	s.SetClock(func() time.Time { return now })
	put := func(seq uint64, at time.Time) {
		t.Helper()
		if err := s.PutBatch(t.Context(), store.BatchRecord{Node: "n1", Seq: seq, ID: "b", ReceivedAt: at, Body: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	put(1, first)
	now = first.Add(24 * time.Hour)
	put(2, now)
	day := func(st *dynamo.Store, d time.Time) ([]uint64, error) {
		var seqs []uint64
		err := st.EachBatchReceived(t.Context(), "n1", d, d.Add(24*time.Hour), func(b *store.BatchRecord) error { seqs = append(seqs, b.Seq); return nil })
		return seqs, err
	}
	if _, err := day(s, store.DayOf(first)); !errors.Is(err, store.ErrNoReceipts) {
		t.Fatalf("the day the receipts began: err = %v, want ErrNoReceipts", err)
	}
	other, err := dynamo.New(db, table)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []*dynamo.Store{s, other} {
		if seqs, err := day(st, store.DayOf(now)); err != nil || len(seqs) != 1 || seqs[0] != 2 {
			t.Fatalf("the day after: %v, %v; want [2]", seqs, err)
		}
	}
}
