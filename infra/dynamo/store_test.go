package dynamo_test

import (
	"os"
	"testing"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/dynamo/dynamotest"
	"github.com/gpusla/gpusla/infra/storetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	dynamotest.Stop()
	os.Exit(code)
}

// TestContract runs the one store contract suite (the same the embedded
// store passes) against DynamoDB as implemented by dynalite.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) app.Store { return dynamotest.NewStore(t) })
}
