// Command tickets is the Lambda of the ticket API (/v1/tickets…, API keys)
// and the Slack endpoints (/slack/commands, /slack/interactions) behind one
// Function URL (lambdafn.Tickets): the same handlers `gpusla serve` mounts.
// Slack's slow work runs in a second, asynchronous invocation of this
// function. Ticket deadlines are watched by the watchdog function
// (app.MinuteTick). Built as `bootstrap` for provided.al2023 by
// `make build-TicketsFunction`; contract terms travel in its terms/ folder.
package main

import "github.com/gpusla/gpusla/functions/lambdafn"

func main() { lambdafn.Start("tickets", lambdafn.NewTickets, lambdafn.TicketsParams...) }
