package wiring

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/functions/app"
	"github.com/gpusla/gpusla/infra/slack"
)

// Every variable FromEnv reads lands in its field (a name typed twice or a
// field left out would show here).
func TestFromEnvReadsEveryVariable(t *testing.T) {
	vals := map[string]string{EnvTable: "t", EnvSecretsPath: "/p", EnvSlackChannel: "C1", EnvMasterKeyFile: "/k",
		EnvDynamoEndpoint: "http://d", EnvRetention: "1h", EnvTerms: "/terms", EnvReportBucket: "b", EnvReportDelay: "2h", EnvScorecardMonths: "6",
		EnvSigningSecretFile: "/s", EnvStatusTokenFile: "/st", EnvInlineJobs: "1", EnvTaskRoot: "/var/task", EnvFunctionName: "fn", EnvRegion: "eu-west-1",
		EnvSSMEndpoint: "http://ssm", EnvSlackWebhookURL: "https://hooks", EnvSlackBotToken: "xoxb", EnvSlackSigningSecret: "sig",
		EnvSlackAPIURL: "http://slack", EnvStatusToken: "tok", EnvTrustedProxies: "127.0.0.1", EnvLogLevel: "WARN", EnvPublicURL: "https://pub"}
	for k, v := range vals {
		t.Setenv(k, v)
	}
	got := FromEnv()
	want := Env{Table: "t", SecretsPath: "/p", SlackChannel: "C1", MasterKeyFile: "/k", DynamoEndpoint: "http://d", LogLevel: "WARN",
		Retention: "1h", Terms: "/terms", ReportBucket: "b", ReportDelay: "2h", ScorecardMonths: "6", SigningSecretFile: "/s", StatusTokenFile: "/st", InlineJobs: true,
		TaskRoot: "/var/task", FunctionName: "fn", Region: "eu-west-1", SSMEndpoint: "http://ssm", SlackWebhookURL: "https://hooks",
		SlackBotToken: "xoxb", SlackSigningSecret: "sig", SlackAPIURL: "http://slack", StatusToken: "tok", TrustedProxies: "127.0.0.1", PublicURL: "https://pub"}
	if got != want {
		t.Fatalf("FromEnv:\n got %+v\nwant %+v", got, want)
	}
}

// The report delay is parsed in one place, for the Lambda and for serve.
func TestReportDelay(t *testing.T) {
	for _, c := range []struct {
		v       string
		want    time.Duration
		wantErr bool
	}{{"", app.DefaultReportDelay, false}, {"6h", 6 * time.Hour, false}, {"0s", 0, false}, {"-1h", 0, true}, {"soon", 0, true}} {
		got, err := Env{ReportDelay: c.v}.ReportDelayOrDefault()
		if c.wantErr {
			if err == nil || !strings.Contains(err.Error(), EnvReportDelay) {
				t.Errorf("%q: %v, want an error naming %s", c.v, err, EnvReportDelay)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %v %v, want %v", c.v, got, err, c.want)
		}
	}
}

// The scorecard's months are parsed in one place, for the Lambda and for
// serve; a bad value is refused naming the variable and the value.
func TestScorecardMonths(t *testing.T) {
	for _, c := range []struct {
		v    string
		want int
		bad  string // what the error must say besides the variable and value
	}{{"", app.DefaultScorecardMonths, ""}, {"0", 0, ""}, {"1", 1, ""}, {"12", 12, ""}, {"36", 36, ""},
		{"37", 0, "37 months: want 0 (no scorecard) to 36"}, {"-1", 0, "-1 months"}, {"3m", 0, "not a whole number"}, {"three", 0, "not a whole number"}, {"1.5", 0, "not a whole number"}} {
		got, err := Env{ScorecardMonths: c.v}.ScorecardMonthsOrDefault()
		if c.bad != "" {
			if err == nil || !strings.Contains(err.Error(), EnvScorecardMonths+"=\""+c.v+"\"") || !strings.Contains(err.Error(), c.bad) {
				t.Errorf("%q: %v, want an error naming %s=%q and saying %q", c.v, err, EnvScorecardMonths, c.v, c.bad)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %v %v, want %v", c.v, got, err, c.want)
		}
	}
	// The Lambda's check refuses it before anything starts.
	e := Env{Table: "t", SecretsPath: "/p", ScorecardMonths: "forty"}
	if err := e.Check(); err == nil || !strings.Contains(err.Error(), EnvScorecardMonths+`="forty"`) {
		t.Errorf("Check with %s=forty: %v", EnvScorecardMonths, err)
	}
}

// The terms lookup: $GPUSLA_TERMS (a list, every entry must exist), else
// the default folder when it exists, else none.
func TestTermsLookup(t *testing.T) {
	dir := t.TempDir()
	terms := filepath.Join(dir, TermsDir)
	if err := os.MkdirAll(terms, 0o700); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../../testdata/terms/cn-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(terms, "cn.yaml"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	book, paths, err := Env{}.LoadTermsFrom(terms)
	if err != nil || len(paths) != 1 || book["cn-example"] == nil {
		t.Fatalf("default folder: %v %v %v", book.Contracts(), paths, err)
	}
	book, paths, err = Env{}.LoadTermsFrom(filepath.Join(dir, "absent"))
	if err != nil || len(paths) != 0 || len(book) != 0 {
		t.Fatalf("absent default folder: %v %v %v, want no terms and no error", book.Contracts(), paths, err)
	}
	list := "../../testdata/terms" + string(os.PathListSeparator) + filepath.Join(terms, "cn.yaml")
	if _, _, err := (Env{Terms: list}).LoadTermsFrom(terms); err == nil || !strings.Contains(err.Error(), "defined in") {
		t.Fatalf("a contract listed twice: %v, want the duplicate named", err)
	}
	if _, _, err := (Env{Terms: filepath.Join(dir, "nope")}).LoadTermsFrom(terms); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("a listed path that does not exist: %v", err)
	}
	if got := (Env{TaskRoot: "/var/task"}).LambdaTermsDir(); got != "/var/task/terms" {
		t.Fatalf("LambdaTermsDir %q", got)
	}
}

// Extra SSM parameters come back in the same request, by short name; a
// missing one is simply absent.
func TestLoadSecretsExtraParams(t *testing.T) {
	ps := parameterStore{"/g/master-key": key64, "/g/status-token": " tok-1234567890abcdef\n"}
	s, err := LoadSecrets(context.Background(), ps, "/g", "", ParamStatusToken, ParamSlackSigningSecret)
	if err != nil {
		t.Fatal(err)
	}
	if s.Params[ParamStatusToken] != "tok-1234567890abcdef" {
		t.Errorf("status token %q", s.Params[ParamStatusToken])
	}
	if _, ok := s.Params[ParamSlackSigningSecret]; ok {
		t.Error("a parameter that does not exist is in Params")
	}
	b := &Backend{Secrets: Secrets{Params: map[string]string{ParamSlackSigningSecret: "from-ssm"}}}
	if got, err := b.SigningSecret(); err != nil || got != "from-ssm" {
		t.Errorf("signing secret from SSM: %q %v", got, err)
	}
	f := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(f, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b.Env.SigningSecretFile = f
	if got, err := b.SigningSecret(); err != nil || got != "from-file" {
		t.Errorf("signing secret from %s: %q %v", EnvSigningSecretFile, got, err)
	}
	if _, err := (&Backend{}).FunctionName(); err == nil || !strings.Contains(err.Error(), EnvInlineJobs) {
		t.Errorf("no function name: %v", err)
	}
}

// serve's Slack settings: the environment wins over the file, field by field.
func TestLocalSlack(t *testing.T) {
	file := slack.Config{WebhookURL: "https://hooks.slack.com/file", Channel: "C-file"}
	got := Env{SlackBotToken: "xoxb-env", SlackAPIURL: "http://127.0.0.1:1/"}.LocalSlack(file)
	want := slack.Config{WebhookURL: "https://hooks.slack.com/file", BotToken: "xoxb-env", Channel: "C-file", APIURL: "http://127.0.0.1:1/"}
	if got != want {
		t.Fatalf("LocalSlack = %+v, want %+v", got, want)
	}
}

// The local status token: the environment's, else the data folder's,
// created once (0600) and read back the same; a short one is refused
// wherever it comes from (GPUSLA_STATUS_TOKEN=a would open the team view
// to a guess), and so is a token file others can read. from names the
// source serve logs.
func TestLocalStatusToken(t *testing.T) {
	dir := t.TempDir()
	if tok, from, err := (Env{StatusToken: "from-env-0123456789"}).LocalStatusToken(dir); err != nil || tok != "from-env-0123456789" || from != "$GPUSLA_STATUS_TOKEN" {
		t.Fatalf("from env: %q %q %v", tok, from, err)
	}
	for _, short := range []string{"a", "fifteen-chars-x"} {
		if tok, _, err := (Env{StatusToken: short}).LocalStatusToken(dir); err == nil || tok != "" ||
			!strings.Contains(err.Error(), "status token $GPUSLA_STATUS_TOKEN: ") || !strings.Contains(err.Error(), "shorter than 16") {
			t.Fatalf("short env token %q: %q %v", short, tok, err)
		}
	}
	path := filepath.Join(dir, StatusTokenFile)
	first, from, err := Env{}.LocalStatusToken(dir)
	if err != nil || len(first) != 48 || from != path {
		t.Fatalf("created: %q %q %v", first, from, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", st, err)
	}
	if again, _, err := (Env{}).LocalStatusToken(dir); err != nil || again != first {
		t.Fatalf("read back %q %v, want %q", again, err, first)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := (Env{}).LocalStatusToken(dir); err == nil || !strings.Contains(err.Error(), "is readable by others (mode 0644)") {
		t.Fatalf("world-readable token file: %v", err)
	}
	if err := os.WriteFile(path, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := (Env{}).LocalStatusToken(dir); err == nil || !strings.Contains(err.Error(), "shorter than 16") {
		t.Fatalf("short token: %v", err)
	}
}

// GPUSLA_TRUSTED_PROXIES: CIDRs and bare addresses, comma- or
// space-separated; a mistake names the variable and the item.
func TestTrustedProxyList(t *testing.T) {
	got, err := Env{TrustedProxies: "127.0.0.1, ::1 10.0.0.0/8,192.168.1.7/24"}.TrustedProxyList()
	want := []string{"127.0.0.1/32", "::1/128", "10.0.0.0/8", "192.168.1.0/24"}
	if err != nil || len(got) != len(want) {
		t.Fatalf("%v %v", got, err)
	}
	for i, p := range got {
		if p.String() != want[i] {
			t.Errorf("item %d: %s, want %s", i, p, want[i])
		}
	}
	if none, err := (Env{}).TrustedProxyList(); err != nil || len(none) != 0 {
		t.Errorf("unset: %v %v", none, err)
	}
	if _, err := (Env{TrustedProxies: "127.0.0.1, nginx"}).TrustedProxyList(); err == nil || !strings.Contains(err.Error(), `GPUSLA_TRUSTED_PROXIES="127.0.0.1, nginx": "nginx" is neither a CIDR`) {
		t.Errorf("a name: %v", err)
	}
}
