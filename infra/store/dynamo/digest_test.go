package dynamo_test

import (
	"context"
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
