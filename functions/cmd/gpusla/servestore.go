package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/infra/store/dynamo"
)

// Environment that points `gpusla serve` at DynamoDB instead of the data
// folder's embedded store: the same table layout the Lambdas use, so the
// local process can run against DynamoDB Local or dynalite (the end-to-end
// tests do). The master key stays in the data folder either way.
const (
	envServeTable          = "GPUSLA_TABLE"
	envServeDynamoEndpoint = "GPUSLA_DYNAMODB_ENDPOINT"
	// envSlackAPIURL overrides Slack's API base URL (a slacktest server in
	// the end-to-end tests).
	envSlackAPIURL = "GPUSLA_SLACK_API_URL"
)

// serveStore is what serve needs of its store, embedded or DynamoDB.
type serveStore interface {
	store.Store
	store.TicketStore
	Close() error
}

// sweeper is a store that deletes expired batches itself (the embedded
// one; DynamoDB does it with TTL).
type sweeper interface {
	Sweep(now time.Time) (int, error)
}

// openServeStore opens the data folder's embedded store, or the DynamoDB
// table named by $GPUSLA_TABLE (creating it when a local endpoint is given
// in $GPUSLA_DYNAMODB_ENDPOINT and the table does not exist yet).
func openServeStore(ctx context.Context, dir string) (serveStore, app.SecretBox, string, error) {
	table := os.Getenv(envServeTable)
	if table == "" {
		st, box, err := openData(dir, true)
		if err != nil {
			return nil, nil, "", err
		}
		return st, box, "embedded " + filepath.Join(dir, storeFile), nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, "", fmt.Errorf("data folder: %w", err)
	}
	box, err := loadMasterKey(filepath.Join(dir, masterKeyFile), true)
	if err != nil {
		return nil, nil, "", err
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, nil, "", fmt.Errorf("aws config: %w", err)
	}
	endpoint := os.Getenv(envServeDynamoEndpoint)
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
	if endpoint != "" {
		_, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		var nf *types.ResourceNotFoundException
		if errors.As(err, &nf) {
			err = dynamo.CreateTable(ctx, db, table)
		}
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s %s at %s: %w", envServeTable, table, endpoint, err)
		}
	}
	st, err := dynamo.New(db, table)
	if err != nil {
		return nil, nil, "", err
	}
	return st, box, "DynamoDB table " + table, nil
}

// openExistingStore is openServeStore for offline commands that must not
// create an empty embedded store (export).
func openExistingStore(ctx context.Context, dir string) (serveStore, app.SecretBox, error) {
	if os.Getenv(envServeTable) == "" {
		return openData(dir, false)
	}
	st, box, _, err := openServeStore(ctx, dir)
	return st, box, err
}
