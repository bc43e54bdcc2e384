package dynamo_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/dynamo"
	"github.com/gpusla/gpusla/infra/store/dynamo/dynamotest"
	"github.com/gpusla/gpusla/infra/store/storetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	dynamotest.Stop()
	os.Exit(code)
}

// TestContract runs the one store contract suite (the same the embedded
// store passes) against DynamoDB as implemented by dynalite.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return dynamotest.NewStore(t) })
}

func TestBatchTTLAndCompressedBody(t *testing.T) {
	db, table := dynamotest.NewTable(t)
	s, err := dynamo.New(db, table)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	s.SetClock(func() time.Time { return now })
	body := []byte(`{"observations":[` + strings.Repeat(`{"name":"gpu.temperature","category":"gpu_degraded","verdict":"pass","value":"41 °C"},`, 200) + `{}]}`)
	exp := now.Add(400*24*time.Hour + 300*time.Millisecond)
	if err := s.PutBatch(ctx, store.BatchRecord{Node: "n1", Seq: 1, ID: "b1", ReceivedAt: now, Body: body, ExpiresAt: exp}); err != nil {
		t.Fatal(err)
	}
	raw, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		dynamo.PartitionKey: &types.AttributeValueMemberS{Value: "NODE#n1"}, dynamo.SortKey: &types.AttributeValueMemberS{Value: "BATCH#00000000000000000001"}}})
	if err != nil || raw.Item == nil {
		t.Fatalf("raw item: %v", err)
	}
	ttl, ok := raw.Item[dynamo.TTLAttribute].(*types.AttributeValueMemberN)
	if !ok || ttl.Value != strconv.FormatInt(exp.Unix()+1, 10) {
		t.Fatalf("TTL attribute = %#v, want N %d (expiry rounded up to whole seconds)", raw.Item[dynamo.TTLAttribute], exp.Unix()+1)
	}
	stored, ok := raw.Item["body"].(*types.AttributeValueMemberB)
	if !ok || len(stored.Value)*5 > len(body) {
		t.Fatalf("stored body is not deflated well: %d bytes for %d", len(stored.Value), len(body))
	}
	got, err := s.GetBatch(ctx, "n1", 1)
	if err != nil || !bytes.Equal(got.Body, body) {
		t.Fatalf("GetBatch body round trip failed: %v", err)
	}
	list, err := s.ListBatches(ctx, "n1", 1, 1)
	if err != nil || len(list) != 1 || !bytes.Equal(list[0].Body, body) {
		t.Fatalf("ListBatches body round trip failed: %v", err)
	}
	// Past its expiry a batch is gone even before DynamoDB's TTL sweep.
	now = exp
	if _, err := s.GetBatch(ctx, "n1", 1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired GetBatch: %v, want ErrNotFound", err)
	}
	if list, _ := s.ListBatches(ctx, "n1", 0, 10); len(list) != 0 {
		t.Fatalf("expired batch listed")
	}
}

// A batch whose decoded form would push its item past DynamoDB's limit is
// kept without the form (it is read from its body); one that fits keeps it.
func TestBatchFormOverTheItemLimit(t *testing.T) {
	s := dynamotest.NewStore(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	body := []byte(`{"observations":[]}`)
	big := make([]byte, 401*1024)
	for i := range big {
		big[i] = byte(i * 7919 >> 3) // not compressible into the limit by accident
	}
	for seq, form := range map[uint64][]byte{1: big, 2: []byte("gbf\x01small")} {
		if err := s.PutBatch(ctx, store.BatchRecord{Node: "n1", Seq: seq, ID: "b", ReceivedAt: now, Body: body, Form: form}); err != nil {
			t.Fatalf("batch %d: %v", seq, err)
		}
		got, err := s.GetBatch(ctx, "n1", seq)
		if err != nil || !bytes.Equal(got.Body, body) {
			t.Fatalf("batch %d: %v", seq, err)
		}
		if want := form; seq == 1 && got.Form != nil || seq == 2 && !bytes.Equal(got.Form, want) {
			t.Fatalf("batch %d: form of %d bytes kept", seq, len(got.Form))
		}
	}
}

// TestUnitsCounted: every request is counted with the units it was billed.
func TestUnitsCounted(t *testing.T) {
	s := dynamotest.NewStore(t)
	ctx := context.Background()
	// Random bytes do not deflate: about 1.5 KB stored, two started KB.
	noise := make([]byte, 1500)
	_, _ = rand.Read(noise)
	big := store.NodeState{Node: "n1", LastHash: string(noise)}
	if _, err := s.PutState(ctx, big, 0); err != nil {
		t.Fatal(err)
	}
	strong, err := s.GetState(ctx, "n1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetNode(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	// The watchdog's first look: the same state, at half the read units.
	if got, err := s.GetStateStale(ctx, "n1"); err != nil || got.LastHash != strong.LastHash || got.Version != strong.Version {
		t.Fatalf("stale read of the state: %v (same hash %v, version %d want %d)", err, got.LastHash == strong.LastHash, got.Version, strong.Version)
	}
	if _, err := s.GetStateStale(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("stale read of a missing state: %v, want ErrNotFound", err)
	}
	ops := s.Ops()
	for k, want := range map[string]int64{
		"PutState/write": 1, "PutState/write/milli_units": 2000,
		"GetState/read": 1, "GetState/read/milli_units": 1000, // consistent, under 4 KB
		"GetNode/read": 1, "GetNode/read/milli_units": 500, // eventually consistent miss
		"GetStateStale/read": 2, "GetStateStale/read/milli_units": 1000, // eventually consistent, under 4 KB, and a miss
	} {
		if ops[k] != want {
			t.Errorf("%s = %d, want %d (all: %v)", k, ops[k], want, ops)
		}
	}
}
