package app

import (
	"testing"
	"time"
)

// TestReminderDueAcrossDaylightSaving: ucloud-sdu's February 2026 claim
// (Copenhagen; 30 days after the month, the pack's assumption) is due
// before 31 March 00:00 CEST, after the change to summer time on 29 March
// 02:00. Its reminders come 7 and 2 calendar days before on that clock,
// 24 March 00:00 CET and 29 March 00:00 CET, and on the last day at 30
// March 00:00 CEST — not an hour early at 23:00 the evening before, where
// the deadline's summer offset counted back put them.
func TestReminderDueAcrossDaylightSaving(t *testing.T) {
	cph, err := time.LoadLocation("Europe/Copenhagen")
	if err != nil {
		t.Fatal(err)
	}
	deadline, err := time.Parse(time.RFC3339, "2026-03-31T00:00:00+02:00") // as a stored report states it
	if err != nil {
		t.Fatal(err)
	}
	for d, want := range map[int]string{7: "2026-03-23T23:00:00Z", 2: "2026-03-28T23:00:00Z", 0: "2026-03-29T22:00:00Z"} {
		if got := reminderDue(deadline, d, cph).UTC().Format(time.RFC3339); got != want {
			t.Errorf("%d days before: %s, want %s", d, got, want)
		}
	}
	// No change in between: New York's 1 February 2027 00:00 deadline,
	// 25 and 30 January 00:00 and 31 January 00:00 (docs/claims.md).
	ny, _ := time.LoadLocation("America/New_York")
	deadline = time.Date(2027, 2, 1, 0, 0, 0, 0, ny)
	for d, want := range map[int]string{7: "2027-01-25T05:00:00Z", 2: "2027-01-30T05:00:00Z", 0: "2027-01-31T05:00:00Z"} {
		if got := reminderDue(deadline, d, ny).UTC().Format(time.RFC3339); got != want {
			t.Errorf("New York, %d days before: %s, want %s", d, got, want)
		}
	}
}
