package claims

import (
	"strings"
	"testing"
	"time"
)

// An incident claim (Alibaba, "Submit within 30 days of incident", Beijing):
// 12 min from 1 March 00:10 +08:00, due before 31 March 00:10 +08:00. A
// second before the deadline it is neither expired nor time-barred; at the
// instant it is both; sent a second before it is in time, at it late. It
// asks for no amount, so an answer or a credit is refused, naming the
// month's claim that takes them.
func TestIncidentClaimDeadline(t *testing.T) {
	bj, _ := time.LoadLocation("Asia/Shanghai")
	start := time.Date(2026, 3, 1, 0, 10, 0, 0, bj)
	due := time.Date(2026, 3, 31, 0, 10, 0, 0, bj)
	d := IncidentDraft{Contract: "alibaba-ecs", Provider: "Alibaba Cloud", Month: "2026-03", Currency: "CNY",
		Incident: Incident{Node: "hz-01", Start: start, End: start.Add(12 * time.Minute), Counted: 720},
		Deadline: due, TimeZone: "Asia/Shanghai", Lang: "zh", AsOf: start.Add(time.Hour)}
	c, err := NewIncident(d)
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != "alibaba-ecs/2026-03/hz-01_20260228T161000Z" || c.Amount != 0 || !c.Deadline.Equal(due) {
		t.Fatalf("claim %+v", c)
	}
	if contract, month, err := ParseID(c.ID); err != nil || contract != "alibaba-ecs" || month != "2026-03" {
		t.Fatalf("ParseID: %s %s %v", contract, month, err)
	}
	sec := time.Second
	for _, tc := range []struct {
		now     time.Time
		expired bool
	}{{due.Add(-sec), false}, {due, true}} {
		if st := c.StatusAt(Deadlines{}, tc.now); st.Expired != tc.expired || c.TimeBarred(tc.now) != tc.expired {
			t.Errorf("at %v: expired %v, time-barred %v; want %v", tc.now, st.Expired, c.TimeBarred(tc.now), tc.expired)
		}
	}
	for _, tc := range []struct {
		at   time.Time
		late bool
	}{{due.Add(-sec), false}, {due, true}} {
		s, _, err := c.Send(Sent{At: tc.at, Via: "ticket"}, due.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if st := s.StatusAt(Deadlines{}, due.Add(time.Hour)); st.SentLate != tc.late || s.TimeBarred(due.Add(time.Hour)) != tc.late {
			t.Errorf("sent at %v: late %v, time-barred %v; want %v", tc.at, st.SentLate, s.TimeBarred(due.Add(time.Hour)), tc.late)
		}
		if tc.late {
			continue
		}
		_, _, err = s.Answered(AnswerIn{Answer: Answer{At: due, Outcome: Accepted}}, due.Add(time.Hour))
		if err == nil || !strings.Contains(err.Error(), "month's claim alibaba-ecs/2026-03") {
			t.Errorf("answer on an incident claim: %v", err)
		}
		if _, err := s.Apply(CreditIn{Credit: Credit{Key: "k", Period: "2026-04", Amount: 100}, Currency: "CNY"}); err == nil {
			t.Error("a credit applied to an incident claim")
		}
	}

	for _, bad := range []struct {
		field string
		edit  func(*IncidentDraft)
	}{
		{"incident", func(d *IncidentDraft) { d.AsOf = d.Incident.End.Add(-sec) }},
		{"counted_seconds", func(d *IncidentDraft) { d.Incident.Counted = 0 }},
		{"node", func(d *IncidentDraft) { d.Incident.Node = "a/b" }},
		{"deadline", func(d *IncidentDraft) { d.Deadline = start }},
		{"incident", func(d *IncidentDraft) { d.Incident.End = start }},
	} {
		b := d
		bad.edit(&b)
		if _, err := NewIncident(b); err == nil || !strings.HasPrefix(err.Error(), bad.field+":") {
			t.Errorf("%s: %v", bad.field, err)
		}
	}
	if _, _, err := ParseID("alibaba-ecs/2026-03/hz-01@20260228T161000Z"); err == nil {
		t.Error("ParseID took a malformed incident id")
	}
}
