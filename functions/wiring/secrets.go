package wiring

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gpusla/gpusla/infra/slack"
)

// SSM parameter names under the secrets path (SecureString).
const (
	ParamMasterKey     = "master-key"      // 64 hex digits (32 bytes), required
	ParamSlackWebhook  = "slack-webhook"   // optional
	ParamSlackBotToken = "slack-bot-token" // optional, with GPUSLA_SLACK_CHANNEL
	// ParamStatusToken protects the status page (StatusFunction); without
	// it the page answers 503.
	ParamStatusToken = "status-token"
	// ParamAlertChannels is the alerts: section of serve's config as a YAML
	// document (docs/alerts.md): Feishu, DingTalk, WeCom and webhook channels
	// and their routes; optional.
	ParamAlertChannels = "alert-channels"
	// ParamSlackSigningSecret is the Slack app's signing secret
	// (TicketsFunction); without it the function serves the ticket API only.
	ParamSlackSigningSecret = "slack-signing-secret"
	// ParamActionSecret signs the alerts' replacement links
	// (functions/actionlink; 64 hex digits, `openssl rand -hex 32`). Read by
	// every function (ingest and the watchdog send alerts, tickets serves
	// the links); needed when GPUSLA_PUBLIC_URL is set. Putting a new value
	// rotates it: every earlier link is refused.
	ParamActionSecret = "action-link-secret"
	// ParamReplacementKey is the ed25519 key (PEM, `openssl genpkey
	// -algorithm ed25519`) that signs the replacement evidence packs the
	// tickets function writes (the data folder's replacement-ed25519.pem
	// for serve).
	ParamReplacementKey = "replacement-key"
)

// Secrets are what the functions need to keep secret.
type Secrets struct {
	MasterKey []byte
	Slack     slack.Config
	// Alerts is the alert channels document, "" without one.
	Alerts string
	// ActionSecret signs the alert links (ParamActionSecret), "" without.
	ActionSecret string
	// Params holds the further parameters a function asked for that exist,
	// by short name (ParamStatusToken …), trimmed.
	Params map[string]string
}

// SSMAPI is the one SSM call made (IAM: ssm:GetParameters).
type SSMAPI interface {
	GetParameters(ctx context.Context, names []string, decrypt bool) (map[string]string, error)
}

// LoadSecrets reads the SecureStrings under path in one request: the master
// key (required), a Slack webhook or bot token and the alert channels
// (optional) and the further
// parameters named in extra (optional, into Params).
func LoadSecrets(ctx context.Context, c SSMAPI, path, slackChannel string, extra ...string) (Secrets, error) {
	name := func(p string) string { return path + "/" + p }
	names := []string{name(ParamMasterKey), name(ParamSlackWebhook), name(ParamSlackBotToken), name(ParamAlertChannels), name(ParamActionSecret)}
	for _, p := range extra {
		names = append(names, name(p))
	}
	found, err := c.GetParameters(ctx, names, true)
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
	s := Secrets{MasterKey: key, Params: map[string]string{}, Slack: slack.Config{
		WebhookURL: vals[name(ParamSlackWebhook)],
		BotToken:   vals[name(ParamSlackBotToken)],
		Channel:    slackChannel,
	}, Alerts: vals[name(ParamAlertChannels)], ActionSecret: vals[name(ParamActionSecret)]}
	for _, p := range extra {
		if v, ok := vals[name(p)]; ok {
			s.Params[p] = v
		}
	}
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
	key, err := readMasterKey(path, false)
	if err != nil {
		return Secrets{}, err
	}
	return Secrets{MasterKey: key, Params: map[string]string{}}, nil
}

func parseMasterKey(s string) ([]byte, error) {
	key, err := hex.DecodeString(s)
	if err != nil || len(key) != 32 {
		return nil, errors.New("want 64 hex digits (openssl rand -hex 32)")
	}
	return key, nil
}

// readSecretFile reads a secret kept in a file (trimmed); one that others
// can read is refused (CheckPrivateFile).
func readSecretFile(what, path string) (string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if err := CheckPrivateFile(what, path); err != nil {
		return "", err
	}
	return strings.TrimSpace(string(raw)), nil
}

// CheckPrivateFile is the one file-mode check of every secret file (the
// master key, the status token, a TLS key, the signing secret): a file
// that its group or others may read or write is refused, since anyone who
// can read it holds what it guards. what names the file in the error.
func CheckPrivateFile(what, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s %s is readable by others (mode %04o); chmod 600 it", what, path, perm)
	}
	return nil
}

// MinStatusToken is the shortest status token accepted: the token is the
// team view's only lock.
const MinStatusToken = 16

// CheckStatusToken is the one length check of the status token, wherever
// it comes from (where: the environment variable, the file, the SSM
// parameter). No token at all passes: the page then answers 503.
func CheckStatusToken(where, tok string) error {
	if tok != "" && len(tok) < MinStatusToken {
		return fmt.Errorf("status token %s: shorter than %d characters (it has %d)", where, MinStatusToken, len(tok))
	}
	return nil
}
