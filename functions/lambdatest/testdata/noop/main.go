// Command noop is the smallest Go Lambda: the baseline BenchmarkColdStart
// measures beside the real functions, so the emulator's own start-up cost
// is not mistaken for theirs.
package main

import (
	"context"
	"encoding/json"

	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(context.Context, json.RawMessage) (map[string]int, error) {
		return map[string]int{"statusCode": 401}, nil
	})
}
