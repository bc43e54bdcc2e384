package daemon

import (
	"net/http/httptest"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/gpusla/gpusla/probe/authn"
	"github.com/gpusla/gpusla/probe/expect"
	"github.com/gpusla/gpusla/probe/gpu"
	"github.com/gpusla/gpusla/probe/gpu/gputest"
	"github.com/gpusla/gpusla/probe/health"
	"github.com/gpusla/gpusla/probe/specdb"
	"github.com/gpusla/gpusla/probe/wire"
)

// scrape observes the checks and parses /metrics as Prometheus would.
func scrape(t *testing.T, cs ...[]wire.Check) map[string]*dto.MetricFamily {
	t.Helper()
	m := newCheckMetrics() // the spool and delivery gauges need a running daemon
	for _, c := range cs {
		m.observe(c)
	}
	rec := httptest.NewRecorder()
	m.handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("exposition does not parse: %v\n%s", err, rec.Body)
	}
	return fams
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// series finds the one sample of a family with those labels.
func series(t *testing.T, fams map[string]*dto.MetricFamily, family string, want map[string]string) (float64, bool) {
	t.Helper()
	for _, m := range fams[family].GetMetric() {
		l := labels(m)
		ok := true
		for k, v := range want {
			if l[k] != v {
				ok = false
			}
		}
		if ok {
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

// Two GPUs, GPU 0 power-capped: each GPU's result has its own series,
// labelled with its index and UUID, and fail is told from warn.
func TestMetricsPerGPU(t *testing.T) {
	s := struct{ GPU *gpu.Snapshot }{gputest.Recorded(t, "../checkrun/testdata/snapshots/h200x2-real.json")}
	capped := 400.0
	s.GPU.Devices[0].PowerEnforcedLimitW = &capped
	u0, u1 := s.GPU.Devices[0].UUID, s.GPU.Devices[1].UUID
	checks := append(authn.Judge(s.GPU, specdb.Default(), expect.Expected{GPUs: 1}), health.Judge(health.Input{GPU: s.GPU})...)
	// A stress result carries only the index; its uuid comes from the
	// health checks.
	g1 := 1
	stress := []wire.Check{{Name: "gpu.burn.fp32", Category: wire.CategoryPerformance, Verdict: wire.Warn, GPU: &g1, Number: num(61.2), Unit: "TFLOP/s"}}
	fams := scrape(t, checks, stress)

	for _, tc := range []struct {
		check, gpu, uuid, verdict string
		want                      float64
	}{
		{"gpu.power.enforced_limit", "0", u0, "fail", 1},
		{"gpu.power.enforced_limit", "0", u0, "pass", 0},
		{"gpu.power.enforced_limit", "1", u1, "pass", 1},
		{"gpu.count", "", "", "warn", 1}, // more GPUs than the one ordered
		{"gpu.burn.fp32", "1", u1, "warn", 1},
		{"gpu.burn.fp32", "1", u1, "fail", 0},
	} {
		v, ok := series(t, fams, "gpuprobe_check_verdict", map[string]string{"check": tc.check, "gpu": tc.gpu, "uuid": tc.uuid, "verdict": tc.verdict})
		if !ok || v != tc.want {
			t.Errorf("verdict %s gpu %q %s: %v %v, want %v", tc.check, tc.gpu, tc.verdict, v, ok, tc.want)
		}
	}
	for _, tc := range []struct {
		family, check, gpu string
		want               float64
	}{
		{"gpuprobe_check_watts", "gpu.power.enforced_limit", "0", 400},
		{"gpuprobe_check_watts", "gpu.power.enforced_limit", "1", 700},
		{"gpuprobe_check_bytes", "gpu.memory", "1", 143771 << 20},
		{"gpuprobe_check_flop_per_second", "gpu.burn.fp32", "1", 61.2e12},
		{"gpuprobe_check_value", "gpu.count", "", 2},
	} {
		v, ok := series(t, fams, tc.family, map[string]string{"check": tc.check, "gpu": tc.gpu})
		if !ok || v != tc.want {
			t.Errorf("%s %s gpu %q: %v %v, want %v", tc.family, tc.check, tc.gpu, v, ok, tc.want)
		}
	}
	if _, ok := fams["gpuprobe_check_celsius"]; !ok {
		t.Error("no temperature family in celsius")
	}
	for name, mf := range fams {
		for _, m := range mf.GetMetric() {
			for k, v := range labels(m) {
				for _, r := range v {
					if r > 0x7e || r < 0x20 {
						t.Errorf("%s: label %s=%q is not ASCII", name, k, v)
					}
				}
			}
		}
	}
}

// A check that turns skipped leaves no stale series behind.
func TestMetricsForgetSkipped(t *testing.T) {
	g := 0
	c := wire.Check{Name: "gpu.temperature", Category: wire.CategoryGPUDegraded, Verdict: wire.Fail, GPU: &g, UUID: "GPU-1", Number: num(95), Unit: "°C"}
	skipped := c
	skipped.Verdict, skipped.Number = wire.Skipped, nil
	fams := scrape(t, []wire.Check{c}, []wire.Check{skipped})
	if len(fams["gpuprobe_check_verdict"].GetMetric()) != 0 || len(fams["gpuprobe_check_celsius"].GetMetric()) != 0 {
		t.Fatalf("stale series: %v", fams)
	}
}

func num(v float64) *float64 { return &v }
