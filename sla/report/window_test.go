package report

import (
	"testing"
	"time"
)

// The export made for a month's report (Window) holds everything the
// builder reads: from before its window start (the lookback before the
// earliest zone's month) to after the latest zone's month end.
func TestWindowHoldsWhatTheReportReads(t *testing.T) {
	for y := 2025; y <= 2027; y++ {
		for m := time.January; m <= time.December; m++ {
			b, err := NewBuilder(nil, Options{Year: y, Month: m, AsOf: time.Date(y+1, 1, 1, 0, 0, 0, 0, time.UTC)})
			if err != nil {
				t.Fatal(err)
			}
			from, to := Window(y, m)
			if from.UnixNano() > b.winStart {
				t.Errorf("%d-%02d: the export starts %s, after the report's window %s", y, m, from, time.Unix(0, b.winStart).UTC())
			}
			// The last zone's month (UTC−12) ends 12 h after the UTC one.
			if end := time.Date(y, m+1, 1, 12, 0, 0, 0, time.UTC); !to.After(end) {
				t.Errorf("%d-%02d: the export ends %s, before the month ends in every zone (%s)", y, m, to, end)
			}
		}
	}
}
