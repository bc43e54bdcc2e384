// Package lambdaenv wires the application for a Lambda function from its
// environment (set by template.yaml): the DynamoDB store, the master key and
// Slack credentials from SSM Parameter Store, and a JSON logger at the level
// Lambda's logging config asks for. Every function's main calls Open once,
// at init, so the work is paid once per cold start, not per request.
package lambdaenv

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/slack"
	"github.com/gpusla/gpusla/infra/store/dynamo"
)

// Environment variables. Secrets are never among them: GPUSLA_SECRETS_PATH
// names where they are. GPUSLA_MASTER_KEY_FILE and GPUSLA_DYNAMODB_ENDPOINT
// exist for running a function outside AWS (the emulator tests, a local
// DynamoDB); template.yaml sets neither.
const (
	EnvTable          = "GPUSLA_TABLE"
	EnvSecretsPath    = "GPUSLA_SECRETS_PATH"
	EnvSlackChannel   = "GPUSLA_SLACK_CHANNEL"
	EnvMasterKeyFile  = "GPUSLA_MASTER_KEY_FILE"
	EnvDynamoEndpoint = "GPUSLA_DYNAMODB_ENDPOINT"
	// EnvRetention is the TTL of stored evidence batch bodies as a Go
	// duration ("2400h"); unset: app.DefaultRetention (docs/backend.md says
	// why 100 days).
	EnvRetention = "GPUSLA_RETENTION"
	// EnvLogLevel is set by Lambda from LoggingConfig.ApplicationLogLevel.
	EnvLogLevel = "AWS_LAMBDA_LOG_LEVEL"
)

// SSM parameter names under the secrets path (SecureString).
const (
	ParamMasterKey     = "master-key"      // 64 hex digits (32 bytes), required
	ParamSlackWebhook  = "slack-webhook"   // optional
	ParamSlackBotToken = "slack-bot-token" // optional, with GPUSLA_SLACK_CHANNEL
)

// Env is what a function reads from its environment.
type Env struct {
	Table          string
	SecretsPath    string
	SlackChannel   string
	MasterKeyFile  string
	DynamoEndpoint string
	LogLevel       string
	Retention      string
}

// FromEnv reads the environment.
func FromEnv() Env {
	return Env{
		Table:          os.Getenv(EnvTable),
		SecretsPath:    os.Getenv(EnvSecretsPath),
		SlackChannel:   os.Getenv(EnvSlackChannel),
		MasterKeyFile:  os.Getenv(EnvMasterKeyFile),
		DynamoEndpoint: os.Getenv(EnvDynamoEndpoint),
		LogLevel:       os.Getenv(EnvLogLevel),
		Retention:      os.Getenv(EnvRetention),
	}
}

// Check names the variable that is missing or contradictory.
func (e Env) Check() error {
	switch {
	case e.Table == "":
		return fmt.Errorf("%s is not set (the DynamoDB table name)", EnvTable)
	case e.SecretsPath == "" && e.MasterKeyFile == "":
		return fmt.Errorf("%s is not set (the SSM path of the secrets)", EnvSecretsPath)
	case e.SecretsPath != "" && e.MasterKeyFile != "":
		return fmt.Errorf("set %s or %s, not both", EnvSecretsPath, EnvMasterKeyFile)
	case e.SecretsPath != "" && (!strings.HasPrefix(e.SecretsPath, "/") || strings.HasSuffix(e.SecretsPath, "/")):
		return fmt.Errorf("%s=%q: want an SSM path like /gpusla/prod", EnvSecretsPath, e.SecretsPath)
	}
	if _, err := e.retention(); err != nil {
		return err
	}
	return nil
}

// retention is the parsed EnvRetention; zero when unset (the default).
func (e Env) retention() (time.Duration, error) {
	if e.Retention == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(e.Retention)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration like 2400h", EnvRetention, e.Retention)
	}
	return d, nil
}

// Secrets are what the functions need to keep secret.
type Secrets struct {
	MasterKey []byte
	Slack     slack.Config
}

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

// Backend is an application wired for a Lambda.
type Backend struct {
	Service *app.Service
	Store   *dynamo.Store
	Log     *slog.Logger
}

// Open reads the environment, loads the secrets and returns the wired
// application. Any error is fatal to the function's init: Lambda reports it
// and retries the init on the next invocation.
func Open(ctx context.Context) (*Backend, error) {
	env := FromEnv()
	log := Logger(os.Stdout, env.LogLevel)
	if err := env.Check(); err != nil {
		return nil, err
	}
	// The Lambda runtime puts the region and the execution role's
	// credentials in the environment. Reading them directly, instead of
	// through the SDK's config loader, keeps the loader's credential-provider
	// chain (SSO, STS, IMDS clients) out of the binary and its start-up.
	region := os.Getenv("AWS_REGION")
	if region == "" {
		return nil, errors.New("AWS_REGION is not set")
	}
	creds := aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(
		os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), os.Getenv("AWS_SESSION_TOKEN")))
	var secrets Secrets
	var err error
	if env.MasterKeyFile != "" {
		secrets, err = secretsFromFile(env.MasterKeyFile)
	} else {
		ssm := &SSMClient{Region: region, Credentials: creds, Endpoint: os.Getenv("AWS_ENDPOINT_URL_SSM")}
		secrets, err = LoadSecrets(ctx, ssm, env.SecretsPath, env.SlackChannel)
	}
	if err != nil {
		return nil, err
	}
	box, err := app.NewAESGCMBox(secrets.MasterKey)
	if err != nil {
		return nil, err
	}
	opts := dynamodb.Options{Region: region, Credentials: creds}
	if env.DynamoEndpoint != "" {
		opts.BaseEndpoint = aws.String(env.DynamoEndpoint)
	}
	db := dynamodb.New(opts)
	store, err := dynamo.New(db, env.Table)
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
	retention, _ := env.retention() // checked above
	// Every function judges nodes by their contract's detection settings,
	// so every one loads the terms (GPUSLA_TERMS).
	var termsPaths []string
	if v := os.Getenv(app.EnvTerms); v != "" {
		termsPaths = filepath.SplitList(v)
	}
	book, err := app.LoadTerms(termsPaths...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", app.EnvTerms, err)
	}
	svc, err := app.New(app.Config{Store: store, Notifier: notifier, Box: box, Log: log, Retention: retention, BackendID: "lambda", Terms: book})
	if err != nil {
		return nil, err
	}
	return &Backend{Service: svc, Store: store, Log: log}, nil
}

// SSMAPI is the one SSM call made (IAM: ssm:GetParameters).
type SSMAPI interface {
	GetParameters(ctx context.Context, names []string, decrypt bool) (map[string]string, error)
}

// LoadSecrets reads the SecureStrings under path in one request: the master
// key (required) and a Slack webhook or bot token (optional).
func LoadSecrets(ctx context.Context, c SSMAPI, path, slackChannel string) (Secrets, error) {
	name := func(p string) string { return path + "/" + p }
	found, err := c.GetParameters(ctx, []string{name(ParamMasterKey), name(ParamSlackWebhook), name(ParamSlackBotToken)}, true)
	if err != nil {
		return Secrets{}, fmt.Errorf("read secrets under %s from SSM: %w", path, err)
	}
	vals := map[string]string{}
	for k, v := range found {
		vals[k] = strings.TrimSpace(v)
	}
	raw, ok := vals[name(ParamMasterKey)]
	if !ok {
		return Secrets{}, fmt.Errorf("SSM parameter %s is missing (create it: see docs/aws.md)", name(ParamMasterKey))
	}
	key, err := parseMasterKey(raw)
	if err != nil {
		return Secrets{}, fmt.Errorf("SSM parameter %s: %w", name(ParamMasterKey), err)
	}
	s := Secrets{MasterKey: key, Slack: slack.Config{
		WebhookURL: vals[name(ParamSlackWebhook)],
		BotToken:   vals[name(ParamSlackBotToken)],
		Channel:    slackChannel,
	}}
	if s.Slack.Configured() {
		if err := s.Slack.Validate(); err != nil {
			return Secrets{}, fmt.Errorf("slack secrets under %s: %w", path, err)
		}
	}
	return s, nil
}

// secretsFromFile reads a master key file in the format `gpusla serve`
// keeps in its data folder (64 hex digits), refusing one others can read.
func secretsFromFile(path string) (Secrets, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Secrets{}, fmt.Errorf("master key file: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return Secrets{}, fmt.Errorf("master key file %s is readable by others (mode %04o)", path, st.Mode().Perm())
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return Secrets{}, fmt.Errorf("master key file: %w", err)
	}
	key, err := parseMasterKey(strings.TrimSpace(string(raw)))
	if err != nil {
		return Secrets{}, fmt.Errorf("master key file %s: %w", path, err)
	}
	return Secrets{MasterKey: key}, nil
}

func parseMasterKey(s string) ([]byte, error) {
	key, err := hex.DecodeString(s)
	if err != nil || len(key) != 32 {
		return nil, errors.New("want 64 hex digits (openssl rand -hex 32)")
	}
	return key, nil
}
