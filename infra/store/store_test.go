package store

import (
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/incident"
)

// A live unreachable incident keeps its identity (Start, when the heartbeat
// was due) but the books begin it where the probe's link watch dated the
// loss (Split.From), as the report does; a From after Start moves nothing.
func TestOutageBeginsWhereTheLinkWatchDatesIt(t *testing.T) {
	due := time.Date(2026, 3, 10, 2, 0, 30, 0, time.UTC)
	from := due.Add(-28700 * time.Millisecond)
	inc := Incident{Kind: string(incident.Unreachable), Start: due, End: due.Add(2 * time.Minute),
		Split: &incident.GapEvidence{Interval: 30 * time.Second, From: from}}
	if got := inc.Outage(time.Time{}).Span.Start; !got.Equal(from) {
		t.Errorf("outage starts %s, want the link watch's %s", got, from)
	}
	inc.Split.From = due.Add(time.Second)
	if got := inc.Outage(time.Time{}).Span.Start; !got.Equal(due) {
		t.Errorf("outage starts %s, want the incident's start %s", got, due)
	}
}
