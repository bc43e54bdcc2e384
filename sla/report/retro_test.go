package report

import (
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/report/reporttest"
)

// checkRetroactive is the cn-retroactive-records scenario's check
// (reporttest): every kind of retroactive record.
func checkRetroactive(t *testing.T, r *Report) {
	n := node(t, r, "gz-40")
	sh := func(s string) string { return local(shanghai, s).Format(time.RFC3339) }

	// Outages: A counts in full (its notice came after it began); B, C
	// and D are inside maintenance taken out.
	counted := map[string]int64{}
	for _, o := range n.Outages {
		counted[o.Start] = o.CountedSeconds
	}
	eq(t, "A counted", counted[sh("2026-03-05 10:01")], 7140) // 10:01–12:00 = 1 h 59 min
	eq(t, "B counted", counted[sh("2026-03-10 10:01")], 0)
	eq(t, "C counted", counted[sh("2026-03-15 10:01")], 0)
	eq(t, "D counted", counted[sh("2026-03-20 02:01")], 0)
	eq(t, "claimable outage", n.Uptime.ClaimableOutageSeconds, 7140)
	// Excluded: A's notice from 12:00 (after the outage under way at its
	// recording) to 13:00 = 1 h; B whole 3 h (override); C from its
	// recording 09:00 to 12:00 = 3 h; D 1 h: 8 h = 28 800 s.
	eq(t, "excluded", n.Period.ExcludedSeconds, 28800)
	eq(t, "period end", n.Period.End, sh("2026-03-25 00:00"))
	eq(t, "release recorded", n.Period.ReleaseRecordedAt, sh("2026-03-25 06:00"))
	eq(t, "release recorded by", n.Period.ReleaseRecordedBy, "cli:alice")

	rows := map[string]Maint{}
	for _, m := range n.Maintenance {
		rows[m.Start] = m
	}
	a := rows[sh("2026-03-05 09:00")]
	eq(t, "A excluded seconds", a.ExcludedSeconds, 3600)
	eq(t, "A recorded", a.RecordedAt, sh("2026-03-05 10:30"))
	if len(a.Effective) != 1 || a.Effective[0] != (Span{sh("2026-03-05 12:00"), sh("2026-03-05 13:00")}) || !strings.Contains(a.Reason, "recorded only at") {
		t.Errorf("A row: effective %v, reason %q; want 12:00–13:00 and the late recording named", a.Effective, a.Reason)
	}
	if b := rows[sh("2026-03-10 09:00")]; b.ExcludedSeconds != 10800 || len(b.Effective) != 0 || !strings.Contains(b.Reason, "override: provider e-mail MX-1") {
		t.Errorf("B row %+v: want the whole 3 h taken out on the override, which the reason quotes", b)
	}
	if d := rows[sh("2026-03-20 02:00")]; d.Reason != "announced with enough notice: taken out of the month" || d.RecordedBy != "api:k1 (ops)" {
		t.Errorf("D row %+v: a notice recorded in time reads as before, with its recorder", d)
	}

	// The section: A, B, C, the release and T-9's opening; not D nor the
	// answer recorded two minutes after it was given.
	byID := map[string]Retro{}
	for _, x := range r.Retroactive.Records {
		byID[x.ID] = x
	}
	if len(r.Retroactive.Records) != 5 || r.Retroactive.Unrecorded != 0 {
		t.Fatalf("retroactive section %+v: want 5 records (maint-A, maint-B, maint-C, the release, T-9's opening), none unrecorded", r.Retroactive)
	}
	want := []struct {
		id       string
		honoured bool
		late     int64
		stake    int64
	}{
		{"maint-A", false, 5400, 7140},    // recorded 10:30, 1 h 30 min after the window's start; the 7 140 s outage still counts
		{"maint-B", true, 5400, 3540},     // override: 10:01–11:00 = 3 540 s taken out that the recording alone would not
		{"maint-C", false, 3600, 0},       // the outage began after the recording: nothing at stake
		{"rel-gz-40", true, 21600, 21600}, // 00:00 to 06:00 outside the service period
		{"T-9/opened", true, 7200, 7200},  // opened 10:05, recorded 12:05
	}
	for _, w := range want {
		x, ok := byID[w.id]
		if !ok {
			t.Errorf("%s not in the retroactive section", w.id)
			continue
		}
		if x.Honoured != w.honoured || x.LateSeconds != w.late || x.AtStakeSeconds != w.stake || x.RecordedBy == "" || x.Effect == "" {
			t.Errorf("%s: %+v; want honoured %v, late %d s, at stake %d s, its recorder and effect", w.id, x, w.honoured, w.late, w.stake)
		}
	}
	if x := byID["maint-B"]; x.Override == "" {
		t.Error("maint-B: the override is not shown")
	}
	// T-9: breached and earning its penalty as claimed, flagged.
	if len(n.Tickets) != 1 || !n.Tickets[0].Retroactive || n.Tickets[0].RecordedAt != sh("2026-03-05 12:05") || !n.Tickets[0].Breached {
		t.Fatalf("tickets %+v: want T-9 breached, flagged retroactive, recorded 12:05", n.Tickets)
	}
	// Due 10:20 (15 min in business hours), answered 12:00: 1 h 40 min late.
	eq(t, "T-9 late", n.Tickets[0].Response.LateSeconds, 6000)
}

func retroScenario() reporttest.Scenario {
	for _, s := range reporttest.Scenarios() {
		if s.Name == "cn-retroactive-records" {
			return s
		}
	}
	panic("no cn-retroactive-records scenario")
}

// A report as of an instant uses only what was recorded by then: as of
// 03-05 10:20 (Shanghai) notice A (recorded 10:30) and ticket T-9
// (recorded 12:05) are unknown, whatever times they claim.
func TestRetroactiveRecordsAfterAsOf(t *testing.T) {
	r := run(t, scenario{name: "retro-asof", month: time.March, asOf: local(shanghai, "2026-03-05 10:20"),
		build: retroScenario().Build}, loadTerms(t), false)
	n := node(t, r, "gz-40")
	if len(n.Maintenance) != 0 || len(n.Tickets) != 0 || len(r.Retroactive.Records) != 0 {
		t.Fatalf("as of 10:20: maintenance %v, tickets %v, retroactive %v; want none (all recorded later)", n.Maintenance, n.Tickets, r.Retroactive.Records)
	}
	if n.Period.Released {
		t.Error("as of 10:20 the node is not yet released")
	}
}
