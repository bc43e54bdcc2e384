// Package bench holds the scripts that run the probe on the lent GPU
// machine as the chart's DaemonSet would (device_daemonset_flags.sh), and
// the test that runs them here, where there is no card.
package bench

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/testenv"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// The GPU machine's script runs here as it will there, without a card: it
// builds its binaries, renders the chart's DaemonSet, runs the probe in the
// pod's mount namespace with its capabilities and a read-only root (and
// again without the namespace, as on a machine that refuses one), the
// probe enrols with the renter's token into a real serve on loopback, its
// first health check is delivered, and the script says that no card was
// read (exit 2) — and leaves no mount point behind on the host.
func TestDaemonSetFlagsScriptWithoutACard(t *testing.T) {
	testenv.NeedRoot(t, "the script makes the pod's mounts in a mount namespace")
	for _, tool := range []string{"unshare", "setpriv", "go"} {
		testenv.LookPath(t, tool, "util-linux and the Go toolchain")
	}
	if _, err := exec.LookPath("nvidia-smi"); err == nil {
		t.Skip("a machine with nvidia-smi: the script is the lead's recorded run there")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	bin, out := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "HEALTH=2s", "PORT="+strconv.Itoa(freePort(t)), "METRICS_PORT="+strconv.Itoa(freePort(t)))
	build := exec.Command("bash", filepath.Join(root, "deploy/bench/build_bins.sh"), bin)
	build.Env = env
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build_bins.sh: %v\n%s", err, b)
	}
	var before []string
	for _, p := range []string{"/host", "/etc/gpuprobe", "/var/lib/gpuprobe", "/run/gpuprobe", "/usr/local/bin/gpuprobe"} {
		if _, err := os.Lstat(p); err == nil {
			before = append(before, p)
		}
	}
	for _, c := range []struct {
		name string
		env  []string
		want []string
	}{
		{"in the pod's mount namespace, the DaemonSet rendered by build_bins.sh", nil, []string{
			`--bounding-set=-all\,+net_raw\,+syslog --no-new-privs -- /usr/local/bin/gpuprobe run --config /etc/gpuprobe/probe.yaml`,
			"mount --rbind '/proc' '/host/proc' && mount -o remount,bind,ro '/host/proc'"}},
		{"without a mount namespace, the DaemonSet rendered by podspec on the spot", []string{"NO_NAMESPACE=1"}, []string{
			"FALLBACK: no mount namespace", "/gpuprobe run --config " + out + "/run/probe-paths.yaml"}},
	} {
		if c.env != nil {
			podspec := exec.Command("go", "build", "-o", filepath.Join(bin, "podspec"), "./cmd/podspec")
			podspec.Dir = filepath.Join(root, "deploy")
			if b, err := podspec.CombinedOutput(); err != nil {
				t.Fatalf("go build podspec: %v\n%s", err, b)
			}
		}
		cmd := exec.Command("bash", filepath.Join(root, "deploy/bench/device_daemonset_flags.sh"), out, bin)
		cmd.Env = append(append(env, "DURATION=150", "NODE=bench-node-1"), c.env...)
		b, err := cmd.CombinedOutput()
		log := string(b)
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Fatalf("%s: the script without a card: %v; want exit 2\n%s", c.name, err, log)
		}
		for _, want := range append(c.want, "NODE_NAME=bench-node-1",
			"the first health check ran and was delivered", `"node":"bench-node-1","token":`, `"gpu_model":"H100","gpu_count":1`,
			"no reading of GPU 0 was stored", "exit 2") {
			if !strings.Contains(log, want) {
				t.Errorf("%s: no %q in the script's output:\n%s", c.name, want, log)
			}
		}
		probeLog, _ := os.ReadFile(filepath.Join(out, "run", "probe.log"))
		if !strings.Contains(string(probeLog), `"msg":"enrolled"`) || strings.Contains(string(probeLog), "WARN") {
			t.Errorf("%s: the probe's log:\n%s", c.name, probeLog)
		}
	}
	for _, p := range []string{"/host", "/etc/gpuprobe", "/var/lib/gpuprobe", "/run/gpuprobe", "/usr/local/bin/gpuprobe"} {
		if _, err := os.Lstat(p); err == nil && !strings.Contains(strings.Join(before, " "), p) {
			t.Errorf("the script left %s behind", p)
		}
	}
}
