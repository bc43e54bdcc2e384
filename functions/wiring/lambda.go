package wiring

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/store/dynamo"
)

// Logger is the JSON logger Lambda's advanced logging expects, at the
// level it was configured with (default INFO).
func Logger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	switch strings.ToUpper(level) {
	case "TRACE", "DEBUG":
		l = slog.LevelDebug
	case "WARN":
		l = slog.LevelWarn
	case "ERROR", "FATAL":
		l = slog.LevelError
	default:
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l}))
}

// Backend is the application wired for a Lambda function: the DynamoDB
// store, the master key and Slack credentials from SSM Parameter Store (or
// a key file outside AWS), and a JSON logger at the level Lambda's logging
// config asks for.
type Backend struct {
	Env      Env
	Service  *app.Service
	Store    *dynamo.Store
	Notifier notify.Notifier // Slack, or the function's log without Slack secrets
	Secrets  Secrets
	Log      *slog.Logger
}

// Open reads the environment, loads the secrets (with the further SSM
// parameters named in extra, in the same request) and returns the wired
// application. Every function's main calls it once, at init, so the work
// is paid once per cold start, not per request. Any error is fatal to the
// init: Lambda reports it and retries the init on the next invocation.
func Open(ctx context.Context, extra ...string) (*Backend, error) {
	env := FromEnv()
	log := Logger(os.Stdout, env.LogLevel)
	if err := env.Check(); err != nil {
		return nil, err
	}
	// The Lambda runtime puts the region and the execution role's
	// credentials in the environment. Reading them directly, instead of
	// through the SDK's config loader, keeps the loader's credential-provider
	// chain (SSO, STS, IMDS clients) out of the binary and its start-up.
	if env.Region == "" {
		return nil, fmt.Errorf("%s is not set", EnvRegion)
	}
	creds := aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(
		os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN")))
	var secrets Secrets
	var err error
	if env.MasterKeyFile != "" {
		secrets, err = secretsFromFile(env.MasterKeyFile)
	} else {
		ssm := &SSMClient{Region: env.Region, Credentials: creds, Endpoint: env.SSMEndpoint}
		secrets, err = LoadSecrets(ctx, ssm, env.SecretsPath, env.SlackChannel, extra...)
	}
	if err != nil {
		return nil, err
	}
	box, err := app.NewAESGCMBox(secrets.MasterKey)
	if err != nil {
		return nil, err
	}
	opts := dynamodb.Options{Region: env.Region, Credentials: creds}
	if env.DynamoEndpoint != "" {
		opts.BaseEndpoint = aws.String(env.DynamoEndpoint)
	}
	store, err := dynamo.New(dynamodb.New(opts), env.Table)
	if err != nil {
		return nil, err
	}
	var notifier notify.Notifier
	if secrets.Slack.Configured() {
		n, err := slack.New(secrets.Slack)
		if err != nil {
			return nil, fmt.Errorf("slack secrets under %s: %w", env.SecretsPath, err)
		}
		notifier = n
	} else {
		log.Warn("no Slack credentials in SSM; alerts go to the function's log", "path", env.SecretsPath)
		notifier = &slack.Console{W: os.Stdout}
	}
	retention, _ := env.RetentionTTL() // checked above
	// Every function judges nodes by their contract's detection settings
	// (ingest and the watchdog alike), so every one loads the terms.
	book, _, err := env.LoadTermsFrom(env.LambdaTermsDir())
	if err != nil {
		return nil, err
	}
	svc, err := app.New(app.Config{Store: store, Notifier: notifier, Box: box, Log: log, Retention: retention, BackendID: "lambda", Terms: book})
	if err != nil {
		return nil, err
	}
	return &Backend{Env: env, Service: svc, Store: store, Notifier: notifier, Secrets: secrets, Log: log}, nil
}

// Tickets is the ticket desk on the contract terms of the function
// ($GPUSLA_TERMS, else the terms/ folder beside bootstrap).
func (b *Backend) Tickets() (*app.TicketDesk, error) {
	book, _, err := b.Env.LoadTermsFrom(b.Env.LambdaTermsDir())
	if err != nil {
		return nil, err
	}
	return b.Service.Tickets(book)
}

// MinuteTick is the watchdog function's run (app.MinuteTick). Terms that
// cannot be loaded do not stop the node watchdog: every run reports them.
func (b *Backend) MinuteTick() func(context.Context) (app.WatchdogResult, error) {
	desk, err := b.Tickets()
	return app.MinuteTick(b.Service, desk, err)
}

// SigningSecret is the Slack app's signing secret: from the file
// $GPUSLA_SLACK_SIGNING_SECRET_FILE names (outside AWS), else the SSM
// parameter ParamSlackSigningSecret (which Open must have been asked for);
// "" when none is configured.
func (b *Backend) SigningSecret() (string, error) {
	if b.Env.SigningSecretFile != "" {
		return readSecretFile("slack signing secret", b.Env.SigningSecretFile)
	}
	return b.Secrets.Params[ParamSlackSigningSecret], nil
}

// FunctionName is this function's name, to invoke it again; an error
// outside Lambda, where it is unset.
func (b *Backend) FunctionName() (string, error) {
	if b.Env.FunctionName == "" {
		return "", errors.New(EnvFunctionName + " is not set: cannot hand Slack jobs to this function (set " + EnvInlineJobs + "=1 outside Lambda)")
	}
	return b.Env.FunctionName, nil
}
