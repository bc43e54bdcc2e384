package incident

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

func gpuCheck(name, category, verdict string, gpu int) events.Check {
	g := gpu
	return events.Check{Name: name, Category: category, Verdict: verdict, GPU: &g}
}

// A daily burn that finds one wrong value opens a gpu_degraded incident at
// that very result, although the 5-minute temperature check of the same
// category passes before and after it (hysteresis is per check).
func TestDefinitiveFailureOpensAtFirstResult(t *testing.T) {
	th := Thresholds{Grace: 2 * time.Minute, FailureThreshold: 3, SuccessThreshold: 2, Definitive: DefaultDefinitive}
	var s State
	var opened []Transition
	for i := 0; i < 48; i++ {
		at := t0.Add(time.Duration(i) * 5 * time.Minute)
		checks := []events.Check{gpuCheck("gpu.temperature", events.CategoryGPUDegraded, events.Pass, 0)}
		if i == 20 {
			checks = append(checks, gpuCheck("gpu.burn.fp32.errors", events.CategoryGPUDegraded, events.Fail, 0))
		}
		for _, tr := range s.Observe(th, hb(at, at, checks...)) {
			if tr.Op == Open {
				opened = append(opened, tr)
			}
		}
	}
	want := t0.Add(100 * time.Minute)
	if len(opened) != 1 || opened[0].Kind != GPUDegraded || !opened[0].Since.Equal(want) || opened[0].Check != "gpu.burn.fp32.errors/gpu0" {
		t.Fatalf("want one gpu_degraded incident of gpu.burn.fp32.errors/gpu0 opened at %s, got %+v", want, opened)
	}
}

// A measured figure keeps the threshold, counted in runs of that same
// check: a daily bandwidth test failing three days running opens on the
// third, backdated to the first, whatever other checks of its category say
// in between; and the same failure on another GPU is its own incident.
func TestMeasuredFailureCountsRunsOfTheSameCheck(t *testing.T) {
	th := Thresholds{Grace: 2 * time.Minute, FailureThreshold: 3, SuccessThreshold: 2, Definitive: DefaultDefinitive}
	var s State
	var opened []Transition
	for day := 0; day < 3; day++ {
		for i := 0; i < 24; i++ {
			at := t0.Add(time.Duration(day)*24*time.Hour + time.Duration(i)*time.Hour)
			checks := []events.Check{gpuCheck("gpu.pcie.gen", events.CategoryPerformance, events.Pass, 0)}
			if i == 3 {
				checks = append(checks, gpuCheck("gpu.bw.h2d", events.CategoryPerformance, events.Fail, 1),
					gpuCheck("gpu.bw.h2d", events.CategoryPerformance, events.Pass, 0))
			}
			for _, tr := range s.Observe(th, hb(at, at, checks...)) {
				if tr.Op == Open {
					opened = append(opened, tr)
				}
				if day < 2 && tr.Op == Open {
					t.Fatalf("opened on day %d: %+v", day+1, tr)
				}
			}
		}
	}
	want := t0.Add(3 * time.Hour)
	if len(opened) != 1 || opened[0].Kind != PerformanceBelowSpec || !opened[0].Since.Equal(want) || opened[0].Check != "gpu.bw.h2d/gpu1" {
		t.Fatalf("want one incident of gpu.bw.h2d/gpu1 backdated to %s, got %+v", want, opened)
	}
}

func TestDefinitivePatterns(t *testing.T) {
	th := Thresholds{Definitive: DefaultDefinitive}
	for name, want := range map[string]bool{
		"gpu.burn.fp32.errors": true, "gpu.burn.bf16.errors": true, "gpu.memtest": true, "gpu.bw.h2d.data": true,
		"gpu.ecc.volatile": true, "gpu.remapped_rows": true, "gpu.xid.events": true, "gpu.xid.kernel_log": true,
		"gpu.burn.fp32.xid": true, "gpu.present": true, "gpu.count": true,
		"gpu.burn.fp32": false, "gpu.bw.h2d": false, "gpu.temperature": false, "net.latency": false, "gpu.ecc.aggregate": false,
	} {
		if got := th.IsDefinitive(name); got != want {
			t.Errorf("IsDefinitive(%q) = %v, want %v", name, got, want)
		}
	}
}

// A check that names the GPU when it fails and none when it passes (the
// kernel log's XID scan): its node-wide passes close each GPU's incident.
func TestNodeWidePassClosesPerGPUIncident(t *testing.T) {
	th := Thresholds{FailureThreshold: 3, SuccessThreshold: 2, Definitive: DefaultDefinitive}
	var s State
	var got []Transition
	for i := 0; i < 5; i++ {
		at := t0.Add(time.Duration(i) * time.Minute)
		c := events.Check{Name: "gpu.xid.kernel_log", Category: events.CategoryGPULost, Verdict: events.Pass}
		if i == 1 {
			c = gpuCheck("gpu.xid.kernel_log", events.CategoryGPULost, events.Fail, 1)
		}
		got = append(got, s.Observe(th, hb(at, at, c))...)
	}
	if len(got) != 2 || got[0].Op != Open || got[1].Op != Close || got[1].Check != "gpu.xid.kernel_log/gpu1" || !got[1].At.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("want open at the XID and close at the first node-wide pass after it, got %+v", got)
	}
}
