package lambdatest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/testenv"
)

// TestBuildShipsOnlyValidTerms: `sam build` with TERMS_DIR pointing at a
// renter's folder (terms beside serve's config) puts only the terms beside
// the function's bootstrap, checked as the function will read them; a
// terms file with a mistake fails the build, naming file, line and field,
// as docs/aws.md says.
func TestBuildShipsOnlyValidTerms(t *testing.T) {
	testenv.LookPath(t, "make", "scripts/setup.sh installs Debian's make")
	src := t.TempDir()
	raw, err := os.ReadFile(filepath.Join(repoRoot(), "testdata", "terms", "us-example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"us-example.yaml": string(raw), "serve.yaml": "listen: 127.0.0.1:8080\n"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	runMake := func(artifacts string) (string, error) {
		// GOARCH as sam build passes it for arm64: the terms step must
		// still run on this machine.
		cmd := exec.Command("make", "--no-print-directory", "build-StatusFunction", "ARTIFACTS_DIR="+artifacts, "GOARCH=arm64", "TERMS_DIR="+src)
		cmd.Dir = repoRoot()
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	art := t.TempDir()
	out, err := runMake(art)
	if err != nil {
		t.Fatalf("make: %v\n%s", err, out)
	}
	ents, err := os.ReadDir(filepath.Join(art, "terms"))
	if err != nil || len(ents) != 1 || ents[0].Name() != "us-example.yaml" {
		t.Fatalf("shipped %v (%v), want us-example.yaml alone\n%s", ents, err, out)
	}
	if !strings.Contains(out, "serve.yaml: left out") {
		t.Errorf("the build does not say the config was left out:\n%s", out)
	}
	bad := strings.Replace(string(raw), "currency: USD", "currency: usd", 1)
	if bad == string(raw) {
		t.Fatal("us-example.yaml no longer says currency: USD")
	}
	if err := os.WriteFile(filepath.Join(src, "us-example.yaml"), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	art = t.TempDir()
	if out, err := runMake(art); err == nil || !strings.Contains(out, "us-example.yaml, line ") || !strings.Contains(out, "currency") {
		t.Fatalf("a build with a mistake in the terms: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(art, "terms")); !os.IsNotExist(err) {
		t.Errorf("the failed build wrote terms: %v", err)
	}
}
