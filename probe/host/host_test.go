package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/internal/testenv"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/wire"
)

// space is a fixed statfs table for fixture trees, whose mount points do
// not exist as filesystems of their own.
func space(table map[string][2]uint64) func(string) (uint64, uint64, error) {
	return func(p string) (uint64, uint64, error) {
		v, ok := table[p]
		if !ok {
			return 0, 0, fmt.Errorf("statfs %s: no such mount in fixture", p)
		}
		return v[0], v[1], nil
	}
}

const gb = 1_000_000_000

// copyTree copies a fixture so a test may change its files.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, target)
		case info.IsDir():
			return os.MkdirAll(target, 0o755)
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, b, 0o644)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// gpuNode reads the gpu-node fixture; steal is what /proc/stat says after
// the window (the fixture's before-sample has steal 30 of 101610 ticks).
func gpuNode(t *testing.T, after string, statfs map[string][2]uint64) *Snapshot {
	t.Helper()
	root := copyTree(t, "testdata/gpu-node")
	r := Reader{Root: root, StealWindow: time.Second, Statfs: space(statfs),
		Sleep: func(ctx context.Context, d time.Duration) error {
			if d != time.Second {
				t.Errorf("window %v", d)
			}
			return os.WriteFile(filepath.Join(root, "proc/stat"), []byte(after), 0o644)
		}}
	s, err := r.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var healthySpace = map[string][2]uint64{
	"/":                 {50 * gb, 40 * gb},
	"/boot/efi":         {100 << 20, 90 << 20},
	"/data":             {3840 * gb, 3800 * gb},
	"/mnt/my scratch":   {1900 * gb, 1000 * gb},
	"/usr/local/nvidia": {10 * gb, 1 * gb},
}

// 1600 ticks on 16 CPUs in one second, 8 of them stolen: 0.5 %.
const lowSteal = "cpu  1500 10 800 101250 50 0 20 38 0 0\n"

func TestReadGPUNodeFixture(t *testing.T) {
	s := gpuNode(t, lowSteal, healthySpace)
	if len(s.Errors) > 0 {
		t.Fatalf("errors: %v", s.Errors)
	}
	if s.KernelRelease != "6.18.44-fc-v236-gpu" || s.NVIDIADriver != "580.159.04" || s.CPUs != 16 ||
		s.CPUModel != "AMD EPYC 9654 96-Core Processor" || s.MemTotalKiB != 131916144 {
		t.Fatalf("got %+v", s)
	}
	var paths []string
	for _, m := range s.Mounts {
		paths = append(paths, m.Path+"="+m.Device)
	}
	want := "/=/dev/vda1 /boot/efi=/dev/vda15 /data=/dev/nvme0n1p1 /mnt/my scratch=/dev/mapper/vg0-scratch /usr/local/nvidia=/usr/local/nvidia"
	if strings.Join(paths, " ") != want {
		t.Fatalf("mounts\n got %s\nwant %s", strings.Join(paths, " "), want)
	}
	var disks []string
	for _, d := range s.Disks {
		disks = append(disks, fmt.Sprintf("%s:%d:%v:%v", d.Name, d.SizeBytes/gb, d.Partitions, d.Holders))
	}
	if got := strings.Join(disks, " "); got != "nvme0n1:3840:[nvme0n1p1]:[] nvme1n1:1920:[nvme1n1p1]:[dm-0] nvme2n1:3840:[]:[] nvme3n1:2:[]:[] vda:53:[vda1 vda15]:[] vdb:0:[]:[]" {
		t.Fatalf("disks: %s", got)
	}
}

func find(t *testing.T, cs []wire.Check, name string) wire.Check {
	t.Helper()
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %s in %+v", name, cs)
	return wire.Check{}
}

func TestJudgeScenarios(t *testing.T) {
	order := expect.Expected{CPUs: 16, CPUModel: "EPYC 9654", RAMGB: 128, Disks: []expect.Disk{{Mount: "/data", SizeGB: 3840}}}
	for _, tc := range []struct {
		name    string
		after   string
		space   map[string][2]uint64
		order   expect.Expected
		check   string
		verdict string
		detail  string
	}{
		{"healthy steal", lowSteal, healthySpace, order, "host.cpu.steal", wire.Pass, ""},
		{"noisy neighbour", "cpu  1500 10 800 100610 50 0 20 670 0 0\n", healthySpace, order, "host.cpu.steal", wire.Fail, "noisy neighbours"},
		{"some steal", "cpu  1500 10 800 100720 50 0 20 110 0 0\n", healthySpace, order, "host.cpu.steal", wire.Warn, "other guests"},
		{"no time passed", "cpu  1000 10 500 100000 50 0 20 30 0 0\n", healthySpace, order, "host.cpu.steal", wire.Skipped, "no CPU time"},
		{"cpus as ordered", lowSteal, healthySpace, order, "host.cpu.count", wire.Pass, ""},
		{"fewer cpus", lowSteal, healthySpace, expect.Expected{CPUs: 32}, "host.cpu.count", wire.Fail, "16 logical CPUs, the order says 32"},
		{"other cpu", lowSteal, healthySpace, expect.Expected{CPUModel: "Xeon"}, "host.cpu.model", wire.Fail, `the order says "Xeon"`},
		{"ram as ordered", lowSteal, healthySpace, order, "host.memory", wire.Pass, ""},
		{"ram short", lowSteal, healthySpace, expect.Expected{RAMGB: 256}, "host.memory", wire.Fail, "49 % of the 256 GiB ordered"},
		{"ram a bit short", lowSteal, healthySpace, expect.Expected{RAMGB: 134}, "host.memory", wire.Warn, "94 %"},
		{"data disk", lowSteal, healthySpace, order, "host.disk.ordered:/data", wire.Pass, ""},
		{"data disk small", lowSteal, healthySpace, expect.Expected{Disks: []expect.Disk{{Mount: "/data", SizeGB: 7680}}}, "host.disk.ordered:/data", wire.Fail, "holds 3840 GB, the order says 7680 GB"},
		{"data disk not mounted", lowSteal, healthySpace, expect.Expected{Disks: []expect.Disk{{Mount: "/scratch", SizeGB: 1000}}}, "host.disk.ordered:/scratch", wire.Fail, "attached but unused: /dev/nvme2n1 (3841 GB)"},
		{"unused disk", lowSteal, healthySpace, order, "host.disk.unmounted:nvme2n1", wire.Warn, "neither mounted"},
		// --expect disks=none: the order's word that there is no data
		// disk; a disk attached unused still warns on its own.
		{"no data disk ordered", lowSteal, healthySpace, expect.Expected{NoDataDisk: true}, "host.disk.ordered:none", wire.Pass, ""},
		{"no data disk ordered, one unused", lowSteal, healthySpace, expect.Expected{NoDataDisk: true}, "host.disk.unmounted:nvme2n1", wire.Warn, "neither mounted"},
		{"system disk ok", lowSteal, healthySpace, order, "host.disk.system", wire.Pass, ""},
		{"system disk full", lowSteal, map[string][2]uint64{"/": {50 * gb, 1 * gb}, "/data": {3840 * gb, 3800 * gb}}, order, "host.disk.system", wire.Fail, "nearly full"},
		{"system disk filling", lowSteal, map[string][2]uint64{"/": {50 * gb, 4 * gb}, "/data": {3840 * gb, 3800 * gb}}, order, "host.disk.system", wire.Warn, "92 % full"},
		{"data disk full", lowSteal, map[string][2]uint64{"/": {50 * gb, 40 * gb}, "/data": {3840 * gb, 100 * gb}}, order, "host.disk.free:/data", wire.Warn, "97 % full"},
		{"driver", lowSteal, healthySpace, order, "host.nvidia_driver", wire.Pass, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := find(t, Judge(gpuNode(t, tc.after, tc.space), tc.order), tc.check)
			if c.Verdict != tc.verdict || !strings.Contains(c.Detail, tc.detail) {
				t.Fatalf("got %s %q (value %q), want %s containing %q", c.Verdict, c.Detail, c.Value, tc.verdict, tc.detail)
			}
		})
	}
}

// Without the order's word there is no host.disk.ordered check at all: the
// trial cannot tell "no data disk bought" from "the data disk missing".
func TestNoDataDiskCheckOnlyOnTheOrdersWord(t *testing.T) {
	for _, c := range Judge(gpuNode(t, lowSteal, healthySpace), expect.Expected{}) {
		if strings.HasPrefix(c.Name, "host.disk.ordered") {
			t.Fatalf("no order, yet %s %s", c.Name, c.Verdict)
		}
	}
}

func TestSquashfsDiskIsInUse(t *testing.T) {
	for _, c := range Judge(gpuNode(t, lowSteal, healthySpace), expect.Expected{}) {
		if c.Name == "host.disk.unmounted:nvme3n1" || c.Name == "host.disk.free:/opt/image" {
			t.Errorf("squashfs image reported: %+v", c)
		}
	}
}

func TestBareHostWithoutDriver(t *testing.T) {
	cs := Collect(context.Background(), Reader{Root: "testdata/bare", Statfs: space(map[string][2]uint64{"/": {50 * gb, 25 * gb}}),
		Sleep: func(context.Context, time.Duration) error { return nil }}, expect.Expected{CPUModel: "xeon platinum 8480"})
	if c := find(t, cs, "host.nvidia_driver"); c.Verdict != wire.Warn || !strings.Contains(c.Detail, "no NVIDIA kernel module") {
		t.Fatalf("driver: %+v", c)
	}
	if c := find(t, cs, "host.cpu.model"); c.Verdict != wire.Pass {
		t.Fatalf("case-insensitive model: %+v", c)
	}
	if c := find(t, cs, "host.cpu.count"); c.Value != "2" {
		t.Fatalf("cpus: %+v", c)
	}
	for _, c := range cs {
		if strings.HasPrefix(c.Name, "host.disk.unmounted") || c.Name == "host.read" {
			t.Errorf("unexpected %+v", c)
		}
	}
}

func TestUnreadableRootReportsErrors(t *testing.T) {
	cs := Collect(context.Background(), Reader{Root: t.TempDir(), Sleep: func(context.Context, time.Duration) error { return nil }}, expect.Expected{})
	c := find(t, cs, "host.read")
	if c.Verdict != wire.Warn || !strings.Contains(c.Detail, "no such file") {
		t.Fatalf("got %+v", c)
	}
}

func TestParseCPUTimesErrors(t *testing.T) {
	for _, in := range []string{"", "cpu 1 2 3\n", "cpu  1 2 3 4 5 6 7 x 9\n"} {
		if _, err := ParseCPUTimes([]byte(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestLiveHost(t *testing.T) {
	if _, err := os.Stat("/proc/self/mounts"); err != nil {
		testenv.Missing(t, "no /proc here: %v", err)
	}
	s, err := Reader{StealWindow: 50 * time.Millisecond}.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.CPUs == 0 || s.MemTotalKiB == 0 {
		t.Fatalf("live read empty: %+v", s)
	}
}
