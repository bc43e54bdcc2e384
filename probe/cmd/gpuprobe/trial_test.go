package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/checkrun"
)

// Bad flags are refused before any GPU work starts, each naming itself.
func TestTrialRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "probe.yaml")
	os.WriteFile(bad, []byte("expected:\n  model: H200\n"), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--soak", "10s"}, "--soak 10s: 0, or from 1m0s to 30m0s"},
		{[]string{"--soak", "31m"}, "--soak 31m0s: 0, or from 1m0s to 30m0s"},
		{[]string{"--burn", "500ms"}, "--burn 500ms: at least 1s"},
		{[]string{"--power", "2s"}, "--power 2s: at least 5s"},
		{[]string{"--iperf-peer", "10.0.0.2"}, "--iperf-peer 10.0.0.2 needs --iperf-nominal MBITS"},
		{[]string{"--iperf-peer", "10.0.0.2:99999", "--iperf-nominal", "10000", "--no-push", "--key", filepath.Join(dir, "k.pem")}, `--iperf-peer "10.0.0.2:99999": port "99999" is not 1 to 65535`},
		{[]string{"--config", bad}, "give --no-push"},
		{[]string{"--expect", "driver=580.x"}, `expected.driver: "580.x" is not a driver version`},
		{[]string{"--expect", "model=B300"}, "the order's model"},
	} {
		_, err := runCmd(t, append([]string{"trial"}, c.args...)...)
		if exitCode(err) != checkrun.ExitError || !strings.Contains(err.Error(), c.want) {
			t.Errorf("trial %v: %v, want %q", c.args, err, c.want)
		}
	}
}
