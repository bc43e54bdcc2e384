package wiring

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The status token comes from the file outside AWS, else from SSM; a short
// one is refused wherever it comes from, and none at all is not an error
// (the page answers 503).
func TestStatusToken(t *testing.T) {
	file := filepath.Join(t.TempDir(), "status.token")
	write := func(s string) {
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ssm := Secrets{Params: map[string]string{ParamStatusToken: "from-ssm-0123456789"}}
	write(" from-file-0123456789\n")
	for _, c := range []struct {
		name    string
		b       Backend
		want    string
		wantErr string
	}{
		{"ssm", Backend{Env: Env{SecretsPath: "/g"}, Secrets: ssm}, "from-ssm-0123456789", ""},
		{"file wins", Backend{Env: Env{StatusTokenFile: file}, Secrets: ssm}, "from-file-0123456789", ""},
		{"none", Backend{Env: Env{SecretsPath: "/g"}}, "", ""},
		{"short ssm", Backend{Env: Env{SecretsPath: "/g"}, Secrets: Secrets{Params: map[string]string{ParamStatusToken: "short"}}}, "", "/g/status-token: shorter than 16"},
		{"missing file", Backend{Env: Env{StatusTokenFile: file + ".gone"}}, "", "status token: "},
	} {
		got, err := c.b.StatusToken()
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: %q %v, want an error containing %q", c.name, got, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %q %v, want %q", c.name, got, err, c.want)
		}
	}
	if err := os.Chmod(file, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Backend{Env: Env{StatusTokenFile: file}}).StatusToken(); err == nil || !strings.Contains(err.Error(), file+" is readable by others (mode 0640)") {
		t.Errorf("group-readable token file: %v", err)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	write("short\n")
	if _, err := (&Backend{Env: Env{StatusTokenFile: file}}).StatusToken(); err == nil || !strings.Contains(err.Error(), file+": shorter than 16") {
		t.Errorf("short file token: %v", err)
	}
}
