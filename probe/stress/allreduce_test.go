package stress

import (
	"math"
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"

	"github.com/gpusla/gpusla/probe/nccl"
	"github.com/gpusla/gpusla/probe/stress/result"
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
	want := []result.TopoPair{{A: 0, B: 1, Path: "NV17", Links: 17}, {A: 0, B: 2, Path: "SYS", Links: 0}, {A: 1, B: 2, Path: "SYS", Links: 0}}
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
