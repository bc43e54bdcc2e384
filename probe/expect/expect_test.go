package expect

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseConfigReadsOnlyExpected(t *testing.T) {
	e, err := ParseConfig([]byte(`
node: gpu-01
backend:
  url: https://example.invalid
  whatever: [1, 2, 3]
expected:
  model: H200
  gpus: 8
  gpu_memory_gb: 141
  cpus: 128
  cpu_model: EPYC 9654
  ram_gb: 2048
  disks:
    - {mount: /data, size_gb: 7680}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := Expected{Model: "H200", GPUs: 8, GPUMemoryGB: 141, CPUs: 128, CPUModel: "EPYC 9654", RAMGB: 2048,
		Disks: []Disk{{Mount: "/data", SizeGB: 7680}}}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("got %+v", e)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"expected:\n  gpus: 8\n  gpu_mem: 80\n", "line 3: expected.gpu_mem: unknown field"},
		{"expected:\n  gpus: eight\n", "line 2"},
		{"expected:\n  gpus: -1\n", "expected.gpus: -1 is negative"},
		{"expected:\n  disks:\n    - {mount: data, size_gb: 1}\n", `expected.disks[0].mount: "data" is not an absolute path`},
		{"expected:\n  disks:\n    - {mnt: /data}\n", `line 3: expected.disks[0].mnt: unknown field (fields: mount, size_gb)`},
		{"expected: 5\n", "expected: must be a mapping"},
		{"- a\n- b\n", "must be a mapping"},
	} {
		_, err := ParseConfig([]byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.doc, err, tc.want)
		}
	}
	if e, err := ParseConfig([]byte("node: x\n")); err != nil || !e.IsZero() {
		t.Errorf("no section: %+v %v", e, err)
	}
}

func TestLoadConfigNamesFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "probe.yaml")
	if err := os.WriteFile(p, []byte("expected:\n  cpus: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("got %v", err)
	}
	if _, err := LoadConfig(p + ".missing"); err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestSetAndMerge(t *testing.T) {
	var e Expected
	for _, kv := range []string{"model=H100", "gpus=8", "gpu_memory_gb=80", "cpus=96", "ram_gb=1024", "disks=/data:3840", "disks=/scratch:1000", "cpu_model=Xeon"} {
		if err := e.Set(kv); err != nil {
			t.Fatalf("%s: %v", kv, err)
		}
	}
	if e.GPUs != 8 || len(e.Disks) != 2 || e.Disks[1].Mount != "/scratch" || e.CPUModel != "Xeon" {
		t.Fatalf("got %+v", e)
	}
	for _, kv := range []string{"gpus", "gpus=x", "colour=red", "disks=/data", "disks=/d:big", "ram_gb=-3"} {
		if err := e.Set(kv); err == nil {
			t.Errorf("%q accepted", kv)
		}
	}
	// disks=none: the order has no data disk; it cannot stand beside a
	// listed one, either way round.
	var none Expected
	if err := none.Set("disks=none"); err != nil || !none.NoDataDisk || none.IsZero() {
		t.Fatalf("disks=none: %+v %v", none, err)
	}
	if err := none.Set("disks=/data:100"); err == nil || !strings.Contains(err.Error(), "expected.no_data_disk") {
		t.Errorf("none then /data: %v", err)
	}
	var listed Expected
	if err := listed.SetList("disks=/data:100,disks=none"); err == nil || !strings.Contains(err.Error(), "/data") {
		t.Errorf("/data then none: %v", err)
	}
	if _, err := ParseConfig([]byte("expected:\n  no_data_disk: true\n  disks:\n    - {mount: /data, size_gb: 100}\n")); err == nil {
		t.Error("config with no_data_disk and a disk accepted")
	}
	// --expect disks=none over a config's disks (and the other way) is
	// the flag's answer, not both.
	cfg := Expected{Disks: []Disk{{Mount: "/data", SizeGB: 100}}}
	cfg.Merge(Expected{NoDataDisk: true})
	if len(cfg.Disks) != 0 || !cfg.NoDataDisk || cfg.Validate() != nil {
		t.Errorf("none over disks: %+v", cfg)
	}
	cfg.Merge(Expected{Disks: []Disk{{Mount: "/scratch", SizeGB: 10}}})
	if len(cfg.Disks) != 1 || cfg.NoDataDisk || cfg.Validate() != nil {
		t.Errorf("disks over none: %+v", cfg)
	}
	base := Expected{Model: "H200", GPUs: 1, RAMGB: 64}
	base.Merge(Expected{GPUs: 8})
	if base.Model != "H200" || base.GPUs != 8 || base.RAMGB != 64 {
		t.Fatalf("merge: %+v", base)
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("expected:\n  model: H200\n  gpus: 8\n  disks:\n    - {mount: /data, size_gb: 100}\n"))
	f.Add([]byte("node: x\n"))
	f.Add([]byte("expected: [1, 2]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseConfig(data)
		if err != nil {
			return
		}
		// Whatever is accepted is a valid order.
		if verr := e.Validate(); verr != nil {
			t.Fatalf("accepted an invalid order %+v: %v", e, verr)
		}
	})
}

// TestSetList: one --expect may hold several pairs separated by commas, as
// the README writes it; a comma inside a value stays in it; a bad pair in
// the list is named as it would be alone.
func TestSetList(t *testing.T) {
	var e Expected
	if err := e.SetList("model=H200,gpus=8, gpu_memory_gb=141,cpu_model=AMD EPYC 9654, 96-Core,disks=/data:3840,disk=/scratch:1920"); err != nil {
		t.Fatal(err)
	}
	if e.Model != "H200" || e.GPUs != 8 || e.GPUMemoryGB != 141 || e.CPUModel != "AMD EPYC 9654, 96-Core" || len(e.Disks) != 2 || e.Disks[1].Mount != "/scratch" {
		t.Fatalf("%+v", e)
	}
	for list, want := range map[string]string{
		"model=H200,gpus=eight": `--expect gpus: "eight" is not a non-negative whole number`,
		"model=H200,colour=red": `--expect: unknown key "colour"`,
		"model=H200,":           `--expect "": want key=value`,
	} {
		var e Expected
		if err := e.SetList(list); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", list, err, want)
		}
	}
}
