// Command ingest is the Lambda behind the probes' Function URL: it serves
// POST /v1/batches and GET /healthz of `gpusla serve`'s HTTP API
// (functions/lambdafn.Ingest) and nothing else — the URL sits in every
// probe's config, so it reaches no read view — through the format-2.0
// event adapter, on the DynamoDB store. Built as `bootstrap` for
// provided.al2023 by `make build-IngestFunction`.
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
		// Lambda shows this and retries the init on the next request.
		slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error("ingest init", "err", err)
		os.Exit(1)
	}
	lambda.Start(lambdafn.Ingest(b))
}
