package deploy

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/probe/config"
)

const unit = "gpuprobe.service"

// maxExposure is the highest `systemd-analyze security` score the unit may
// have (0 is locked down, 10 is fully exposed; up to 4 is rated "OK").
const maxExposure = 4.0

// The unit scores within maxExposure. Run offline: systemd-analyze reads
// the file, no running systemd is needed.
func TestUnitSecurityExposure(t *testing.T) {
	bin := testenv.LookPath(t, "systemd-analyze", "Debian package systemd; scripts/setup.sh installs it")
	out, err := exec.Command(bin, "security", "--offline=yes", unit).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no overall exposure level in:\n%s", out)
	}
	score, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("systemd-analyze security: %s exposure %.1f", unit, score)
	if score > maxExposure {
		t.Fatalf("%s exposure %.1f, want at most %.1f:\n%s", unit, score, maxExposure, out)
	}
}

// directives reads the unit's [Service] section: every value of each key,
// in order.
func directives(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(unit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := map[string][]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			section = line
		case section == "[Service]":
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("%s: %q is not key=value", unit, line)
			}
			d[k] = append(d[k], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return d
}

// Hardening must not take away what the probe's checks need; each case
// names the check that would break.
func TestUnitKeepsWhatTheChecksNeed(t *testing.T) {
	d := directives(t)
	words := func(k string) []string { return strings.Fields(strings.Join(d[k], " ")) }
	has := func(k, v string) bool { return slices.Contains(d[k], v) }
	for _, c := range []struct {
		ok   bool
		need string
	}{
		{slices.Contains(words("CapabilityBoundingSet"), "CAP_NET_RAW"), "CAP_NET_RAW: raw ICMP sockets for the ping checks"},
		{slices.Contains(words("CapabilityBoundingSet"), "CAP_SYSLOG"), "CAP_SYSLOG: /dev/kmsg under kernel.dmesg_restrict"},
		{has("DeviceAllow", "char-nvidia* rw"), "DeviceAllow=char-nvidia* rw: NVML and CUDA open /dev/nvidia*"},
		{has("DeviceAllow", "/dev/kmsg r"), "DeviceAllow=/dev/kmsg r: the kernel-log check"},
		{!has("PrivateDevices", "yes"), "no PrivateDevices=yes: it hides /dev/nvidia*"},
		{!has("ProtectKernelLogs", "yes"), "no ProtectKernelLogs=yes: it denies /dev/kmsg"},
		{!has("MemoryDenyWriteExecute", "yes"), "no MemoryDenyWriteExecute=yes: CUDA JIT needs W+X memory"},
		{!has("PrivateNetwork", "yes"), "no PrivateNetwork=yes: the network checks measure the host's network"},
		{has("User", "root"), "User=root: NVML device files and raw sockets"},
		{has("ProtectSystem", "strict") && has("ReadWritePaths", "/var/lib/gpuprobe"), "ProtectSystem=strict with the spool /var/lib/gpuprobe writable"},
		{has("Type", "notify") && len(d["WatchdogSec"]) == 1, "Type=notify and WatchdogSec: gpuprobe sends READY=1 and WATCHDOG=1"},
	} {
		if !c.ok {
			t.Errorf("%s lacks %s", unit, c.need)
		}
	}
	families := words("RestrictAddressFamilies")
	for _, f := range []string{"AF_INET", "AF_INET6", "AF_NETLINK", "AF_UNIX"} {
		if !slices.Contains(families, f) {
			t.Errorf("RestrictAddressFamilies lacks %s (push and network checks: INET/INET6; routes: NETLINK; sd_notify: UNIX)", f)
		}
	}
}

// TestUnitRunsTheDefaultConfig: the unit's ExecStart reads the config at
// config.DefaultPath, where gpusla node add tells the renter to save it.
func TestUnitRunsTheDefaultConfig(t *testing.T) {
	raw, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^ExecStart=(\S+) run --config (\S+)$`).FindSubmatch(raw)
	if m == nil || string(m[2]) != config.DefaultPath {
		t.Fatalf("ExecStart %q, want gpuprobe run --config %s", m, config.DefaultPath)
	}
}
