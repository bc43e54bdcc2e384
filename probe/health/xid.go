package health

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/kmsg"
	"github.com/gpusla/gpusla/probe/wire"
)

// XID severities.
const (
	XIDLost        = "lost"        // the GPU is gone or unusable until reset
	XIDHardware    = "hardware"    // the hardware reported a fault
	XIDApplication = "application" // usually a program's bug, not the card
)

// XIDInfo describes an XID code (NVIDIA's XID catalogue).
type XIDInfo struct {
	Name     string
	Severity string
}

// XIDs are the codes the probe knows by name. Unknown codes are treated
// as hardware faults: the safe side for a renter.
var XIDs = map[int]XIDInfo{
	13:  {"graphics engine exception", XIDApplication},
	31:  {"GPU memory page fault", XIDApplication},
	43:  {"GPU stopped processing (reset channel)", XIDApplication},
	45:  {"preemptive cleanup after an error", XIDApplication},
	48:  {"double-bit ECC error", XIDHardware},
	61:  {"internal micro-controller breakpoint", XIDHardware},
	62:  {"internal micro-controller halt", XIDHardware},
	63:  {"ECC page retirement or row remapping recorded", XIDHardware},
	64:  {"ECC page retirement or row remapping failure", XIDHardware},
	68:  {"video processor exception", XIDApplication},
	69:  {"graphics engine class error", XIDApplication},
	74:  {"NVLink error", XIDHardware},
	79:  {"GPU has fallen off the bus", XIDLost},
	92:  {"high single-bit ECC error rate", XIDHardware},
	94:  {"contained ECC error", XIDHardware},
	95:  {"uncontained ECC error", XIDLost},
	119: {"GSP RPC timeout", XIDLost},
	120: {"GSP error", XIDLost},
	121: {"C2C link error", XIDHardware},
	140: {"unrecovered ECC error", XIDLost},
}

// LookupXID describes a code.
func LookupXID(code int) XIDInfo {
	if i, ok := XIDs[code]; ok {
		return i
	}
	return XIDInfo{Name: "unknown XID", Severity: XIDHardware}
}

// xidVerdict maps severity to category and verdict.
func xidVerdict(sev string) (category, verdict string) {
	switch sev {
	case XIDLost:
		return wire.CategoryGPULost, wire.Fail
	case XIDHardware:
		return wire.CategoryGPUDegraded, wire.Fail
	default:
		return wire.CategoryGPUDegraded, wire.Warn
	}
}

const xidCriterion = "no hardware XID (application XIDs only warn)"

// xidCheck summarises the XIDs seen on one GPU (or on a bus id that no
// listed GPU has: a GPU that fell off the bus is often no longer listed).
func xidCheck(name string, gpuIndex *int, codes []int, evidence []string, source string) wire.Check {
	c := wire.Check{Name: name, Category: wire.CategoryGPUDegraded, Verdict: wire.Pass, GPU: gpuIndex,
		Criterion: xidCriterion, Number: num(float64(len(codes))), Unit: "XIDs"}
	if len(codes) == 0 {
		c.SetValue("none in %s", source)
		return c
	}
	byCode := map[int]int{}
	for _, x := range codes {
		byCode[x]++
	}
	var keys []int
	for k := range byCode {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	rank := map[string]int{wire.Pass: 0, wire.Warn: 1, wire.Fail: 2}
	var parts []string
	for _, k := range keys {
		info := LookupXID(k)
		parts = append(parts, fmt.Sprintf("%d %s ×%d", k, info.Name, byCode[k]))
		cat, v := xidVerdict(info.Severity)
		if rank[v] > rank[c.Verdict] || (rank[v] == rank[c.Verdict] && cat == wire.CategoryGPULost) {
			c.Verdict, c.Category = v, cat
		}
	}
	c.Value = strings.Join(parts, ", ")
	const maxEvidence = 5
	if len(evidence) > maxEvidence {
		evidence = append(evidence[:maxEvidence:maxEvidence], fmt.Sprintf("… %d more", len(evidence)-maxEvidence))
	}
	c.Detail = source + ": " + strings.Join(evidence, " | ")
	return c
}

// XIDEvents: XIDs NVML delivered while the probe was listening.
type XIDEvents struct{}

func (XIDEvents) Name() string { return "xid_events" }

func (XIDEvents) Check(in Input) []wire.Check {
	if in.GPU == nil {
		return nil
	}
	if in.GPU.XIDWatch != gpu.XIDWatchOK {
		why := in.GPU.XIDWatch
		if why == "" {
			why = "XID events were not listened for"
		}
		c := skipped("gpu.xid.events", xidCriterion, why)
		c.Category = wire.CategoryGPUDegraded
		return []wire.Check{c}
	}
	var out []wire.Check
	for _, d := range in.GPU.Devices {
		var codes []int
		var ev []string
		for _, e := range in.GPU.XIDs {
			if e.GPU == d.Index {
				codes = append(codes, int(e.XID))
				ev = append(ev, fmt.Sprintf("XID %d at %s", e.XID, e.At.Format("15:04:05")))
			}
		}
		out = append(out, xidCheck("gpu.xid.events", idx(d.Index), codes, ev, "NVML events during the check"))
	}
	return out
}

// KernelXIDs: XIDs in the kernel log since boot, which catches errors
// raised while no probe was listening.
type KernelXIDs struct{}

func (KernelXIDs) Name() string { return "kernel_xids" }

func (KernelXIDs) Check(in Input) []wire.Check {
	if in.Kernel == nil {
		return nil
	}
	if in.Kernel.Error != "" {
		c := skipped("gpu.xid.kernel_log", xidCriterion, in.Kernel.Error)
		c.Category = wire.CategoryGPUDegraded
		return []wire.Check{c}
	}
	source := in.Kernel.Source
	xids := in.Kernel.XIDs()
	type bucket struct {
		gpu   *int
		codes []int
		ev    []string
	}
	buckets := map[string]*bucket{}
	var order []string
	get := func(key string, g *int) *bucket {
		if b, ok := buckets[key]; ok {
			return b
		}
		b := &bucket{gpu: g}
		buckets[key] = b
		order = append(order, key)
		return b
	}
	if in.GPU != nil {
		for _, d := range in.GPU.Devices {
			get(gpu.ShortBusID(d.PCI.BusID), idx(d.Index))
		}
	}
	for _, x := range xids {
		key := gpu.ShortBusID(x.PCI)
		b := get(key, nil)
		b.codes = append(b.codes, x.XID)
		b.ev = append(b.ev, evidence(x))
	}
	var out []wire.Check
	for _, key := range order {
		b := buckets[key]
		if b.gpu == nil && len(b.codes) == 0 {
			continue
		}
		c := xidCheck("gpu.xid.kernel_log", b.gpu, b.codes, b.ev, source)
		if b.gpu == nil {
			c.SetDetail("PCI %s, which NVML does not list (now): %s", key, c.Detail)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		out = append(out, xidCheck("gpu.xid.kernel_log", nil, nil, nil, source))
	}
	return out
}

func evidence(x kmsg.Xid) string {
	s := fmt.Sprintf("line %d: Xid %d", x.Line, x.XID)
	if x.BootSeconds != nil {
		s += fmt.Sprintf(" at %.0f s after boot", *x.BootSeconds)
	} else if x.Time != "" {
		s += " at " + x.Time
	}
	return s + ": " + x.Message
}
