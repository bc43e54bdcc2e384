// Package expect holds what was ordered: the hardware the renter paid for,
// against which the probe judges what it finds. It is the `expected:`
// section of the probe's config file, and `gpuprobe check --expect k=v`
// sets the same fields by their YAML names.
//
// Input to step 2 of the observation pipeline (read, judge, observe, spool,
// push): what the readings are judged against besides the spec database.
package expect

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/internal/yamlpos"
	"github.com/gpusla/gpusla/probe/wire"
)

// Expected is the order. Zero values mean "not stated": nothing is judged
// against a field that the order does not state.
type Expected struct {
	// Model is the GPU model as the order names it: a family ("H100"), an
	// NVML name ("NVIDIA H200") or a spec-database id ("h100-pcie-80gb").
	Model string `yaml:"model,omitempty" json:"model,omitempty"`
	// GPUs is the number of GPUs.
	GPUs int `yaml:"gpus,omitempty" json:"gpus,omitempty"`
	// Driver is the NVIDIA driver version ordered, as nvidia-smi shows it
	// ("580.159.04"), or a leading part of it ("580", "580.159"): the
	// card's driver matches when it is that version or a release of it.
	Driver string `yaml:"driver,omitempty" json:"driver,omitempty"`
	// GPUMemoryGB is the memory per GPU in the vendor's "GB" (141 for an
	// H200), which is GiB in practice; NVML reports a little less, so the
	// check allows 3 %.
	GPUMemoryGB float64 `yaml:"gpu_memory_gb,omitempty" json:"gpu_memory_gb,omitempty"`
	// CPUs is the number of logical CPUs (vCPUs).
	CPUs int `yaml:"cpus,omitempty" json:"cpus,omitempty"`
	// CPUModel is a case-insensitive substring of /proc/cpuinfo's model name,
	// e.g. "EPYC 9654" or "Xeon Platinum 8480".
	CPUModel string `yaml:"cpu_model,omitempty" json:"cpu_model,omitempty"`
	// RAMGB is the memory in GiB.
	RAMGB float64 `yaml:"ram_gb,omitempty" json:"ram_gb,omitempty"`
	// Disks are the data disks, by mount point, with their size in GB
	// (10^9 bytes, as disks are sold).
	Disks []Disk `yaml:"disks,omitempty" json:"disks,omitempty"`
	// NoDataDisk says the order has no data disk (--expect disks=none):
	// the system disk alone is what was bought, so "数据盘未挂载" cannot
	// happen, and the trial's df -h row is judged on the system disk and
	// on disks attached but unused.
	NoDataDisk bool `yaml:"no_data_disk,omitempty" json:"no_data_disk,omitempty"`
}

// Disk is one ordered data disk.
type Disk struct {
	Mount  string  `yaml:"mount" json:"mount"`
	SizeGB float64 `yaml:"size_gb" json:"size_gb"`
}

// Keys are the fields' YAML names, for --expect and error messages.
var Keys = []string{"model", "gpus", "gpu_memory_gb", "driver", "cpus", "cpu_model", "ram_gb", "disks"}

// Validate says which field is wrong.
func (e *Expected) Validate() error {
	switch {
	case e.GPUs < 0:
		return fmt.Errorf("expected.gpus: %d is negative", e.GPUs)
	case e.GPUMemoryGB < 0:
		return fmt.Errorf("expected.gpu_memory_gb: %g is negative", e.GPUMemoryGB)
	case e.CPUs < 0:
		return fmt.Errorf("expected.cpus: %d is negative", e.CPUs)
	case e.RAMGB < 0:
		return fmt.Errorf("expected.ram_gb: %g is negative", e.RAMGB)
	case e.Driver != "" && !wire.ValidDriverVersion(e.Driver):
		return fmt.Errorf("expected.driver: %q is not a driver version (digits and dots, as nvidia-smi shows it: 580.159.04, or 580 for any 580 release)", e.Driver)
	}
	if e.NoDataDisk && len(e.Disks) > 0 {
		return fmt.Errorf("expected.no_data_disk: true, but expected.disks lists %s (--expect disks=none says the order has no data disk)", e.Disks[0].Mount)
	}
	seen := map[string]bool{}
	for i, d := range e.Disks {
		switch {
		case !strings.HasPrefix(d.Mount, "/"):
			return fmt.Errorf("expected.disks[%d].mount: %q is not an absolute path", i, d.Mount)
		case d.SizeGB < 0:
			return fmt.Errorf("expected.disks[%d].size_gb: %g is negative", i, d.SizeGB)
		case seen[d.Mount]:
			return fmt.Errorf("expected.disks[%d].mount: %q is listed twice", i, d.Mount)
		}
		seen[d.Mount] = true
	}
	return nil
}

// DriverMatches says whether the installed driver version is the ordered
// one or a release of it: "580" and "580.159" match "580.159.04";
// "580.15" does not (parts are whole numbers, not text prefixes).
func DriverMatches(ordered, installed string) bool {
	o, in := strings.Split(ordered, "."), strings.Split(installed, ".")
	if ordered == "" || len(o) > len(in) {
		return false
	}
	for i := range o {
		if o[i] != in[i] {
			return false
		}
	}
	return true
}

// IsZero reports whether the order states nothing.
func (e *Expected) IsZero() bool {
	return e.Model == "" && e.GPUs == 0 && e.GPUMemoryGB == 0 && e.Driver == "" && e.CPUs == 0 &&
		e.CPUModel == "" && e.RAMGB == 0 && len(e.Disks) == 0 && !e.NoDataDisk
}

// Set sets one field from a "key=value" flag. disks takes
// "/mount:SIZE_GB" and may be given several times (each adds a disk), or
// "none" where the order has no data disk.
func (e *Expected) Set(kv string) error {
	key, value, ok := strings.Cut(kv, "=")
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if !ok || key == "" {
		return fmt.Errorf("--expect %q: want key=value (keys: %s)", kv, strings.Join(Keys, ", "))
	}
	num := func() (float64, error) {
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || f < 0 {
			return 0, fmt.Errorf("--expect %s: %q is not a non-negative number", key, value)
		}
		return f, nil
	}
	integer := func() (int, error) {
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("--expect %s: %q is not a non-negative whole number", key, value)
		}
		return n, nil
	}
	var err error
	switch key {
	case "model":
		e.Model = value
	case "cpu_model":
		e.CPUModel = value
	case "driver":
		e.Driver = value
	case "gpus":
		e.GPUs, err = integer()
	case "cpus":
		e.CPUs, err = integer()
	case "gpu_memory_gb":
		e.GPUMemoryGB, err = num()
	case "ram_gb":
		e.RAMGB, err = num()
	case "disks", "disk":
		if value == "none" {
			e.NoDataDisk = true
			break
		}
		mount, size, ok := strings.Cut(value, ":")
		if !ok {
			return fmt.Errorf("--expect %s: %q: want /mount:SIZE_GB, or none where no data disk was ordered", key, value)
		}
		gb, perr := strconv.ParseFloat(size, 64)
		if perr != nil || gb < 0 {
			return fmt.Errorf("--expect %s: size %q is not a number of GB", key, size)
		}
		e.Disks = append(e.Disks, Disk{Mount: mount, SizeGB: gb})
	default:
		return fmt.Errorf("--expect: unknown key %q (keys: %s)", key, strings.Join(Keys, ", "))
	}
	if err != nil {
		return err
	}
	return e.Validate()
}

// SetList sets the fields of one --expect value, which may hold several
// key=value pairs separated by commas ("model=H200,gpus=8,ram_gb=2048").
// A comma splits only where a key and "=" follow it, so a value may hold a
// comma of its own (cpu_model=AMD EPYC 9654, 96-Core); an unknown key
// there is named as it would be alone, and a trailing comma is refused.
func (e *Expected) SetList(list string) error {
	for _, kv := range splitPairs(list) {
		if err := e.Set(kv); err != nil {
			return err
		}
	}
	return nil
}

// pairStart is a comma that a key and "=" follow.
var pairStart = regexp.MustCompile(`,\s*[A-Za-z_][A-Za-z0-9_]*\s*=|,\s*$`)

// splitPairs cuts list at each comma that a key and "=" follow, and at a
// trailing comma (leaving an empty pair Set refuses).
func splitPairs(list string) []string {
	var out []string
	start := 0
	for _, m := range pairStart.FindAllStringIndex(list, -1) {
		out = append(out, list[start:m[0]])
		start = m[0] + 1
	}
	return append(out, list[start:])
}

// Merge overlays the fields that o states onto e (flags over config file).
func (e *Expected) Merge(o Expected) {
	if o.Model != "" {
		e.Model = o.Model
	}
	if o.GPUs != 0 {
		e.GPUs = o.GPUs
	}
	if o.GPUMemoryGB != 0 {
		e.GPUMemoryGB = o.GPUMemoryGB
	}
	if o.Driver != "" {
		e.Driver = o.Driver
	}
	if o.CPUs != 0 {
		e.CPUs = o.CPUs
	}
	if o.CPUModel != "" {
		e.CPUModel = o.CPUModel
	}
	if o.RAMGB != 0 {
		e.RAMGB = o.RAMGB
	}
	// The data disks are one answer: listed disks, or none ordered.
	if len(o.Disks) > 0 || o.NoDataDisk {
		e.Disks, e.NoDataDisk = o.Disks, o.NoDataDisk
	}
}

// LoadConfig reads only the `expected:` section of the probe's config
// file; other sections belong to other parts of the probe and are not
// looked at. A file without the section yields an empty order.
func LoadConfig(path string) (Expected, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Expected{}, fmt.Errorf("read config: %w", err)
	}
	e, err := ParseConfig(data)
	if err != nil {
		return Expected{}, fmt.Errorf("%s: %w", path, err)
	}
	return e, nil
}

// ParseConfig is LoadConfig on bytes.
func ParseConfig(data []byte) (Expected, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Expected{}, yamlpos.Explain("", nil, err)
	}
	if len(doc.Content) == 0 {
		return Expected{}, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return Expected{}, &yamlpos.Error{Line: top.Line, Msg: "the config file must be a mapping"}
	}
	section := yamlpos.Lookup(top, "expected")
	if section == nil {
		return Expected{}, nil
	}
	if section.Kind != yaml.MappingNode {
		return Expected{}, yamlpos.At("", section, "expected", "must be a mapping")
	}
	// The rest of the file is the daemon's: only this section is held to
	// the order's fields here.
	var e Expected
	if err := yamlpos.UnknownField("", section, &e, "expected"); err != nil {
		return Expected{}, err
	}
	if err := section.Decode(&e); err != nil {
		return Expected{}, yamlpos.Explain("", top, err)
	}
	if err := e.Validate(); err != nil {
		return Expected{}, err
	}
	return e, nil
}
