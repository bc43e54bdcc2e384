// Command watchdog is the Lambda EventBridge Scheduler runs every minute:
// one run of the application's watchdog (overdue heartbeats, recoveries,
// alert retries) on the DynamoDB store. Built as `bootstrap` for
// provided.al2023 by `make build-WatchdogFunction`.
package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/lambdaenv"
)

func main() {
	b, err := lambdaenv.Open(context.Background())
	if err != nil {
		slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error("watchdog init", "err", err)
		os.Exit(1)
	}
	lambda.Start(handler(app.WatchdogWithTickets(b.Service, os.Getenv(app.EnvTerms)), b.Log)) // + ticket deadlines
}

// handler checks that the event is a schedule tick, then runs the watchdog.
func handler(watchdog func(context.Context) (app.WatchdogResult, error), log *slog.Logger) func(context.Context, json.RawMessage) (app.WatchdogResult, error) {
	return func(ctx context.Context, raw json.RawMessage) (app.WatchdogResult, error) {
		tick, err := parseTick(raw)
		if err != nil {
			return app.WatchdogResult{}, err
		}
		res, err := watchdog(ctx)
		if err != nil {
			// The run did what it could; the error goes to the log and to
			// Lambda's error metric. The next tick tries again.
			log.Error("watchdog", "scheduled", tick, "nodes", res.Nodes, "err", err)
			return res, err
		}
		log.Info("watchdog", "scheduled", tick, "nodes", res.Nodes, "transitions", res.Transitions)
		return res, nil
	}
}
