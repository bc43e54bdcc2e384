// Command tickets is the Lambda of the ticket API (/v1/tickets…, API keys)
// and the Slack endpoints (/slack/commands, /slack/interactions) behind one
// Function URL (lambdafn.Tickets): the same handlers `gpusla serve` mounts.
// Slack's slow work runs in a second, asynchronous invocation of this
// function. Ticket deadlines are watched by the watchdog function
// (app.MinuteTick). Built as `bootstrap` for provided.al2023 by
// `make build-TicketsFunction`; contract terms travel in its terms/ folder.
package main

import (
	"context"
	"log/slog"
	"os"

	awslambda "github.com/aws/aws-lambda-go/lambda"

	"github.com/gpusla/gpusla/functions/lambdafn"
	"github.com/gpusla/gpusla/functions/wiring"
)

func main() {
	ctx := context.Background()
	b, err := wiring.Open(ctx, lambdafn.TicketsParams...)
	var f *lambdafn.Tickets
	if err == nil {
		f, err = lambdafn.NewTickets(ctx, b)
	}
	if err != nil {
		slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error("tickets init", "err", err)
		os.Exit(1)
	}
	awslambda.Start(f.Handle)
}
