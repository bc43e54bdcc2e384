package calendar

import (
	"testing"
	"time"

	// The test embeds the time zone database so that it runs, and means the
	// same, on a machine without tzdata.
	_ "time/tzdata"
)

func shanghai(t *testing.T) *Calendar {
	loc, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatalf("no tzdata: %v", err)
	}
	nine := Hours{Open: true, Start: 9 * 60, End: 18 * 60}
	c := &Calendar{Loc: loc, Holidays: map[Date]string{}, Extra: map[Date]Hours{}}
	for wd := time.Monday; wd <= time.Friday; wd++ {
		c.Week[wd] = nine
	}
	for d := (Date{2026, 2, 15}); !(Date{2026, 2, 23}).Before(d); d = d.AddDays(1) {
		c.Holidays[d] = "春节"
	}
	c.Extra[Date{2026, 2, 14}] = nine
	c.Extra[Date{2026, 2, 28}] = nine
	return c
}

func TestCalendarShanghai(t *testing.T) {
	c := shanghai(t)
	at := func(s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, c.Loc)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	in := []struct {
		when string
		want bool
	}{
		{"2026-02-13 10:00", true},  // Friday
		{"2026-02-13 18:00", false}, // end is exclusive
		{"2026-02-14 10:00", true},  // adjusted working Saturday
		{"2026-02-16 10:00", false}, // Spring Festival Monday
		{"2026-02-21 10:00", false}, // holiday Saturday
		{"2026-02-24 08:59", false},
		{"2026-02-24 09:00", true},
		{"2026-03-01 10:00", false}, // Sunday
	}
	for _, c2 := range in {
		if got := c.InBusiness(at(c2.when)); got != c2.want {
			t.Errorf("InBusiness(%s) = %v", c2.when, got)
		}
	}
	// Friday 17:00 to the Tuesday after the festival 10:00: 1 h Friday,
	// 9 h on the working Saturday, nothing over the festival, 1 h Tuesday.
	if got := c.BusinessBetween(at("2026-02-13 17:00"), at("2026-02-24 10:00")); got != 11*time.Hour {
		t.Errorf("BusinessBetween = %v, want 11h", got)
	}
	if got, _ := c.NextBusiness(at("2026-02-14 23:50")); !got.Equal(at("2026-02-24 09:00")) {
		t.Errorf("NextBusiness = %v", got)
	}
	if got, _ := c.NextBusiness(at("2026-02-24 09:30")); !got.Equal(at("2026-02-24 09:30")) {
		t.Errorf("NextBusiness inside hours = %v", got)
	}
	if got, _ := c.AddBusiness(at("2026-02-13 17:45"), 30*time.Minute); !got.Equal(at("2026-02-14 09:15")) {
		t.Errorf("AddBusiness = %v", got)
	}
	if got, _ := c.AddBusiness(at("2026-02-14 23:50"), time.Hour); !got.Equal(at("2026-02-24 10:00")) {
		t.Errorf("AddBusiness over the festival = %v", got)
	}
}

func TestCalendarDST(t *testing.T) {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatalf("no tzdata: %v", err)
	}
	allDay := Hours{Open: true, Start: 0, End: 24 * 60}
	c := &Calendar{Loc: loc}
	for wd := range c.Week {
		c.Week[wd] = allDay
	}
	// 2026-03-08 has 23 hours in New York, 2026-11-01 has 25.
	spring := time.Date(2026, 3, 8, 0, 0, 0, 0, loc)
	if got := c.BusinessBetween(spring, spring.AddDate(0, 0, 1)); got != 23*time.Hour {
		t.Errorf("spring-forward day = %v", got)
	}
	fall := time.Date(2026, 11, 1, 0, 0, 0, 0, loc)
	if got := c.BusinessBetween(fall, fall.AddDate(0, 0, 1)); got != 25*time.Hour {
		t.Errorf("fall-back day = %v", got)
	}
	s, e := MonthBounds(2026, time.March, loc)
	if got := e.Sub(s); got != 31*24*time.Hour-time.Hour {
		t.Errorf("March 2026 in New York lasts %v", got)
	}
	// 9-to-5 on the DST Sunday made a working day: still 8 hours.
	c.Week[time.Sunday] = Hours{Open: true, Start: 9 * 60, End: 17 * 60}
	if got := c.BusinessBetween(spring, spring.AddDate(0, 0, 1)); got != 8*time.Hour {
		t.Errorf("9-17 on the spring-forward day = %v", got)
	}
}

func TestNoBusinessDays(t *testing.T) {
	c := &Calendar{Loc: time.UTC}
	if _, ok := c.NextBusiness(time.Now()); ok {
		t.Fatal("a calendar without business days found business time")
	}
	if _, ok := c.AddBusiness(time.Now(), time.Hour); ok {
		t.Fatal("a calendar without business days added business time")
	}
}

// A calendar knows the years it lists a holiday or an adjusted working day
// in, and every year when it lists none.
func TestCovers(t *testing.T) {
	c := &Calendar{Holidays: map[Date]string{{Year: 2026, Month: 10, Day: 1}: "国庆节"}}
	if !c.Covers(2026) || c.Covers(2027) || c.Covers(2025) {
		t.Errorf("2026's holidays: covers 2026 %v, 2027 %v, 2025 %v", c.Covers(2026), c.Covers(2027), c.Covers(2025))
	}
	c.Extra = map[Date]Hours{{Year: 2027, Month: 2, Day: 20}: {}}
	if !c.Covers(2027) {
		t.Error("an adjusted working day in 2027: 2027 not covered")
	}
	if !(&Calendar{}).Covers(2031) {
		t.Error("no holidays listed: 2031 not covered")
	}
}
