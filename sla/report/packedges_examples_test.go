package report

import (
	"fmt"
	"math/big"
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/terms"
)

// The two example contracts (testdata/terms/cn-example.yaml and
// us-example.yaml) are their own text: each edge their terms and comments
// set, worked by hand beside each case, both sides, on the edge harness of
// the packs (packedge_test.go).
var exampleEdges = map[string][]edge{
	// New York time, DST from 8 March 02:00 (EST → EDT) to 1 November 02:00
	// (EDT → EST): March 2026 is 743 h (2,674,800 s), November 721 h
	// (2,595,600 s). One GPU at 3.20 USD an hour: March 2,377.60.
	"us-example": {
		{"target", []edgeCase{
			// "target: 99.5" of March's 2,674,800 s: 0.5 % is 13,374 s (3 h 42
			// min 54 s), exactly 99.5000 %, met; 13,375 s, 99.499963 %: "99.0 to
			// 99.5: 10 %", 237.76.
			{why: "13,374 s: met", down: down("2026-03-10 03:00:00", "2026-03-10 06:42:54"), counted: 13374, uptime: 99.5, tier: 0, amount: 0, denominator: 2674800},
			{why: "13,375 s: 10 %", down: down("2026-03-10 03:00:00", "2026-03-10 06:42:55"), counted: 13375, uptime: 99.5, tier: 10, amount: 237.76, charge: 2377.6},
		}},
		{"dst-month", []edgeCase{
			// November is 721 h: 0.5 % is 12,978 s (3 h 36 min 18 s), met;
			// 12,979 s, 10 % of 721 × 3.20 = 2,307.20: 230.72. Over a 720-hour
			// month 12,978 s would read 99.499306 %, 10 %.
			{why: "November, 12,978 s: met", month: 11, down: down("2026-11-10 03:00:00", "2026-11-10 06:36:18"), counted: 12978, uptime: 99.5, tier: 0, amount: 0, denominator: 2595600},
			{why: "November, 12,979 s: 10 %", month: 11, down: down("2026-11-10 03:00:00", "2026-11-10 06:36:19"), counted: 12979, uptime: 99.5, tier: 10, amount: 230.72, charge: 2307.2},
			// Down from 01:30 EST to 03:30 EDT on 8 March is one hour, not two
			// (02:00–03:00 never happened): (2,674,800 − 3,600) / 2,674,800 =
			// 99.865410 %.
			{why: "across the change, 8 March 01:30–03:30: an hour", down: down("2026-03-08 01:30:00", "2026-03-08 03:30:00"), counted: 3600, uptime: 99.8654, tier: 0, amount: 0},
		}},
		{"across-month-end", []edgeCase{
			// The month ends at midnight New York time (04:00 UTC): 31 March
			// 23:50 to 1 April 00:10 EDT is 600 s in March ((2,674,800 − 600) /
			// 2,674,800 = 99.977569 %) and 600 s in April ((2,592,000 − 600) /
			// 2,592,000 = 99.976852 %), though all of it is 1 April in UTC.
			{why: "March's 10 min", down: down("2026-03-31 23:50:00", "2026-04-01 00:10:00"), counted: 600, uptime: 99.9776, tier: 0, amount: 0},
			{why: "April's 10 min", month: 4, down: down("2026-03-31 23:50:00", "2026-04-01 00:10:00"), counted: 600, uptime: 99.9769, tier: 0, amount: 0},
			// The one-minute minimum is the whole run's: 23:59:30 to 00:00:40,
			// 70 s, counts its 30 s in March ((2,674,800 − 30) / 2,674,800 =
			// 99.998878 %) and 40 s in April ((2,592,000 − 40) / 2,592,000 =
			// 99.998457 %), though each half is under a minute; 23:59:30 to
			// 00:00:29, 59 s, counts nothing on either side.
			{why: "70 s across: March's 30 s", down: down("2026-03-31 23:59:30", "2026-04-01 00:00:40"), counted: 30, uptime: 99.9989, tier: 0, amount: 0},
			{why: "70 s across: April's 40 s", month: 4, down: down("2026-03-31 23:59:30", "2026-04-01 00:00:40"), counted: 40, uptime: 99.9985, tier: 0, amount: 0},
			{why: "59 s across: nothing in March", down: down("2026-03-31 23:59:30", "2026-04-01 00:00:29"), counted: 0, uptime: 100, tier: 0, amount: 0},
			{why: "59 s across: nothing in April", month: 4, down: down("2026-03-31 23:59:30", "2026-04-01 00:00:29"), counted: 0, uptime: 100, tier: 0, amount: 0},
		}},
		{"minimum-outage", []edgeCase{
			// "minimum_outage: 1m", then every second: 59 s nothing, 61 s 61 s.
			{why: "59 s: nothing", down: down("2026-03-10 03:00:00", "2026-03-10 03:00:59"), counted: 0, uptime: 100, tier: 0, amount: 0},
			{why: "61 s: 61 s", down: down("2026-03-10 03:00:00", "2026-03-10 03:01:01"), counted: 61, uptime: 99.9977, tier: 0, amount: 0},
			// The minimum is each run's, not the sum of two close ones: 50 s
			// at 03:00 and 50 s at 03:02 (a heartbeat heard between) count
			// nothing; 50 s and then 61 s count the 61, (2,674,800 − 61) /
			// 2,674,800 = 99.997719 %.
			{why: "50 s and 50 s: nothing", down: [][2]string{{"2026-03-10 03:00:00", "2026-03-10 03:00:50"}, {"2026-03-10 03:02:00", "2026-03-10 03:02:50"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
			{why: "50 s and 61 s: 61 s", down: [][2]string{{"2026-03-10 03:00:00", "2026-03-10 03:00:50"}, {"2026-03-10 03:02:00", "2026-03-10 03:03:01"}}, counted: 61, uptime: 99.9977, tier: 0, amount: 0},
		}},
		{"maintenance-notice", []edgeCase{
			// "notice: 168h # 168 hours elapsed": so the calendar week
			// before 8 March, when the clocks go forward, is 167 hours. A
			// window 8 March 10:00–14:00 EDT (14:00–18:00 UTC) with the node
			// down all of it: announced 1 March 09:00 EST (14:00 UTC), 168 h
			// ahead, the window leaves the month ("excuses: window", the
			// default over the node's time): 2,674,800 − 14,400 = 2,660,400 s,
			// nothing down, 100 % (denominator_seconds is the month's before
			// the window is taken out). Announced 1 March 10:00 EST, seven calendar
			// days but 167 h ahead, it excuses nothing: 14,400 s down,
			// (2,674,800 − 14,400) / 2,674,800 = 99.461642 %, 10 % of 2,377.60:
			// 237.76.
			{why: "announced 168 h ahead (1 March 09:00 EST)", maint: []maintSpec{{"2026-03-08 10:00:00", "2026-03-08 14:00:00", "2026-03-01 09:00:00"}},
				down: down("2026-03-08 10:00:00", "2026-03-08 14:00:00"), counted: 0, uptime: 100, tier: 0, amount: 0, denominator: 2674800},
			{why: "announced a calendar week but 167 h ahead (1 March 10:00 EST)", maint: []maintSpec{{"2026-03-08 10:00:00", "2026-03-08 14:00:00", "2026-03-01 10:00:00"}},
				down: down("2026-03-08 10:00:00", "2026-03-08 14:00:00"), counted: 14400, uptime: 99.4616, tier: 10, amount: 237.76, denominator: 2674800},
		}},
		{"claim", []edgeCase{
			// "a March claim is due by the end of May": before 1 June 00:00 EDT;
			// April's before 1 July.
			{why: "March", down: down("2026-03-10 03:00:00", "2026-03-10 06:42:55"), counted: 13375, uptime: 99.5, tier: 10, amount: 237.76, deadline: "2026-06-01T00:00:00-04:00"},
			{why: "April", month: 4, down: down("2026-04-10 03:00:00", "2026-04-10 06:42:55"), counted: 13375, uptime: 99.484, tier: 10, amount: 230.4, deadline: "2026-07-01T00:00:00-04:00"},
		}},
	},
	// Beijing time, no DST: March 2,678,400 s. Target 99.9 % "of the month
	// (minus excluded maintenance)"; a GPU lost counts as unavailable.
	"cn-example": {
		{"target", []edgeCase{
			// 0.1 % of 2,678,400 s is 2,678.4 s: 2,678 s, 99.900015 %, met;
			// 2,679 s, 99.899978 %, 10 %.
			{why: "2,678 s: met", down: down("2026-03-10 03:00:00", "2026-03-10 03:44:38"), counted: 2678, uptime: 99.9, tier: 0, amount: 0},
			{why: "2,679 s: 10 %", down: down("2026-03-10 03:00:00", "2026-03-10 03:44:39"), counted: 2679, uptime: 99.9, tier: 10, amount: -1},
			// Exactly on the line: April's 0.1 % is 2,592 s whole, 99.9000 %
			// exactly, met ("min: 99.0, max: 99.9" is [99.0, 99.9)); 2,593 s,
			// 99.899961 %, 10 % of 720 h × 18.50 = 13,320.00: 1,332.00.
			{why: "April, 2,592 s: exactly 99.9 %, met", month: 4, down: down("2026-04-10 03:00:00", "2026-04-10 03:43:12"), counted: 2592, uptime: 99.9, tier: 0, amount: 0},
			{why: "April, 2,593 s: 10 %", month: 4, down: down("2026-04-10 03:00:00", "2026-04-10 03:43:13"), counted: 2593, uptime: 99.9, tier: 10, amount: 1332},
		}},
		{"maintenance-window", []edgeCase{
			// "minus excluded maintenance": a 6-hour window announced 72 h ahead
			// leaves the month, though nothing was down in it: 2,678 s outside
			// it read (2,656,800 − 2,678) / 2,656,800 = 99.899206 %, 10 %;
			// announced 71 h 59 min ahead it excludes nothing, 99.900015 %, met.
			{why: "announced 72 h ahead", maint: []maintSpec{{"2026-03-12 00:00:00", "2026-03-12 06:00:00", "2026-03-09 00:00:00"}},
				down: down("2026-03-10 03:00:00", "2026-03-10 03:44:38"), counted: 2678, uptime: 99.8992, tier: 10, amount: -1},
			{why: "announced 71 h 59 min ahead", maint: []maintSpec{{"2026-03-12 00:00:00", "2026-03-12 06:00:00", "2026-03-09 00:01:00"}},
				down: down("2026-03-10 03:00:00", "2026-03-10 03:44:38"), counted: 2678, uptime: 99.9, tier: 0, amount: 0},
			// A window across the month's end, 31 March 22:00 to 1 April 02:00,
			// takes its two March hours out of March: 2,671,200 s, of which
			// 0.1 % is 2,671.2 s; 2,671 s down on the 10th read 99.900007 %,
			// met; 2,672 s, 99.899970 %, 10 % (both read 99.9000).
			{why: "a window across the month's end, 2,671 s: met", maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-25 00:00:00"}},
				down: down("2026-03-10 03:00:00", "2026-03-10 03:44:31"), counted: 2671, uptime: 99.9, tier: 0, amount: 0},
			{why: "a window across the month's end, 2,672 s: 10 %", maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-25 00:00:00"}},
				down: down("2026-03-10 03:00:00", "2026-03-10 03:44:32"), counted: 2672, uptime: 99.9, tier: 10, amount: -1},
		}},
		{"unavailable", []edgeCase{
			// "unavailable: [unreachable, gpu_lost]": a GPU lost 45 min on a
			// reachable node counts, 99.899194 %, 10 %, as 45 min unreachable do.
			{why: "GPU lost 45 min", lost: down("2026-03-10 03:00:00", "2026-03-10 03:45:00"), counted: 2700, uptime: 99.8992, tier: 10, amount: -1},
			{why: "unreachable 45 min", down: down("2026-03-10 03:00:00", "2026-03-10 03:45:00"), counted: 2700, uptime: 99.8992, tier: 10, amount: -1},
		}},
		{"cap", []edgeCase{
			// "credit_cap: 50 # credits plus penalties never exceed half the
			// monthly charge": billed from the order (27 February 23:00), March
			// is 744 h × 18.50 = 13,764.00. 8 h down, (2,678,400 − 28,800) /
			// 2,678,400 = 98.924731 %, "95.0 to 99.0: 25 %"; each P1 ticket
			// never answered is late ("late_response_penalty: 5"): four make
			// 25 + 20 = 45 %, 6,193.80; five 50 %, 6,882.00, the cap; six 55 %,
			// held at 50 %, 6,882.00.
			{why: "25 % + 4 × 5 %: 45 %", down: down("2026-03-10 03:00:00", "2026-03-10 11:00:00"), tickets: []string{"2026-03-12 10:00:00", "2026-03-12 10:01:00", "2026-03-12 10:02:00", "2026-03-12 10:03:00"},
				counted: 28800, uptime: 98.9247, tier: 25, amount: 6193.8, charge: 13764},
			{why: "25 % + 5 × 5 %: 50 %, the cap", down: down("2026-03-10 03:00:00", "2026-03-10 11:00:00"), tickets: []string{"2026-03-12 10:00:00", "2026-03-12 10:01:00", "2026-03-12 10:02:00", "2026-03-12 10:03:00", "2026-03-12 10:04:00"},
				counted: 28800, uptime: 98.9247, tier: 25, amount: 6882, charge: 13764},
			{why: "25 % + 6 × 5 %: held at 50 %", down: down("2026-03-10 03:00:00", "2026-03-10 11:00:00"), tickets: []string{"2026-03-12 10:00:00", "2026-03-12 10:01:00", "2026-03-12 10:02:00", "2026-03-12 10:03:00", "2026-03-12 10:04:00", "2026-03-12 10:05:00"},
				counted: 28800, uptime: 98.9247, tier: 25, amount: 6882, charge: 13764},
		}},
		{"across-month-end", []edgeCase{
			// The month ends at midnight Beijing time (16:00 UTC the day
			// before): 31 March 23:50 to 1 April 00:10 is 600 s in each month
			// (March 99.977599 %, April 99.976852 %).
			{why: "March's 10 min", down: down("2026-03-31 23:50:00", "2026-04-01 00:10:00"), counted: 600, uptime: 99.9776, tier: 0, amount: 0},
			{why: "April's 10 min", month: 4, down: down("2026-03-31 23:50:00", "2026-04-01 00:10:00"), counted: 600, uptime: 99.9769, tier: 0, amount: 0},
		}},
		{"claim", []edgeCase{
			// "within 30 days after the month ends": March's before 1 May 00:00
			// Beijing time; April's before 31 May.
			{why: "March", down: down("2026-03-10 03:00:00", "2026-03-10 03:44:39"), counted: 2679, uptime: 99.9, tier: 10, amount: -1, deadline: "2026-05-01T00:00:00+08:00"},
			{why: "April", month: 4, down: down("2026-04-10 03:00:00", "2026-04-10 03:44:39"), counted: 2679, uptime: 99.8966, tier: 10, amount: -1, deadline: "2026-05-31T00:00:00+08:00"},
		}},
	},
}

func TestExampleEdges(t *testing.T) {
	for _, name := range []string{"cn-example", "us-example"} {
		t.Run(name, func(t *testing.T) {
			tms, err := terms.ReadFile(filepath.Join("..", "..", "testdata", "terms", name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			checkEdges(t, tms[0], exampleEdges[name])
		})
	}
}

// Random Marches of us-example held to its own terms worked by hand, in
// exact arithmetic: New York time (743 h, DST from the 8th), every second of
// a run of a minute or more, over the node's time in service (no
// denominator given: the exact period); below 99.5 / 99 / 95 % 10 / 30 /
// 100 % of the charge, 3.20 an hour per second; the claim by the end of May.
func TestUSExampleHandRuleRandomMonths(t *testing.T) {
	tms, err := terms.ReadFile(filepath.Join("..", "..", "testdata", "terms", "us-example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tm := tms[0]
	loc := tm.Calendar.Loc
	rng := rand.New(rand.NewSource(3807))
	for i := range 300 {
		m := randomIntlMonth(rng, loc, false)
		var down int64
		for _, o := range m.outs {
			if o[1].Sub(o[0]) >= time.Minute {
				down += inMarch(o, loc)
			}
		}
		from, to := m.service(loc)
		secs := int64(to.Sub(from) / time.Second)
		m.judge(secs, down, [][2]string{{"95", "100"}, {"99", "30"}, {"99.5", "10"}}, big.NewRat(secs*320, 3600), 100)
		m.c.deadline = "2026-06-01T00:00:00-04:00"
		checkEdge(t, tm, fmt.Sprintf("month %d %v delivered %q released %q", i, m.c.down, m.c.delivered, m.c.released), m.c)
	}
}
