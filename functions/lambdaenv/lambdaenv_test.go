package lambdaenv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

// parameterStore answers GetParameters the way SSM does: the parameters
// that exist, and the names that do not in InvalidParameters.
type parameterStore map[string]string

func (p parameterStore) GetParameters(_ context.Context, in *ssm.GetParametersInput, _ ...func(*ssm.Options)) (*ssm.GetParametersOutput, error) {
	out := &ssm.GetParametersOutput{}
	for _, n := range in.Names {
		if v, ok := p[n]; ok {
			out.Parameters = append(out.Parameters, types.Parameter{Name: aws.String(n), Value: aws.String(v), Type: types.ParameterTypeSecureString})
		} else {
			out.InvalidParameters = append(out.InvalidParameters, n)
		}
	}
	return out, nil
}

const key64 = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

func TestLoadSecrets(t *testing.T) {
	tests := []struct {
		name    string
		params  parameterStore
		channel string
		wantErr string
		check   func(t *testing.T, s Secrets)
	}{
		{name: "key only", params: parameterStore{"/g/master-key": key64 + "\n"},
			check: func(t *testing.T, s Secrets) {
				if len(s.MasterKey) != 32 || s.Slack.Configured() {
					t.Errorf("got %d-byte key, slack configured %v", len(s.MasterKey), s.Slack.Configured())
				}
			}},
		{name: "webhook", params: parameterStore{"/g/master-key": key64, "/g/slack-webhook": "https://hooks.slack.com/services/T/B/x"},
			check: func(t *testing.T, s Secrets) {
				if s.Slack.WebhookURL == "" {
					t.Error("webhook not loaded")
				}
			}},
		{name: "bot token with channel", channel: "C123", params: parameterStore{"/g/master-key": key64, "/g/slack-bot-token": "xoxb-1"},
			check: func(t *testing.T, s Secrets) {
				if s.Slack.BotToken != "xoxb-1" || s.Slack.Channel != "C123" {
					t.Errorf("slack = %+v", s.Slack)
				}
			}},
		{name: "missing key", params: parameterStore{}, wantErr: "/g/master-key is missing"},
		{name: "short key", params: parameterStore{"/g/master-key": "abcd"}, wantErr: "64 hex digits"},
		{name: "bot token without channel", params: parameterStore{"/g/master-key": key64, "/g/slack-bot-token": "xoxb-1"}, wantErr: "slack.channel"},
		{name: "both slack secrets", channel: "C1", params: parameterStore{"/g/master-key": key64, "/g/slack-bot-token": "xoxb-1", "/g/slack-webhook": "https://hooks.slack.com/x"}, wantErr: "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := LoadSecrets(context.Background(), tt.params, "/g", tt.channel)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if err != nil && strings.Contains(err.Error(), key64) {
					t.Fatal("error message contains the secret")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, s)
		})
	}
}

func TestEnvCheck(t *testing.T) {
	tests := []struct {
		env     Env
		wantErr string
	}{
		{Env{Table: "t", SecretsPath: "/gpusla/prod"}, ""},
		{Env{Table: "t", MasterKeyFile: "/k"}, ""},
		{Env{SecretsPath: "/gpusla/prod"}, EnvTable},
		{Env{Table: "t"}, EnvSecretsPath},
		{Env{Table: "t", SecretsPath: "/a", MasterKeyFile: "/k"}, "not both"},
		{Env{Table: "t", SecretsPath: "gpusla/prod"}, "SSM path"},
		{Env{Table: "t", SecretsPath: "/gpusla/"}, "SSM path"},
	}
	for _, tt := range tests {
		err := tt.env.Check()
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%+v: err %v, want %q", tt.env, err, tt.wantErr)
		}
	}
}

func TestMasterKeyFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "master.key")
	if err := os.WriteFile(p, []byte(key64+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := secretsFromFile(p); err != nil || len(s.MasterKey) != 32 {
		t.Fatalf("0600 key: %v", err)
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := secretsFromFile(p); err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Fatalf("0644 key accepted: %v", err)
	}
}
