package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// CreateTable creates the table as template.yaml declares it (on-demand,
// the keys and index of this package, TTL on TTLAttribute) and waits until
// it is active. It is for tests and local runs against dynalite or DynamoDB
// Local; in AWS, CloudFormation owns the table and the functions are not
// allowed to create one.
func CreateTable(ctx context.Context, db *dynamodb.Client, name string) error {
	s := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	k := func(n string, t types.KeyType) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(n), KeyType: t}
	}
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{s(PartitionKey), s(SortKey), s(IndexPartitionKey), s(IndexSortKey)},
		KeySchema:            []types.KeySchemaElement{k(PartitionKey, types.KeyTypeHash), k(SortKey, types.KeyTypeRange)},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName:  aws.String(IndexName),
			KeySchema:  []types.KeySchemaElement{k(IndexPartitionKey, types.KeyTypeHash), k(IndexSortKey, types.KeyTypeRange)},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	if err != nil {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	w := dynamodb.NewTableExistsWaiter(db, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 50*time.Millisecond, time.Second
	})
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 2*time.Minute); err != nil {
		return fmt.Errorf("create table %s: waiting until active: %w", name, err)
	}
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(TTLAttribute), Enabled: aws.Bool(true),
		},
	})
	var unknown interface{ ErrorCode() string }
	if err != nil && errors.As(err, &unknown) && unknown.ErrorCode() == "UnknownOperationException" {
		// dynalite has no TTL; reads hide expired items anyway.
		err = nil
	}
	if err != nil {
		return fmt.Errorf("create table %s: enable TTL: %w", name, err)
	}
	// A table made here holds no batch without its receipt (receipt.go).
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(name),
		Item: map[string]types.AttributeValue{
			PartitionKey: str(receiptsPK), SortKey: str(receiptsSK), "since": str(receiptsFromTheStart.Format(time.RFC3339Nano)),
		},
	})
	if err != nil {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	return nil
}
