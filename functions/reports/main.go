// Command reports is the Lambda of the monthly reports and the status page
// (template.yaml: ReportsFunction, run hourly by EventBridge Scheduler, and
// StatusFunction, behind a Function URL; one binary, told apart by the
// event it gets). The hourly run generates each contract's report once its
// month is over in its time zone and the delay has passed, stores every
// format and the evidence bundle in the report bucket, posts the PDF to
// Slack and sends claim-deadline reminders (app.ReportJob). The status page
// is the same handler `gpusla serve` mounts (functions/statuspage), with its
// token read from SSM <SecretsPath>/status-token.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"
	_ "time/tzdata" // contract time zones must resolve on provided.al2023 too

	"github.com/aws/aws-lambda-go/events"
	awslambda "github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/functions/lambdaenv"
	"github.com/gpusla/gpusla/functions/lambdahttp"
	"github.com/gpusla/gpusla/functions/statuspage"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/slack"
)

// Environment (template.yaml).
const (
	EnvReportBucket = "GPUSLA_REPORT_BUCKET"
	EnvReportDelay  = "GPUSLA_REPORT_DELAY" // default app.DefaultReportDelay
	// ParamStatusToken is the SSM SecureString under GPUSLA_SECRETS_PATH
	// that protects the status page; without it the page answers 503.
	ParamStatusToken = "status-token"
)

func main() {
	f, err := setup(context.Background())
	if err != nil {
		slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error("reports init", "err", err)
		os.Exit(1)
	}
	awslambda.Start(f.handle)
}

type function struct {
	job  *app.ReportJob
	http func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)
	log  *slog.Logger
}

func setup(ctx context.Context) (*function, error) {
	b, err := lambdaenv.Open(ctx)
	if err != nil {
		return nil, err
	}
	termsPath := os.Getenv(app.EnvTerms)
	if termsPath == "" {
		termsPath = filepath.Join(os.Getenv("LAMBDA_TASK_ROOT"), "terms")
	}
	book, err := app.LoadTerms(filepath.SplitList(termsPath)...)
	if err != nil {
		return nil, err
	}
	desk, err := b.Service.Tickets(book)
	if err != nil {
		return nil, err
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("aws config: %w", err)
	}
	bucket := os.Getenv(EnvReportBucket)
	blobs, err := blob.NewS3(s3.NewFromConfig(cfg), bucket, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvReportBucket, err)
	}
	env := lambdaenv.FromEnv()
	ssmc := ssm.NewFromConfig(cfg)
	var poster notify.ReportPoster = &slack.Console{W: os.Stdout}
	if env.SecretsPath != "" {
		sec, err := lambdaenv.LoadSecrets(ctx, sdkSSM{ssmc}, env.SecretsPath, env.SlackChannel)
		if err != nil {
			return nil, err
		}
		if sec.Slack.Configured() {
			n, err := slack.New(sec.Slack)
			if err != nil {
				return nil, err
			}
			poster = n
		}
	}
	token := ""
	if env.SecretsPath != "" {
		out, err := ssmc.GetParameters(ctx, &ssm.GetParametersInput{Names: []string{env.SecretsPath + "/" + ParamStatusToken}, WithDecryption: aws.Bool(true)})
		if err != nil {
			return nil, fmt.Errorf("ssm %s/%s: %w", env.SecretsPath, ParamStatusToken, err)
		}
		if len(out.Parameters) == 1 && out.Parameters[0].Value != nil {
			token = *out.Parameters[0].Value
		} else {
			b.Log.Warn("no status token in SSM; the status page answers 503", "param", env.SecretsPath+"/"+ParamStatusToken)
		}
	}
	delay := app.DefaultReportDelay
	if v := os.Getenv(EnvReportDelay); v != "" {
		if delay, err = time.ParseDuration(v); err != nil || delay < 0 {
			return nil, fmt.Errorf("%s=%q: want a duration such as 6h", EnvReportDelay, v)
		}
	}
	mux := http.NewServeMux()
	statuspage.New(statuspage.Config{Nodes: b.Store, Tickets: desk, Reports: blobs, Token: token, Log: b.Log}).Register(mux)
	return &function{
		job:  &app.ReportJob{Desk: desk, Blobs: blobs, Poster: poster, Renderer: bundle.Renderer{}, Delay: delay, Log: b.Log},
		http: lambdahttp.Handler(mux), log: b.Log,
	}, nil
}

// handle tells a Function URL request from a schedule tick.
func (f *function) handle(ctx context.Context, raw json.RawMessage) (any, error) {
	var probe struct {
		RequestContext *json.RawMessage `json:"requestContext"`
		Source         string           `json:"source"`
		Schedule       string           `json:"schedule"`
		ScheduledTime  string           `json:"scheduled_time"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("event is not JSON: %w", err)
	}
	if probe.RequestContext != nil {
		var req events.APIGatewayV2HTTPRequest
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, fmt.Errorf("function URL event: %w", err)
		}
		return f.http(ctx, req)
	}
	if probe.Source != "gpusla.scheduler" || probe.Schedule != "reports" {
		return nil, fmt.Errorf("unexpected event (want a Function URL request or the reports schedule): %.200s", raw)
	}
	res, err := f.job.Run(ctx, time.Now().UTC())
	if err != nil {
		f.log.Error("reports", "scheduled", probe.ScheduledTime, "err", err)
		return res, err
	}
	return res, nil
}

// sdkSSM adapts the SDK's SSM client to lambdaenv.SSMAPI (names in, values
// of those that exist out).
type sdkSSM struct{ c *ssm.Client }

func (s sdkSSM) GetParameters(ctx context.Context, names []string, decrypt bool) (map[string]string, error) {
	out, err := s.c.GetParameters(ctx, &ssm.GetParametersInput{Names: names, WithDecryption: aws.Bool(decrypt)})
	if err != nil {
		return nil, err
	}
	vals := make(map[string]string, len(out.Parameters))
	for _, p := range out.Parameters {
		vals[aws.ToString(p.Name)] = aws.ToString(p.Value)
	}
	return vals, nil
}
