package main

import (
	"strings"
	"testing"
)

// A real card is a temperature read with an NVML UUID, in the first
// observation holding GPU 0's checks; no such check, or one without a
// UUID, is no card; other nodes and other events are passed over.
func TestFirstGPU(t *testing.T) {
	const obs = `"batch":"b1","seq":1,"index":0,"received_at":"2026-12-07T10:01:01Z"`
	hb := `{"type":"observation","id":"n1/b0/0","node":"n1","batch":"b0","seq":0,"index":0,"at":"2026-12-07T10:00:00Z","received_at":"2026-12-07T10:00:01Z","kind":"heartbeat"}` + "\n"
	card := `{"type":"observation","id":"n1/b1/0","node":"n1",` + obs + `,"at":"2026-12-07T10:01:00Z","kind":"check","checks":[` +
		`{"name":"gpu.count","category":"inventory","verdict":"pass","value":"8","number":8},` +
		`{"name":"gpu.temperature","category":"gpu_degraded","verdict":"pass","value":"31 °C (56 °C below slowdown)","number":31,"unit":"°C","gpu":0,"uuid":"GPU-5f1c0e3a-0000-4000-8000-000000000001"},` +
		`{"name":"gpu.power.draw","category":"gpu_degraded","verdict":"pass","value":"71 W of 700 W","number":71,"unit":"W","gpu":0,"uuid":"GPU-5f1c0e3a-0000-4000-8000-000000000001"},` +
		`{"name":"gpu.temperature","category":"gpu_degraded","verdict":"pass","value":"30 °C","number":30,"gpu":1,"uuid":"GPU-2"}]}` + "\n"
	other := strings.ReplaceAll(strings.ReplaceAll(card, `"n1"`, `"n2"`), `"n1/`, `"n2/`)
	noCard := `{"type":"observation","id":"n1/b1/0","node":"n1",` + obs + `,"at":"2026-12-07T10:01:00Z","kind":"check","checks":[{"name":"gpu.driver","category":"gpu_degraded","verdict":"fail","value":"unavailable"}]}` + "\n"
	noUUID := strings.ReplaceAll(card, `"uuid":"GPU-5f1c0e3a-0000-4000-8000-000000000001"`, `"uuid":""`)
	for _, c := range []struct {
		name, in, node string
		code           int
		want           []string
	}{
		{"a real card", hb + card, "n1", 0, []string{"GPU 0 as first read, observation at 2026-12-07T10:01:00Z", "gpu.temperature", "31 °C", "71 W of 700 W", "gpu.count"}},
		{"another node's card", other + hb, "n1", 2, []string{"no reading of GPU 0"}},
		{"every node", other, "", 0, []string{"GPU 0 as first read"}},
		{"NVML unavailable", hb + noCard, "n1", 2, []string{"no reading of GPU 0", "gpu.driver", "unavailable"}},
		{"a temperature without a UUID", noUUID, "n1", 2, []string{"not a real card's readings"}},
		{"nothing", "", "n1", 2, []string{"no reading of GPU 0"}},
	} {
		var out strings.Builder
		code, err := run(strings.NewReader(c.in), &out, c.node)
		if err != nil || code != c.code {
			t.Errorf("%s: code %d, %v; want %d\n%s", c.name, code, err, c.code, out.String())
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, out.String())
			}
		}
		if strings.Contains(out.String(), "GPU-2") {
			t.Errorf("%s: GPU 1 printed:\n%s", c.name, out.String())
		}
	}
	if _, err := run(strings.NewReader("{not json\n"), &strings.Builder{}, ""); err == nil {
		t.Error("a line that is not JSON was read")
	}
}
