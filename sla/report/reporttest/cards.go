package reporttest

import (
	"strconv"

	"github.com/gpusla/gpusla/sla/events"
)

// Card is the GPUs a node reports: N of them named Name (NVML's name, true
// to the device id), with MiB of memory each.
type Card struct {
	Name string
	N    int
	MiB  float64
}

// Checks are the health job's checks of the card from a probe told no
// order (no expected: in its config, so no gpu.order.* checks): the
// count, each GPU's model and memory, every verdict of the probe's own
// passing.
func (c Card) Checks() []events.Check {
	f := func(v float64) *float64 { return &v }
	cs := []events.Check{{Name: "gpu.count", Category: events.CategoryGPULost, Verdict: events.Pass, Value: strconv.Itoa(c.N),
		Number: f(float64(c.N)), Unit: "GPUs"}}
	for g := range c.N {
		cs = append(cs,
			events.Check{Name: "gpu.model", Category: events.CategoryInventory, Verdict: events.Pass, GPU: &g, Value: c.Name},
			events.Check{Name: "gpu.memory", Category: events.CategoryInventory, Verdict: events.Pass, GPU: &g,
				Value: strconv.FormatFloat(c.MiB, 'f', -1, 64) + " MiB", Number: f(c.MiB), Unit: "MiB"})
	}
	return cs
}

// Handover is a node's registration, the cards first handed over and the
// cards it is right with: First passes every check of a probe told no
// order, yet is not what was registered unless First == Right.
type Handover struct {
	Name         string
	Model        string
	GPUs, MiB    int
	First, Right Card
}

// Handovers are the delivery cases a probe without expected: cannot tell
// apart: a genuine H100 ×8 of 80 GB as registered; a genuine H800
// registered as an H100; 4 GPUs of 8; 40 GB A100s for an 80 GB A100 order
// (81,920 MiB: the 40 GB card's 40,960 MiB is below 97 % of it).
func Handovers() []Handover {
	h100 := Card{"NVIDIA H100 80GB HBM3", 8, 81559}
	return []Handover{
		{"genuine H100 as registered", "H100", 8, 81920, h100, h100},
		{"H800 registered as H100", "H100", 8, 81920, Card{"NVIDIA H800", 8, 81559}, h100},
		{"4 GPUs of 8", "H100", 8, 81920, Card{h100.Name, 4, 81559}, h100},
		{"40 GB A100 for an 80 GB order", "A100", 8, 81920, Card{"NVIDIA A100-SXM4-40GB", 8, 40960}, Card{"NVIDIA A100-SXM4-80GB", 8, 81920}},
	}
}
