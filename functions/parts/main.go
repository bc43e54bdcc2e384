// Command parts is the Lambda that builds the node-months of a month the
// reports function builds apart (template.yaml: PartsFunction, fed by
// PartsQueue): each SQS record one node's part of the month, written to
// the report bucket (lambdafn.Parts, app.FanOut). Built as `bootstrap` for
// provided.al2023 by `make build-PartsFunction`; contract terms travel in
// its terms/ folder.
package main

import (
	_ "time/tzdata" // contract time zones must resolve on provided.al2023 too

	"github.com/gpusla/gpusla/functions/lambdafn"
)

func main() { lambdafn.Start("parts", lambdafn.NewParts) }
