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
		{"h100", []string{"h100-sxm5-80gb", "h100-sxm5-94gb", "h100-nvl", "h100-pcie-80gb"}},
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
    device_ids: [0x1]
    form_factor: pcie
    segment: consumer
    compute_capability: "8.9"
    memory_mib: 1
    gpu_cores: 128
    pcie_gen: 4
    pcie_width: 16
    source: "datasheet"
`
	if _, err := Parse([]byte(base)); err != nil {
		t.Fatalf("valid base: %v", err)
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"typo", base + "    memroy_mib: 3\n", `spec database:14: models[0].memroy_mib: unknown field (fields: aliases, bf16,`},
		{"width", strings.Replace(base, "pcie_width: 16", "pcie_width: 12", 1), "pcie_width: 12 is not a PCIe width"},
		{"no source", strings.Replace(base, `source: "datasheet"`, `source: ""`, 1), "source: say where"},
		{"dup", base + strings.Replace(strings.TrimPrefix(base, "models:\n"), "id: x", "id: y", 1), "device_ids: 0x0001 subsystem 0x0000 is also x"},
		{"threshold unit", base + "    thresholds:\n      bw: {min: 1, source: s}\n", "thresholds.bw.unit: missing"},
		{"threshold key", base + "    thresholds:\n      bw: {mn: 1}\n", `spec database:15: models[0].thresholds.bw.mn: unknown field (fields: healthy, max, min, official, source, unit, warn)`},
		{"type", strings.Replace(base, "gpu_cores: 128", "gpu_cores: many", 1), "line 10"},
		{"cores", strings.Replace(base, "gpu_cores: 128", "gpu_cores: 128\n    sms: 2", 1), "gpu_cores: 128 is not 2 SMs x 128 cores"},
		{"form factor", strings.Replace(base, "form_factor: pcie", "form_factor: oam", 1), `form_factor: "oam": want sxm or pcie`},
		{"segment", strings.Replace(base, "segment: consumer", "segment: gaming", 1), `segment: "gaming"`},
		{"compute capability", strings.Replace(base, `"8.9"`, `"4.2"`, 1), `compute_capability: "4.2" is not one the probe knows`},
		{"nvlink speed without nvlink", base + "    nvlink_gbps: 100\n", "nvlink_gbps: given for a model without NVLink"},
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
    device_ids: [0x1]
    form_factor: pcie
    segment: consumer
    compute_capability: "8.9"
    memory_mib: 1
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

// The rental market's models: every one a renter meets (REFERENCE.md's
// list) is in the database, each with a cited source.
func TestDatabaseCoversTheRentalMarket(t *testing.T) {
	db := Default()
	if len(db.Models) < 40 {
		t.Fatalf("%d models, want at least 40", len(db.Models))
	}
	for _, order := range []string{"V100", "T4", "A10", "A10G", "A30", "A40", "L4", "L20", "L40", "L40S",
		"A100 SXM4 40GB", "A100 SXM4 80GB", "A100 PCIe 40GB", "A100 PCIe 80GB", "A800 SXM4 80GB", "A800 PCIe 80GB",
		"A800 40GB", "H100 SXM", "H100 PCIe", "H100 NVL", "H800 SXM", "H800 PCIe", "H20 96GB", "H20 141GB",
		"H200 SXM", "H200 NVL", "B200", "RTX 3090", "RTX 3090 Ti", "RTX 4090", "RTX 4090 D", "RTX 5090",
		"RTX 2080 Ti", "RTX 3080"} {
		if _, err := db.Resolve(order); err != nil {
			t.Errorf("%s: %v", order, err)
		}
	}
	for _, m := range db.Models {
		if !strings.HasPrefix(m.Source, "measured") && !strings.HasPrefix(m.Source, "datasheet") {
			t.Errorf("%s: source %q cites neither a measurement nor a datasheet", m.ID, m.Source)
		}
		if len(m.Thresholds) == 0 {
			t.Errorf("%s: no performance threshold at all", m.ID)
		}
		if _, ok := m.Threshold("stress.fp32"); m.FP32 > 0 && !ok {
			t.Errorf("%s: FP32 %g on the datasheet but no stress.fp32 threshold", m.ID, m.FP32)
		}
	}
}

// Reworked boards with more memory than the model ever shipped with fall
// outside its range; genuine readings fall inside.
func TestMemoryRangeBothWays(t *testing.T) {
	db := Default()
	for _, tc := range []struct {
		id      uint16
		mib     float64
		genuine bool
		comment string
	}{
		{0x2684, 24564, true, "RTX 4090 as shipped"},
		{0x2684, 49140, false, "RTX 4090 reworked to 48 GB"},
		{0x1e07, 11019, true, "RTX 2080 Ti as NVML reports it"},
		{0x1e04, 22528, false, "RTX 2080 Ti reworked to 22 GB"},
		{0x2206, 10240, true, "RTX 3080 10 GB"},
		{0x2206, 20480, false, "RTX 3080 reworked to 20 GB"},
		{0x2335, 143771, true, "H200 measured"},
		{0x2335, 98304, false, "H200 id with 96 GB"},
		{0x26b9, 46068, true, "L40S, ECC on"},
		{0x26b9, 49140, true, "L40S, ECC off"},
	} {
		m, ok := db.Lookup(tc.id, 0)
		if !ok {
			t.Fatalf("0x%04x not found", tc.id)
		}
		lo, hi := m.MemoryRange()
		if in := tc.mib >= lo && tc.mib <= hi; in != tc.genuine {
			t.Errorf("%s: %g MiB in [%g, %g] = %v, want %v", tc.comment, tc.mib, lo, hi, in, tc.genuine)
		}
	}
}

func TestDerivedThresholds(t *testing.T) {
	db := Default()
	h200, _ := db.Lookup(0x2335, 0x18bf)
	if th, _ := h200.Threshold("stress.fp32"); th.Derived || th.Min != 58.8 {
		t.Errorf("H200's measured threshold was replaced: %+v", th)
	}
	rtx, _ := db.Lookup(0x2684, 0)
	th, ok := rtx.Threshold("stress.fp32")
	if !ok || !th.Derived || th.Min != 57.8 || th.Warn != 70.2 || th.Official != 82.6 || !strings.HasPrefix(th.Source, "derived from datasheet") {
		t.Errorf("RTX 4090 stress.fp32: %+v", th)
	}
	if th, ok := rtx.Threshold("bw.h2d"); !ok || th.Official != 31.5 || th.Min != 18.9 {
		t.Errorf("RTX 4090 bw.h2d (PCIe 4.0 x16): %+v", th)
	}
	if _, ok := rtx.Threshold("bw.p2p"); ok {
		t.Error("RTX 4090 has no NVLink, so no peer threshold can be derived")
	}
	// Hopper's mma.sync reaches 0.66 of the dense rate: its derived tensor
	// threshold is looser than Ampere's.
	h100pcie, _ := db.Lookup(0x2331, 0)
	if th, _ := h100pcie.Threshold("stress.bf16"); th.Min != 378 {
		t.Errorf("H100 PCIe stress.bf16 = %+v, want min 0.5 x 756", th)
	}
	// On 9.0 the tensor burns run on wgmma: FP8 gets a threshold, and the
	// mma.sync fallback its own (no stricter than before); other
	// architectures have neither.
	if th, ok := h100pcie.Threshold("stress.fp8"); !ok || th.Min != 756 || th.Warn != 908 || !th.Derived {
		t.Errorf("H100 PCIe stress.fp8 = %+v, want min 0.5 x 1513, warn 0.6 x", th)
	}
	if th, ok := h100pcie.Threshold("stress.bf16.mma_sync"); !ok || th.Min != 378 || !strings.Contains(th.Source, "mma.sync") {
		t.Errorf("H100 PCIe stress.bf16.mma_sync = %+v", th)
	}
	if th, _ := h200.Threshold("stress.bf16"); th.Derived || th.Min != 766 || th.Warn != 811 {
		t.Errorf("H200 stress.bf16 (measured wgmma) = %+v", th)
	}
	if th, _ := h200.Threshold("stress.bf16.mma_sync"); th.Derived || th.Min != 587 {
		t.Errorf("H200 stress.bf16.mma_sync (measured mma.sync) = %+v", th)
	}
	h20, _ := db.Lookup(0x2329, 0)
	if th, ok := h20.Threshold("stress.fp8"); !ok || th.Official != 296 || th.Min != 148 {
		t.Errorf("H20 stress.fp8 = %+v: its cut-down FP8 rate must be the one it is held to", th)
	}
	a100, _ := db.Lookup(0x20b2, 0)
	if th, _ := a100.Threshold("stress.fp64"); th.Official != 19.5 {
		t.Errorf("A100 stress.fp64 should hold the DMMA burn to the FP64 tensor rate: %+v", th)
	}
	// A 70 W T4 burns at its power cap.
	t4, _ := db.Lookup(0x1eb8, 0)
	if th, _ := t4.Threshold("stress.fp32"); th.Min != 4.05 {
		t.Errorf("T4 stress.fp32 = %+v, want 0.5 x 8.1", th)
	}
	// No tensor threshold is guessed for Blackwell.
	b200, _ := db.Lookup(0x2901, 0)
	if _, ok := b200.Threshold("stress.bf16"); ok {
		t.Error("B200 got a derived tensor threshold")
	}
	for _, m := range []*Model{rtx, a100, b200} {
		for _, n := range []string{"stress.fp8", "stress.bf16.mma_sync"} {
			if _, ok := m.Threshold(n); ok {
				t.Errorf("%s got %s: only compute capability 9.0 runs the wgmma burns", m.ID, n)
			}
		}
	}
}
