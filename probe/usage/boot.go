package usage

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/procfs"

	"github.com/gpusla/gpusla/probe/wire"
)

// readBoot reads the running boot: its id (a new one at every boot, so a
// counter that starts again is told from one that went back), the boot time
// (/proc/stat btime, through procfs) and the uptime (/proc/uptime, which
// procfs does not read).
func readBoot(r Reader) ([]wire.Check, error) {
	fs, err := procfs.NewFS(r.path("proc"))
	if err != nil {
		return nil, err
	}
	st, err := fs.Stat()
	if err != nil {
		return nil, fmt.Errorf("boot time: %w", err)
	}
	b, err := os.ReadFile(r.path("proc", "sys", "kernel", "random", "boot_id"))
	if err != nil {
		return nil, fmt.Errorf("boot id: %w", err)
	}
	id := strings.TrimSpace(string(b))
	if id == "" || len(id) > 64 {
		return nil, fmt.Errorf("boot id %q is not a boot id", id)
	}
	up, err := uptime(r.path("proc", "uptime"))
	if err != nil {
		return nil, err
	}
	bt := time.Unix(int64(st.BootTime), 0).UTC()
	return []wire.Check{reading(NameBoot, fmt.Sprintf("booted %s, up %s", bt.Format(time.RFC3339), durText(time.Duration(up*float64(time.Second)))),
		up, "s", map[string]string{"boot_id": id, "boot_time": u64(st.BootTime)})}, nil
}

// uptime is /proc/uptime's first figure: seconds since boot.
func uptime(path string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("uptime: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("uptime: %s is empty", path)
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("uptime: %q is not a number of seconds", f[0])
	}
	return v, nil
}
