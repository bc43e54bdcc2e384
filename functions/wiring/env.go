// Package wiring assembles the application for each environment it runs
// in, from that environment: a Lambda function (template.yaml sets its
// variables; secrets come from SSM Parameter Store) and the local process
// `gpusla serve` with the offline commands (a data folder, optionally a
// DynamoDB table). Every environment variable the backend reads is named
// here, and read only here; so are the contract-terms lookup, the SSM
// parameters and the report delay.
package wiring

import (
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/gpusla/gpusla/functions/actionlink"
	"github.com/gpusla/gpusla/functions/app"
)

// Environment variables of every environment. Secrets are never among the
// Lambda's: GPUSLA_SECRETS_PATH names where they are. GPUSLA_MASTER_KEY_FILE
// and GPUSLA_DYNAMODB_ENDPOINT exist for running a function outside AWS
// (the emulator tests, a local DynamoDB); template.yaml sets neither.
const (
	EnvTable          = "GPUSLA_TABLE" // DynamoDB table; for serve: use it instead of the data folder's store
	EnvSecretsPath    = "GPUSLA_SECRETS_PATH"
	EnvSlackChannel   = "GPUSLA_SLACK_CHANNEL"
	EnvMasterKeyFile  = "GPUSLA_MASTER_KEY_FILE"
	EnvDynamoEndpoint = "GPUSLA_DYNAMODB_ENDPOINT"
	// EnvRetention is the TTL of stored evidence batch bodies as a Go
	// duration ("2400h"); unset: app.DefaultRetention (docs/backend.md says
	// why 100 days).
	EnvRetention = "GPUSLA_RETENTION"
	// EnvTerms lists contract terms files or folders (os.PathListSeparator
	// between them); default: the terms/ folder beside the Lambda's
	// bootstrap, or the data folder's terms/ for serve.
	EnvTerms = "GPUSLA_TERMS"
	// EnvReportBucket is the S3 bucket of the monthly reports (Lambda).
	EnvReportBucket = "GPUSLA_REPORT_BUCKET"
	// EnvReportDelay is how long after a contract's month ends its report
	// is made, e.g. 6h (default app.DefaultReportDelay).
	EnvReportDelay = "GPUSLA_REPORT_DELAY"
	// EnvScorecardMonths is how many months the provider scorecard stored
	// beside each monthly report covers, the report's month last: a whole
	// number from 0 (no scorecard) to 36 (default app.DefaultScorecardMonths).
	EnvScorecardMonths = "GPUSLA_SCORECARD_MONTHS"
	// EnvPartsQueue is the SQS queue URL the reports function sends each
	// month's node-months to (template.yaml: PartsQueue); unset, a month
	// is built in the reports function itself.
	EnvPartsQueue = "GPUSLA_PARTS_QUEUE"
	// EnvPartsWait is how long after the node-months are sent a month is
	// assembled without the nodes whose part never came (default
	// DefaultPartsWait).
	EnvPartsWait = "GPUSLA_PARTS_WAIT"
	// EnvPartAttempts is how many times the parts function tries a
	// node-month before it records the part as failed (default
	// DefaultPartAttempts); the queue's maxReceiveCount is one more.
	EnvPartAttempts = "GPUSLA_PART_ATTEMPTS"
	// EnvSigningSecretFile names a file holding the Slack signing secret,
	// for the tickets function outside AWS (the emulator) where there is no
	// SSM; template.yaml never sets it.
	EnvSigningSecretFile = "GPUSLA_SLACK_SIGNING_SECRET_FILE"
	// EnvStatusTokenFile names a file holding the status page's token, for
	// the status function outside AWS (the emulator); template.yaml never
	// sets it: in AWS the token is the SSM parameter ParamStatusToken.
	EnvStatusTokenFile = "GPUSLA_STATUS_TOKEN_FILE"
	// EnvPublicURL is the backend's address as people's browsers reach it
	// (https://gpusla.example.com, the tickets Function URL, a reverse
	// proxy's). With it, hardware alerts to the robots and the webhook carry
	// a signed "Request replacement" link to <it>/v1/actions/replacement
	// (functions/actionlink, docs/alerts.md); without it they carry none
	// and the route is not served.
	EnvPublicURL = "GPUSLA_PUBLIC_URL"
	// EnvInlineJobs=1 runs the tickets function's Slack jobs in goroutines
	// of the invocation instead of invoking the function again (the
	// emulator never freezes the process).
	EnvInlineJobs = "GPUSLA_INLINE_JOBS"

	// Local (`gpusla serve`) only; a Lambda reads its secrets from SSM.
	EnvSlackWebhookURL    = "GPUSLA_SLACK_WEBHOOK_URL"
	EnvSlackBotToken      = "GPUSLA_SLACK_BOT_TOKEN"
	EnvSlackSigningSecret = "GPUSLA_SLACK_SIGNING_SECRET" // without it serve has no Slack endpoints
	EnvStatusToken        = "GPUSLA_STATUS_TOKEN"         // overrides <data>/status.token
	// EnvTrustedProxies lists the reverse proxies (CIDRs or addresses,
	// comma- or space-separated) whose X-Forwarded-Proto serve believes:
	// behind the documented nginx recipe, 127.0.0.1. A request from any
	// other address is judged by its own connection alone.
	EnvTrustedProxies = "GPUSLA_TRUSTED_PROXIES"
	// EnvSlackAPIURL overrides Slack's API base URL (a slacktest server in
	// the end-to-end tests).
	EnvSlackAPIURL = "GPUSLA_SLACK_API_URL"

	// EnvAPIKey is the CLI's API key for the admin commands sent to a
	// running backend (`gpusla node release --server URL`, `maintenance
	// add --server URL`): a key with the admin scope. Read from the
	// environment, never a flag, so it stays out of shell history and ps.
	EnvAPIKey = "GPUSLA_API_KEY"

	// Set by the Lambda runtime.
	EnvLogLevel     = "AWS_LAMBDA_LOG_LEVEL" // from LoggingConfig.ApplicationLogLevel
	EnvRegion       = "AWS_REGION"
	EnvTaskRoot     = "LAMBDA_TASK_ROOT"
	EnvFunctionName = "AWS_LAMBDA_FUNCTION_NAME"
	EnvSSMEndpoint  = "AWS_ENDPOINT_URL_SSM"
)

// Env is what the backend reads from its environment.
type Env struct {
	Table          string
	SecretsPath    string
	SlackChannel   string
	MasterKeyFile  string
	DynamoEndpoint string
	LogLevel       string
	Retention      string
	Terms          string
	ReportBucket   string
	ReportDelay    string
	// ScorecardMonths is EnvScorecardMonths as given ("" for the default).
	ScorecardMonths string
	PartsQueue      string
	PartsWait       string
	PartAttempts    string

	SigningSecretFile string
	StatusTokenFile   string
	PublicURL         string
	InlineJobs        bool
	TaskRoot          string
	FunctionName      string
	Region            string
	SSMEndpoint       string

	SlackWebhookURL    string
	SlackBotToken      string
	SlackSigningSecret string
	SlackAPIURL        string
	StatusToken        string
	// TrustedProxies is EnvTrustedProxies as given ("" for none).
	TrustedProxies string
}

// FromEnv reads the environment.
func FromEnv() Env {
	return Env{
		Table:              os.Getenv(EnvTable),
		SecretsPath:        os.Getenv(EnvSecretsPath),
		SlackChannel:       os.Getenv(EnvSlackChannel),
		MasterKeyFile:      os.Getenv(EnvMasterKeyFile),
		DynamoEndpoint:     os.Getenv(EnvDynamoEndpoint),
		LogLevel:           os.Getenv(EnvLogLevel),
		Retention:          os.Getenv(EnvRetention),
		Terms:              os.Getenv(EnvTerms),
		ReportBucket:       os.Getenv(EnvReportBucket),
		ReportDelay:        os.Getenv(EnvReportDelay),
		ScorecardMonths:    os.Getenv(EnvScorecardMonths),
		PartsQueue:         os.Getenv(EnvPartsQueue),
		PartsWait:          os.Getenv(EnvPartsWait),
		PartAttempts:       os.Getenv(EnvPartAttempts),
		TrustedProxies:     os.Getenv(EnvTrustedProxies),
		SigningSecretFile:  os.Getenv(EnvSigningSecretFile),
		StatusTokenFile:    os.Getenv(EnvStatusTokenFile),
		PublicURL:          os.Getenv(EnvPublicURL),
		InlineJobs:         os.Getenv(EnvInlineJobs) == "1",
		TaskRoot:           os.Getenv(EnvTaskRoot),
		FunctionName:       os.Getenv(EnvFunctionName),
		Region:             os.Getenv(EnvRegion),
		SSMEndpoint:        os.Getenv(EnvSSMEndpoint),
		SlackWebhookURL:    os.Getenv(EnvSlackWebhookURL),
		SlackBotToken:      os.Getenv(EnvSlackBotToken),
		SlackSigningSecret: os.Getenv(EnvSlackSigningSecret),
		SlackAPIURL:        os.Getenv(EnvSlackAPIURL),
		StatusToken:        os.Getenv(EnvStatusToken),
	}
}

// Check names the variable a Lambda function needs that is missing or
// contradictory.
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
	if _, err := e.RetentionTTL(); err != nil {
		return err
	}
	if _, err := e.ScorecardMonthsOrDefault(); err != nil {
		return err
	}
	if _, err := e.PartsWaitOrDefault(); err != nil {
		return err
	}
	if _, err := e.PartAttemptsOrDefault(); err != nil {
		return err
	}
	if e.PublicURL != "" {
		if _, err := actionlink.ParseBase(e.PublicURL); err != nil {
			return fmt.Errorf("%s: %w", EnvPublicURL, err)
		}
	}
	return nil
}

// RetentionTTL is the parsed EnvRetention; zero when unset (the default).
func (e Env) RetentionTTL() (time.Duration, error) {
	if e.Retention == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(e.Retention)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration like 2400h", EnvRetention, e.Retention)
	}
	return d, nil
}

// ReportDelayOrDefault is the parsed EnvReportDelay, app.DefaultReportDelay
// when unset.
func (e Env) ReportDelayOrDefault() (time.Duration, error) {
	if e.ReportDelay == "" {
		return app.DefaultReportDelay, nil
	}
	d, err := time.ParseDuration(e.ReportDelay)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s=%q: want a duration such as 6h", EnvReportDelay, e.ReportDelay)
	}
	return d, nil
}

// DefaultPartsWait covers the queue's retries of a node-month (a try is at
// most the parts function's 15 minutes, hidden for as long again) with room
// to spare; the reports function assembles at its next hourly run after.
const DefaultPartsWait = 2 * time.Hour

// DefaultPartAttempts: a node-month that fails three times is not going
// to pass on the fourth (a store timeout passes on the second).
const DefaultPartAttempts = 3

// PartsWaitOrDefault is EnvPartsWait read.
func (e Env) PartsWaitOrDefault() (time.Duration, error) {
	if e.PartsWait == "" {
		return DefaultPartsWait, nil
	}
	d, err := time.ParseDuration(e.PartsWait)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 2h", EnvPartsWait, e.PartsWait)
	}
	return d, nil
}

// PartAttemptsOrDefault is EnvPartAttempts read.
func (e Env) PartAttemptsOrDefault() (int, error) {
	if e.PartAttempts == "" {
		return DefaultPartAttempts, nil
	}
	n, err := strconv.Atoi(e.PartAttempts)
	if err != nil || n < 1 || n > 100 {
		return 0, fmt.Errorf("%s=%q: want a whole number from 1 to 100", EnvPartAttempts, e.PartAttempts)
	}
	return n, nil
}

// TrustedProxyList is EnvTrustedProxies read: each item a CIDR
// (10.0.0.0/24) or an address (127.0.0.1, ::1: itself alone). A mistake
// names the variable and the item.
func (e Env) TrustedProxyList() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.FieldsFunc(e.TrustedProxies, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if p, err := netip.ParsePrefix(item); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: %q is neither a CIDR (10.0.0.0/24) nor an address (127.0.0.1)", EnvTrustedProxies, e.TrustedProxies, item)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// ScorecardMonthsOrDefault is the parsed EnvScorecardMonths,
// app.DefaultScorecardMonths when unset.
func (e Env) ScorecardMonthsOrDefault() (int, error) {
	if e.ScorecardMonths == "" {
		return app.DefaultScorecardMonths, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(e.ScorecardMonths))
	if err == nil {
		err = app.CheckScorecardMonths(n)
	} else {
		err = fmt.Errorf("not a whole number of months")
	}
	if err != nil {
		return 0, fmt.Errorf("%s=%q: %w (want 0 for no scorecard, up to 36; default %d)", EnvScorecardMonths, e.ScorecardMonths, err, app.DefaultScorecardMonths)
	}
	return n, nil
}
