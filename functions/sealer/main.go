// Command sealer is the Lambda EventBridge Scheduler runs once a day: it
// seals the nodes' latest days that can no longer change into day digests
// (lambdafn.Sealer), so the monthly job reads some thirty small digests a
// node instead of its batches. It opens the store alone: no secrets.
// Built as `bootstrap` for provided.al2023 by `make build-SealerFunction`.
package main

import (
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/gpusla/gpusla/functions/lambdafn"
	"github.com/gpusla/gpusla/functions/wiring"
)

func main() {
	st, log, err := wiring.OpenStore()
	if err != nil {
		slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error("sealer init", "err", err)
		os.Exit(1)
	}
	lambda.Start(lambdafn.NewSealer(st, log, time.Now).Handle)
}
