package lambdafn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	lambdasvc "github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/gpusla/gpusla/functions/actionlink"
	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/lambdahttp"
	"github.com/gpusla/gpusla/functions/replacement"
	"github.com/gpusla/gpusla/functions/slackapi"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/blob"
)

// TicketsParams are the SSM parameters the tickets function reads beside
// the common secrets (pass them to wiring.Open).
var TicketsParams = []string{wiring.ParamSlackSigningSecret, wiring.ParamReplacementKey}

// Tickets is the function of the ticket API (/v1/tickets…, API keys), the
// read views (/v1/nodes, /v1/incidents: API keys with the read scope) and
// the Slack endpoints (/slack/commands, /slack/interactions) behind one
// Function URL: the same handlers `gpusla serve` mounts. Slack's slow work
// (thread posts, the report) runs in a second, asynchronous invocation of
// this function with the job as its event, because a Lambda is frozen as
// soon as it answers.
type Tickets struct {
	http  func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)
	slack *slackapi.Handler // nil without a signing secret
	log   *slog.Logger
}

// NewTickets builds the tickets function on b (opened with TicketsParams).
func NewTickets(ctx context.Context, b *wiring.Backend) (*Tickets, error) {
	desk, err := b.Tickets()
	if err != nil {
		return nil, err
	}
	api := httpapi.New(b.Service, b.Log)
	httpapi.RegisterTickets(api.Mux(), desk, b.Log)
	if _, err := httpapi.RegisterClaims(api.Mux(), desk, b.Log); err != nil {
		return nil, err
	}
	f := &Tickets{log: b.Log}
	var replacer slackapi.Replacer
	if b.Links != nil {
		rq, err := lambdaRequester(ctx, b, desk)
		if err != nil {
			return nil, err
		}
		if err := RegisterActions(api.Mux(), b.Links, desk, rq, b.Log); err != nil {
			return nil, err
		}
		replacer = rq
	} else {
		b.Log.Info("alert links off: set " + wiring.EnvPublicURL + " (the template's PublicURL) and the SSM parameter " + wiring.ParamActionSecret)
	}
	secret, err := b.SigningSecret()
	if err != nil {
		return nil, err
	}
	if secret != "" {
		h, err := slackapi.New(slackapi.Config{Desk: desk, SigningSecret: secret, Log: b.Log, Replacer: replacer})
		if err != nil {
			return nil, err
		}
		if !b.Env.InlineJobs {
			name, err := b.FunctionName()
			if err != nil {
				return nil, err
			}
			cfg, err := config.LoadDefaultConfig(ctx)
			if err != nil {
				return nil, fmt.Errorf("aws config: %w", err)
			}
			h.SetRunner(&selfRunner{c: lambdasvc.NewFromConfig(cfg), name: name})
		}
		h.Register(api.Mux())
		f.slack = h
	} else {
		b.Log.Warn("no Slack signing secret: /slack/* is not served", "ssm", b.Env.SecretsPath+"/"+wiring.ParamSlackSigningSecret)
	}
	f.http = lambdahttp.Handler(api)
	return f, nil
}

// lambdaRequester requests replacements from the tickets function: packs
// signed with the SSM key go to the report bucket under replacements/ (a
// Lambda has no lasting disk).
func lambdaRequester(ctx context.Context, b *wiring.Backend, desk *app.TicketDesk) (*replacement.Requester, error) {
	key, err := b.ReplacementKey()
	if err != nil {
		return nil, err
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("aws config: %w", err)
	}
	blobs, err := blob.NewS3(s3.NewFromConfig(cfg), b.Env.ReportBucket, "")
	if err != nil {
		return nil, fmt.Errorf("%s (the evidence packs of replacement requests): %w", wiring.EnvReportBucket, err)
	}
	return &replacement.Requester{Desk: desk, Key: key, Packs: blobs, PacksAt: "s3://" + b.Env.ReportBucket + "/"}, nil
}

// RegisterActions serves the alert links' confirmation page and request
// (functions/actionlink) on mux: the same handler `gpusla serve` mounts.
func RegisterActions(mux *http.ServeMux, links *actionlink.Signer, desk *app.TicketDesk, rq actionlink.Requester, log *slog.Logger) error {
	h, err := actionlink.New(actionlink.Config{Links: links, Desk: desk, Requester: rq, Log: log})
	if err != nil {
		return err
	}
	h.Register(mux)
	return nil
}

// ticketsEvent is the union of what the tickets function is invoked with:
// an HTTP request from its Function URL, or a Slack job from itself.
type ticketsEvent struct {
	Job            *slackapi.Job   `json:"gpusla_job,omitempty"`
	RequestContext json.RawMessage `json:"requestContext,omitempty"`
}

// Handle answers one invocation.
func (f *Tickets) Handle(ctx context.Context, raw json.RawMessage) (any, error) {
	var ev ticketsEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, fmt.Errorf("event is not JSON: %w", err)
	}
	switch {
	case ev.Job != nil:
		if f.slack == nil {
			return nil, errors.New("slack job received but no signing secret is configured")
		}
		if err := f.slack.Do(ctx, *ev.Job); err != nil {
			// Logged, not retried by Lambda: the ticket notices are retried
			// by the watchdog, and a report can be asked for again.
			f.log.Error("slack job", "job", ev.Job.Kind, "ticket", ev.Job.Ticket, "err", err)
		}
		return nil, nil
	case len(ev.RequestContext) > 0:
		var req events.APIGatewayV2HTTPRequest
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, fmt.Errorf("http event: %w", err)
		}
		return f.http(ctx, req)
	default:
		return nil, errors.New("unknown event: neither a Function URL request nor a gpusla job")
	}
}

// invoker is the one Lambda API call made (IAM: lambda:InvokeFunction on
// this function only).
type invoker interface {
	Invoke(ctx context.Context, in *lambdasvc.InvokeInput, opts ...func(*lambdasvc.Options)) (*lambdasvc.InvokeOutput, error)
}

// selfRunner hands a Slack job to an asynchronous invocation of this very
// function: queued by Lambda in milliseconds, so Slack's answer is not held.
type selfRunner struct {
	c    invoker
	name string
}

func (r *selfRunner) Run(ctx context.Context, j slackapi.Job) error {
	payload, err := json.Marshal(ticketsEvent{Job: &j})
	if err != nil {
		return err
	}
	out, err := r.c.Invoke(ctx, &lambdasvc.InvokeInput{FunctionName: aws.String(r.name),
		InvocationType: lambdatypes.InvocationTypeEvent, Payload: payload})
	if err != nil {
		return fmt.Errorf("invoke %s for a %s job: %w", r.name, j.Kind, err)
	}
	if out.StatusCode != http.StatusAccepted {
		return fmt.Errorf("invoke %s for a %s job: status %d, want 202", r.name, j.Kind, out.StatusCode)
	}
	return nil
}
