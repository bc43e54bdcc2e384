// Command reports is the Lambda of the monthly reports (template.yaml:
// ReportsFunction, run hourly by EventBridge Scheduler): each contract's
// report once its month is over in its time zone and the delay has passed,
// every format and the evidence bundle into the report bucket, the PDF to
// Slack, claim-deadline reminders (lambdafn.Reports, app.ReportJob). Built
// as `bootstrap` for provided.al2023 by `make build-ReportsFunction`;
// contract terms travel in its terms/ folder.
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
	var f *lambdafn.Reports
	if err == nil {
		f, err = lambdafn.NewReports(ctx, b)
	}
	if err != nil {
		slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error("reports init", "err", err)
		os.Exit(1)
	}
	awslambda.Start(f.Handle)
}
