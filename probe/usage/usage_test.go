package usage

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusla/gpusla/internal/golden"
	"github.com/gpusla/gpusla/probe/wire"
)

// Every fixture tree's reading is compared with its golden file, as
// node_exporter compares its collectors' output.
func TestCollectGolden(t *testing.T) {
	for _, tree := range []string{"gpu-vm", "bare-metal"} {
		t.Run(tree, func(t *testing.T) {
			cs := Reader{Root: filepath.Join("testdata", tree)}.Collect()
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(cs); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tree+".json", b.Bytes())
		})
	}
}

func attrs(t *testing.T, cs []wire.Check) map[string]url.Values {
	t.Helper()
	out := map[string]url.Values{}
	for _, c := range cs {
		if c.Verdict != wire.Pass {
			t.Errorf("%s: %s %s", c.Name, c.Verdict, c.Detail)
		}
		v, err := url.ParseQuery(c.Detail)
		if err != nil {
			t.Fatal(err)
		}
		out[c.Name] = v
	}
	return out
}

// What each tree must say, checked by hand against its files.
func TestCollectFixtures(t *testing.T) {
	// A KVM guest: virtio disks (rotational set by the hypervisor), root on
	// vda1, a data disk vdb of 1048576000 sectors = 500 GiB; eth0 carries
	// the default route; docker0 and the veth are the same bytes again.
	vm := attrs(t, Reader{Root: "testdata/gpu-vm"}.Collect())
	if _, ok := vm["usage.disk.loop0"]; ok {
		t.Error("loop0 is not a disk")
	}
	if _, ok := vm["usage.disk.sr0"]; ok {
		t.Error("sr0 is not a disk")
	}
	if d := vm["usage.disk.vda"]; d.Get("system") != "1" || d.Get("size_bytes") != "107374182400" || d.Get("virtual") != "1" || d.Get("rotational") != "1" {
		t.Errorf("vda %v", d)
	}
	if d := vm["usage.disk.vdb"]; d.Get("system") != "0" || d.Get("size_bytes") != "536870912000" {
		t.Errorf("vdb %v", d)
	}
	if n := vm["usage.net.eth0"]; n.Get("tx_bytes") != "523456789012" || n.Get("rx_bytes") != "812345678901" || n.Get("default_route") != "1" || n.Get("physical") != "1" || n.Get("speed_mbps") != "" || n.Get("ifindex") != "2" {
		t.Errorf("eth0 %v", n)
	}
	for _, virt := range []string{"usage.net.docker0", "usage.net.veth1a2b", "usage.net.lo"} {
		if _, ok := vm[virt]; ok {
			t.Errorf("%s sent beside a physical interface", virt)
		}
	}
	if b := vm["usage.boot"]; b.Get("boot_id") != "5b4e7f2c-8a1d-4c3e-9f60-1d2e3f4a5b6c" || b.Get("boot_time") != "1774990800" {
		t.Errorf("boot %v", b)
	}
	// Bare metal: root on LVM (dm-0 over nvme0n1p3), a SATA HDD that is
	// really rotational, a SATA SSD; eno1 has the IPv4 default route, eno2
	// the IPv6 one.
	bm := attrs(t, Reader{Root: "testdata/bare-metal"}.Collect())
	if d := bm["usage.disk.nvme0n1"]; d.Get("system") != "1" || d.Get("rotational") != "0" || d.Get("virtual") != "0" {
		t.Errorf("nvme0n1 %v", d)
	}
	if d := bm["usage.disk.sda"]; d.Get("rotational") != "1" || d.Get("virtual") != "0" || d.Get("system") != "0" || d.Get("vendor") != "ATA" {
		t.Errorf("sda %v", d)
	}
	if _, ok := bm["usage.disk.dm-0"]; ok {
		t.Error("dm-0 is the LVM volume, not a disk")
	}
	if n := bm["usage.net.eno1"]; n.Get("default_route") != "1" || n.Get("speed_mbps") != "25000" {
		t.Errorf("eno1 %v", n)
	}
	if n := bm["usage.net.eno2"]; n.Get("default_route") != "1" {
		t.Errorf("eno2 (IPv6 default route) %v", n)
	}
}

// A part that cannot be read is a usage.read warning naming it; the rest
// is still sent.
func TestCollectPartial(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/gpu-vm")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "proc/sys/kernel/random/boot_id")); err != nil {
		t.Fatal(err)
	}
	cs := Reader{Root: root}.Collect()
	var warn *wire.Check
	disks := 0
	for i, c := range cs {
		if c.Name == NameRead {
			warn = &cs[i]
		}
		if strings.HasPrefix(c.Name, PrefixDisk) {
			disks++
		}
	}
	if warn == nil || warn.Verdict != wire.Warn || !strings.Contains(warn.Detail, "boot: boot id") {
		t.Fatalf("warning %+v", warn)
	}
	if disks != 2 {
		t.Errorf("%d disks still read, want 2", disks)
	}
}
