// Command tickets is the Lambda of the ticket API (/v1/tickets…, API keys)
// and the Slack endpoints (/slack/commands, /slack/interactions) behind one
// Function URL: the same handlers `gpusla serve` mounts, through the same
// Function URL adapter as ingest. Slack's slow work (thread posts, the
// report) runs in a second, asynchronous invocation of this function with
// the job as its event, because a Lambda is frozen as soon as it answers.
// Ticket deadlines are watched by the watchdog function
// (app.WatchdogWithTickets). Built as `bootstrap` for provided.al2023 by
// `make build-TicketsFunction`; contract terms travel in its terms/ folder.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	awslambda "github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	lambdasvc "github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/aws/aws-lambda-go/events"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/httpapi"
	"github.com/gpusla/gpusla/functions/lambdaenv"
	"github.com/gpusla/gpusla/functions/lambdahttp"
	"github.com/gpusla/gpusla/functions/slackapi"
)

// ParamSlackSigningSecret is the SSM SecureString (under
// GPUSLA_SECRETS_PATH) holding the Slack app's signing secret. Without it
// the function serves the ticket API only.
const ParamSlackSigningSecret = "slack-signing-secret"

// envSigningSecretFile names a file holding the signing secret, for runs
// outside AWS (the emulator) where there is no SSM; template.yaml never sets it.
const envSigningSecretFile = "GPUSLA_SLACK_SIGNING_SECRET_FILE"

// envInlineJobs=1 runs Slack jobs in goroutines of this invocation instead
// of invoking the function again (the emulator never freezes the process).
const envInlineJobs = "GPUSLA_INLINE_JOBS"

func main() {
	ctx := context.Background()
	f, err := setup(ctx)
	if err != nil {
		slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error("tickets init", "err", err)
		os.Exit(1)
	}
	awslambda.Start(f.handle)
}

type function struct {
	http  func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)
	slack *slackapi.Handler // nil without a signing secret
	log   *slog.Logger
}

func setup(ctx context.Context) (*function, error) {
	b, err := lambdaenv.Open(ctx)
	if err != nil {
		return nil, err
	}
	terms := os.Getenv(app.EnvTerms)
	if terms == "" {
		terms = filepath.Join(os.Getenv("LAMBDA_TASK_ROOT"), "terms")
	}
	book, err := app.LoadTerms(filepath.SplitList(terms)...)
	if err != nil {
		return nil, err
	}
	desk, err := b.Service.Tickets(book)
	if err != nil {
		return nil, err
	}
	api := httpapi.New(b.Service, b.Log)
	httpapi.RegisterTickets(api.Mux(), desk, b.Log)
	f := &function{log: b.Log}

	secret, err := signingSecret(ctx)
	if err != nil {
		return nil, err
	}
	if secret != "" {
		h, err := slackapi.New(slackapi.Config{Desk: desk, SigningSecret: secret, Log: b.Log})
		if err != nil {
			return nil, err
		}
		if os.Getenv(envInlineJobs) != "1" {
			cfg, err := config.LoadDefaultConfig(ctx)
			if err != nil {
				return nil, fmt.Errorf("aws config: %w", err)
			}
			name := os.Getenv("AWS_LAMBDA_FUNCTION_NAME")
			if name == "" {
				return nil, errors.New("AWS_LAMBDA_FUNCTION_NAME is not set: cannot hand Slack jobs to this function (set " + envInlineJobs + "=1 outside Lambda)")
			}
			h.SetRunner(&selfRunner{c: lambdasvc.NewFromConfig(cfg), name: name})
		}
		h.Register(api.Mux())
		f.slack = h
	} else {
		b.Log.Warn("no Slack signing secret: /slack/* is not served", "ssm", os.Getenv(lambdaenv.EnvSecretsPath)+"/"+ParamSlackSigningSecret)
	}
	f.http = lambdahttp.Handler(api)
	return f, nil
}

// signingSecret reads the Slack signing secret from SSM (or the file named
// by envSigningSecretFile); "" when none is configured.
func signingSecret(ctx context.Context) (string, error) {
	if p := os.Getenv(envSigningSecretFile); p != "" {
		raw, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("slack signing secret: %w", err)
		}
		return strings.TrimSpace(string(raw)), nil
	}
	path := os.Getenv(lambdaenv.EnvSecretsPath)
	if path == "" {
		return "", nil
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return "", fmt.Errorf("aws config: %w", err)
	}
	name := path + "/" + ParamSlackSigningSecret
	out, err := ssm.NewFromConfig(cfg).GetParameters(ctx, &ssm.GetParametersInput{Names: []string{name}, WithDecryption: aws.Bool(true)})
	if err != nil {
		return "", fmt.Errorf("read %s from SSM: %w", name, err)
	}
	for _, p := range out.Parameters {
		if aws.ToString(p.Name) == name {
			return strings.TrimSpace(aws.ToString(p.Value)), nil
		}
	}
	return "", nil
}

// event is the union of what this function is invoked with: an HTTP
// request from its Function URL, or a Slack job from itself.
type event struct {
	Job            *slackapi.Job   `json:"gpusla_job,omitempty"`
	RequestContext json.RawMessage `json:"requestContext,omitempty"`
}

func (f *function) handle(ctx context.Context, raw json.RawMessage) (any, error) {
	var ev event
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
	payload, err := json.Marshal(event{Job: &j})
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
