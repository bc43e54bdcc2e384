package provstatus

import (
	"testing"
	"time"
)

// A zone name the page's own zone goes by is read as that zone. The
// issue's case: a Chinese provider writes "CST" (China Standard Time,
// +08:00), which RFC 822 defines as US Central (−06:00) — a 14-hour shift.
// Hand-worked: 18:15 CST in Shanghai is 10:15 UTC; as US Central it would
// be 00:15 UTC the next day.
func TestParseRFC822InZone(t *testing.T) {
	load := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		return loc
	}
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		date string
		zone *time.Location
		want time.Time
	}{
		{"Mon, 30 Nov 2026 18:15:00 CST", load("Asia/Shanghai"), utc("2026-11-30T10:15:00Z")},
		{"Mon, 30 Nov 2026 18:15:00 CST", load("Asia/Taipei"), utc("2026-11-30T10:15:00Z")},
		{"Mon, 30 Nov 2026 18:15:00 CST", nil, utc("2026-12-01T00:15:00Z")},                     // RFC 822: US Central
		{"Mon, 30 Nov 2026 18:15:00 CST", load("America/Chicago"), utc("2026-12-01T00:15:00Z")}, // Chicago goes by CST in November
		{"Mon, 30 Nov 2026 18:15:00 CST", load("UTC"), utc("2026-12-01T00:15:00Z")},             // UTC does not say CST: RFC 822's meaning
		{"Mon, 30 Nov 2026 18:15 JST", load("Asia/Tokyo"), utc("2026-11-30T09:15:00Z")},         // a name RFC 822 lacks, the page's own
		{"Mon, 30 Nov 2026 18:15:00 +0800", load("America/Chicago"), utc("2026-11-30T10:15:00Z")},
		{"Mon, 30 Nov 2026 10:15:00 GMT", load("Asia/Shanghai"), utc("2026-11-30T10:15:00Z")},
		{"Wed, 01 Jul 2026 12:00:00 CDT", load("America/Chicago"), utc("2026-07-01T17:00:00Z")},
	} {
		got, err := ParseRFC822In(c.date, c.zone)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseRFC822In(%q, %v) = %s, %v; want %s", c.date, c.zone, got, err, c.want)
		}
	}
	// A name neither RFC 822 nor the page's zone uses is still refused.
	if _, err := ParseRFC822In("Mon, 30 Nov 2026 18:15:00 JST", time.UTC); err == nil {
		t.Error("JST under UTC was accepted")
	}
}
