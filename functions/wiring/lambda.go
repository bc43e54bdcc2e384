package wiring

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/gpusla/gpusla/functions/actionlink"
	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/functions/replacement"
	"github.com/gpusla/gpusla/infra/notify/route"
	"github.com/gpusla/gpusla/infra/store/dynamo"
	"github.com/gpusla/gpusla/internal/logtext"
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
	return logtext.JSON(w, l)
}

// Backend is the application wired for a Lambda function: the DynamoDB
// store, the master key and Slack credentials from SSM Parameter Store (or
// a key file outside AWS), and a JSON logger at the level Lambda's logging
// config asks for.
type Backend struct {
	Env     Env
	Service *app.Service
	Store   *dynamo.Store
	Alerts  Alerts // the channels, Slack, or the function's log without either
	Secrets Secrets
	Log     *slog.Logger
	// Links signs the alerts' replacement links; nil without a public URL.
	Links *actionlink.Signer
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
	creds := lambdaCreds()
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
	store, err := env.dynamoStore(creds)
	if err != nil {
		return nil, err
	}
	// A wrong key fails the init (one query of the node partition per cold
	// start) instead of every push failing with 500.
	if unreadable, err := app.CheckMasterKey(ctx, store, box); err != nil {
		return nil, err
	} else if len(unreadable) > 0 {
		log.Error("node secrets the master key cannot open (damaged records); their pushes are refused", "nodes", unreadable)
	}
	alerts, err := lambdaAlerts(env, secrets)
	if err != nil {
		return nil, err
	}
	links, err := env.lambdaActionLinks(secrets)
	if err != nil {
		return nil, err
	}
	alerts.WithLinks(links)
	log.Info("alerts go to "+alerts.Summary, "path", env.SecretsPath)
	retention, _ := env.RetentionTTL() // checked above
	// Every function judges nodes by their contract's detection settings
	// (ingest and the watchdog alike), so every one loads the terms.
	book, _, err := env.LoadTermsFrom(env.LambdaTermsDir())
	if err != nil {
		return nil, err
	}
	cfg := app.Config{Store: store, Box: box, Log: log, Retention: retention, BackendID: "lambda", Terms: book}
	alerts.Apply(&cfg)
	svc, err := app.New(cfg)
	if err != nil {
		return nil, err
	}
	return &Backend{Env: env, Service: svc, Store: store, Alerts: alerts, Secrets: secrets, Log: log, Links: links}, nil
}

// lambdaCreds are the execution role's credentials, as the Lambda runtime
// puts them in the environment.
func lambdaCreds() aws.CredentialsProvider {
	return aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(
		os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN")))
}

func (e Env) dynamoStore(creds aws.CredentialsProvider) (*dynamo.Store, error) {
	opts := dynamodb.Options{Region: e.Region, Credentials: creds}
	if e.DynamoEndpoint != "" {
		opts.BaseEndpoint = aws.String(e.DynamoEndpoint)
	}
	return dynamo.New(dynamodb.New(opts), e.Table)
}

// OpenStore is the store alone, for a function that reads and writes the
// books and nothing else (the daily sealer): no secrets are read, so its
// role is granted none.
func OpenStore() (*dynamo.Store, *slog.Logger, error) {
	env := FromEnv()
	log := Logger(os.Stdout, env.LogLevel)
	if env.Region == "" {
		return nil, nil, fmt.Errorf("%s is not set", EnvRegion)
	}
	if env.Table == "" {
		return nil, nil, fmt.Errorf("%s is not set", EnvTable)
	}
	st, err := env.dynamoStore(lambdaCreds())
	return st, log, err
}

// lambdaActionLinks is the functions' link signer: nil without
// $GPUSLA_PUBLIC_URL; with it, the SSM parameter ParamActionSecret is
// required (a link nobody can check would be worse than none).
func (e Env) lambdaActionLinks(s Secrets) (*actionlink.Signer, error) {
	if e.PublicURL == "" {
		return nil, nil
	}
	where := "SSM parameter " + e.SecretsPath + "/" + ParamActionSecret
	if s.ActionSecret == "" {
		return nil, fmt.Errorf("%s is set but %s is missing (create it: openssl rand -hex 32)", EnvPublicURL, where)
	}
	return e.actionLinks(where, s.ActionSecret)
}

// ReplacementKey is the evidence packs' signing key, from the SSM parameter
// ParamReplacementKey (which Open must have been asked for).
func (b *Backend) ReplacementKey() (ed25519.PrivateKey, error) {
	raw := b.Secrets.Params[ParamReplacementKey]
	where := "SSM parameter " + b.Env.SecretsPath + "/" + ParamReplacementKey
	if raw == "" {
		return nil, fmt.Errorf("%s is missing (create it: openssl genpkey -algorithm ed25519)", where)
	}
	return replacement.ParseKey(where, []byte(raw))
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

// lambdaAlerts builds the destinations from the SSM parameters: the alert
// channels document and Slack's; the function's log without either.
func lambdaAlerts(env Env, s Secrets) (Alerts, error) {
	source := "ssm:" + env.SecretsPath + "/" + ParamAlertChannels
	var cfg route.Config
	if s.Alerts != "" {
		var err error
		if cfg, err = route.Parse(source, []byte(s.Alerts)); err != nil {
			return Alerts{}, err
		}
	}
	a, err := OpenAlerts(cfg, source, s.Slack, os.Stdout)
	if err != nil {
		return Alerts{}, fmt.Errorf("alert channels under %s: %w", env.SecretsPath, err)
	}
	return a, nil
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

// StatusToken is the status page's token: from the file
// $GPUSLA_STATUS_TOKEN_FILE names (outside AWS), else the SSM parameter
// ParamStatusToken (which Open must have been asked for); "" when none is
// configured, and then the page answers 503. A token shorter than 16
// characters is refused: it would be the page's only lock.
func (b *Backend) StatusToken() (string, error) {
	tok, where := b.Secrets.Params[ParamStatusToken], "SSM parameter "+b.Env.SecretsPath+"/"+ParamStatusToken
	if b.Env.StatusTokenFile != "" {
		var err error
		if tok, err = readSecretFile("status token", b.Env.StatusTokenFile); err != nil {
			return "", err
		}
		where = b.Env.StatusTokenFile
	}
	if err := CheckStatusToken(where, tok); err != nil {
		return "", err
	}
	return tok, nil
}

// FunctionName is this function's name, to invoke it again; an error
// outside Lambda, where it is unset.
func (b *Backend) FunctionName() (string, error) {
	if b.Env.FunctionName == "" {
		return "", errors.New(EnvFunctionName + " is not set: cannot hand Slack jobs to this function (set " + EnvInlineJobs + "=1 outside Lambda)")
	}
	return b.Env.FunctionName, nil
}
