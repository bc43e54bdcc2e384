package lambdafn

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/bundle"
	"github.com/gpusla/gpusla/functions/lambdahttp"
	"github.com/gpusla/gpusla/functions/statuspage"
	"github.com/gpusla/gpusla/functions/wiring"
	"github.com/gpusla/gpusla/infra/blob"
	"github.com/gpusla/gpusla/infra/sqsqueue"
)

// deskAndBlobs are what the reports and the status page read: the ticket
// desk on the function's terms and the report bucket ($GPUSLA_REPORT_BUCKET).
func deskAndBlobs(ctx context.Context, b *wiring.Backend) (*app.TicketDesk, *blob.S3, error) {
	desk, err := b.Tickets()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("aws config: %w", err)
	}
	blobs, err := blob.NewS3(s3.NewFromConfig(cfg), b.Env.ReportBucket, "")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", wiring.EnvReportBucket, err)
	}
	return desk, blobs, nil
}

// Reports is the hourly function of the monthly reports: it generates
// each contract's report once its month is over in its time zone and the
// delay has passed, stores every format and the evidence bundle in the
// report bucket, posts the PDF to Slack and sends claim-deadline reminders
// (app.ReportJob).
type Reports struct {
	job *app.ReportJob
	log *slog.Logger
}

// NewReports builds the reports function on b.
func NewReports(ctx context.Context, b *wiring.Backend) (*Reports, error) {
	desk, blobs, err := deskAndBlobs(ctx, b)
	if err != nil {
		return nil, err
	}
	delay, err := b.Env.ReportDelayOrDefault()
	if err != nil {
		return nil, err
	}
	months, err := b.Env.ScorecardMonthsOrDefault()
	if err != nil {
		return nil, err
	}
	// The month's notice and the claim reminders go to every configured
	// channel (Slack with the PDF attached when it has a bot token).
	job := &app.ReportJob{Desk: desk, Blobs: blobs, Notices: b.Alerts.Notices, Renderer: bundle.Renderer{}, Delay: delay, ScorecardMonths: months, Log: b.Log}
	if b.Env.PartsQueue != "" {
		// Months built apart: node-months to the parts function.
		if job.PartsWait, err = b.Env.PartsWaitOrDefault(); err != nil {
			return nil, err
		}
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, fmt.Errorf("aws config: %w", err)
		}
		if job.Parts, err = sqsqueue.New(sqs.NewFromConfig(cfg), b.Env.PartsQueue); err != nil {
			return nil, fmt.Errorf("%s: %w", wiring.EnvPartsQueue, err)
		}
	}
	return &Reports{log: b.Log, job: job}, nil
}

// scheduleEvent is the Input template.yaml gives the reports schedule; a
// Function URL request has a requestContext instead.
type scheduleEvent struct {
	RequestContext *json.RawMessage `json:"requestContext"`
	Source         string           `json:"source"`
	Schedule       string           `json:"schedule"`
	ScheduledTime  string           `json:"scheduled_time"`
}

func parseEvent(raw json.RawMessage) (scheduleEvent, error) {
	var ev scheduleEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return ev, fmt.Errorf("event is not JSON: %w", err)
	}
	return ev, nil
}

// Handle runs the job for the reports schedule and refuses anything else.
func (f *Reports) Handle(ctx context.Context, raw json.RawMessage) (any, error) {
	ev, err := parseEvent(raw)
	if err != nil {
		return nil, err
	}
	if ev.RequestContext != nil || ev.Source != "gpusla.scheduler" || ev.Schedule != "reports" {
		return nil, fmt.Errorf("unexpected event (want the reports schedule): %.200s", raw)
	}
	res, err := f.job.Run(ctx, time.Now().UTC())
	if err != nil {
		f.log.Error("reports", "scheduled", ev.ScheduledTime, "err", err)
		return res, err
	}
	return res, nil
}

// StatusParams are the SSM parameters the status function reads beside
// the common secrets (pass them to wiring.Open).
var StatusParams = []string{wiring.ParamStatusToken}

// Status is the function of the read-only status page behind its Function
// URL: the handler `gpusla serve` mounts (functions/statuspage), with its
// token read from SSM <SecretsPath>/status-token.
type Status struct {
	http func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)
}

// NewStatus builds the status function on b (opened with StatusParams).
func NewStatus(ctx context.Context, b *wiring.Backend) (*Status, error) {
	desk, blobs, err := deskAndBlobs(ctx, b)
	if err != nil {
		return nil, err
	}
	token, err := b.StatusToken()
	if err != nil {
		return nil, err
	}
	if token == "" {
		b.Log.Warn("no status token in SSM; the status page answers 503", "param", b.Env.SecretsPath+"/"+wiring.ParamStatusToken)
	}
	mux := http.NewServeMux()
	// A Function URL is https only: the token cookie is always Secure.
	ledger, err := desk.Ledger()
	if err != nil {
		return nil, err
	}
	statuspage.New(statuspage.Config{Nodes: b.Store, Terms: desk.Contract, Tickets: desk, Reports: blobs, Claims: ledger, Channels: b.Alerts.Channels,
		Token: token, HTTPS: true, Log: b.Log}).Register(mux)
	return &Status{http: lambdahttp.Handler(mux)}, nil
}

// Handle answers a Function URL request and refuses anything else.
func (f *Status) Handle(ctx context.Context, raw json.RawMessage) (any, error) {
	ev, err := parseEvent(raw)
	if err != nil {
		return nil, err
	}
	if ev.RequestContext == nil {
		return nil, fmt.Errorf("unexpected event (want a Function URL request): %.200s", raw)
	}
	var req events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, fmt.Errorf("function URL event: %w", err)
	}
	return f.http(ctx, req)
}
