package report

// CoreWeave, a Single Instance (coreweave-single-instance.yaml): one GPU at
// 4.25 USD an hour, UTC; March's bill 744 h × 4.25 = 3,162.00, April's 720 h
// × 4.25 = 3,060.00. The month is "total number of minutes in a month":
// March 44,640 (2,678,400 s), April 43,200. The SLO is ">= 99%": 1 % of March
// is 446.4 minutes, so 446 whole minutes meet it and 447 miss it.
var coreweaveSingleInstanceEdges = []edge{
	{"target", []edgeCase{
		// "Instances in a Single Region | >= 99%": 446 min, (44,640 − 446) /
		// 44,640 = 99.000896 %, met, nothing; 447 min, 98.998656 %, missed:
		// "95% - 99% | 10%", 316.20.
		{why: "446 min: met", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:26:00"}}, counted: 26760, uptime: 99.0009, tier: 0, amount: 0},
		{why: "447 min: missed", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 10, amount: 316.2},
		// Exactly on the line: April's 1 % is 432 whole minutes, (43,200 −
		// 432) / 43,200 = 99.0000 % exactly, ">= 99%" met; 433 min,
		// 98.997685 %, 10 % of 720 h × 4.25 = 3,060.00: 306.00.
		{why: "April, 432 min: exactly 99 %, met", month: 4, down: [][2]string{{"2026-04-08 03:00:00", "2026-04-08 10:12:00"}}, counted: 25920, uptime: 99, tier: 0, amount: 0},
		{why: "April, 433 min: missed", month: 4, down: [][2]string{{"2026-04-08 03:00:00", "2026-04-08 10:13:00"}}, counted: 25980, uptime: 98.9977, tier: 10, amount: 306},
	}},
	{"unavailable", []edgeCase{
		// "loss of external connectivity … for the Single Instance": 10 min
		// unreachable count, (44,640 − 10) / 44,640 = 99.977599 %; a GPU lost
		// on an instance that stays reachable is no Downtime.
		{why: "unreachable 10 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "GPU lost 10 min, reachable", lost: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"one-minute", []edgeCase{
		// "a period of one or more consecutive minutes … intermittent Downtime
		// for a period of less than one minute will not be counted": 59 s,
		// nothing; 60 s, one minute, (44,640 − 1) / 44,640 = 99.997760 %.
		{why: "59 s: nothing", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:00:59"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "60 s: one minute", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:01:00"}}, counted: 60, uptime: 99.9978, tier: 0, amount: 0},
	}},
	{"partial-minutes", []edgeCase{
		// "Partial minutes … will not be counted": 7 h 26 min 59 s is 446
		// whole minutes, 99.000896 %, met; 7 h 27 min is 447, 98.998656 %,
		// missed, 10 %: one second moves the month across the SLO.
		{why: "446 min 59 s: 446", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:26:59"}}, counted: 26760, uptime: 99.0009, tier: 0, amount: 0},
		{why: "447 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 10, amount: 316.2},
	}},
	{"clock-minutes", []edgeCase{
		// "Partial minutes … will not be counted", read on the clock
		// (approximations[5]: CoreWeave may count a period's minutes from
		// its first second, a minute a run more at most). 03:00:30–03:01:40,
		// 70 s, holds no whole clock minute: nothing; 03:00:30 to 10:27:30,
		// 447 min to the second, holds 446 (03:01–10:26), 99.000896 %, met;
		// 03:00:30 to 10:28:00 holds 447, 98.998656 %, 10 %, 316.20.
		{why: "70 s off the minute: nothing", down: [][2]string{{"2026-03-08 03:00:30", "2026-03-08 03:01:40"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		// The seconds at hh:mm:59 and hh:mm:00: 03:00:59 to 03:02:00 holds
		// 03:01 whole, 60 s (99.9978 %); 03:00:59 to 03:01:59, sixty seconds
		// long, holds no clock minute whole: nothing; 03:01:00 to 03:01:59,
		// 59 s: nothing; 03:01:00 to 03:02:00: 60 s.
		{why: "03:00:59–03:02:00: 03:01", down: [][2]string{{"2026-03-08 03:00:59", "2026-03-08 03:02:00"}}, counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		{why: "03:00:59–03:01:59: nothing", down: [][2]string{{"2026-03-08 03:00:59", "2026-03-08 03:01:59"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "03:01:00–03:01:59: nothing", down: [][2]string{{"2026-03-08 03:01:00", "2026-03-08 03:01:59"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "03:01:00–03:02:00: 03:01", down: [][2]string{{"2026-03-08 03:01:00", "2026-03-08 03:02:00"}}, counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		{why: "447 min off the minute: 446, met", down: [][2]string{{"2026-03-08 03:00:30", "2026-03-08 10:27:30"}}, counted: 26760, uptime: 99.0009, tier: 0, amount: 0,
			approximateDown: 60, checkTierDiffers: true, tierMayDiffer: true},
		{why: "447 whole clock minutes: 10 %", down: [][2]string{{"2026-03-08 03:00:30", "2026-03-08 10:28:00"}}, counted: 26820, uptime: 98.9987, tier: 10, amount: 316.2},
	}},
	{"per-period", []edgeCase{
		// "the number of minutes of Downtime suffered from all Downtime
		// Periods": each period's partial minute is left out before they are
		// added. 3 h 43 min 30 s on the 8th and on the 9th (447 min to the
		// second) are 223 + 223 = 446 min, 99.000896 %, met; 223 + 224 =
		// 447, 98.998656 %, 10 %, 316.20.
		{why: "223 min 30 s twice: 446, met", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 06:43:30"}, {"2026-03-09 03:00:00", "2026-03-09 06:43:30"}},
			counted: 26760, uptime: 99.0009, tier: 0, amount: 0},
		{why: "223 min 30 s and 224 min: 447, 10 %", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 06:43:30"}, {"2026-03-09 03:00:00", "2026-03-09 06:44:00"}},
			counted: 26820, uptime: 98.9987, tier: 10, amount: 316.2},
	}},
	{"across-month-end", []edgeCase{
		// Each whole clock minute in its month: 31 March 23:59:30 to 1 April
		// 00:01:00, 90 s, holds 00:00 only: nothing in March, 60 s in April
		// ((2,592,000 − 60) / 2,592,000 = 99.997685 %); 23:59:00 to 00:01:00
		// holds 23:59 in March (99.997760 %) and 00:00 in April. 23:59:30 to
		// 00:00:20, 50 s, is no Downtime Period on either side.
		{why: "90 s across: nothing in March", down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "90 s across: April's 00:00", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:00"}}, counted: 60, uptime: 99.9977, tier: 0, amount: 0},
		{why: "23:59–00:01: March's 23:59", down: [][2]string{{"2026-03-31 23:59:00", "2026-04-01 00:01:00"}}, counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		{why: "50 s across: nothing in March", down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:00:20"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "50 s across: nothing in April", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:00:20"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"month-minutes", []edgeCase{
		// "total number of minutes in a month": an instance delivered on 16
		// March 00:00 is judged on March's 44,640 minutes, not its 23,040 in
		// service. 446 min, 99.000896 %, met; 447 min, 98.998656 %, 10 % of
		// its bill for 384 h, 384 × 4.25 = 1,632.00: 163.20. (By its service
		// period, 447 min would read (23,040 − 447) / 23,040 = 98.06 %.)
		{why: "delivered 16 March, 446 min", delivered: "2026-03-16 00:00:00", down: [][2]string{{"2026-03-20 03:00:00", "2026-03-20 10:26:00"}}, counted: 26760, uptime: 99.0009, tier: 0, amount: 0, denominator: 2678400},
		{why: "delivered 16 March, 447 min", delivered: "2026-03-16 00:00:00", down: [][2]string{{"2026-03-20 03:00:00", "2026-03-20 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 10, amount: 163.2, denominator: 2678400},
		// Released 16 March 00:00 after 447 min on the 8th: the month's
		// minutes still, 98.998656 %, 10 % of 360 h × 4.25 = 1,530.00: 153.00.
		{why: "released 16 March, 447 min", released: "2026-03-16 00:00:00", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 10, amount: 153, denominator: 2678400},
	}},
	{"tiers", []edgeCase{
		// "95% - 99% | 10% | 90% - 95% | 25% | < 90% | 50%". 2,232 min is 5 %
		// of March, exactly 95.0000 %: in two rows, the lower credit, 10 %
		// (approximations[2]), 316.20; 2,233 min, 94.997760 %: 25 %, 790.50.
		// 4,464 min, exactly 90.0000 %, is not "< 90%": 25 %, 790.50; 4,465
		// min, 89.997760 %: 50 %, 1,581.00.
		{why: "exactly 95 %: 10 %", down: [][2]string{{"2026-03-08 00:00:00", "2026-03-09 13:12:00"}}, counted: 133920, uptime: 95, tier: 10, amount: 316.2},
		{why: "2,233 min: 25 %", down: [][2]string{{"2026-03-08 00:00:00", "2026-03-09 13:13:00"}}, counted: 133980, uptime: 94.9978, tier: 25, amount: 790.5},
		{why: "exactly 90 %: 25 %", down: [][2]string{{"2026-03-08 00:00:00", "2026-03-11 02:24:00"}}, counted: 267840, uptime: 90, tier: 25, amount: 790.5},
		{why: "4,465 min: 50 %", down: [][2]string{{"2026-03-08 00:00:00", "2026-03-11 02:25:00"}}, counted: 267900, uptime: 89.9978, tier: 50, amount: 1581},
	}},
	{"february", []edgeCase{
		// February's 40,320 minutes: 1 % is 403.2 min. 403 min,
		// (40,320 − 403) / 40,320 = 99.000496 %, met; 404 min, 98.998016 %,
		// 10 % of 672 h × 4.25 = 2,856.00: 285.60.
		{why: "403 min: met", month: 2, down: [][2]string{{"2026-02-08 03:00:00", "2026-02-08 09:43:00"}}, counted: 24180, uptime: 99.0005, tier: 0, amount: 0, denominator: 2419200},
		{why: "404 min: 10 %", month: 2, down: [][2]string{{"2026-02-08 03:00:00", "2026-02-08 09:44:00"}}, counted: 24240, uptime: 98.998, tier: 10, amount: 285.6, charge: 2856, denominator: 2419200},
	}},
	{"cap", []edgeCase{
		// "will not exceed 50% of the amount due … for the applicable month":
		// 4,465 min earns 50 %, 1,581.00; down from 1 March 00:00 to 1 April
		// 00:00, 0 %, earns 50 % as well, never more.
		{why: "89.9978 %: 50 %", down: [][2]string{{"2026-03-08 00:00:00", "2026-03-11 02:25:00"}}, counted: 267900, uptime: 89.9978, tier: 50, amount: 1581},
		{why: "the whole month down: 50 %", down: [][2]string{{"2026-03-01 00:00:00", "2026-04-01 00:00:00"}}, counted: 2678400, uptime: 0, tier: 50, amount: 1581},
	}},
	{"bill", []edgeCase{
		// "Percentage of monthly bill for a Single Instance": 447 min on one
		// GPU, 10 % of 3,162.00 = 316.20; on 8 GPUs (34.00 an hour, 744 h:
		// 25,296.00), 2,529.60.
		{why: "1 GPU", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 10, amount: 316.2},
		{why: "8 GPUs", gpus: 8, down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 10, amount: 2529.6},
	}},
	{"maintenance", []edgeCase{
		// "(d) downtime caused by in-advance communicated maintenance": 440
		// min down inside a 10 h window announced on the 1st are excused, 7
		// min outside count, the month keeping its minutes ((44,640 − 7) /
		// 44,640 = 99.984319 %); announced after it began, all 447 count,
		// 98.998656 %, 10 %.
		{why: "announced before", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 10:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-10 01:00:00", "2026-03-10 08:20:00"}, {"2026-03-20 03:00:00", "2026-03-20 03:07:00"}}, counted: 420, uptime: 99.9843, tier: 0, amount: 0, denominator: 2678400},
		{why: "announced after it began", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 10:00:00", "2026-03-10 00:30:00"}},
			down: [][2]string{{"2026-03-10 01:00:00", "2026-03-10 08:20:00"}, {"2026-03-20 03:00:00", "2026-03-20 03:07:00"}}, counted: 26820, uptime: 98.9987, tier: 10, amount: 316.2},
		// A window across the month's end, 31 March 22:00 to 1 April 02:00,
		// announced on the 25th: 23:00–01:00 down is excused in both months,
		// each keeping its minutes; announced at 22:30, after it began, the
		// hour in each month counts (March (44,640 − 60) / 44,640 =
		// 99.865591 %).
		{why: "across the month's end, announced: March", maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-25 00:00:00"}},
			down: [][2]string{{"2026-03-31 23:00:00", "2026-04-01 01:00:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0, denominator: 2678400},
		{why: "across the month's end, announced: April", month: 4, maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-25 00:00:00"}},
			down: [][2]string{{"2026-03-31 23:00:00", "2026-04-01 01:00:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0, denominator: 2592000},
		{why: "across the month's end, announced late: March", maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-31 22:30:00"}},
			down: [][2]string{{"2026-03-31 23:00:00", "2026-04-01 01:00:00"}}, counted: 3600, uptime: 99.8656, tier: 0, amount: 0},
		// "in-advance communicated" at its edge: announced at the very instant
		// the window opens (10:00:00) is read as in advance (notice: 0s), the
		// provider's reading, so 10:00–10:30 down inside it is excused; a
		// second later (10:00:01) the window was not announced before it
		// began and the 30 min count, (44,640 − 30) / 44,640 = 99.932796 %.
		{why: "announced as it opens: excused", maint: []maintSpec{{"2026-03-10 10:00:00", "2026-03-10 12:00:00", "2026-03-10 10:00:00"}},
			down: [][2]string{{"2026-03-10 10:00:00", "2026-03-10 10:30:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "announced a second after it opens: counted", maint: []maintSpec{{"2026-03-10 10:00:00", "2026-03-10 12:00:00", "2026-03-10 10:00:01"}},
			down: [][2]string{{"2026-03-10 10:00:00", "2026-03-10 10:30:00"}}, counted: 1800, uptime: 99.9328, tier: 0, amount: 0},
		// An outage the window cuts: 09:50:30–10:20 with a window from 10:00
		// counts only its part before, 09:51–09:59 whole, 9 min,
		// 99.979839 %.
		{why: "cut by the window: the part before it", maint: []maintSpec{{"2026-03-10 10:00:00", "2026-03-10 12:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-10 09:50:30", "2026-03-10 10:20:00"}}, counted: 540, uptime: 99.9798, tier: 0, amount: 0},
	}},
	{"claim-window", []edgeCase{
		// "within ten (10) days from the time Customer becomes eligible",
		// counted from the month's end: 1–10 April, due before 11 April
		// 00:00 UTC; for April, 1–10 May, before 11 May.
		{why: "March", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 10, amount: 316.2, deadline: "2026-04-11T00:00:00Z"},
		{why: "April", month: 4, down: [][2]string{{"2026-04-08 03:00:00", "2026-04-08 10:27:00"}}, counted: 26820, uptime: 98.9653, tier: 10, amount: 306, deadline: "2026-05-11T00:00:00Z"},
	}},
}

func init() {
	packEdges["coreweave-single-instance"] = coreweaveSingleInstanceEdges
}
