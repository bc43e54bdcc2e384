package wiring

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
)

// parameterStore answers GetParameters the way SSM does: the parameters
// that exist; names that do not are absent.
type parameterStore map[string]string

func (p parameterStore) GetParameters(_ context.Context, names []string, _ bool) (map[string]string, error) {
	out := map[string]string{}
	for _, n := range names {
		if v, ok := p[n]; ok {
			out[n] = v
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
		{Env{Table: "t", SecretsPath: "/gpusla/prod", Retention: "2400h"}, ""},
		{Env{Table: "t", SecretsPath: "/gpusla/prod", Retention: "100d"}, EnvRetention},
		{Env{Table: "t", SecretsPath: "/gpusla/prod", Retention: "-1h"}, EnvRetention},
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

// TestSSMClientRequest checks the request against SSM's JSON 1.1 protocol
// (target header, content type, SigV4 authorization for service ssm) and
// the decoding of its answer and of its errors.
func TestSSMClientRequest(t *testing.T) {
	var got struct {
		target, ctype, auth, token string
		body                       map[string]any
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.target, got.ctype = r.Header.Get("X-Amz-Target"), r.Header.Get("Content-Type")
		got.auth, got.token = r.Header.Get("Authorization"), r.Header.Get("X-Amz-Security-Token")
		_ = json.NewDecoder(r.Body).Decode(&got.body)
		if names, _ := got.body["Names"].([]any); len(names) > 0 && names[0] == "/deny/master-key" {
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"__type":"AccessDeniedException","message":"not allowed"}`))
			return
		}
		_, _ = w.Write([]byte(`{"Parameters":[{"Name":"/g/master-key","Type":"SecureString","Value":"` + key64 + `","Version":1}],"InvalidParameters":["/g/slack-webhook","/g/slack-bot-token"]}`))
	}))
	defer srv.Close()
	c := &SSMClient{Region: "eu-west-1", Endpoint: srv.URL + "/",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "session-token")}
	s, err := LoadSecrets(context.Background(), c, "/g", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.MasterKey) != 32 || s.Slack.Configured() {
		t.Fatalf("secrets: %d-byte key, slack %v", len(s.MasterKey), s.Slack.Configured())
	}
	if got.target != "AmazonSSM.GetParameters" || got.ctype != "application/x-amz-json-1.1" {
		t.Errorf("target %q content type %q", got.target, got.ctype)
	}
	if !strings.HasPrefix(got.auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") || !strings.Contains(got.auth, "/eu-west-1/ssm/aws4_request") || got.token != "session-token" {
		t.Errorf("not signed for ssm in eu-west-1: %q (token %q)", got.auth, got.token)
	}
	if got.body["WithDecryption"] != true || len(got.body["Names"].([]any)) != 5 { // key, two Slack, alert channels, action link secret
		t.Errorf("body %v", got.body)
	}
	if _, err := LoadSecrets(context.Background(), c, "/deny", ""); err == nil || !strings.Contains(err.Error(), "AccessDeniedException") {
		t.Errorf("an SSM error was not reported with its type: %v", err)
	}
	if got := (&SSMClient{Region: "cn-north-1"}).endpoint(); got != "https://ssm.cn-north-1.amazonaws.com.cn/" {
		t.Errorf("China endpoint %q", got)
	}
}
