package report

// JD Cloud Virtual Machines (jdcloud-vm.yaml): one GPU at 20.00 CNY an
// hour, so "the average hourly cost … / 60 × fault time × 100" is 100 ×
// 20.00 / 60 = 33.333… CNY a fault minute; March's charge 744 h × 20.00 =
// 14,880.00, April's 14,400.00. No tiers: every counted fault earns its
// coupon whether or not the month met 99.95 %. Each coupon is truncated to
// the fen (the text does not say how it is rounded): 166.666… is 166.66.
var jdcloudVMEdges = []edge{
	{"target", []edgeCase{
		// "No less than 99.95%": 22 min, (44,640 − 22) / 44,640 = 99.950717 %,
		// met; 23 min, 99.948477 %, missed. Either way the faults earn 100 ×
		// 20.00 × 22 / 60 = 733.33 and 766.66 (766.666…).
		{why: "22 min: met", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:22:00"}}, counted: 1320, uptime: 99.9507, tier: 0, amount: 733.33},
		{why: "23 min: missed", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:23:00"}}, counted: 1380, uptime: 99.9485, tier: 0, amount: 766.66},
	}},
	{"unavailable", []edgeCase{
		// "the inability of virtual machine to work properly … the inability
		// of normal access": unreachable 10 min, 333.33; a GPU lost on a
		// reachable VM is not counted here (approximations[5], under).
		{why: "unreachable 10 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 600, uptime: 99.9776, tier: 0, amount: 333.33},
		{why: "GPU lost 10 min, reachable", lost: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"five-minutes", []edgeCase{
		// "not available for 5 minutes or more … less than 5 minutes, it is
		// not counted": 4 min 59 s, nothing; 5 min, 166.66, (44,640 − 5) /
		// 44,640 = 99.988799 %.
		{why: "4 min 59 s: nothing", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:04:59"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "5 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:05:00"}}, counted: 300, uptime: 99.9888, tier: 0, amount: 166.66},
	}},
	{"minutes", []edgeCase{
		// "the time unit is minutes", rounded down (approximate, at most a
		// minute a fault, under): 7 min 30 s is 7 min, 233.33 (99.984319 %);
		// 8 min is 8, 266.66 (99.982079 %).
		{why: "7 min 30 s: 7 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:07:30"}}, counted: 420, uptime: 99.9843, tier: 0, amount: 233.33, approximateDown: 60},
		{why: "8 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:08:00"}}, counted: 480, uptime: 99.9821, tier: 0, amount: 266.66, approximateDown: 60},
	}},
	{"across-month-end", []edgeCase{
		// The five minutes on the whole outage: 31 March 23:57 to 1 April
		// 00:03, 6 min, counts 3 minutes in each month's uptime (March
		// (2,678,400 − 180) / 2,678,400 = 99.993280 %, April 99.993056 %); half
		// by half, 3 min each, it would count nothing. Its coupon is the whole
		// fault's, 100 × 20.00 × 6 / 60 = 200.00, in April, the month it
		// ended. 23:58:00 to 00:02:30, 4 min 30 s, counts nothing in either.
		{why: "6 min across: March's 3, no coupon", down: [][2]string{{"2026-03-31 23:57:00", "2026-04-01 00:03:00"}}, counted: 180, uptime: 99.9933, tier: 0, amount: 0},
		{why: "6 min across: April's 3, the fault's coupon", month: 4, delivered: "2026-02-28 00:00:00", down: [][2]string{{"2026-03-31 23:57:00", "2026-04-01 00:03:00"}}, counted: 180, uptime: 99.9931, tier: 0, amount: 200},
		{why: "4.5 min across: nothing in March", down: [][2]string{{"2026-03-31 23:58:00", "2026-04-01 00:02:30"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "4.5 min across: nothing in April", month: 4, down: [][2]string{{"2026-03-31 23:58:00", "2026-04-01 00:02:30"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"partial-month", []edgeCase{
		// "One service term is a natural month. If it is less than one month,
		// it is not counted as one service term": in service from before the
		// month, 10 min count (333.33); delivered at 00:01 on the 1st, or
		// released on 20 April, the month is no service term: no uptime, no
		// coupon.
		{why: "whole month", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 600, uptime: 99.9776, tier: 0, amount: 333.33},
		{why: "delivered 1 March 00:01", delivered: "2026-03-01 00:01:00", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 0, uptime: notJudged, tier: 0, amount: 0},
		{why: "released 20 April", month: 4, released: "2026-04-20 10:00:00", down: [][2]string{{"2026-04-08 03:00:00", "2026-04-08 03:10:00"}}, counted: 0, uptime: notJudged, tier: 0, amount: 0},
		// The month's ends in Beijing time: delivered 28 February 23:59 or 1
		// March 00:00, or released 1 April 00:00, the VM served the whole of
		// March: 7 min, 99.984319 %, 233.33; released 31 March 23:59, a minute
		// short: no service term, nothing (approximations[4]).
		{why: "delivered 28 February 23:59: whole", delivered: "2026-02-28 23:59:00", down: down1("2026-03-10 03:00:00", "2026-03-10 03:07:00"), counted: 420, uptime: 99.9843, tier: 0, amount: 233.33},
		{why: "delivered 1 March 00:00: whole", delivered: "2026-03-01 00:00:00", down: down1("2026-03-10 03:00:00", "2026-03-10 03:07:00"), counted: 420, uptime: 99.9843, tier: 0, amount: 233.33},
		{why: "released 1 April 00:00: whole", released: "2026-04-01 00:00:00", down: down1("2026-03-10 03:00:00", "2026-03-10 03:07:00"), counted: 420, uptime: 99.9843, tier: 0, amount: 233.33},
		{why: "released 31 March 23:59: no service term", released: "2026-03-31 23:59:00", down: down1("2026-03-10 03:00:00", "2026-03-10 03:07:00"), counted: 0, uptime: notJudged, tier: 0, amount: 0},
		// A fault across the month's end earns its coupon in the month it
		// ended (across-month-end): 31 March 23:57 to 1 April 00:03 on a VM
		// released on 20 April leaves April no service term, so the fault's
		// 200.00 is in neither month (approximations[4], under); delivered on
		// 10 March instead, April is whole and March no service term: the
		// fault, 6 min (5 or more), is owed for its minutes in April's term
		// only, 00:00–00:03, 100 × 20.00 / 60 × 3 = 100.00 (its March minutes
		// are in no term; paid whole, 200.00, when March was one).
		{why: "fault across into a partial April: no coupon", month: 4, released: "2026-04-20 10:00:00", down: down1("2026-03-31 23:57:00", "2026-04-01 00:03:00"), counted: 0, uptime: notJudged, tier: 0, amount: 0},
		{why: "fault across from a partial March: April's minutes", month: 4, delivered: "2026-03-10 00:00:00", down: down1("2026-03-31 23:57:00", "2026-04-01 00:03:00"), counted: 180, uptime: 99.9931, tier: 0, amount: 100},
		{why: "fault across from a whole March: the whole fault", month: 4, delivered: "2026-03-01 00:00:00", down: down1("2026-03-31 23:57:00", "2026-04-01 00:03:00"), counted: 180, uptime: 99.9931, tier: 0, amount: 200},
		// The same at the other end: March a whole term, April none (the VM
		// released on 20 April). A fault from March into April is owed for
		// its minutes in March's term, as one from a partial month into a
		// whole one is owed for those in the whole one; had it no coupon in
		// March, it would have none at all. Reported as of 2 May (the release
		// known): 23:57–00:03 (6 min, 5 or more) has 3 in March, (44,640 − 3)
		// / 44,640 = 99.993280 %, 100 × 20.00 / 60 × 3 = 100.00; 23:57:30–
		// 00:03:00 (5 min 30 s, 5 whole minutes from its start, to 00:02:30:
		// the minimum on the whole fault, though only 2 min 30 s of it are
		// March's) has 2 whole minutes in March, 66.666… → 66.66, and 150 s
		// of March's uptime, 99.994400 %. Not released, April is a term and
		// the fault's 200.00 is April's: nothing in March.
		{why: "fault into a partial April: March's 3 minutes", released: "2026-04-20 10:00:00", asOf: "2026-05-02T12:00:00Z", down: down1("2026-03-31 23:57:00", "2026-04-01 00:03:00"), counted: 180, uptime: 99.9933, tier: 0, amount: 100},
		{why: "fault into a partial April, 5 min 30 s: March's 2 whole minutes", released: "2026-04-20 10:00:00", asOf: "2026-05-02T12:00:00Z", down: down1("2026-03-31 23:57:30", "2026-04-01 00:03:00"), counted: 150, uptime: 99.9944, tier: 0, amount: 66.66},
		{why: "fault into a whole April: nothing in March", asOf: "2026-05-02T12:00:00Z", down: down1("2026-03-31 23:57:00", "2026-04-01 00:03:00"), counted: 180, uptime: 99.9933, tier: 0, amount: 0},
	}},
	{"compensation", []edgeCase{
		// "the payout amount = the average hourly cost in the first 24 hours
		// of the fault/ 60 × fault time × 100", a coupon a fault: faults of 5
		// and 7 min are 166.66 + 233.33 = 399.99 (not 12 min's 400.00); on 8
		// GPUs (160.00 an hour) 7 min is 100 × 160.00 × 7 / 60 = 1,866.66.
		{why: "5 + 7 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:05:00"}, {"2026-03-09 03:00:00", "2026-03-09 03:07:00"}}, counted: 720, uptime: 99.9731, tier: 0, amount: 399.99},
		{why: "8 GPUs, 7 min", gpus: 8, down: [][2]string{{"2026-03-09 03:00:00", "2026-03-09 03:07:00"}}, counted: 420, uptime: 99.9843, tier: 0, amount: 1866.66},
	}},
	{"cap", []edgeCase{
		// "shall not exceed the total amount of cash paid for current
		// service": capped at March's 14,880.00. 446 min: 100 × 20.00 × 446 /
		// 60 = 14,866.66, under it; 447 min: 14,900.00, capped at 14,880.00.
		{why: "446 min: under the cap", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:26:00"}}, counted: 26760, uptime: 99.0009, tier: 0, amount: 14866.66},
		{why: "447 min: capped", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 0, amount: 14880},
	}},
	{"maintenance", []edgeCase{
		// "Caused by the system maintenance procedures after JD Cloud's
		// notification in advance" is not unavailable time: 30 min down inside
		// a 6-hour window announced on the 1st, 7 min outside: 7 min count,
		// 233.33, the month keeping its minutes ((44,640 − 7) / 44,640 =
		// 99.984319 %); the same window announced after it began: 37 min,
		// 1,233.33 (99.917115 %).
		{why: "announced before", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-10 01:00:00", "2026-03-10 01:30:00"}, {"2026-03-20 03:00:00", "2026-03-20 03:07:00"}}, counted: 420, uptime: 99.9843, tier: 0, amount: 233.33, denominator: 2678400},
		{why: "announced after it began", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-10 00:30:00"}},
			down: [][2]string{{"2026-03-10 01:00:00", "2026-03-10 01:30:00"}, {"2026-03-20 03:00:00", "2026-03-20 03:07:00"}}, counted: 2220, uptime: 99.9171, tier: 0, amount: 1233.33},
	}},
	{"claim-window", []edgeCase{
		// No window is published: 30 days after the month (this file's
		// assumption): before 1 May, before 31 May.
		{why: "March", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:05:00"}}, counted: 300, uptime: 99.9888, tier: 0, amount: 166.66, deadline: "2026-05-01T00:00:00+08:00"},
		{why: "April", month: 4, down: [][2]string{{"2026-04-08 03:00:00", "2026-04-08 03:05:00"}}, counted: 300, uptime: 99.9884, tier: 0, amount: 166.66, deadline: "2026-05-31T00:00:00+08:00"},
	}},
	{"each-fault", []edgeCase{
		// "if the service is unavailable for less than 5 minutes, it is not
		// counted into unavailable time", fault by fault: two faults of 4 min
		// count nothing (not 8 min); 4 min and 5 min count the 5, (44,640 − 5)
		// / 44,640 = 99.988799 %, 166.66.
		{why: "two of 4 min: nothing", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:04:00"}, {"2026-03-09 03:00:00", "2026-03-09 03:04:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "4 min and 5 min: the 5", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:04:00"}, {"2026-03-09 03:00:00", "2026-03-09 03:05:00"}}, counted: 300, uptime: 99.9888, tier: 0, amount: 166.66},
	}},
	{"coupon-per-fault", []edgeCase{
		// "the payout amount = the average hourly cost in the first 24 hours of
		// the fault/ 60 × fault time × 100", a coupon a fault, each truncated to
		// the fen: one fault of 15 min is 100 × 20.00 × 15 / 60 = 500.00; three
		// of 5 min are 3 × 166.66 = 499.98 (each 166.666…; JD rounding each to
		// the nearest fen would pay 500.01, read as paid in full).
		{why: "one fault of 15 min: 500.00", down: down1("2026-03-08 03:00:00", "2026-03-08 03:15:00"), counted: 900, uptime: 99.9664, tier: 0, amount: 500},
		{why: "three faults of 5 min: 3 × 166.66", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:05:00"}, {"2026-03-09 03:00:00", "2026-03-09 03:05:00"}, {"2026-03-10 03:00:00", "2026-03-10 03:05:00"}},
			counted: 900, uptime: 99.9664, tier: 0, amount: 499.98},
	}},
	{"february", []edgeCase{
		// February: 28 × 24 × 60 = 40,320 min. 20 min: 40,300 / 40,320 =
		// 99.950397 %, met; 21 min: 99.947917 %, missed; the coupons 100 ×
		// 20.00 × 20 / 60 = 666.66 and 700.00 either way. The assumed 30 days
		// after the month: before 31 March.
		{why: "20 min: met", month: 2, down: down1("2026-02-10 03:00:00", "2026-02-10 03:20:00"), counted: 1200, uptime: 99.9504, tier: 0, amount: 666.66, denominator: 2419200},
		{why: "21 min: missed", month: 2, down: down1("2026-02-10 03:00:00", "2026-02-10 03:21:00"), counted: 1260, uptime: 99.9479, tier: 0, amount: 700, denominator: 2419200,
			deadline: "2026-03-31T00:00:00+08:00"},
	}},
	{"beijing-month-end", []edgeCase{
		// The natural month in Beijing time: 1 April 07:57 to 08:03 (31 March
		// 23:57 to 1 April 00:03 UTC, across the month's end in UTC) is
		// April's fault alone: 6 min, (43,200 − 6) / 43,200 = 99.986111 %,
		// 200.00; nothing in March. (23:57–00:03 Beijing: across-month-end.)
		{why: "07:57–08:03 Beijing on 1 April: nothing in March", down: down1("2026-04-01 07:57:00", "2026-04-01 08:03:00"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "07:57–08:03 Beijing on 1 April: April's 6 min", month: 4, down: down1("2026-04-01 07:57:00", "2026-04-01 08:03:00"), counted: 360, uptime: 99.9861, tier: 0, amount: 200},
	}},
	{"maintenance-month-end", []edgeCase{
		// A window from 31 March 22:00 to 1 April 02:00 notified on the 1st:
		// down 21:50–22:10, its 10 min before the window count (99.977599 %,
		// 333.33); 23:00–01:00 inside it is excused in both months.
		{why: "March: the 10 min before the window", maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-31 21:50:00", "2026-03-31 22:10:00"}, {"2026-03-31 23:00:00", "2026-04-01 01:00:00"}}, counted: 600, uptime: 99.9776, tier: 0, amount: 333.33},
		{why: "April: inside the window, nothing", month: 4, maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-31 21:50:00", "2026-03-31 22:10:00"}, {"2026-03-31 23:00:00", "2026-04-01 01:00:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
}

// JD Cloud Distributed Cloud Physical Server (jdcloud-dcps.yaml): one GPU
// at 15.00 CNY an hour, so 100 × 15.00 / 60 = 25.00 CNY a fault minute;
// March's charge 744 h × 15.00 = 11,160.00.
var jdcloudDCPSEdges = []edge{
	{"target", []edgeCase{
		// "shall not be less than 99.5%": 223 min, (44,640 − 223) / 44,640 =
		// 99.500448 %, met; 224 min, 99.498208 %, missed; 5,575.00 and 5,600.00
		// either way.
		{why: "223 min: met", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 06:43:00"}}, counted: 13380, uptime: 99.5004, tier: 0, amount: 5575},
		{why: "224 min: missed", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 06:44:00"}}, counted: 13440, uptime: 99.4982, tier: 0, amount: 5600},
	}},
	{"unavailable", []edgeCase{
		// "out of service and requires shut-down maintenance": a server nobody
		// can reach, 10 min, 250.00; a GPU lost on a server still serving is
		// not counted here (approximations[5], under).
		{why: "unreachable 10 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 600, uptime: 99.9776, tier: 0, amount: 250},
		{why: "GPU lost 10 min, reachable", lost: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"minutes", []edgeCase{
		// "the fault time shall be calculated by minutes", no minimum, rounded
		// down (approximate, at most a minute a fault, under): 59 s is 0 min,
		// nothing; 60 s is 1 min, 25.00 (99.997760 %); 7 min 30 s is 7, 175.00.
		{why: "59 s: 0 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:00:59"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "60 s: 1 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:01:00"}}, counted: 60, uptime: 99.9978, tier: 0, amount: 25, approximateDown: 60},
		{why: "7 min 30 s: 7 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:07:30"}}, counted: 420, uptime: 99.9843, tier: 0, amount: 175, approximateDown: 60},
	}},
	{"across-month-end", []edgeCase{
		// On the whole outage: 31 March 23:59:30 to 1 April 00:00:40, 70 s, is
		// one minute from its start, 23:59:30 to 00:00:30: 30 s in each
		// month's uptime (March 99.998880 %, April 99.998843 %), and the fault's
		// coupon, 25.00 for its minute, in April, where it ended; 23:59:30 to
		// 00:00:20, 50 s, is no whole minute: nothing either side.
		{why: "70 s across: March's 30 s, no coupon", down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:00:40"}}, counted: 30, uptime: 99.9989, tier: 0, amount: 0},
		{why: "70 s across: April's 30 s, the fault's coupon", month: 4, delivered: "2026-02-28 00:00:00", down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:00:40"}}, counted: 30, uptime: 99.9988, tier: 0, amount: 25},
		{why: "50 s across: nothing in April", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:00:20"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		// The natural month in Beijing time: 1 April 07:59:30 to 08:00:40
		// (across the month's end in UTC) is April's fault alone, a minute,
		// 25.00 (99.997685 %); nothing in March.
		{why: "07:59:30–08:00:40 Beijing on 1 April: nothing in March", down: down1("2026-04-01 07:59:30", "2026-04-01 08:00:40"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "07:59:30–08:00:40 Beijing on 1 April: April's minute", month: 4, down: down1("2026-04-01 07:59:30", "2026-04-01 08:00:40"), counted: 60, uptime: 99.9977, tier: 0, amount: 25},
	}},
	{"partial-month", []edgeCase{
		// "in case of less than one month, it shall not be counted as one
		// service cycle": from before the month, 10 min count (250.00);
		// delivered at 00:01 on the 1st, nothing.
		{why: "whole month", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 600, uptime: 99.9776, tier: 0, amount: 250},
		{why: "delivered 1 March 00:01", delivered: "2026-03-01 00:01:00", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 0, uptime: notJudged, tier: 0, amount: 0},
		// A fault across into a whole April from a March that was no
		// service cycle (delivered 10 March) is owed for its whole minutes
		// in April only: 31 March 23:56:30 to 1 April 00:03:00 (6 min 30 s,
		// 6 whole minutes from its start, to 00:02:30) has 2 whole minutes
		// in April, 00:00–00:02, 2 × 25.00 = 50.00 (the half minute to 00:02:30
		// is no minute); from a whole March, its 6, 150.00.
		{why: "fault across from a partial March: April's whole minutes", month: 4, delivered: "2026-03-10 00:00:00", down: down1("2026-03-31 23:56:30", "2026-04-01 00:03:00"),
			counted: 150, uptime: 99.9942, tier: 0, amount: 50},
		{why: "fault across from a whole March: the whole fault", month: 4, delivered: "2026-02-28 00:00:00", down: down1("2026-03-31 23:56:30", "2026-04-01 00:03:00"),
			counted: 150, uptime: 99.9942, tier: 0, amount: 150},
		// And from a whole March into an April that is none (released on 20
		// April), reported as of 2 May: the same fault is owed for its whole
		// minutes in March, 23:56:30–23:59:30, 3 × 25.00 = 75.00; March's
		// uptime counts its 3 min 30 s there, (2,678,400 − 210) / 2,678,400
		// = 99.992159 %. Not released: its 150.00 are April's, none March's.
		{why: "fault into a partial April: March's whole minutes", released: "2026-04-20 10:00:00", asOf: "2026-05-02T12:00:00Z", down: down1("2026-03-31 23:56:30", "2026-04-01 00:03:00"),
			counted: 210, uptime: 99.9922, tier: 0, amount: 75},
		{why: "fault into a whole April: nothing in March", asOf: "2026-05-02T12:00:00Z", down: down1("2026-03-31 23:56:30", "2026-04-01 00:03:00"),
			counted: 210, uptime: 99.9922, tier: 0, amount: 0},
	}},
	{"compensation", []edgeCase{
		// "average charge per hour of 24 hours before the fault/60 x fault
		// time x 100": 5 + 7 min, 100 × 15.00 × 12 / 60 = 300.00; on 8 GPUs
		// (120.00 an hour) 7 min is 1,400.00.
		{why: "5 + 7 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:05:00"}, {"2026-03-09 03:00:00", "2026-03-09 03:07:00"}}, counted: 720, uptime: 99.9731, tier: 0, amount: 300},
		{why: "8 GPUs, 7 min", gpus: 8, down: [][2]string{{"2026-03-09 03:00:00", "2026-03-09 03:07:00"}}, counted: 420, uptime: 99.9843, tier: 0, amount: 1400},
	}},
	{"cap", []edgeCase{
		// "shall not exceed the monthly service charge": 11,160.00. 446 min,
		// 11,150.00; 447 min, 11,175.00, capped at 11,160.00.
		{why: "446 min: under", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:26:00"}}, counted: 26760, uptime: 99.0009, tier: 0, amount: 11150},
		{why: "447 min: capped", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 0, amount: 11160},
	}},
	{"maintenance", []edgeCase{
		// "Caused by the system maintenance that JD Cloud & AI has notified
		// the user in advance": 30 min inside the announced window excused, 7
		// outside count, 175.00; announced after it began: 37 min, 925.00.
		{why: "announced before", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-10 01:00:00", "2026-03-10 01:30:00"}, {"2026-03-20 03:00:00", "2026-03-20 03:07:00"}}, counted: 420, uptime: 99.9843, tier: 0, amount: 175, denominator: 2678400},
		{why: "announced after it began", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-10 00:30:00"}},
			down: [][2]string{{"2026-03-10 01:00:00", "2026-03-10 01:30:00"}, {"2026-03-20 03:00:00", "2026-03-20 03:07:00"}}, counted: 2220, uptime: 99.9171, tier: 0, amount: 925},
	}},
	{"claim-window", []edgeCase{
		// No window is published: 30 days after the month (assumption).
		{why: "March", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:05:00"}}, counted: 300, uptime: 99.9888, tier: 0, amount: 125, deadline: "2026-05-01T00:00:00+08:00"},
		{why: "April", month: 4, down: [][2]string{{"2026-04-08 03:00:00", "2026-04-08 03:05:00"}}, counted: 300, uptime: 99.9884, tier: 0, amount: 125, deadline: "2026-05-31T00:00:00+08:00"},
	}},
	{"each-fault", []edgeCase{
		// "the fault time shall be calculated by minutes", fault by fault:
		// three faults of 1 min 30 s are 3 × 1 = 3 min, 75.00 (99.993280 %);
		// their 4 min 30 s summed first would be 4 min, 100.00. One fault of
		// 4 min 30 s is 4 min, 100.00.
		{why: "three of 1 min 30 s: 3 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:01:30"}, {"2026-03-09 03:00:00", "2026-03-09 03:01:30"}, {"2026-03-10 03:00:00", "2026-03-10 03:01:30"}},
			counted: 180, uptime: 99.9933, tier: 0, amount: 75},
		{why: "one of 4 min 30 s: 4 min", down: down1("2026-03-08 03:00:00", "2026-03-08 03:04:30"), counted: 240, uptime: 99.991, tier: 0, amount: 100},
	}},
	{"february", []edgeCase{
		// "total actual day in a service cycle ×24 (hour) ×60 (minute)": 40,320
		// min in February. 201 min: 40,119 / 40,320 = 99.501488 %, met; 202 min:
		// 99.499008 %, missed; 100 × 15.00 × 201 / 60 = 5,025.00 and 5,050.00
		// either way. The assumed 30 days: before 31 March.
		{why: "201 min: met", month: 2, down: down1("2026-02-10 03:00:00", "2026-02-10 06:21:00"), counted: 12060, uptime: 99.5015, tier: 0, amount: 5025, denominator: 2419200},
		{why: "202 min: missed", month: 2, down: down1("2026-02-10 03:00:00", "2026-02-10 06:22:00"), counted: 12120, uptime: 99.499, tier: 0, amount: 5050, denominator: 2419200,
			deadline: "2026-03-31T00:00:00+08:00"},
	}},
	{"maintenance-month-end", []edgeCase{
		// A window from 31 March 22:00 to 1 April 02:00 notified on the 1st:
		// down 21:50–22:10, its 10 min before the window count (99.977599 %,
		// 100 × 15.00 × 10 / 60 = 250.00); 23:00–01:00 inside it is excused in
		// both months.
		{why: "March: the 10 min before the window", maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-31 21:50:00", "2026-03-31 22:10:00"}, {"2026-03-31 23:00:00", "2026-04-01 01:00:00"}}, counted: 600, uptime: 99.9776, tier: 0, amount: 250},
		{why: "April: inside the window, nothing", month: 4, maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-31 21:50:00", "2026-03-31 22:10:00"}, {"2026-03-31 23:00:00", "2026-04-01 01:00:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
}

func init() {
	packEdges["jdcloud-vm"] = append(jdcloudVMEdges, cnSecondEdges["jdcloud-vm"]...)
	packEdges["jdcloud-dcps"] = append(jdcloudDCPSEdges, cnSecondEdges["jdcloud-dcps"]...)
}
