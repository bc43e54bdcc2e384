package trial

import (
	"regexp"
	"slices"
	"strconv"

	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/yardstick"
)

// OrderMemoryRatio is how far below the memory ordered a card may report
// (NVML's total is a little under the marketing size): the probe's own
// ratio (probe/authn's MemoryRatio). More than as far above is not the
// card ordered either.
const OrderMemoryRatio = 0.97

// unknownID is the device id the probe appends to the name of a card whose
// id the spec database does not know ("NVIDIA X (0x2399)").
var unknownID = regexp.MustCompile(`\s*\(0x[0-9a-fA-F]{4}\)$`)

// HeldToOrder holds the node's GPUs to the order of record — the node's
// registration on the backend, --expect in `gpuprobe trial` — whatever
// order its probe was given, if any: a probe run without one (no
// --expect) judged the card only against itself, so a genuine H800 sold
// as an H100, or two GPUs of eight, fail here as the probe's
// gpu.order.model and gpu.count would have. Each result is one GPU's (or
// the count's) judgement that is not a pass, with its reason. The
// scorecard holds each node's acceptance reading to its registration so.
func HeldToOrder(n Node) []Result {
	var out []Result
	add := func(name string, g *int, verdict string, why msg.Text) {
		out = append(out, Result{Name: name, GPU: g, Verdict: verdict, why: why, Category: catInventory})
	}
	for _, r := range n.Results {
		if r.Name == "gpu.count" && r.Verdict == resPass && r.Number != nil && n.GPUs > 0 && *r.Number < float64(n.GPUs) {
			add("gpu.count", nil, resFail, msg.New("%d usable GPUs, the order says %d", int(*r.Number), n.GPUs))
		}
	}
	if n.MemoryMiB > 0 {
		for _, r := range n.Results {
			if r.Name != "gpu.memory" || r.Number == nil || r.Unit != "MiB" {
				continue
			}
			switch got := *r.Number; {
			case got < OrderMemoryRatio*n.MemoryMiB:
				add("gpu.order.memory", r.GPU, resFail, msg.New("%s MiB per GPU, the order says %s MiB", msg.Plain(mib(got)), msg.Plain(mib(n.MemoryMiB))))
			case got > (2-OrderMemoryRatio)*n.MemoryMiB:
				add("gpu.order.memory", r.GPU, resWarn, msg.New("%s MiB per GPU, more than the %s MiB ordered: not the ordered card", msg.Plain(mib(got)), msg.Plain(mib(n.MemoryMiB))))
			}
		}
	}
	if n.Model != "" {
		out = append(out, modelsHeld(n)...)
	}
	return out
}

func mib(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// modelsHeld holds each GPU's model, as its last gpu.model result names
// it, to the model ordered: a name true to the card's device id must be
// one of the models the order means; a card whose device id is unknown
// passes on its name alone only with a warning; a card that could not be
// identified or named cannot be held to the order (a warning: never a
// pass).
func modelsHeld(n Node) []Result {
	ordered := yardstick.Models(n.Model)
	last := map[int]Result{}
	var gpus []int
	for _, r := range n.Results {
		if r.Name != "gpu.model" || r.GPU == nil {
			continue
		}
		if _, seen := last[*r.GPU]; !seen {
			gpus = append(gpus, *r.GPU)
		}
		last[*r.GPU] = r
	}
	slices.Sort(gpus)
	var out []Result
	held := func(r Result, verdict string, why msg.Text) {
		out = append(out, Result{Name: "gpu.order.model", GPU: r.GPU, Verdict: verdict, why: why, Category: catInventory})
	}
	for _, g := range gpus {
		r := last[g]
		name := unknownID.ReplaceAllString(r.Value, "")
		overlap := slices.ContainsFunc(yardstick.CardModels(name), func(id string) bool { return slices.Contains(ordered, id) })
		switch {
		case r.Verdict == resFail:
			// gpu.model already fails: the card is not what it says.
		case len(ordered) == 0:
			held(r, resWarn, msg.New("the order's model %s is not in the spec database: the card cannot be held to it", msg.Plain(n.Model)))
		case r.Verdict == resSkipped:
			held(r, resWarn, msg.New("the card could not be identified, so it cannot be held to the order (%s)", msg.Plain(n.Model)))
		case name == "":
			// Nothing names the card (no probe has sent a model check
			// without its name; a hand-made one might): nothing to hold.
			held(r, resWarn, msg.New("the card's name was not reported, so it cannot be held to the order (%s)", msg.Plain(n.Model)))
		case !overlap:
			held(r, resFail, msg.New("the card is %s, the order says %s", msg.Plain(name), msg.Plain(n.Model)))
		case r.Verdict == resWarn:
			held(r, resWarn, msg.New("the card's device id is unknown: only its name %s says it is the %s ordered", msg.Plain(name), msg.Plain(n.Model)))
		default:
			if card, over, ok := cutDown(name, ordered, n.MemoryMiB); ok {
				held(r, resWarn, msg.New("the order %s can mean %s or %s, and the card is the %s, below the other on every figure their datasheets give: name the exact model ordered, or have the provider confirm in writing that the %s is what was sold",
					msg.Plain(n.Model), msg.Plain(over), msg.Plain(card), msg.Plain(card), msg.Plain(card)))
			}
		}
	}
	return out
}

// memoryFits says whether a card of got MiB meets an order of want MiB
// within OrderMemoryRatio either way.
func memoryFits(got, want float64) bool {
	return got >= OrderMemoryRatio*want && got <= (2-OrderMemoryRatio)*want
}

// cutDown is yardstick.Outdone for the card named card (its reported
// name, found true to its device id): the names of its model and of the
// one the order had reason to mean.
func cutDown(card string, ordered []string, memoryMiB float64) (string, string, bool) {
	var mine []string
	for _, id := range yardstick.CardModels(card) {
		if slices.Contains(ordered, id) {
			mine = append(mine, id)
		}
	}
	if len(mine) != 1 {
		return "", "", false // the name means none or two of them: nothing to set apart
	}
	over, ok := yardstick.Outdone(mine[0], ordered, func(m yardstick.Model) bool {
		return memoryMiB == 0 || m.MemoryMiB == 0 || memoryFits(float64(m.MemoryMiB), memoryMiB)
	})
	if !ok {
		return "", "", false
	}
	m, _ := yardstick.ByID(mine[0])
	return m.DisplayName(), over.DisplayName(), true
}
