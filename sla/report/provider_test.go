package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/report/reporttest"
	"github.com/gpusla/gpusla/sla/terms"
)

func buildProvider(t *testing.T, withPage bool) *Report {
	t.Helper()
	tm, err := terms.Parse("sh-gpu.yaml", []byte(reporttest.ProviderTerms))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBuilder(tm, Options{Year: 2026, Month: time.November, AsOf: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	evs := reporttest.ProviderLog(withPage)
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
	sameByParts(t, tm, Options{Year: 2026, Month: time.November, AsOf: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}, evs, r)
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
	eq(t, "incidents", strings.Join(listed, ","), "P1,P2,P3,P8,P5,P9,P6,P10")
	p10 := ps.Incidents[7]
	eq(t, "P10 resolved at as-of", p10.Resolved, false)
	eq(t, "P10 end", p10.End, "")
	eq(t, "P10 resolved after as-of", p10.ResolvedAfterAsOf, true)
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
