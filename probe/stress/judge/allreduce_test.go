package judge

import (
	"strings"
	"testing"

	"github.com/gpusla/gpusla/probe/stress/result"
	"github.com/gpusla/gpusla/probe/wire"
)

func h200Pair() []*result.GPU {
	return []*result.GPU{{Index: 0, Static: h200Static()}, {Index: 1, Static: h200Static()}}
}

func arReport(pairs []result.TopoPair, busGBs float64, wrong int64) *result.Report {
	return &result.Report{GPUs: h200Pair(), Topology: pairs, AllReduce: &result.AllReduce{
		GPUs: []int{0, 1}, NCCL: "2.21.5", NVLS: "off", Checked: 1 << 20, Wrong: wrong, FirstBad: "element 5",
		Rows: []result.AllReduceRow{
			{DType: "float32", Bytes: 8, Micros: 14, AlgGBs: 0.0005, BusGBs: 0.0005},
			{DType: "float32", Bytes: 1 << 30, Micros: 3000, AlgGBs: busGBs, BusGBs: busGBs},
			{DType: "bfloat16", Bytes: 1 << 30, Micros: 3000, AlgGBs: busGBs, BusGBs: busGBs},
		}}}
}

func TestJudgeAllReduce(t *testing.T) {
	nv := []result.TopoPair{{A: 0, B: 1, Path: "NV18", Links: 18}}
	pcie := []result.TopoPair{{A: 0, B: 1, Path: "SYS", Links: 0}}
	// A healthy NVLink pair.
	cs := Report(arReport(nv, 360, 0))
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
	cs = Report(arReport(pcie, 40, 0))
	if c := find(t, cs, "gpu.topology"); c.Verdict != wire.Fail || c.Category != wire.CategoryInventory || !strings.Contains(c.Detail, "0-1") {
		t.Fatalf("PCIe topology: %+v", c)
	}
	if c := find(t, cs, "gpu.nccl.allreduce.busbw"); c.Verdict != wire.Skipped {
		t.Fatalf("PCIe busbw: %+v", c)
	}
	// A slow NVLink fabric fails; one in the warn band warns.
	if c := find(t, Report(arReport(nv, 150, 0)), "gpu.nccl.allreduce.busbw"); c.Verdict != wire.Fail || c.Category != wire.CategoryPerformance {
		t.Fatalf("slow fabric: %+v", c)
	}
	if c := find(t, Report(arReport(nv, 250, 0)), "gpu.nccl.allreduce.busbw"); c.Verdict != wire.Warn {
		t.Fatalf("warn band: %+v", c)
	}
	// One wrong element fails at once, as corruption.
	if c := find(t, Report(arReport(nv, 360, 1)), "gpu.nccl.allreduce.errors"); c.Verdict != wire.Fail || c.Category != wire.CategoryGPUDegraded {
		t.Fatalf("wrong element: %+v", c)
	}
	// Without a topology reading an SXM H200 is held to its NVLink level.
	r := arReport(nil, 150, 0)
	r.TopologyErr = "no NVML"
	if c := find(t, Report(r), "gpu.nccl.allreduce.busbw"); c.Verdict != wire.Fail {
		t.Fatalf("no topology: %+v", c)
	}
	// A stalled fabric's latency fails.
	r = arReport(nv, 360, 0)
	r.AllReduce.Rows[0].Micros = 5000
	if c := find(t, Report(r), "gpu.nccl.allreduce.latency"); c.Verdict != wire.Fail {
		t.Fatalf("latency: %+v", c)
	}
	// One GPU: NCCL ran and results were checked; no bandwidth verdict.
	one := &result.Report{GPUs: h200Pair()[:1], AllReduce: &result.AllReduce{GPUs: []int{0}, Checked: 10,
		Rows: []result.AllReduceRow{{DType: "float32", Bytes: 1 << 30, AlgGBs: 2000}}}}
	cs = Report(one)
	if c := find(t, cs, "gpu.nccl.allreduce.busbw"); c.Verdict != wire.Skipped || !strings.Contains(c.Detail, "one GPU") {
		t.Fatalf("one GPU: %+v", c)
	}
	for _, c := range cs {
		if c.Name == "gpu.topology" {
			t.Fatalf("topology judged for one GPU: %+v", c)
		}
	}
	// No library: skipped with the reason.
	none := &result.Report{GPUs: h200Pair(), AllReduce: &result.AllReduce{Skipped: "NCCL library libnccl.so.2 not found"}}
	if c := find(t, Report(none), "gpu.nccl.allreduce"); c.Verdict != wire.Skipped || !strings.Contains(c.Detail, "libnccl") {
		t.Fatalf("no library: %+v", c)
	}
}
