package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestCI(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "1": true, "TRUE": true, "false": false, "0": false, "": false, "yes": false} {
		t.Setenv("CI", v)
		if got := CI(); got != want {
			t.Errorf("CI=%q: CI() = %v, want %v", v, got, want)
		}
	}
}

// Missing is run in a child test process so that its skip or failure can
// be observed from outside: the child's outcome is the thing under test.
func TestMissingSkipsOrFails(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		LookPath(t, "gpusla-no-such-tool", "never installed")
		t.Fatal("LookPath returned for a tool that does not exist")
	}
	for _, tc := range []struct {
		ci       string
		wantFail bool
		wantText string
	}{
		{"", false, "--- SKIP"},
		{"false", false, "--- SKIP"},
		{"true", true, "--- FAIL"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingSkipsOrFails$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", "CI="+tc.ci)
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != tc.wantFail {
			t.Errorf("CI=%q: child failed=%v, want %v:\n%s", tc.ci, failed, tc.wantFail, out)
		}
		if !strings.Contains(string(out), tc.wantText) || !strings.Contains(string(out), "gpusla-no-such-tool is not installed (never installed)") {
			t.Errorf("CI=%q: want %q and the reason in:\n%s", tc.ci, tc.wantText, out)
		}
	}
}
