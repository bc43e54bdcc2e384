package lambdafn

import (
	"context"

	"github.com/aws/aws-lambda-go/events"

	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/lambdahttp"
	"github.com/gpusla/gpusla/functions/wiring"
)

// Ingest is the function behind the probes' public Function URL: POST
// /v1/batches and GET /healthz (httpapi.NewIngest) and nothing else. The
// URL sits in every probe's config on the provider's machine, so it must
// reach no read view, key or not; those are the tickets function's and
// serve's. Alerts are deferred: the ack waits for the alert's stored claim
// alone, and the watchdog function's next run sends it (a Lambda is frozen
// once it answers, so it keeps no sender of its own).
func Ingest(b *wiring.Backend) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	b.Service.DeferAlerts()
	return lambdahttp.Handler(httpapi.NewIngest(b.Service, b.Log))
}
