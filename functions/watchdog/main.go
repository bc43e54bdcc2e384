// Command watchdog is the Lambda EventBridge Scheduler runs every minute:
// one minute tick of the application (app.MinuteTick: overdue heartbeats,
// recoveries, alert retries, then ticket deadlines) on the DynamoDB store.
// Built as `bootstrap` for provided.al2023 by `make build-WatchdogFunction`.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/gpusla/gpusla/functions/lambdafn"
	"github.com/gpusla/gpusla/functions/wiring"
)

func main() {
	b, err := wiring.Open(context.Background())
	if err != nil {
		slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error("watchdog init", "err", err)
		os.Exit(1)
	}
	lambda.Start(lambdafn.Watchdog(b.MinuteTick(), b.Log))
}
