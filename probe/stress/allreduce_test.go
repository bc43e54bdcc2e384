package stress

import (
	"math"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"

	"github.com/gpusla/gpusla/probe/nccl"
	"github.com/gpusla/gpusla/probe/wire"
)

func TestBusFactorIsNCCLTestsFormula(t *testing.T) {
	for n, want := range map[int]float64{1: 0, 2: 1, 4: 1.5, 8: 1.75} {
		if got := busFactor(n); got != want {
			t.Errorf("busFactor(%d) = %g, want %g", n, got, want)
		}
	}
}

func TestAllReduceSizes(t *testing.T) {
	got := allReduceSizes(8, 1<<30, 4)
	if len(got) != 28 || got[0] != 8 || got[27] != 1<<30 {
		t.Fatalf("float32 sizes: %d, %v…%v", len(got), got[0], got[len(got)-1])
	}
	if b := allReduceSizes(8, 64, 2); len(b) != 4 || b[0] != 8 {
		t.Fatalf("bfloat16 sizes %v", b)
	}
}

// Every sum of the pattern is a whole number ≤ 256 for every rank count
// up to 8 and beyond, so that both float32 and bfloat16 hold it exactly:
// the comparison can be bit for bit.
func TestPatternSumsAreExactInBothTypes(t *testing.T) {
	for _, ranks := range []int{1, 2, 3, 4, 7, 8, 16} {
		for i := 0; i < arPeriod; i++ {
			s := arSum(i, ranks)
			if s < ranks || s > 256 {
				t.Fatalf("ranks %d element %d: sum %d out of range", ranks, i, s)
			}
			bf := math.Float32frombits(arBits(s, nccl.BFloat16) << 16)
			if bf != float32(s) {
				t.Fatalf("bfloat16 cannot hold %d", s)
			}
		}
	}
	// Ranks must not hold the same values, or a rank that sent another
	// rank's buffer would go unseen.
	same := 0
	for i := 0; i < arPeriod; i++ {
		if arValue(0, i, 8) == arValue(1, i, 8) {
			same++
		}
	}
	if same > arPeriod/10 {
		t.Fatalf("ranks 0 and 1 agree on %d of %d elements", same, arPeriod)
	}
}

// The checker finds exactly the elements that differ, in both types, at
// any offset, and names the first.
func TestCheckSumsFindsEveryWrongElement(t *testing.T) {
	for _, dt := range []nccl.DataType{nccl.Float32, nccl.BFloat16} {
		const ranks, n, first = 4, 10000, 3 * arPeriod
		want := expectedSums(ranks, dt)
		buf := make([]byte, n*dt.Size())
		for i := 0; i < n; i++ {
			putElem(buf, i, dt, want[(first+i)%arPeriod])
		}
		if w, f := checkSums(buf, first, ranks, dt, want); w != 0 || f != "" {
			t.Fatalf("%s: exact result judged wrong: %d %s", dt, w, f)
		}
		putElem(buf, 17, dt, want[(first+17)%arPeriod]^1)
		putElem(buf, 9000, dt, arBits(0, dt))
		w, f := checkSums(buf, first, ranks, dt, want)
		if w != 2 || !strings.Contains(f, "element 12305") {
			t.Fatalf("%s: %d wrong, first %q", dt, w, f)
		}
	}
}

// fillPattern writes what the expected sums are made of.
func TestFillPatternSumsToExpected(t *testing.T) {
	const ranks = 3
	for _, dt := range []nccl.DataType{nccl.Float32, nccl.BFloat16} {
		want := expectedSums(ranks, dt)
		bufs := make([][]byte, ranks)
		for r := range bufs {
			bufs[r] = make([]byte, 2*arPeriod*dt.Size())
			fillPattern(bufs[r], r, ranks, dt)
		}
		for i := 0; i < 2*arPeriod; i++ {
			var s float32
			for r := range bufs {
				b := getElem(bufs[r], i, dt)
				if dt == nccl.BFloat16 {
					b <<= 16
				}
				s += math.Float32frombits(b)
			}
			if arBits(int(s), dt) != want[i%arPeriod] {
				t.Fatalf("%s element %d: inputs sum to %g", dt, i, s)
			}
		}
	}
}

func TestItersFor(t *testing.T) {
	if itersFor(0) != arMaxIters || itersFor(arTargetPerRow) != arMinIters || itersFor(arTargetPerRow/100) != 100 {
		t.Fatal(itersFor(0), itersFor(arTargetPerRow), itersFor(arTargetPerRow/100))
	}
}

// gpuMock is one GPU of a mocked machine: its PCI bus and, per NVLink,
// the far end's bus (and whether that end is a switch).
func gpuMock(bus uint32, links []uint32, switchEnds bool, ancestor func(nvml.Device) nvml.GpuTopologyLevel) *mock.Device {
	return &mock.Device{
		GetPciInfoFunc: func() (nvml.PciInfo, nvml.Return) { return nvml.PciInfo{Bus: bus}, nvml.SUCCESS },
		GetNvLinkStateFunc: func(l int) (nvml.EnableState, nvml.Return) {
			if l >= len(links) {
				return 0, nvml.ERROR_INVALID_ARGUMENT
			}
			if links[l] == 0 {
				return nvml.FEATURE_DISABLED, nvml.SUCCESS
			}
			return nvml.FEATURE_ENABLED, nvml.SUCCESS
		},
		GetNvLinkRemotePciInfoFunc: func(l int) (nvml.PciInfo, nvml.Return) {
			return nvml.PciInfo{Bus: links[l]}, nvml.SUCCESS
		},
		GetNvLinkRemoteDeviceTypeFunc: func(l int) (nvml.IntNvLinkDeviceType, nvml.Return) {
			if switchEnds {
				return nvml.NVLINK_DEVICE_TYPE_SWITCH, nvml.SUCCESS
			}
			return nvml.NVLINK_DEVICE_TYPE_GPU, nvml.SUCCESS
		},
		GetTopologyCommonAncestorFunc: func(d nvml.Device) (nvml.GpuTopologyLevel, nvml.Return) {
			return ancestor(d), nvml.SUCCESS
		},
	}
}

func repeatBus(bus uint32, n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = bus
	}
	return out
}

func TestReadTopology(t *testing.T) {
	sys := func(nvml.Device) nvml.GpuTopologyLevel { return nvml.TOPOLOGY_SYSTEM }
	// Two GPUs joined by 18 direct links (one down), a third on PCIe only.
	a := gpuMock(0x19, append(repeatBus(0x3b, 17), 0), false, sys)
	b := gpuMock(0x3b, repeatBus(0x19, 18), false, sys)
	c := gpuMock(0x4c, nil, false, func(nvml.Device) nvml.GpuTopologyLevel { return nvml.TOPOLOGY_HOSTBRIDGE })
	pairs, err := readTopology([]nvml.Device{a, b, c})
	if err != nil {
		t.Fatal(err)
	}
	want := []TopoPair{{0, 1, "NV17", 17}, {0, 2, "SYS", 0}, {1, 2, "SYS", 0}}
	if len(pairs) != 3 {
		t.Fatalf("%+v", pairs)
	}
	for i := range want {
		if pairs[i] != want[i] {
			t.Errorf("pair %d = %+v, want %+v", i, pairs[i], want[i])
		}
	}
	// An NVSwitch machine: every link ends at a switch.
	sw := []nvml.Device{gpuMock(1, repeatBus(0xa0, 18), true, sys), gpuMock(2, repeatBus(0xa1, 16), true, sys)}
	pairs, err = readTopology(sw)
	if err != nil || len(pairs) != 1 || pairs[0].Path != "NVSwitch" || pairs[0].Links != 16 {
		t.Fatalf("NVSwitch: %+v %v", pairs, err)
	}
}

func h200Pair() []*GPUReport {
	return []*GPUReport{{Index: 0, deviceID: h200ID, subsysID: h200Subsys}, {Index: 1, deviceID: h200ID, subsysID: h200Subsys}}
}

func arReport(pairs []TopoPair, busGBs float64, wrong int64) *Report {
	return &Report{GPUs: h200Pair(), Topology: pairs, AllReduce: &AllReduceResult{
		GPUs: []int{0, 1}, NCCL: "2.21.5", NVLS: "off", Checked: 1 << 20, Wrong: wrong, FirstBad: "element 5",
		Rows: []AllReduceRow{
			{DType: "float32", Bytes: 8, Micros: 14, AlgGBs: 0.0005, BusGBs: 0.0005},
			{DType: "float32", Bytes: 1 << 30, Micros: 3000, AlgGBs: busGBs, BusGBs: busGBs},
			{DType: "bfloat16", Bytes: 1 << 30, Micros: 3000, AlgGBs: busGBs, BusGBs: busGBs},
		}}}
}

func TestJudgeAllReduce(t *testing.T) {
	nv := []TopoPair{{0, 1, "NV18", 18}}
	pcie := []TopoPair{{0, 1, "SYS", 0}}
	// A healthy NVLink pair.
	cs := Judge(arReport(nv, 360, 0))
	if c := find(t, cs, "gpu.nccl.allreduce.busbw"); c.Verdict != wire.Pass || !strings.Contains(c.Criterion, "225") {
		t.Fatalf("healthy pair: %+v", c)
	}
	if c := find(t, cs, "gpu.topology"); c.Verdict != wire.Pass {
		t.Fatalf("NVLink topology: %+v", c)
	}
	if c := find(t, cs, "gpu.nccl.allreduce.errors"); c.Verdict != wire.Pass {
		t.Fatalf("errors: %+v", c)
	}
	if c := find(t, cs, "gpu.nccl.allreduce.latency"); c.Verdict != wire.Pass || *c.Number != 14 {
		t.Fatalf("latency: %+v", c)
	}
	// The same pair over PCIe: the product was sold with NVLink, so the
	// topology fails; the bandwidth is held to no NVLink level it cannot
	// know applies, and says so.
	cs = Judge(arReport(pcie, 40, 0))
	if c := find(t, cs, "gpu.topology"); c.Verdict != wire.Fail || c.Category != wire.CategoryInventory || !strings.Contains(c.Detail, "0-1") {
		t.Fatalf("PCIe topology: %+v", c)
	}
	if c := find(t, cs, "gpu.nccl.allreduce.busbw"); c.Verdict != wire.Skipped {
		t.Fatalf("PCIe busbw: %+v", c)
	}
	// A slow NVLink fabric fails; one in the warn band warns.
	if c := find(t, Judge(arReport(nv, 150, 0)), "gpu.nccl.allreduce.busbw"); c.Verdict != wire.Fail || c.Category != wire.CategoryPerformance {
		t.Fatalf("slow fabric: %+v", c)
	}
	if c := find(t, Judge(arReport(nv, 250, 0)), "gpu.nccl.allreduce.busbw"); c.Verdict != wire.Warn {
		t.Fatalf("warn band: %+v", c)
	}
	// One wrong element fails at once, as corruption.
	if c := find(t, Judge(arReport(nv, 360, 1)), "gpu.nccl.allreduce.errors"); c.Verdict != wire.Fail || c.Category != wire.CategoryGPUDegraded {
		t.Fatalf("wrong element: %+v", c)
	}
	// Without a topology reading an SXM H200 is held to its NVLink level.
	r := arReport(nil, 150, 0)
	r.TopologyErr = "no NVML"
	if c := find(t, Judge(r), "gpu.nccl.allreduce.busbw"); c.Verdict != wire.Fail {
		t.Fatalf("no topology: %+v", c)
	}
	// A stalled fabric's latency fails.
	r = arReport(nv, 360, 0)
	r.AllReduce.Rows[0].Micros = 5000
	if c := find(t, Judge(r), "gpu.nccl.allreduce.latency"); c.Verdict != wire.Fail {
		t.Fatalf("latency: %+v", c)
	}
	// One GPU: NCCL ran and results were checked; no bandwidth verdict.
	one := &Report{GPUs: h200Pair()[:1], AllReduce: &AllReduceResult{GPUs: []int{0}, Checked: 10,
		Rows: []AllReduceRow{{DType: "float32", Bytes: 1 << 30, AlgGBs: 2000}}}}
	cs = Judge(one)
	if c := find(t, cs, "gpu.nccl.allreduce.busbw"); c.Verdict != wire.Skipped || !strings.Contains(c.Detail, "one GPU") {
		t.Fatalf("one GPU: %+v", c)
	}
	for _, c := range cs {
		if c.Name == "gpu.topology" {
			t.Fatalf("topology judged for one GPU: %+v", c)
		}
	}
	// No library: skipped with the reason.
	none := &Report{GPUs: h200Pair(), AllReduce: &AllReduceResult{Skipped: "NCCL library libnccl.so.2 not found"}}
	if c := find(t, Judge(none), "gpu.nccl.allreduce"); c.Verdict != wire.Skipped || !strings.Contains(c.Detail, "libnccl") {
		t.Fatalf("no library: %+v", c)
	}
}
