// Package bench holds the script that runs `gpuprobe trial` on the lent GPU
// machine for docs/BENCHMARKS.md (device_trial.sh), and the test that runs
// it here, where there is no card, so that a change to the commands it
// calls breaks CI rather than the one device run a session gets.
package bench

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/testenv"
)

// Without a card the script still does everything but measure: the node is
// registered from the contract's terms, serve runs on loopback, the trial
// runs its five steps against an order of one H100 and fails (no CUDA GPU),
// pushes its observations and the record's hash into the backend, and the
// signed record verifies offline; the script exits with the trial's 3.
func TestTrialScriptWithoutACard(t *testing.T) {
	if _, err := exec.LookPath("nvidia-smi"); err == nil {
		t.Skip("a machine with nvidia-smi: the script is the lead's recorded run there")
	}
	goBin := testenv.LookPath(t, "go", "the Go toolchain")
	testenv.LookPath(t, "python3", "scripts/setup.sh installs Debian's python3")
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	bin, out := t.TempDir(), t.TempDir()
	for _, b := range []struct{ name, pkg, cgo string }{
		{"gpuprobe", "./probe/cmd/gpuprobe", "1"},
		{"gpusla", "./functions/cmd/gpusla", "0"},
	} {
		build := exec.Command(goBin, "build", "-o", filepath.Join(bin, b.name), b.pkg)
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED="+b.cgo)
		if o, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b.pkg, err, o)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()

	cmd := exec.Command("bash", filepath.Join(root, "probe/trialrun/bench/device_trial.sh"), out, "1m", bin)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "TRIAL_BURN=2s", "TRIAL_POWER=5s")
	o, err := cmd.CombinedOutput()
	log := string(o)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("device_trial.sh: %v\n%s", err, log)
	}
	if code != 3 {
		t.Fatalf("device_trial.sh exited %d, want 3 (the trial fails without a card)\n%s", code, log)
	}
	for _, want := range []string{
		"no nvidia-smi answer: no card on this machine",
		"trial rc=3 ",
		"verify rc=0",
		": all 7 batches acknowledged\n", // 6 of the steps and the record's own
		"OK: the node's signature and every file match the manifest",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the script's output lacks %q\n%s", want, log)
		}
	}
	// The backend holds the trial's steps and the record's hash.
	m := regexp.MustCompile(`backend export: (\d+) observations, (\d+) check results, (\d+) trial steps, \d+ idle-marked, (\d+) record`).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("no backend export line\n%s", log)
	}
	if m[3] != "5" || m[4] != "1" {
		t.Errorf("backend holds %s trial steps and %s record, want 5 and 1\n%s", m[3], m[4], log)
	}
	for _, f := range []string{"trial.json", "trial.md", "acceptance.zip", "verify.txt", "log.txt"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("the script left no %s: %v", f, err)
		}
	}
}
