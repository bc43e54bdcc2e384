package lambdafn

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"

	awslambda "github.com/aws/aws-lambda-go/lambda"

	"github.com/gpusla/gpusla/functions/wiring"
)

// Function is a Lambda function built once per execution environment and
// invoked with each event's raw JSON.
type Function interface {
	Handle(ctx context.Context, raw json.RawMessage) (any, error)
}

// Start is the whole main of a function made by a constructor: it opens
// the environment's wiring (with the extra SSM parameters the function
// reads), builds the function and hands its Handle to the Lambda runtime.
// An init failure is logged as JSON under "<name> init" and exits 1:
// Lambda shows the log and retries the init on the next request.
func Start[F Function](name string, build func(context.Context, *wiring.Backend) (F, error), params ...string) {
	ctx := context.Background()
	b, err := wiring.Open(ctx, params...)
	var f F
	if err == nil {
		f, err = build(ctx, b)
	}
	if err != nil {
		slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error(name+" init", "err", err)
		os.Exit(1)
	}
	awslambda.Start(f.Handle)
}
