package report

import (
	"reflect"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/terms"
)

// monthOfEdge builds the edge case's March as of asOf.
func monthOfEdge(t *testing.T, tm *terms.Terms, c edgeCase, asOf time.Time) *Report {
	t.Helper()
	return buildFrom(t, []*terms.Terms{tm}, Options{Year: c.yearOf(), Month: time.March, AsOf: asOf}, edgeLog(t, tm, c))
}

// Where the window runs from the incident in days, each counted incident of
// the month carries its own deadline, from the month so far on: Alibaba,
// "Submit within 30 days of incident" (+08:00), 12 min from 1 March 00:10 is
// due before 31 March 00:10, 5 min from 20 March 10:00 before 19 April
// 10:00; an incident still under way as of the report is ongoing (not
// claimable yet). hosted·ai ("within 30 days of the incident", UTC) the
// same, from the outage's start though counted from the ticket. A window
// from the month's end (jdcloud-vm) lists none.
func TestIncidentClaims(t *testing.T) {
	ali := packTerms(t, "alibaba-ecs")
	c := edgeCase{down: [][2]string{{"2026-03-01 00:10:00", "2026-03-01 00:22:00"}, {"2026-03-20 10:00:00", "2026-03-20 10:05:00"}}}
	first := IncidentClaim{Start: "2026-03-01T00:10:00+08:00", End: "2026-03-01T00:22:00+08:00", CountedSeconds: 720, Deadline: "2026-03-31T00:10:00+08:00"}
	second := IncidentClaim{Start: "2026-03-20T10:00:00+08:00", End: "2026-03-20T10:05:00+08:00", CountedSeconds: 300, Deadline: "2026-04-19T10:00:00+08:00"}
	for _, tc := range []struct {
		asOf string
		want []IncidentClaim
	}{
		{"2026-03-01T00:20:00+08:00", []IncidentClaim{{Start: first.Start, End: "2026-03-01T00:20:00+08:00", CountedSeconds: 600, Deadline: first.Deadline, Ongoing: true}}},
		{"2026-03-10T00:00:00+08:00", []IncidentClaim{first}},
		{"2026-04-02T12:00:00+08:00", []IncidentClaim{first, second}},
	} {
		asOf, _ := time.Parse(time.RFC3339, tc.asOf)
		got := node(t, monthOfEdge(t, ali, c, asOf), "n1").IncidentClaims
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("alibaba-ecs as of %s: incident claims\n got %+v\nwant %+v", tc.asOf, got, tc.want)
		}
	}

	h := packTerms(t, "hostedai-gpu")
	hc := edgeCase{down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 04:00:00"}}, tickets: []string{"2026-03-08 03:15:00"}}
	got := node(t, monthOfEdge(t, h, hc, time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)), "n1").IncidentClaims
	want := []IncidentClaim{{Start: "2026-03-08T03:00:00Z", End: "2026-03-08T04:00:00Z", CountedSeconds: 2700, Deadline: "2026-04-07T03:00:00Z"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hostedai-gpu: incident claims\n got %+v\nwant %+v", got, want)
	}

	cn := packTerms(t, "jdcloud-vm")
	if got := node(t, monthOfEdge(t, cn, c, time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)), "n1").IncidentClaims; got != nil {
		t.Errorf("jdcloud-vm (window from the month's end): incident claims %+v, want none", got)
	}
}
