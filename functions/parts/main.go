// Command parts is the Lambda that builds the node-months of a month the
// reports function builds apart (template.yaml: PartsFunction, fed by
// PartsQueue): each SQS record one node's part of the month, written to
// the report bucket (lambdafn.Parts, app.FanOut). Built as `bootstrap` for
// provided.al2023 by `make build-PartsFunction`; contract terms travel in
// its terms/ folder.
package main

import (
	"context"
	"log/slog"
	"os"
	_ "time/tzdata" // contract time zones must resolve on provided.al2023 too

	awslambda "github.com/aws/aws-lambda-go/lambda"

	"github.com/gpusla/gpusla/functions/lambdafn"
	"github.com/gpusla/gpusla/functions/wiring"
)

func main() {
	ctx := context.Background()
	b, err := wiring.Open(ctx)
	var f *lambdafn.Parts
	if err == nil {
		f, err = lambdafn.NewParts(ctx, b)
	}
	if err != nil {
		slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error("parts init", "err", err)
		os.Exit(1)
	}
	awslambda.Start(f.Handle)
}
