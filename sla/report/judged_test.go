package report

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/report/reporttest"
)

// An observation judged beforehand and added judged is the observation
// added (buildFrom holds every report of this package's tests to it): here
// with every kind of check a judged observation keeps again, interleaved
// with checks it drops, so that its indexes are renumbered — failures
// (two checks of one key failing, the first the evidence), a failed link
// watch, stress figures, the inventory and usage readings after them —
// and some observations made before the registration.
func TestJudgedIsTheObservation(t *testing.T) {
	var l reporttest.Log
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, shanghai)
	num := func(f float64) *float64 { return &f }
	gpu := func(g int) *int { return &g }
	obs := func(i int) {
		at := start.Add(time.Duration(i) * 15 * time.Minute)
		cs := []events.Check{{Name: "gpu.xid", Category: events.CategoryGPULost, Verdict: events.Pass, GPU: gpu(0)}}
		switch {
		case i%7 == 3:
			cs = append(cs, events.Check{Name: "gpu.ecc", Category: events.CategoryGPULost, Verdict: events.Fail, GPU: gpu(1), Value: fmt.Sprint(i), Detail: "first"},
				events.Check{Name: "gpu.temp", Category: events.CategoryPerformance, Verdict: events.Pass, GPU: gpu(1)},
				events.Check{Name: "gpu.ecc", Category: events.CategoryGPULost, Verdict: events.Fail, GPU: gpu(1), Value: "second", Detail: "second"})
		case i%5 == 1:
			cs = append(cs, events.Check{Name: incident.LinkCheck, Category: events.CategoryConnectivity, Verdict: events.Fail, Detail: fmt.Sprint("lost ", i)},
				events.Check{Name: "net.dns", Category: events.CategoryConnectivity, Verdict: events.Fail, Detail: "dns"})
		default:
			cs = append(cs, events.Check{Name: incident.LinkCheck, Category: events.CategoryConnectivity, Verdict: events.Pass})
		}
		cs = append(cs, events.Check{Name: "gpu.power", Category: events.CategoryPerformance, Verdict: events.Pass, GPU: gpu(0), Number: num(600 + float64(i%3)), Unit: "W"},
			events.Check{Name: "gpu.clock", Category: events.CategoryPerformance, Verdict: events.Pass, GPU: gpu(0)},
			events.Check{Name: "gpu.burn.fp32", Category: events.CategoryPerformance, Verdict: events.Pass, GPU: gpu(0), Number: num(50 - float64(i%4)), Unit: "TFLOPS"})
		cs = append(cs, reporttest.Handovers()[0].First.Checks()...)
		cs = append(cs, events.Check{Name: "usage.boot", Category: "host", Verdict: "pass", Detail: "boot_id=b&boot_time=1772294400"},
			events.Check{Name: "host.load", Category: "host", Verdict: "pass"},
			events.Check{Name: "usage.net.eth0", Category: "host", Verdict: "pass", Detail: fmt.Sprintf("physical=1&default_route=1&rx_bytes=0&tx_bytes=%d", i*1000)})
		l.Add(events.Event{Type: events.TypeObservation, Node: "gz-01", At: at, ReceivedAt: at.Add(time.Second), Kind: events.KindCheck, Checks: cs})
	}
	for i := -8; i < 0; i++ {
		obs(i) // before the registration: held until it comes
	}
	l.Register("gz-01", "cn-example", start.Add(-time.Hour), 8)
	l.Heartbeats("gz-01", start.Add(-2*time.Hour), start.Add(48*time.Hour))
	for i := 0; i < 4*40; i++ {
		obs(i)
	}
	r := buildFrom(t, loadTerms(t), Options{Year: 2026, Month: 3, AsOf: start.Add(30 * time.Hour)}, l.Events)
	n := r.Nodes[0]
	if n.Usage == nil || n.Usage.Readings == 0 || len(n.Outages) == 0 {
		t.Fatalf("the log's report lacks what this test is for: usage %v, outages %d", n.Usage, len(n.Outages))
	}
}
