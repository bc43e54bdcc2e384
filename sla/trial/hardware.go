package trial

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/stat"
	"github.com/gpusla/gpusla/sla/yardstick"
)

// Result categories the hardware criteria read (probe/wire's).
const (
	catInventory   = "inventory"
	catGPULost     = "gpu_lost"
	catGPUDegraded = "gpu_degraded"
	catPerformance = "performance_below_spec"
)

// The probe's own bars the seed gives no number for, and the seed's lines.
const (
	// IdleMaxUtilPct: "空载状态下利用率应接近0%" — the probe's gpu.utilization
	// bar (probe/health): under 5 %.
	IdleMaxUtilPct = 5.0
	// SoakMinutes: "连续运行30分钟无报错".
	SoakMinutes = 30.0
	// BandwidthMinPct: "达到官方标称值的90%以上" (以上: at or above).
	BandwidthMinPct = 90.0
	// GenuineShare: where a genuine card of the model is measured below
	// the seed's line, it is held to this share of the genuine card's
	// figure instead (the probe's calibrated bw.d2d minimum).
	GenuineShare = 0.95
	// AllReduceExpectedUs: "all_reduce延迟低于预期值" (低于: strictly
	// below). The expected value is what a healthy single-node fabric
	// stays under (probe/stress: 10–60 µs measured, 200 µs its ceiling).
	AllReduceExpectedUs = 200.0
	// PowerSwingMaxPct: "满载时功率波动在5%以内" (以内: at most).
	PowerSwingMaxPct = 5.0
)

// idleChecks are gpustat's readings: utilisation, other processes and
// memory in use.
var idleChecks = map[string]bool{"gpu.utilization": true, "gpu.processes": true, "gpu.memory_in_use": true}

// identified says whether the results name the card as the model ordered
// or seen: a passing gpu.model or gpu.order.model. Without one nothing
// was checked, and acceptance cannot pass.
func identified(rs []Result) bool {
	for _, r := range rs {
		if (r.Name == "gpu.model" || r.Name == "gpu.order.model") && r.Verdict == resPass {
			return true
		}
	}
	return false
}

// acceptance: every hardware result of the trial window — any wrong
// value, hardware fault or inventory mismatch at any time fails; a
// warning read while the node should be idle, or by the trial's own GPU
// work, warns (a warning under the renter's own load, a power cap, is not
// the delivery's).
func acceptance(n Node) Row {
	x := Row{Key: KeyAcceptance, CriterionText: msg.New("no inventory mismatch, wrong value or hardware fault in any check result of the trial; the card identified as ordered")}
	hw := judged(n.Results, func(r *Result) bool {
		switch r.Category {
		case catInventory, catGPULost, catGPUDegraded, catPerformance:
			return !idleChecks[r.Name] && (r.Verdict == resFail || r.Idle || r.Trial)
		}
		return false
	}, false)
	x.N = len(hw)
	x.Verdict, x.Checks = worst(hw)
	switch {
	case x.Verdict == Fail:
		x.DetailText = msg.Plain(strings.Join(x.Checks, ", "))
		x.AskText = msg.New("The trial found faults (%s): reject the node or ask for a replacement within the acceptance window, with the signed acceptance record.", msg.Plain(strings.Join(x.Checks, ", ")))
	case !identified(n.Results):
		x.Verdict, x.Checks = NotMeasured, nil
		x.AskText = msg.New("Run `gpuprobe trial` on the trial node as soon as it is delivered: nothing identified the card yet.")
	case x.Verdict == Warn:
		x.DetailText = msg.Plain(strings.Join(x.Checks, ", "))
		x.AskText = msg.New("Ask the provider to explain the warnings (%s) in writing before signing.", msg.Plain(strings.Join(x.Checks, ", ")))
	}
	return x
}

// order: nvidia-smi's model, memory and driver (and the GPU count)
// against the order, with every authenticity check of the card.
func order(n Node) Row {
	x := Row{Key: KeyOrder, CriterionText: msg.New("GPU model, memory, driver and count as ordered, and the card genuine (nvidia-smi against the order)")}
	rs := judged(n.Results, func(r *Result) bool {
		switch r.Name {
		case "gpu.count", "gpu.present", "gpu.driver", "gpu.model", "gpu.memory":
			return true
		}
		return strings.HasPrefix(r.Name, "gpu.order.") || (r.Category == catInventory && strings.HasPrefix(r.Name, "gpu."))
	}, false)
	held := HeldToOrder(n)
	rs = append(rs, held...)
	x.N = len(rs)
	x.Verdict, x.Checks = worst(rs)
	driverOrdered, driver := false, ""
	for _, r := range rs {
		switch r.Name {
		case "gpu.order.driver":
			driverOrdered = true
		case "gpu.driver":
			driver = r.Value
		}
	}
	switch {
	case x.Verdict != Pass:
		x.DetailText = msg.Plain(strings.Join(x.Checks, ", "))
		if why, ok := heldReason(held, x.Verdict); ok {
			x.DetailText = msg.New("%s (%s)", msg.Plain(strings.Join(x.Checks, ", ")), why)
		}
		x.AskText = msg.New("The card is not what was ordered (%s): reject it or have it replaced before anything is signed.", msg.Plain(strings.Join(x.Checks, ", ")))
		if n.Model == "" && !slices.ContainsFunc(rs, func(r Result) bool { return strings.HasPrefix(r.Name, "gpu.order.") }) {
			// No order to be unlike: the card contradicts its own
			// datasheet, which is reason enough.
			x.AskText = msg.New("The card is not what it says it is (%s): reject it or have it replaced before anything is signed.", msg.Plain(strings.Join(x.Checks, ", ")))
		}
	case !identified(rs):
		x.Verdict = NotMeasured
		x.AskText = msg.New("Run `gpuprobe trial --expect model=… --expect gpu_memory_gb=… --expect driver=…` with what was ordered.")
	case n.Model == "" && !slices.ContainsFunc(rs, func(r Result) bool { return r.Name == "gpu.order.model" }):
		// The card is what it says, but nothing says it is what was
		// paid for: an H800 that calls itself an H800 passes every
		// check of its own.
		x.Verdict = NotMeasured
		x.DetailText = msg.New("no order to hold the card to: it is a genuine %s", msg.Plain(cardNames(rs)))
		x.AskText = msg.New("Run `gpuprobe trial --expect model=… --expect gpu_memory_gb=… --expect driver=…` with what was ordered.")
	case !driverOrdered && driver != "":
		x.DetailText = msg.New("driver %s; the order names no driver to hold it to", msg.Plain(driver))
	}
	return x
}

// heldReason is the reason of the first of held (the backend's own
// judgements against the order) with the row's verdict.
func heldReason(held []Result, verdict string) (msg.Text, bool) {
	for _, r := range held {
		if r.Verdict == verdict {
			return r.why, true
		}
	}
	return msg.Text{}, false
}

// cardNames are the distinct names the GPUs reported themselves by where
// the probe found the name true to the card.
func cardNames(rs []Result) string {
	var names []string
	for _, r := range rs {
		if r.Name == "gpu.model" && r.Verdict == resPass && r.Value != "" && !slices.Contains(names, r.Value) {
			names = append(names, r.Value)
		}
	}
	return strings.Join(names, ", ")
}

// idle: gpustat at delivery — utilisation near 0 % (under the probe's 5 %),
// no other process, no memory in use, in every reading taken while the
// node should be idle.
func idle(n Node) Row {
	x := Row{Key: KeyIdle, CriterionText: msg.New("GPUs idle while nothing of yours runs: utilisation under %g %% (near 0 %%), no other process, no memory in use", IdleMaxUtilPct)}
	rs := judged(n.Results, func(r *Result) bool { return r.Idle && idleChecks[r.Name] }, false)
	x.N = len(rs)
	if len(rs) == 0 {
		x.Verdict = NotMeasured
		x.AskText = msg.New("Run `gpuprobe trial` on the node before starting any work on it.")
		return x
	}
	line := Line{Value: IdleMaxUtilPct, Op: "<"}
	busiest := math.Inf(-1)
	var bad, read []Result
	for _, r := range rs {
		switch {
		case r.Name == "gpu.utilization" && r.Number != nil && !math.IsNaN(*r.Number) && !math.IsInf(*r.Number, 0):
			busiest = math.Max(busiest, *r.Number)
			read = append(read, r)
			if !line.Passes(*r.Number) {
				bad = append(bad, Result{Name: r.Name, GPU: r.GPU, Verdict: resFail})
			}
		case r.Verdict == resWarn || r.Verdict == resFail:
			// Another process, memory in use, or a utilisation the
			// probe judged busy without a figure.
			bad = append(bad, Result{Name: r.Name, GPU: r.GPU, Verdict: resFail})
		}
	}
	x.Verdict, x.Checks = worst(bad)
	if !math.IsInf(busiest, -1) {
		v := x.Verdict
		x.SetFigure(busiest, "%", line, 0)
		x.Verdict = v // other processes or memory in use fail a 0 % GPU too
	}
	measured := gpusOf(read)
	switch {
	case x.Verdict != Pass:
		x.DetailText = msg.Plain(strings.Join(x.Checks, ", "))
		x.AskText = msg.New("Something else runs on the GPUs you rented (%s): a leftover tenant or a shared card. Ask for a machine no one else uses.", msg.Plain(strings.Join(x.Checks, ", ")))
	case len(read) == 0:
		// gpustat's figure is the utilisation: no other process is not
		// a GPU at 0 %.
		x.Verdict = NotMeasured
		x.DetailText = msg.New("no utilisation read while the node was idle")
		x.AskText = msg.New("Run `gpuprobe trial` on the node before starting any work on it.")
	case n.GPUs > 0 && measured < n.GPUs:
		x.Verdict = NotMeasured
		x.DetailText = msg.New("%d of %d GPUs measured", measured, n.GPUs)
		x.AskText = msg.New("Run `gpuprobe trial` on the node before starting any work on it.")
	}
	return x
}

// disk: df -h at delivery — the system disk not full, the data disk
// ordered mounted at its size, no attached disk left unmounted.
func disk(n Node) Row {
	x := Row{Key: KeyDisk, CriterionText: msg.New("the system disk not full and the data disk mounted as ordered (df -h)")}
	rs := judged(n.Results, func(r *Result) bool { return r.Idle && strings.HasPrefix(r.Name, "host.disk.") }, false)
	x.N = len(rs)
	x.Verdict, x.Checks = worst(rs)
	sys, data := false, false
	for _, r := range rs {
		sys = sys || (r.Name == "host.disk.system" && r.Verdict == resPass)
		data = data || strings.HasPrefix(r.Name, "host.disk.ordered:")
	}
	switch {
	case x.Verdict != Pass:
		x.DetailText = msg.Plain(strings.Join(x.Checks, ", "))
		x.AskText = msg.New("The disks are not as ordered (%s): ask the provider to mount the data disk, or free the system disk, before the trial goes on.", msg.Plain(strings.Join(x.Checks, ", ")))
	case !sys:
		x.Verdict = NotMeasured
		x.AskText = msg.New("Run `gpuprobe trial --expect disks=/data:SIZE_GB` with the data disk ordered, or `--expect disks=none` where the order has none.")
	case !data:
		// "数据盘未挂载": a data disk never attached leaves nothing
		// unmounted to see; only the order says one is missing.
		x.Verdict = NotMeasured
		x.DetailText = msg.New("the system disk is not full; no data disk was held to an order")
		x.AskText = msg.New("Run `gpuprobe trial --expect disks=/data:SIZE_GB` with the data disk ordered, or `--expect disks=none` where the order has none.")
	}
	return x
}

// soakGPU is what the soaks of the window did on one GPU.
type soakGPU struct {
	longest float64 // seconds, the longest soak
	errors  bool
}

// burn30: gpu_burn for 30 minutes without error — on every GPU a soak of
// at least 30 minutes, and no soak with a wrong value, an XID or a burn
// that could not run. A shorter soak without error is not the seed's
// criterion: not measured; throttling under it warns.
func burn30(n Node) Row {
	x := Row{Key: KeyBurn, CriterionText: msg.New("every GPU burns for %g min without a wrong value or an error (gpu_burn; the probe's soak checks every result)", SoakMinutes)}
	rs := judged(n.Results, func(r *Result) bool { return strings.HasPrefix(r.Name, "gpu.soak.") }, false)
	x.N = len(rs)
	gpus := map[int]*soakGPU{}
	of := func(r Result) *soakGPU {
		g := -1
		if r.GPU != nil {
			g = *r.GPU
		}
		if gpus[g] == nil {
			gpus[g] = &soakGPU{}
		}
		return gpus[g]
	}
	var errs, slow []Result
	for _, r := range rs {
		s := of(r)
		switch {
		case strings.HasSuffix(r.Name, ".duration") && r.Number != nil:
			s.longest = math.Max(s.longest, *r.Number)
		case r.Verdict == resFail && (strings.HasSuffix(r.Name, ".errors") || strings.HasSuffix(r.Name, ".xid") || r.Category == catGPUDegraded && strings.Count(r.Name, ".") == 2):
			s.errors = true
			errs = append(errs, r)
		case (r.Verdict == resFail || r.Verdict == resWarn) && (strings.HasSuffix(r.Name, ".thermal") || strings.HasSuffix(r.Name, ".stability")):
			slow = append(slow, r)
		}
	}
	if len(gpus) == 0 {
		x.Verdict = NotMeasured
		x.AskText = msg.New("Run `gpuprobe trial` with its 30-minute soak (the default).")
		return x
	}
	shortest := math.Inf(1)
	for _, s := range gpus {
		shortest = math.Min(shortest, s.longest/60)
	}
	x.SetFigure(shortest, "min", Line{Value: SoakMinutes, Op: ">="}, 1)
	switch {
	case len(errs) > 0:
		x.Verdict, x.Checks = worst(errs)
		x.DetailText = msg.Plain(strings.Join(x.Checks, ", "))
		x.AskText = msg.New("The burn gave wrong values or errors (%s): the card is faulty or modified; reject it or ask for another.", msg.Plain(strings.Join(x.Checks, ", ")))
	case x.Verdict == Fail:
		x.Verdict = NotMeasured
		x.DetailText = msg.New("shortened: the soak ran %s min of the seed's %g", msg.Plain(Format(shortest, *x.Line, 1)), SoakMinutes)
		x.AskText = msg.New("Run the full 30-minute soak (`gpuprobe trial`, without --soak).")
	case n.GPUs > 0 && len(gpus) < n.GPUs:
		x.Verdict = NotMeasured
		x.DetailText = msg.New("%d of %d GPUs soaked", len(gpus), n.GPUs)
		x.AskText = msg.New("Soak every GPU: run `gpuprobe trial` while nothing else uses them.")
	case len(slow) > 0:
		x.Verdict, x.Checks = Warn, names(slow)
		x.DetailText = msg.New("no error, but throttled: %s", msg.Plain(strings.Join(x.Checks, ", ")))
		x.AskText = msg.New("The card slowed down under sustained load (%s): ask about cooling and power delivery.", msg.Plain(strings.Join(x.Checks, ", ")))
	}
	return x
}

// names are the distinct names (with GPU) of rs.
func names(rs []Result) []string {
	_, ns := worst(rs)
	return ns
}

// bandwidth: bandwidthTest's device-to-device copy (read + write, as
// bandwidthTest counts it) at 90 % of the official figure or more, on the
// slowest GPU (each GPU's median over its runs). Where a genuine card of
// the model is measured below 90 % (an H200 copies at 89 % of its
// datasheet), the seed's line would reject every genuine card: the card is
// held to 95 % of the genuine one instead, and the row says so.
func bandwidth(n Node) Row {
	x := Row{Key: KeyBandwidth, CriterionText: msg.New("memory bandwidth (device-to-device copy, read + write) at %g %% of the official figure or more", BandwidthMinPct)}
	rs := judged(n.Results, func(r *Result) bool { return r.Name == "gpu.bw.d2d" && r.Unit == "GB/s" }, true)
	x.N = len(rs)
	per := map[int][]float64{}
	for _, r := range rs {
		g := -1
		if r.GPU != nil {
			g = *r.GPU
		}
		per[g] = append(per[g], *r.Number)
	}
	if len(per) == 0 {
		x.Verdict = NotMeasured
		x.AskText = msg.New("Run `gpuprobe trial`: its bandwidth test is the seed's bandwidthTest.")
		return x
	}
	gpus := make([]int, 0, len(per))
	for g := range per {
		gpus = append(gpus, g)
	}
	sort.Ints(gpus)
	worstPct, model := math.Inf(1), ""
	var sheet yardstick.Yardstick
	var unsure *official
	for _, g := range gpus {
		y, ok := officialBandwidth(n, g)
		if !ok {
			x.Verdict = NotMeasured
			x.DetailText = msg.New("no official memory bandwidth known for %s", msg.Plain(cmp.Or(y.model, n.Model)))
			x.AskText = msg.New("Name the GPU model ordered as the spec database knows it (an exact model, not a family of several).")
			return x
		}
		if y.top > y.Datasheet && unsure == nil {
			unsure = &y
		}
		if pct := 100 * stat.Median(per[g]) / y.Datasheet; pct < worstPct {
			worstPct, model, sheet = pct, y.model, y.Yardstick
		}
	}
	line := Line{Value: BandwidthMinPct, Op: ">="}
	x.CriterionText = msg.New("memory bandwidth (device-to-device copy, read + write) at %g %% of the official %g GB/s or more", BandwidthMinPct, sheet.Datasheet)
	if genuine := 100 * sheet.Healthy / sheet.Datasheet; sheet.Healthy > 0 && genuine < BandwidthMinPct {
		line.Value = 100 * GenuineShare * sheet.Healthy / sheet.Datasheet
		x.CriterionText = msg.New("memory bandwidth at %.2f %% of the official %g GB/s or more: the seed's %g %% is above what a genuine %s copies (%g GB/s, %.1f %%), so the card is held to %g %% of a genuine one",
			line.Value, sheet.Datasheet, BandwidthMinPct, msg.Plain(model), sheet.Healthy, genuine, 100*GenuineShare)
	}
	x.SetFigure(worstPct, "%", line, 1)
	switch {
	case x.Verdict == Fail:
		x.AskText = msg.New("Memory bandwidth is below the line: cut-down or slower memory than the model's. Ask for the memory specification and another card.")
	case unsure != nil:
		// It passes the slowest model the order can mean; the card was
		// not identified as that one, so the faster one's line may be
		// the one paid for.
		x.Verdict = NotMeasured
		x.DetailText = msg.New("the card is not identified as one of the models %s means (%g to %g GB/s); it passes only the slowest's line", msg.Plain(n.Model), unsure.Datasheet, unsure.top)
		x.AskText = msg.New("Name the exact GPU model ordered (--expect model=…, the registration's model), so that the card is held to its official figure.")
	case n.GPUs > 0 && len(per) < n.GPUs:
		x.Verdict = NotMeasured
		x.DetailText = msg.New("%d of %d GPUs measured", len(per), n.GPUs)
		x.AskText = msg.New("Run `gpuprobe trial` while nothing else uses the GPUs, so that every GPU is measured.")
	case n.Model == "":
		// Never the card's name taken for the order silently: the
		// figure is of what the card truly is, not of what was paid for.
		x.DetailText = msg.New("no order: held to the official figure of the card's own model, %s", msg.Plain(model))
	}
	return x
}

// official is the official figure a GPU is held to.
type official struct {
	yardstick.Yardstick
	model string
	// top: where the figure is the slowest of the models an order of a
	// family can mean (the card not identified as one of them), the
	// fastest's; 0 otherwise. A pass against the slowest is then no pass.
	top float64
}

// officialBandwidth is the official figure GPU g is held to: the ordered
// model's ("官方标称值" is of what was paid for, never of what the card
// turns out to be — an H100 PCIe sold as an SXM copies at 90 % of the
// PCIe's 2000 GB/s and 54 % of the SXM's 3350). Where the order names a
// family whose models differ (H100: SXM 3350, PCIe 2000), the card's own
// model counts if it is one of them and its name is true to its device
// id; otherwise the slowest of them whose figure is known, the one the
// provider cannot refuse a failure against. With no order, the card's own
// true name. False where no figure is known.
func officialBandwidth(n Node, g int) (official, bool) {
	const figure = "gpu.bw.d2d"
	card := ""
	for i := len(n.Results) - 1; i >= 0; i-- {
		r := n.Results[i]
		if r.Name == "gpu.model" && r.GPU != nil && *r.GPU == g {
			if r.Verdict == resPass {
				card = unknownID.ReplaceAllString(r.Value, "")
			}
			break
		}
	}
	if n.Model == "" {
		y, ok := yardstick.LookupCard(card, figure)
		return official{Yardstick: y, model: card}, ok && card != "" && y.Datasheet > 0
	}
	if y, ok := yardstick.Lookup(n.Model, figure); ok && y.Datasheet > 0 {
		return official{Yardstick: y, model: n.Model}, true
	}
	ordered := yardstick.Models(n.Model)
	if card != "" && slices.ContainsFunc(yardstick.CardModels(card), func(id string) bool { return slices.Contains(ordered, id) }) {
		if y, ok := yardstick.LookupCard(card, figure); ok && y.Datasheet > 0 {
			return official{Yardstick: y, model: card}, true
		}
	}
	low := official{model: n.Model}
	for _, id := range ordered {
		y, ok := yardstick.Lookup(id, figure)
		if !ok || y.Datasheet <= 0 {
			continue
		}
		low.top = max(low.top, y.Datasheet)
		if low.Datasheet == 0 || y.Datasheet < low.Datasheet {
			low.Yardstick, low.model = y, id
		}
	}
	return low, low.Datasheet > 0
}

// allReduce: nccl-tests' all_reduce latency below the expected value on
// two GPUs or more, every sum exact and the bus bandwidth at the
// model's level; a one-GPU node has nothing to all-reduce across.
func allReduce(n Node) Row {
	x := Row{Key: KeyAllReduce, CriterionText: msg.New("all-reduce latency below %g µs, the expected value of a healthy single-node fabric, every sum exact (nccl-tests all_reduce)", AllReduceExpectedUs)}
	rs := judged(n.Results, func(r *Result) bool { return strings.HasPrefix(r.Name, "gpu.nccl.allreduce") }, false)
	x.N = len(rs)
	if n.GPUs == 1 {
		x.Verdict = NotApplicable
		x.DetailText = msg.New("one GPU: nothing to all-reduce across")
		return x
	}
	var lat []float64
	var bad []Result
	for _, r := range rs {
		switch {
		case r.Name == "gpu.nccl.allreduce.latency" && r.Number != nil:
			lat = append(lat, *r.Number)
		case r.Verdict == resFail || (r.Verdict == resWarn && r.Name == "gpu.nccl.allreduce.busbw"):
			bad = append(bad, r)
		}
	}
	if len(lat) == 0 && len(bad) == 0 {
		x.Verdict = NotMeasured
		x.AskText = msg.New("Run `gpuprobe trial` on a node with two GPUs or more (it needs libnccl.so.2).")
		return x
	}
	if len(lat) > 0 {
		x.SetFigure(stat.Median(lat), "µs", Line{Value: AllReduceExpectedUs, Op: "<"}, 1)
	}
	if len(bad) > 0 {
		v, cs := worst(bad)
		if v == Fail || x.Verdict != Fail {
			x.Verdict = v
		}
		x.Checks = cs
		x.DetailText = msg.Plain(strings.Join(cs, ", "))
	}
	if x.Verdict != Pass {
		x.AskText = msg.New("The GPUs talk to each other slower than a healthy fabric or wrongly: ask how they are linked (NVLink, PCIe) and for the topology in writing.")
	}
	return x
}

// power: nvidia-smi dmon at full load — every reading of the steady part
// of the power test and of the soak within 5 % of its mean.
func power(n Node) Row {
	x := Row{Key: KeyPower, CriterionText: msg.New("power at full load within %g %% of its mean (nvidia-smi dmon: the power test and the soak)", PowerSwingMaxPct)}
	rs := judged(n.Results, func(r *Result) bool { return strings.HasSuffix(r.Name, ".power.swing") }, true)
	x.N = len(rs)
	if len(rs) == 0 {
		x.Verdict = NotMeasured
		x.AskText = msg.New("Run `gpuprobe trial`: its power test and soak read the power every second.")
		return x
	}
	worstPct := math.Inf(-1)
	var at Result
	for _, r := range rs {
		if *r.Number > worstPct {
			worstPct, at = *r.Number, r
		}
	}
	x.SetFigure(worstPct, "%", Line{Value: PowerSwingMaxPct, Op: "<="}, 2)
	// The power test's draw below the model's calibrated minimum: the
	// card never reached full load, so its steady swing is not "满载时".
	low := judged(n.Results, func(r *Result) bool { return r.Name == "gpu.power" && r.Verdict == resFail }, false)
	switch measured := gpusOf(rs); {
	case x.Verdict == Fail:
		x.Checks = names([]Result{{Name: at.Name, GPU: at.GPU, Verdict: resFail}})
		x.DetailText = msg.Plain(strings.Join(x.Checks, ", "))
		x.AskText = msg.New("Power swings under full load: ask about the power supply and the cooling of the machine.")
	case len(low) > 0:
		x.Verdict, x.Checks = NotMeasured, names(low)
		x.DetailText = msg.New("not at full load: %s drew less than the model's minimum", msg.Plain(strings.Join(x.Checks, ", ")))
		x.AskText = msg.New("The card did not draw its full power under load (%s): ask why (a power cap, cooling or a cut-down card) before its swing can be judged.", msg.Plain(strings.Join(x.Checks, ", ")))
	case n.GPUs > 0 && measured < n.GPUs:
		// "满载时功率波动" is of the whole machine: a GPU whose power was
		// never read at full load may be the one that swings.
		x.Verdict = NotMeasured
		x.DetailText = msg.New("%d of %d GPUs measured", measured, n.GPUs)
		x.AskText = msg.New("Run `gpuprobe trial` while nothing else uses the GPUs, so that every GPU is measured.")
	}
	return x
}

// gpusOf is how many distinct GPUs rs are of (a result of no GPU counts
// for none).
func gpusOf(rs []Result) int {
	seen := map[int]bool{}
	for _, r := range rs {
		if r.GPU != nil {
			seen[*r.GPU] = true
		}
	}
	return len(seen)
}
