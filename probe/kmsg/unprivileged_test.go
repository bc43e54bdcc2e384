package kmsg

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/testenv"
)

// envReadChild makes the test binary, run again as another user, read the
// kernel log and print its error.
const envReadChild = "GPUSLA_KMSG_READ_CHILD"

// TestKernelLogWithoutRightsSaysToRunAsRoot: gpuprobe check run by a user
// skipped gpu.xid.kernel_log with "/dev/kmsg: operation not permitted;
// dmesg: …" and no word of what to do; a refusal for want of rights now
// says to run gpuprobe as root. As root the test reads as nobody.
func TestKernelLogWithoutRightsSaysToRunAsRoot(t *testing.T) {
	r := Reader{DmesgCommand: []string{"false"}} // the fallback fails too
	if os.Getenv(envReadChild) != "" {
		if _, err := r.Read(context.Background()); err != nil {
			os.Stdout.WriteString(err.Error())
		}
		os.Exit(0)
	}
	if _, err := os.Stat("/dev/kmsg"); err != nil {
		t.Skipf("no /dev/kmsg: %v", err)
	}
	var msg string
	if os.Geteuid() != 0 {
		if _, err := r.Read(context.Background()); err != nil {
			msg = err.Error()
		}
	} else {
		msg = string(testenv.AsNobody(t, "TestKernelLogWithoutRightsSaysToRunAsRoot", envReadChild))
	}
	if msg == "" {
		t.Skip("this user may read the kernel log here")
	}
	if strings.Contains(msg, "permission denied") || strings.Contains(msg, "operation not permitted") {
		if !strings.Contains(msg, "run gpuprobe as root (sudo gpuprobe check)") {
			t.Errorf("refused for want of rights, and says nothing of what to do: %s", msg)
		}
	}
	t.Log(msg)
}
