// Command status is the Lambda of the read-only status page (template.yaml:
// StatusFunction, behind a Function URL): nodes, 90-day uptime, open
// incidents and tickets, report downloads — the handler `gpusla serve`
// mounts (functions/statuspage), with its token from SSM
// <SecretsPath>/status-token (lambdafn.Status). Built as `bootstrap` for
// provided.al2023 by `make build-StatusFunction`; contract terms travel in
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
	b, err := wiring.Open(ctx, lambdafn.StatusParams...)
	var f *lambdafn.Status
	if err == nil {
		f, err = lambdafn.NewStatus(ctx, b)
	}
	if err != nil {
		slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error("status init", "err", err)
		os.Exit(1)
	}
	awslambda.Start(f.Handle)
}
