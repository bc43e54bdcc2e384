// Command status is the Lambda of the read-only status page (template.yaml:
// StatusFunction, behind a Function URL): nodes, 90-day uptime, open
// incidents and tickets, report downloads — the handler `gpusla serve`
// mounts (functions/statuspage), with its token from SSM
// <SecretsPath>/status-token (lambdafn.Status). Built as `bootstrap` for
// provided.al2023 by `make build-StatusFunction`; contract terms travel in
// its terms/ folder.
package main

import (
	_ "time/tzdata" // contract time zones must resolve on provided.al2023 too

	"github.com/gpusla/gpusla/functions/lambdafn"
)

func main() { lambdafn.Start("status", lambdafn.NewStatus, lambdafn.StatusParams...) }
