package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/terms"
)

const statusTerms = `contract: sh-gpu
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
status_page:
  url: https://status.example-gpu.cloud/api/v2/incidents.json
  format: statuspage
  slack: 15m
  keywords: [GPU, network]
`

// providerLog is November 2026 in Shanghai for one node in service from
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
func providerLog(withPage bool) []events.Event {
	var l log
	at := func(s string) time.Time { return local(shanghai, s) }
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
	l.Add(events.Event{Type: events.TypeStatusPagePolled, ID: "polled/sh-gpu@1", Contract: "sh-gpu", Source: "https://status.example-gpu.cloud/api/v2/incidents.json",
		Start: seen, End: at("2026-11-30 23:55"), Count: 8640, Failures: 3, Reason: "HTTP 503"})
	return l.Events
}

func buildProvider(t *testing.T, withPage bool) *Report {
	t.Helper()
	tm, err := terms.Parse("sh-gpu.yaml", []byte(statusTerms))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBuilder(tm, Options{Year: 2026, Month: time.November, AsOf: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	evs := providerLog(withPage)
	for i := range evs {
		if err := evs[i].Validate(); err != nil {
			t.Fatalf("event %s: %v", evs[i].ID, err)
		}
		if err := b.Add(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	r, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestProviderStatusAcknowledgement(t *testing.T) {
	r := buildProvider(t, true)
	ps := r.Contracts[0].ProviderStatus
	if ps == nil {
		t.Fatal("no provider_status for a contract whose terms name a page")
	}
	acks := func(l []OutageAck) string {
		var s []string
		for _, a := range l {
			s = append(s, a.Start+"–"+a.End+" by "+strings.Join(a.Incidents, ","))
		}
		return strings.Join(s, "; ")
	}
	eq(t, "acknowledged", acks(ps.Acknowledged), "2026-11-12T10:01:00+08:00–2026-11-12T11:00:00+08:00 by P1; 2026-11-14T08:01:00+08:00–2026-11-14T08:30:00+08:00 by P2")
	eq(t, "unacknowledged", acks(ps.Unacknowledged), "2026-11-16T02:01:00+08:00–2026-11-16T03:00:00+08:00 by ")
	eq(t, "unseen", strings.Join(ps.Unseen, ","), "P3,P5,P9")
	eq(t, "ignored", ps.Ignored, 1)
	var listed []string
	for _, i := range ps.Incidents {
		listed = append(listed, i.ID)
	}
	eq(t, "incidents", strings.Join(listed, ","), "P1,P2,P3,P8,P5,P9,P6")
	p6, p8, p9 := ps.Incidents[6], ps.Incidents[3], ps.Incidents[5]
	eq(t, "P6 watched", p6.Watched, false)
	eq(t, "P8 outages", p8.Outages, 1)
	eq(t, "P9 resolved", p9.Resolved, false)
	eq(t, "P9 end", p9.End, "")
	eq(t, "polled", *ps.Polled, StatusPolled{From: "2026-11-01T00:00:00+08:00", To: "2026-11-30T23:55:00+08:00", Fetches: 8640, Failures: 3, LastError: "HTTP 503"})
	eq(t, "slack", ps.SlackSeconds, int64(900))
	eq(t, "after as-of", r.Input.AfterAsOf, 1) // P7

	// The counted outage, credits and claim are the same without the page.
	plain := buildProvider(t, false)
	if plain.Contracts[0].ProviderStatus == nil || len(plain.Contracts[0].ProviderStatus.Unacknowledged) != 3 || plain.Contracts[0].ProviderStatus.Polled != nil {
		t.Fatalf("without the page's events every counted outage is unacknowledged and the page unread: %+v", plain.Contracts[0].ProviderStatus)
	}
	a, _ := json.Marshal(r.Nodes)
	b, _ := json.Marshal(plain.Nodes)
	if !bytes.Equal(a, b) {
		t.Fatal("the provider's page changed the nodes' books")
	}
	eq(t, "claim", r.Contracts[0].Claim, plain.Contracts[0].Claim)

	var md bytes.Buffer
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Provider status page: Example GPU Cloud (sh-gpu)", "never changes what is counted",
		"Measured outages the provider acknowledged: 2", "Measured outages the provider never acknowledged: 1",
		"Provider incidents the probes did not see: 3", "| P9 | GPU instances slow to start | investigating |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}
