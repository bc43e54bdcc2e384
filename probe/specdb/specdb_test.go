package specdb

import (
	"strings"
	"testing"
)

func TestEmbeddedDatabaseIsValid(t *testing.T) {
	db, err := Parse(embedded)
	if err != nil {
		t.Fatal(err)
	}
	// Every model REFERENCE.md lists must be present, by device id.
	for _, id := range []uint16{0x20b0, 0x20b2, 0x20f1, 0x20b5, 0x20f3, 0x20f5, 0x20bd, 0x2330, 0x2339,
		0x2331, 0x2335, 0x233b, 0x2324, 0x2322, 0x2329, 0x232c, 0x26b9, 0x26b5, 0x2236, 0x2237,
		0x2684, 0x2685, 0x2204, 0x2203} {
		if _, ok := db.Lookup(id, 0); !ok {
			t.Errorf("device id 0x%04x missing", id)
		}
	}
}

func TestLookupH200(t *testing.T) {
	m, ok := Default().Lookup(0x2335, 0x18bf)
	if !ok || m.ID != "h200-sxm-141gb" || m.MemoryMiB != 143771 || m.GPUCores != 16896 || !m.Measured() {
		t.Fatalf("got %+v, %v", m, ok)
	}
	if _, ok := Default().Lookup(0x1234, 0); ok {
		t.Fatal("unknown id found")
	}
}

func TestResolve(t *testing.T) {
	db := Default()
	for _, tc := range []struct {
		order string
		want  []string
	}{
		{"H200", []string{"h200-sxm-141gb", "h200-nvl"}},
		{"nvidia h200 sxm", []string{"h200-sxm-141gb"}},
		{"RTX 4090", []string{"rtx-4090"}},
		{"GeForce RTX 4090 D", []string{"rtx-4090-d"}},
		{"h100", []string{"h100-sxm5-80gb", "h100-sxm5-94gb", "h100-pcie-80gb"}},
		{"NVIDIA H100 80GB HBM3", []string{"h100-sxm5-80gb"}},
	} {
		ms, err := db.Resolve(tc.order)
		if err != nil {
			t.Errorf("%q: %v", tc.order, err)
			continue
		}
		var got []string
		for _, m := range ms {
			got = append(got, m.ID)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: got %v, want %v", tc.order, got, tc.want)
		}
	}
	if _, err := db.Resolve("Voodoo 5"); err == nil || !strings.Contains(err.Error(), "not in the spec database") {
		t.Errorf("unknown model: %v", err)
	}
}

func TestParseErrorsNameTheField(t *testing.T) {
	base := `models:
  - id: x
    family: X
    names: ["X"]
    device_id: 0x1
    memory_mib: 1
    gpu_cores: 1
    max_sm_clock_mhz: 1
    default_power_w: 1
    pcie_gen: 4
    pcie_width: 16
    source: "datasheet"
`
	if _, err := Parse([]byte(base)); err != nil {
		t.Fatalf("valid base: %v", err)
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"typo", base + "    memroy_mib: 3\n", `line 13: unknown model field "memroy_mib"`},
		{"width", strings.Replace(base, "pcie_width: 16", "pcie_width: 12", 1), "pcie_width: 12 is not a PCIe width"},
		{"no source", strings.Replace(base, `source: "datasheet"`, `source: ""`, 1), "source: say where"},
		{"dup", base + strings.Replace(strings.TrimPrefix(base, "models:\n"), "id: x", "id: y", 1), "device_id: 0x0001 subsystem 0x0000 is also x"},
		{"threshold unit", base + "    thresholds:\n      bw: {min: 1, source: s}\n", "thresholds.bw.unit: missing"},
		{"threshold key", base + "    thresholds:\n      bw: {mn: 1}\n", `unknown threshold field "mn"`},
		{"type", strings.Replace(base, "gpu_cores: 1", "gpu_cores: many", 1), "line 7"},
	} {
		_, err := Parse([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestThresholdLookup(t *testing.T) {
	db, err := Parse([]byte(`models:
  - id: x
    family: X
    names: ["X"]
    device_id: 0x1
    memory_mib: 1
    gpu_cores: 1
    max_sm_clock_mhz: 1
    default_power_w: 1
    pcie_gen: 4
    pcie_width: 16
    source: "datasheet"
    thresholds:
      mem.bandwidth: {min: 3800, warn: 4000, unit: GB/s, source: "measured"}
`))
	if err != nil {
		t.Fatal(err)
	}
	th, ok := db.Models[0].Threshold("mem.bandwidth")
	if !ok || th.Min != 3800 || th.Warn != 4000 || th.Unit != "GB/s" {
		t.Fatalf("got %+v %v", th, ok)
	}
}
