// Command reports is the Lambda of the monthly reports (template.yaml:
// ReportsFunction, run hourly by EventBridge Scheduler): each contract's
// report once its month is over in its time zone and the delay has passed,
// every format and the evidence bundle into the report bucket, the PDF to
// Slack, claim-deadline reminders (lambdafn.Reports, app.ReportJob). Built
// as `bootstrap` for provided.al2023 by `make build-ReportsFunction`;
// contract terms travel in its terms/ folder.
package main

import (
	_ "time/tzdata" // contract time zones must resolve on provided.al2023 too

	"github.com/gpusla/gpusla/functions/lambdafn"
)

func main() { lambdafn.Start("reports", lambdafn.NewReports) }
