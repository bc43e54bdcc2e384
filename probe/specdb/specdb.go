// Package specdb is the GPU spec database shipped with the probe: for each
// model, what NVML reports on a genuine card (ids, memory, cores, clocks,
// power, PCIe) and calibrated thresholds for measurements. It is a YAML
// data file embedded in the binary, so adding a model or a threshold is a
// data change, not a code change.
//
// Input to step 2 of the observation pipeline (read, judge, observe, spool,
// push): the figures the GPU readings and measurements are judged against.
package specdb

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/gpusla/gpusla/internal/yamlpos"

	"github.com/gpusla/gpusla/sla/yardstick"
)

//go:embed specs.yaml
var embedded []byte

// Model is one GPU product. A zero numeric field is "not known" (left out
// of the data file): checks that need it are skipped, never judged
// against zero.
type Model struct {
	ID                string   `yaml:"id"`
	Family            string   `yaml:"family"`
	Names             []string `yaml:"names"`   // names NVML reports for this model
	Aliases           []string `yaml:"aliases"` // other ways an order may spell it
	DeviceIDs         []uint16 `yaml:"device_ids"`
	SubsystemIDs      []uint16 `yaml:"subsystem_ids"` // empty: any subsystem
	FormFactor        string   `yaml:"form_factor"`   // sxm or pcie
	Segment           string   `yaml:"segment"`       // datacenter, workstation, consumer
	ComputeCapability string   `yaml:"compute_capability"`
	SMs               uint32   `yaml:"sms"`
	GPUCores          uint32   `yaml:"gpu_cores"`
	MemoryMiB         uint64   `yaml:"memory_mib"`
	// MemoryVariantsMiB are other sizes genuine cards of this device id
	// report (ECC on or off).
	MemoryVariantsMiB []uint64 `yaml:"memory_variants_mib"`
	MemoryType        string   `yaml:"memory_type"`
	MemoryBusWidth    uint32   `yaml:"memory_bus_width"`
	MaxSMClockMHz     uint32   `yaml:"max_sm_clock_mhz"`
	MaxMemClockMHz    uint32   `yaml:"max_mem_clock_mhz"`
	DefaultPowerW     float64  `yaml:"default_power_w"`
	PCIeGen           int      `yaml:"pcie_gen"`
	PCIeWidth         int      `yaml:"pcie_width"`
	NVLink            bool     `yaml:"nvlink"`
	NVLinkGBps        float64  `yaml:"nvlink_gbps"` // one way, per GPU
	MemoryBandwidth   float64  `yaml:"memory_bandwidth_gbps"`
	// Datasheet throughput, dense, TFLOP/s; tensor rates with FP32
	// accumulation.
	FP64       float64              `yaml:"fp64"`
	FP64Tensor float64              `yaml:"fp64_tensor"`
	FP32       float64              `yaml:"fp32"`
	TF32       float64              `yaml:"tf32"`
	BF16       float64              `yaml:"bf16"`
	FP16       float64              `yaml:"fp16"`
	FP8        float64              `yaml:"fp8"`
	Source     string               `yaml:"source"`
	Thresholds map[string]Threshold `yaml:"thresholds"`
}

// Form factors and segments.
const (
	SXM         = "sxm"
	PCIe        = "pcie"
	Datacenter  = "datacenter"
	Workstation = "workstation"
	Consumer    = "consumer"
)

// MemoryTolerance is how far a genuine card's NVML memory total may be from
// the database's sizes: below, reserved regions and driver builds differ a
// little; above, nothing genuine ever reports more than it shipped with.
const MemoryTolerance = 0.03

// MemoryRange is the NVML memory total (MiB) a genuine card of the model
// reports: from 3 % below its smallest variant to 3 % above its largest.
func (m *Model) MemoryRange() (lo, hi float64) {
	small, large := m.MemoryMiB, m.MemoryMiB
	for _, v := range m.MemoryVariantsMiB {
		small, large = min(small, v), max(large, v)
	}
	return (1 - MemoryTolerance) * float64(small), (1 + MemoryTolerance) * float64(large)
}

// HasDeviceID reports whether id is one of the model's PCI device ids.
func (m *Model) HasDeviceID(id uint16) bool {
	for _, d := range m.DeviceIDs {
		if d == id {
			return true
		}
	}
	return false
}

// CoresPerSM is the CUDA cores of one SM of a compute capability; 0 when
// unknown.
func CoresPerSM(cc string) int {
	switch cc {
	case "6.0", "7.0", "7.2", "7.5", "8.0":
		return 64 // GP100, Volta, Turing, GA100
	case "8.6", "8.7", "8.9", "9.0", "10.0", "10.3", "12.0":
		return 128
	}
	return 0
}

// Threshold is a calibrated pass level for a named measurement.
type Threshold struct {
	Min    float64 `yaml:"min"`            // fail below
	Warn   float64 `yaml:"warn,omitempty"` // warn below (0: no warn band)
	Max    float64 `yaml:"max,omitempty"`  // fail above (0: no upper bound)
	Unit   string  `yaml:"unit"`
	Source string  `yaml:"source"`
	// Official is the datasheet figure the measurement is shown against
	// ("x % of the official y"); 0 when there is none.
	Official float64 `yaml:"official,omitempty"`
	// Healthy is what a healthy card of the model measured, the figure a
	// calibrated Min was taken from; 0 when none was measured (a derived
	// threshold). The scorecard shows each provider's figures against it
	// (sla/yardstick mirrors it, TestYardstickMirror).
	Healthy float64 `yaml:"healthy,omitempty"`
	// Derived says the threshold was derived from the datasheet (derive.go)
	// because no healthy card of the model was measured.
	Derived bool `yaml:"-"`
}

// Threshold returns the model's threshold of that name.
func (m *Model) Threshold(name string) (Threshold, bool) {
	t, ok := m.Thresholds[name]
	return t, ok
}

// Measured reports whether the figures were read from a real card rather
// than taken from a datasheet.
func (m *Model) Measured() bool { return strings.HasPrefix(m.Source, "measured") }

// DisplayName is the model's first NVML name, or its id.
func (m *Model) DisplayName() string {
	if len(m.Names) > 0 {
		return m.Names[0]
	}
	return m.ID
}

// DB is a loaded spec database.
type DB struct {
	Models []Model `yaml:"models"`
}

var (
	defaultOnce sync.Once
	defaultDB   *DB
	defaultErr  error
)

// Default returns the embedded database. It panics if the embedded file is
// invalid, which its own test prevents from ever shipping.
func Default() *DB {
	defaultOnce.Do(func() { defaultDB, defaultErr = Parse(embedded) })
	if defaultErr != nil {
		panic("specdb: embedded specs.yaml: " + defaultErr.Error())
	}
	return defaultDB
}

// Parse reads and validates a database; errors name the model and field.
func Parse(data []byte) (*DB, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("spec database: %w", err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("spec database: empty")
	}
	// An unknown key is a typo that would otherwise silently drop a spec.
	var db DB
	if err := yamlpos.UnknownField("spec database", root.Content[0], &db, ""); err != nil {
		return nil, err
	}
	if err := root.Content[0].Decode(&db); err != nil {
		return nil, fmt.Errorf("spec database: %w", err)
	}
	if err := db.validate(); err != nil {
		return nil, err
	}
	return &db, nil
}

func (db *DB) validate() error {
	if len(db.Models) == 0 {
		return fmt.Errorf("spec database: no models")
	}
	ids := map[string]bool{}
	keys := map[string]string{}
	for i := range db.Models {
		m := &db.Models[i]
		bad := func(field, msg string, args ...any) error {
			return fmt.Errorf("spec database: model %d (%s): %s: %s", i, m.ID, field, fmt.Sprintf(msg, args...))
		}
		perSM := uint32(CoresPerSM(m.ComputeCapability))
		switch {
		case m.ID == "":
			return bad("id", "missing")
		case ids[m.ID]:
			return bad("id", "duplicate")
		case m.Family == "":
			return bad("family", "missing")
		case len(m.Names) == 0:
			return bad("names", "at least one NVML name is needed")
		case len(m.DeviceIDs) == 0:
			return bad("device_ids", "missing")
		case m.FormFactor != SXM && m.FormFactor != PCIe:
			return bad("form_factor", "%q: want sxm or pcie", m.FormFactor)
		case m.Segment != Datacenter && m.Segment != Workstation && m.Segment != Consumer:
			return bad("segment", "%q: want datacenter, workstation or consumer", m.Segment)
		case perSM == 0:
			return bad("compute_capability", "%q is not one the probe knows", m.ComputeCapability)
		case m.SMs > 0 && m.GPUCores > 0 && m.SMs*perSM != m.GPUCores:
			return bad("gpu_cores", "%d is not %d SMs x %d cores", m.GPUCores, m.SMs, perSM)
		case m.MemoryMiB == 0:
			return bad("memory_mib", "missing")
		case m.DefaultPowerW < 0:
			return bad("default_power_w", "negative")
		case m.PCIeGen < 0 || m.PCIeGen > 6:
			return bad("pcie_gen", "%d is not a PCIe generation", m.PCIeGen)
		case m.PCIeWidth != 0 && m.PCIeWidth != 1 && m.PCIeWidth != 4 && m.PCIeWidth != 8 && m.PCIeWidth != 16:
			return bad("pcie_width", "%d is not a PCIe width", m.PCIeWidth)
		case m.NVLinkGBps > 0 && !m.NVLink:
			return bad("nvlink_gbps", "given for a model without NVLink")
		case m.Source == "":
			return bad("source", "say where the figures come from")
		}
		// One of SMs and cores gives the other.
		switch {
		case m.SMs == 0 && m.GPUCores > 0:
			if m.GPUCores%perSM != 0 {
				return bad("gpu_cores", "%d is not a whole number of %d-core SMs", m.GPUCores, perSM)
			}
			m.SMs = m.GPUCores / perSM
		case m.GPUCores == 0 && m.SMs > 0:
			m.GPUCores = m.SMs * perSM
		}
		ids[m.ID] = true
		subs := m.SubsystemIDs
		if len(subs) == 0 {
			subs = []uint16{0}
		}
		for _, d := range m.DeviceIDs {
			for _, s := range subs {
				k := fmt.Sprintf("%04x/%04x", d, s)
				if other, dup := keys[k]; dup {
					return bad("device_ids", "0x%04x subsystem 0x%04x is also %s", d, s, other)
				}
				keys[k] = m.ID
			}
		}
		for name, t := range m.Thresholds {
			switch {
			case t.Unit == "":
				return bad("thresholds."+name+".unit", "missing")
			case t.Source == "":
				return bad("thresholds."+name+".source", "missing")
			case t.Warn != 0 && t.Warn < t.Min:
				return bad("thresholds."+name+".warn", "%g is below min %g", t.Warn, t.Min)
			case t.Max != 0 && t.Max < t.Min:
				return bad("thresholds."+name+".max", "%g is below min %g", t.Max, t.Min)
			case t.Healthy != 0 && t.Healthy < t.Min:
				return bad("thresholds."+name+".healthy", "%g is below min %g: a healthy card would fail", t.Healthy, t.Min)
			}
		}
		derive(m)
	}
	return nil
}

// Lookup finds the model of a PCI device and subsystem id (16-bit each).
// An entry listing the subsystem wins over one that matches any subsystem.
func (db *DB) Lookup(deviceID, subsystemID uint16) (*Model, bool) {
	var generic *Model
	for i := range db.Models {
		m := &db.Models[i]
		if !m.HasDeviceID(deviceID) {
			continue
		}
		if len(m.SubsystemIDs) == 0 {
			if generic == nil {
				generic = m
			}
			continue
		}
		for _, s := range m.SubsystemIDs {
			if s == subsystemID {
				return m, true
			}
		}
		if generic == nil {
			// Subsystem not listed: still this device id's model, the
			// subsystem list only disambiguates.
			generic = m
		}
	}
	return generic, generic != nil
}

// ByNVMLName returns the models whose NVML name is exactly name.
func (db *DB) ByNVMLName(name string) []*Model {
	var out []*Model
	for i := range db.Models {
		for _, n := range db.Models[i].Names {
			if strings.EqualFold(strings.TrimSpace(n), strings.TrimSpace(name)) {
				out = append(out, &db.Models[i])
				break
			}
		}
	}
	return out
}

// normalise folds an order's spelling (yardstick.Normalise: the
// scorecard's mirror of these figures reads a name the same way).
func normalise(s string) string { return yardstick.Normalise(s) }

// Resolve turns what an order says ("H100", "h200-sxm-141gb", "RTX 4090 D")
// into the models that satisfy it: a family name matches every model of
// the family; an id, NVML name or alias matches that model only.
func (db *DB) Resolve(order string) ([]*Model, error) {
	want := normalise(order)
	if want == "" {
		return nil, fmt.Errorf("empty model name")
	}
	// A family name ("H100") accepts every model of the family; otherwise
	// an id, NVML name or alias names one model.
	var family []*Model
	for i := range db.Models {
		if normalise(db.Models[i].Family) == want {
			family = append(family, &db.Models[i])
		}
	}
	if len(family) > 0 {
		return family, nil
	}
	var exact []*Model
	for i := range db.Models {
		m := &db.Models[i]
		for _, n := range append(append([]string{m.ID}, m.Names...), m.Aliases...) {
			if normalise(n) == want {
				exact = append(exact, m)
				break
			}
		}
	}
	if len(exact) > 0 {
		return exact, nil
	}
	return nil, fmt.Errorf("model %q is not in the spec database (known families: %s)", order, strings.Join(db.Families(), ", "))
}

// Families lists the distinct family names, sorted.
func (db *DB) Families() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range db.Models {
		if !seen[m.Family] {
			seen[m.Family] = true
			out = append(out, m.Family)
		}
	}
	sort.Strings(out)
	return out
}
