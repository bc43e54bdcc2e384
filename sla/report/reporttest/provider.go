package reporttest

import (
	"time"

	"github.com/gpusla/gpusla/sla/events"
)

// ProviderTerms is the contract of ProviderLog: Shanghai, a Statuspage
// page matched with 15 minutes of slack, keywords GPU and network.
const ProviderTerms = `contract: sh-gpu
provider: Example GPU Cloud
currency: CNY
timezone: Asia/Shanghai
business_hours:
  monday: "09:00-18:00"
uptime:
  target: 99.9
  tiers:
    - {min: 99.0, max: 99.9, credit: 10}
    - {min: 0, max: 99.0, credit: 25}
claim:
  within_days: 30
billing:
  price_per_gpu_hour: 20
provider_status_page:
  url: https://status.example-gpu.cloud/api/v2/incidents.json
  format: statuspage
  slack: 15m
  keywords: [GPU, network]
`

// ProviderLog is November 2026 in Shanghai for one node in service from
// the 10th to its release on the 20th, with three unreachable outages and
// one gpu_degraded incident (not an unavailable kind: never counted), and
// the provider's page. Worked by hand (times Asia/Shanghai, slack 15m):
//
//	outage A 12th 10:01–11:00   P1 10:20–10:50            overlap       → acknowledged by P1
//	outage B 14th 08:01–08:30   P2 08:40–09:30 → 08:25…   08:25 < 08:30 → acknowledged by P2 (only thanks to the slack)
//	outage C 16th 02:01–03:00   P3 03:20–04:00 → 03:05…   03:05 > 03:00 → unacknowledged; P3 unseen
//	degraded 17th 10:00–10:15   P8 10:05–10:25            seen (a row overlaps), but no counted outage to acknowledge
//	P5 (no state, RSS-like) 18th 12:00, last update 12:00: a point → unseen
//	P9 19th 23:00, investigating (open): runs to as-of; no outage overlaps → unseen
//	P4 15th "Billing portal down": no keyword → ignored
//	P6 22nd, after the release: no node in service → listed, not unseen
//	P7 first fetched after as-of → left out
//	P10 30th 20:00, resolved on 3 December, after as-of: open at as-of; after the release → not unseen
func ProviderLog(withPage bool) []events.Event {
	var l Log
	at := func(s string) time.Time { return Local(Shanghai, s) }
	l.Register("n1", "sh-gpu", at("2026-10-20 09:00"), 8)
	l.Heartbeats("n1", at("2026-11-10 00:00"), at("2026-11-20 00:00"),
		at("2026-11-12 10:00"), at("2026-11-12 11:00"),
		at("2026-11-14 08:00"), at("2026-11-14 08:30"),
		at("2026-11-16 02:00"), at("2026-11-16 03:00"))
	l.Add(events.Event{Type: events.TypeNodeReleased, Node: "n1", At: at("2026-11-20 00:00")})
	for i, v := range []string{events.Fail, events.Fail, events.Fail, events.Pass, events.Pass} {
		l.GPUCheck("n1", at("2026-11-17 10:00").Add(time.Duration(i)*5*time.Minute), "gpu.temperature", events.CategoryGPUDegraded, v, 0)
	}
	if !withPage {
		return l.Events
	}
	seen := at("2026-11-01 00:00")
	inc := func(id, title, start, end string, f ...func(*events.Event)) {
		e := events.Event{Type: events.TypeProviderIncident, ID: "provider/sh-gpu/" + id, Contract: "sh-gpu", ProviderRef: id, Summary: title,
			Format: "statuspage", Status: "resolved", Resolved: true, Start: at(start), End: at(end), At: at(end), ReceivedAt: seen,
			Components: []string{"GPU Compute"}}
		if at(start).After(seen) {
			e.ReceivedAt = at(start).Add(10 * time.Minute)
		}
		for _, g := range f {
			g(&e)
		}
		l.Add(e)
	}
	inc("P1", "GPU hosts unreachable", "2026-11-12 10:20", "2026-11-12 10:50")
	inc("P2", "Public network degraded", "2026-11-14 08:40", "2026-11-14 09:30")
	inc("P3", "GPU host maintenance overran", "2026-11-16 03:20", "2026-11-16 04:00")
	inc("P4", "Billing portal down", "2026-11-15 10:00", "2026-11-15 11:00", func(e *events.Event) { e.Components = []string{"Console"} })
	inc("P5", "GPU capacity constrained", "2026-11-18 12:00", "2026-11-18 12:00", func(e *events.Event) {
		e.Format, e.Status, e.Resolved, e.End = "rss", "", false, time.Time{}
	})
	inc("P6", "GPU nodes rebooted", "2026-11-22 01:00", "2026-11-22 02:00")
	inc("P7", "GPU outage", "2026-11-12 10:30", "2026-11-12 10:40", func(e *events.Event) { e.ReceivedAt = at("2026-12-05 00:00") })
	inc("P8", "GPU temperatures high", "2026-11-17 10:05", "2026-11-17 10:25")
	inc("P9", "GPU instances slow to start", "2026-11-19 23:00", "2026-11-19 23:00", func(e *events.Event) {
		e.Status, e.Resolved, e.End, e.At = "investigating", false, time.Time{}, at("2026-11-19 23:30")
	})
	inc("P10", "GPU region degraded", "2026-11-30 20:00", "2026-12-03 09:00") // resolved after as-of: open at it
	l.Add(events.Event{Type: events.TypeStatusPagePolled, ID: "polled/sh-gpu@1", Contract: "sh-gpu", Source: "https://status.example-gpu.cloud/api/v2/incidents.json",
		Start: seen, End: at("2026-11-30 23:55"), Count: 8640, Failures: 3, Reason: "HTTP 503"})
	return l.Events
}
