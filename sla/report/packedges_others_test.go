package report

// The packs whose texts were read in part, or only in others' accounts of
// them: each clause the pack encodes is tested at its edge all the same,
// from the words quoted under its sources (secondary ones marked so in the
// conformance table and unverified on the claim page).

// down1 is one outage from a to b.
func down1(a, b string) [][2]string { return [][2]string{{a, b}} }

// AWS EC2, Instance-Level SLA (aws-ec2-instance.yaml), UTC: one GPU at
// 4.00 USD an hour, 744 h in March: 2,976.00 before the clock hours the rule
// waives.
var awsEdges = []edge{
	{"target", []edgeCase{
		// 99.5 %: 223 min (03:00–06:43), (44,640 − 223) / 44,640 = 99.500448 %,
		// met; 224 min, 99.498208 %, the 10 % tier. Both leave hours 03 to 06
		// with more than six minutes down: 740 h charged, 2,960.00; 10 % is
		// 296.00.
		{why: "223 min: met", down: down1("2026-03-08 03:00:00", "2026-03-08 06:43:00"), counted: 13380, uptime: 99.5004, tier: 0, amount: 0, charge: 2960},
		{why: "224 min: 10 %", down: down1("2026-03-08 03:00:00", "2026-03-08 06:44:00"), counted: 13440, uptime: 99.4982, tier: 10, amount: 296, charge: 2960},
	}},
	{"unavailable", []edgeCase{
		// "no external connectivity": unreachable counts; a lost GPU on a
		// reachable instance does not.
		{why: "unreachable 10 min", down: down1("2026-03-08 03:00:00", "2026-03-08 03:10:00"), counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "GPU lost 10 min, reachable", lost: down1("2026-03-08 03:00:00", "2026-03-08 03:10:00"), counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"clock-minutes", []edgeCase{
		// "the percentage of minutes during the month in which … was in the
		// state of Unavailability": the month's clock minutes the instance was
		// unavailable, each counted when wholly so (approximations[1]: AWS
		// may count a partial one, at most 2 min a run more). 30 s inside
		// 03:00 counts nothing; 03:00:30–03:03:10 counts 03:01 and 03:02,
		// 120 s ((2,678,400 − 120) / 2,678,400 = 99.995520 %); 03:00–03:03
		// counts three, 180 s (99.993280 %).
		{why: "30 s", down: down1("2026-03-08 03:00:00", "2026-03-08 03:00:30"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "2 min 40 s off the minute", down: down1("2026-03-08 03:00:30", "2026-03-08 03:03:10"), counted: 120, uptime: 99.9955, tier: 0, amount: 0, approximateDown: 120},
		{why: "3 min on the minute", down: down1("2026-03-08 03:00:00", "2026-03-08 03:03:00"), counted: 180, uptime: 99.9933, tier: 0, amount: 0, approximateDown: 120},
		// The seconds at hh:mm:59 and hh:mm:00: 03:00:59 to 03:02:00 holds
		// 03:01 whole, 60 s (99.9978 %); 03:00:59 to 03:01:59, sixty seconds
		// long, holds no clock minute whole: nothing; 03:01:00 to 03:01:59,
		// 59 s: nothing; 03:01:00 to 03:02:00: 60 s.
		{why: "03:00:59–03:02:00: 03:01", down: down1("2026-03-08 03:00:59", "2026-03-08 03:02:00"), counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		{why: "03:00:59–03:01:59: nothing", down: down1("2026-03-08 03:00:59", "2026-03-08 03:01:59"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "03:01:00–03:01:59: nothing", down: down1("2026-03-08 03:01:00", "2026-03-08 03:01:59"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "03:01:00–03:02:00: 03:01", down: down1("2026-03-08 03:01:00", "2026-03-08 03:02:00"), counted: 60, uptime: 99.9978, tier: 0, amount: 0},
	}},
	{"clock-hour", []edgeCase{
		// "will not charge you for any Single EC2 Instance that is Unavailable
		// for more than six minutes of a clockhour", in the text's minutes:
		// 03:00–03:06:59 is six whole minutes, charged (744 h, 2,976.00);
		// 03:00–03:07 seven, the hour not charged (743 h, 2,972.00).
		{why: "6 min 59 s: six minutes, charged", down: down1("2026-03-08 03:00:00", "2026-03-08 03:06:59"), counted: 360, uptime: 99.9866, tier: 0, amount: 0, charge: 2976},
		{why: "7 min: the hour not charged", down: down1("2026-03-08 03:00:00", "2026-03-08 03:07:00"), counted: 420, uptime: 99.9843, tier: 0, amount: 0, charge: 2972},
		// The minutes of one clock hour add up across outages: 03:00–03:04
		// and 03:30–03:33, seven minutes, the hour not charged (2,972.00,
		// (44,640 − 7) / 44,640 = 99.984319 %); 03:00–03:03 and 03:30–03:33,
		// six, charged (2,976.00, 99.986559 %).
		{why: "4 + 3 min in one hour: not charged", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:04:00"}, {"2026-03-08 03:30:00", "2026-03-08 03:33:00"}},
			counted: 420, uptime: 99.9843, tier: 0, amount: 0, charge: 2972},
		{why: "3 + 3 min in one hour: charged", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:03:00"}, {"2026-03-08 03:30:00", "2026-03-08 03:33:00"}},
			counted: 360, uptime: 99.9866, tier: 0, amount: 0, charge: 2976},
		// An outage across the hour is split by the clock: 03:54–04:06 is
		// six minutes in each hour, both charged (2,976.00, 12 min,
		// 99.973118 %); 03:53–04:07 seven in each, neither charged (742 h,
		// 2,968.00, 14 min, 99.968638 %).
		{why: "6 + 6 min across the hour: both charged", down: down1("2026-03-08 03:54:00", "2026-03-08 04:06:00"), counted: 720, uptime: 99.9731, tier: 0, amount: 0, charge: 2976},
		{why: "7 + 7 min across the hour: neither", down: down1("2026-03-08 03:53:00", "2026-03-08 04:07:00"), counted: 840, uptime: 99.9686, tier: 0, amount: 0, charge: 2968},
	}},
	{"clock-hour-partial", []edgeCase{
		// "will not charge you for any Single EC2 Instance that is Unavailable
		// for more than six minutes of a clockhour": what is not charged is the
		// instance's charge in that hour, not a whole hour's price. Launched
		// 31 March 17:28:30, down 17:30–17:37 (7 min): hour 17's 31 min 30 s
		// are not charged, 18:00–24:00 are, 6 h × 4.00 = 24.00 ((44,640 − 7) /
		// 44,640 = 99.984319 %); down 17:30–17:36, six minutes, all 6 h 31 min
		// 30 s charged, 26.10 (99.986559 %).
		{why: "launched 17:28:30, 7 min in hour 17: its 31 min 30 s not charged", delivered: "2026-03-31 17:28:30", down: down1("2026-03-31 17:30:00", "2026-03-31 17:37:00"),
			counted: 420, uptime: 99.9843, tier: 0, amount: 0, charge: 24},
		{why: "launched 17:28:30, 6 min in hour 17: charged", delivered: "2026-03-31 17:28:30", down: down1("2026-03-31 17:30:00", "2026-03-31 17:36:00"),
			counted: 360, uptime: 99.9866, tier: 0, amount: 0, charge: 26.1},
		// Terminated 16 March 12:30, down 12:10–12:17: hour 12's 30 min not
		// charged, 372 h × 4.00 = 1,488.00 (a whole hour's 4.00 taken off
		// would be 1,486.00); down 12:10–12:16, 372 h 30 min, 1,490.00.
		{why: "terminated 12:30, 7 min in hour 12", released: "2026-03-16 12:30:00", down: down1("2026-03-16 12:10:00", "2026-03-16 12:17:00"),
			counted: 420, uptime: 99.9843, tier: 0, amount: 0, charge: 1488},
		{why: "terminated 12:30, 6 min in hour 12", released: "2026-03-16 12:30:00", down: down1("2026-03-16 12:10:00", "2026-03-16 12:16:00"),
			counted: 360, uptime: 99.9866, tier: 0, amount: 0, charge: 1490},
	}},
	{"clock-hour-month-end", []edgeCase{
		// The hour 23:00 of 31 March is March's, 00:00 of 1 April April's:
		// down 23:53–00:07 is seven minutes in each, neither charged (March
		// 743 h, 2,972.00, (44,640 − 7) / 44,640 = 99.984319 %; April 719 h,
		// 2,876.00, (43,200 − 7) / 43,200 = 99.983796 %); 23:54–00:06, six in
		// each, both charged (2,976.00, 99.986559 %; 2,880.00, 99.986111 %).
		{why: "23:53–00:07: March's hour 23 not charged", down: down1("2026-03-31 23:53:00", "2026-04-01 00:07:00"), counted: 420, uptime: 99.9843, tier: 0, amount: 0, charge: 2972},
		{why: "23:53–00:07: April's hour 00 not charged", month: 4, down: down1("2026-03-31 23:53:00", "2026-04-01 00:07:00"), counted: 420, uptime: 99.9838, tier: 0, amount: 0, charge: 2876},
		{why: "23:54–00:06: March's charged", down: down1("2026-03-31 23:54:00", "2026-04-01 00:06:00"), counted: 360, uptime: 99.9866, tier: 0, amount: 0, charge: 2976},
		{why: "23:54–00:06: April's charged", month: 4, down: down1("2026-03-31 23:54:00", "2026-04-01 00:06:00"), counted: 360, uptime: 99.9861, tier: 0, amount: 0, charge: 2880},
	}},
	{"tiers", []edgeCase{
		// 446 min (8 clock hours waived: 2,944.00): 99.000896 %, 10 %, 294.40;
		// 447 min: 98.998656 %, 30 %, 883.20. 2,232 min (5 March 00:00 to 6
		// March 13:12, 38 hours waived: 2,824.00): 95.0000 %, 30 %, 847.20;
		// 2,233 min: 94.997760 %, 100 %, 2,824.00.
		{why: "446 min: 10 %", down: down1("2026-03-08 03:00:00", "2026-03-08 10:26:00"), counted: 26760, uptime: 99.0009, tier: 10, amount: 294.4, charge: 2944},
		{why: "447 min: 30 %", down: down1("2026-03-08 03:00:00", "2026-03-08 10:27:00"), counted: 26820, uptime: 98.9987, tier: 30, amount: 883.2, charge: 2944},
		{why: "2,232 min: 30 %", down: down1("2026-03-05 00:00:00", "2026-03-06 13:12:00"), counted: 133920, uptime: 95, tier: 30, amount: 847.2, charge: 2824},
		{why: "2,233 min: 100 %", down: down1("2026-03-05 00:00:00", "2026-03-06 13:13:00"), counted: 133980, uptime: 94.9978, tier: 100, amount: 2824, charge: 2824},
		// April's 43,200 minutes put the lines on whole minutes: 216 min is
		// exactly 99.5000 %, not "Less than 99.5%": met; 217, 99.497685 %,
		// 10 % of 720 h less 4 waived (03:00–06:37), 2,864.00: 286.40. 432
		// min is exactly 99.0000 %, "equal to or greater than 99.0%": 10 %
		// of 712 h (hours 03 to 10 waived), 2,848.00: 284.80; 433,
		// 98.997685 %, 30 % of the same 2,848.00: 854.40.
		{why: "April, 216 min: exactly 99.5 %, met", month: 4, down: down1("2026-04-08 03:00:00", "2026-04-08 06:36:00"), counted: 12960, uptime: 99.5, tier: 0, amount: 0},
		{why: "April, 217 min: 10 %", month: 4, down: down1("2026-04-08 03:00:00", "2026-04-08 06:37:00"), counted: 13020, uptime: 99.4977, tier: 10, amount: 286.4, charge: 2864},
		{why: "April, 432 min: exactly 99.0 %, 10 %", month: 4, down: down1("2026-04-08 03:00:00", "2026-04-08 10:12:00"), counted: 25920, uptime: 99, tier: 10, amount: 284.8, charge: 2848},
		{why: "April, 433 min: 30 %", month: 4, down: down1("2026-04-08 03:00:00", "2026-04-08 10:13:00"), counted: 25980, uptime: 98.9977, tier: 30, amount: 854.4, charge: 2848},
	}},
	{"february", []edgeCase{
		// February's 40,320 minutes: 0.5 % is 201.6 min. 201 min (03:00–
		// 06:21), (40,320 − 201) / 40,320 = 99.501488 %, met; 202 min,
		// 99.499008 %, 10 % of 672 h less the 4 hours waived, 2,672.00:
		// 267.20.
		{why: "201 min: met", month: 2, down: down1("2026-02-08 03:00:00", "2026-02-08 06:21:00"), counted: 12060, uptime: 99.5015, tier: 0, amount: 0, denominator: 2419200},
		{why: "202 min: 10 %", month: 2, down: down1("2026-02-08 03:00:00", "2026-02-08 06:22:00"), counted: 12120, uptime: 99.499, tier: 10, amount: 267.2, charge: 2672, denominator: 2419200},
	}},
	{"bill", []edgeCase{
		// "a percentage of the total charges paid by you … for the monthly
		// billing cycle": the instance's, all its GPUs. 224 min (four clock
		// hours waived, 740 h charged): one GPU at 4.00, 2,960.00, 10 % =
		// 296.00; eight GPUs, 740 × 32.00 = 23,680.00, 2,368.00.
		{why: "1 GPU", down: down1("2026-03-08 03:00:00", "2026-03-08 06:44:00"), counted: 13440, uptime: 99.4982, tier: 10, amount: 296, charge: 2960},
		{why: "8 GPUs", gpus: 8, down: down1("2026-03-08 03:00:00", "2026-03-08 06:44:00"), counted: 13440, uptime: 99.4982, tier: 10, amount: 2368, charge: 23680},
	}},
	{"no-maintenance", []edgeCase{
		// The Compute SLA publishes no maintenance exclusion (maintenance:
		// none): 30 min down inside a window announced a week ahead count as
		// they would without it, 99.932796 %.
		{why: "announced window", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: down1("2026-03-10 01:00:00", "2026-03-10 01:30:00"), counted: 1800, uptime: 99.9328, tier: 0, amount: 0},
		{why: "no window", down: down1("2026-03-10 01:00:00", "2026-03-10 01:30:00"), counted: 1800, uptime: 99.9328, tier: 0, amount: 0},
		// Nothing down inside the window, the 30 min outside it: the window
		// takes nothing out of the month either, 2,678,400 s.
		{why: "window, nothing down in it", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: down1("2026-03-12 01:00:00", "2026-03-12 01:30:00"), counted: 1800, uptime: 99.9328, tier: 0, amount: 0, denominator: 2678400},
	}},
	{"across-month-end", []edgeCase{
		// To the second, each second in its month: 31 March 23:59:00 to 1
		// April 00:01:00 is 60 s in March ((2,678,400 − 60) / 2,678,400 =
		// 99.997760 %) and 60 s in April ((2,592,000 − 60) / 2,592,000 =
		// 99.997685 %).
		{why: "March's 60 s", down: down1("2026-03-31 23:59:00", "2026-04-01 00:01:00"), counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		{why: "April's 60 s", month: 4, down: down1("2026-03-31 23:59:00", "2026-04-01 00:01:00"), counted: 60, uptime: 99.9977, tier: 0, amount: 0},
		// Off the minute: 23:59:30 to 00:01:30 holds one whole clock minute,
		// 00:00, in April (99.997685 %); March's 30 s are no minute.
		{why: "23:59:30–00:01:30: nothing in March", down: down1("2026-03-31 23:59:30", "2026-04-01 00:01:30"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "23:59:30–00:01:30: April's 00:00", month: 4, down: down1("2026-03-31 23:59:30", "2026-04-01 00:01:30"), counted: 60, uptime: 99.9977, tier: 0, amount: 0},
	}},
	{"calendar-month", []edgeCase{
		// "the percentage of minutes during the month": every minute of the
		// billing cycle, whenever the instance was launched. Delivered 16
		// March 12:00, 224 min down (03:00–06:44) read (44,640 − 224) /
		// 44,640 = 99.498208 %, 10 % of 372 h less the four clock hours
		// waived, 368 h, 1,472.00: 147.20 (by the instance's own 15.5 days it
		// would read 98.996416 %, the 30 % tier); 223 min, 99.500448 %, met.
		{why: "delivered 16 March 12:00, 224 min", delivered: "2026-03-16 12:00:00", down: down1("2026-03-20 03:00:00", "2026-03-20 06:44:00"), counted: 13440, uptime: 99.4982,
			tier: 10, amount: 147.2, charge: 1472, denominator: 2678400},
		{why: "delivered 16 March 12:00, 223 min", delivered: "2026-03-16 12:00:00", down: down1("2026-03-20 03:00:00", "2026-03-20 06:43:00"), counted: 13380, uptime: 99.5004,
			tier: 0, amount: 0, charge: 1472, denominator: 2678400},
		// Terminated mid-month: released 16 March 12:00 after 224 min down on
		// the 8th, still over the month's 2,678,400 s: 99.498208 %, 10 % of
		// 372 h less the four hours waived, 1,472.00: 147.20.
		{why: "released 16 March 12:00, 224 min", released: "2026-03-16 12:00:00", down: down1("2026-03-08 03:00:00", "2026-03-08 06:44:00"), counted: 13440, uptime: 99.4982,
			tier: 10, amount: 147.2, charge: 1472, denominator: 2678400},
	}},
	{"one-dollar", []edgeCase{
		// "issued only if the credit amount for the applicable monthly
		// billing cycle is greater than one dollar ($1 USD)": delivered 31
		// March 17:30, down 20:00–23:44 (224 min, 99.498208 %, 10 %); the
		// hours from 20:00 are waived, 17:30–20:00 charged, 10.00; 10 % is
		// 1.00, not greater than a dollar: no credit, a notice of breach.
		// Delivered at 17:00: 12.00, 1.20, requested.
		{why: "1.00: not issued", delivered: "2026-03-31 17:30:00", down: down1("2026-03-31 20:00:00", "2026-03-31 23:44:00"), counted: 13440, uptime: 99.4982, tier: 10, amount: 0,
			charge: 10, letter: LetterNotice},
		// Delivered at 17:29:24: 2 h 30 min 36 s = 2.51 h charged, 10.04;
		// 10 % is 1.004, claimed truncated as 1.00, which is not greater
		// than a dollar: no credit (approximations[0]: compared before it
		// is rounded, 1.004 is greater, and AWS may issue it).
		{why: "1.004: claimed as 1.00, not issued", delivered: "2026-03-31 17:29:24", down: down1("2026-03-31 20:00:00", "2026-03-31 23:44:00"), counted: 13440, uptime: 99.4982, tier: 10, amount: 0,
			charge: 10.04, letter: LetterNotice},
		// Delivered at 17:28:30: 2 h 31 min 30 s charged, 10.10; 1.01 is
		// greater than a dollar: requested.
		{why: "1.01: requested", delivered: "2026-03-31 17:28:30", down: down1("2026-03-31 20:00:00", "2026-03-31 23:44:00"), counted: 13440, uptime: 99.4982, tier: 10, amount: 1.01,
			charge: 10.1, letter: LetterRequest},
		{why: "1.20: requested", delivered: "2026-03-31 17:00:00", down: down1("2026-03-31 20:00:00", "2026-03-31 23:44:00"), counted: 13440, uptime: 99.4982, tier: 10, amount: 1.2,
			charge: 12, letter: LetterRequest},
	}},
	{"claim-window", []edgeCase{
		// "by the end of the second billing cycle after which the incident
		// occurred": March's claim by 1 June 00:00, April's by 1 July.
		{why: "March", down: down1("2026-03-08 03:00:00", "2026-03-08 06:44:00"), counted: 13440, uptime: 99.4982, tier: 10, amount: 296, deadline: "2026-06-01T00:00:00Z", letter: LetterRequest},
		{why: "April", month: 4, down: down1("2026-04-08 03:00:00", "2026-04-08 06:44:00"), counted: 13440, uptime: 99.4815, tier: 10, amount: 286.4, deadline: "2026-07-01T00:00:00Z"},
		// The incident's billing cycle, not the month counted (claim.from:
		// incident): down 31 March 23:00 to 1 April 03:37, April's 217 min
		// ((43,200 − 217) / 43,200 = 99.497685 %, 10 % of 716 h charged,
		// 2,864.00: 286.40) occurred in an incident that began in March, so
		// April's claim too is due by the end of May, before 1 June; down
		// from 1 April 00:00, the same 217 min are due before 1 July.
		{why: "April, the incident begun in March", month: 4, down: down1("2026-03-31 23:00:00", "2026-04-01 03:37:00"), counted: 13020, uptime: 99.4977, tier: 10, amount: 286.4,
			deadline: "2026-06-01T00:00:00Z"},
		{why: "April, the incident begun in April", month: 4, down: down1("2026-04-01 00:00:00", "2026-04-01 03:37:00"), counted: 13020, uptime: 99.4977, tier: 10, amount: 286.4,
			deadline: "2026-07-01T00:00:00Z"},
		// An incident begun in February: down 28 February 20:00 to 1 March
		// 03:45, March's 225 min ((44,640 − 225) / 44,640 = 99.495968 %; hours
		// 00 to 03 not charged, 740 h, 2,960.00; 10 % 296.00) are due by the
		// end of April, before 1 May, not 1 June.
		{why: "March, the incident begun in February", down: down1("2026-02-28 20:00:00", "2026-03-01 03:45:00"), counted: 13500, uptime: 99.496, tier: 10, amount: 296,
			charge: 2960, deadline: "2026-05-01T00:00:00Z"},
		// Across the year the other way: an incident begun on 31 December
		// 2025 at 23:00, January 2026's 225 min (00:00–03:45, the same
		// 99.495968 %, 740 h charged, 296.00) due by the end of February,
		// before 1 March 2026.
		{why: "January, the incident begun in December", month: 1, down: down1("2025-12-31 23:00:00", "2026-01-01 03:45:00"), counted: 13500, uptime: 99.496, tier: 10, amount: 296,
			charge: 2960, deadline: "2026-03-01T00:00:00Z"},
		// Across the year: December's claim by the end of February 2027.
		{why: "December", month: 12, down: down1("2026-12-08 03:00:00", "2026-12-08 06:44:00"), counted: 13440, uptime: 99.4982, tier: 10, amount: 296, charge: 2960,
			deadline: "2027-03-01T00:00:00Z"},
	}},
}

// Google Compute Engine, a single instance (gce-single-instance.yaml), US
// Pacific time (approximations[1]): March 2026 runs from 1 March 00:00 PST
// to 1 April 00:00 PDT, 743 h (44,580 min, 2,674,800 s; 0.1 % is 44.58
// min), DST from 8 March 02:00. One GPU at 3.50 USD an hour: March's charge
// 743 × 3.50 = 2,600.50 (10 % 260.05, 25 % 650.125 truncated to 650.12, 100 % 2,600.50).
var gceEdges = []edge{
	{"target", []edgeCase{
		// ">= 99.9%": 44 min, (44,580 − 44) / 44,580 = 99.901301 %, met; 45
		// min, 99.899058 %, 10 %, 260.05.
		{why: "44 min: met", down: down1("2026-03-10 03:00:00", "2026-03-10 03:44:00"), counted: 2640, uptime: 99.9013, tier: 0, amount: 0},
		{why: "45 min: 10 %", down: down1("2026-03-10 03:00:00", "2026-03-10 03:45:00"), counted: 2700, uptime: 99.8991, tier: 10, amount: 260.05, charge: 2600.5},
	}},
	{"unavailable", []edgeCase{
		// "loss of external connectivity … for the Single Instance": 10 min,
		// 99.977568 %; a GPU lost on a reachable instance is no Downtime.
		{why: "unreachable 10 min", down: down1("2026-03-10 03:00:00", "2026-03-10 03:10:00"), counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "GPU lost 10 min, reachable", lost: down1("2026-03-10 03:00:00", "2026-03-10 03:10:00"), counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"downtime-period", []edgeCase{
		// "one or more consecutive minutes … Partial minutes or intermittent
		// Downtime for a period of less than one minute will not be counted":
		// 59 s nothing; 60 s one minute (99.997757 %); 4 min 59 s four
		// (99.991027 %).
		{why: "59 s", down: down1("2026-03-10 03:00:00", "2026-03-10 03:00:59"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "60 s", down: down1("2026-03-10 03:00:00", "2026-03-10 03:01:00"), counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		{why: "4 min 59 s", down: down1("2026-03-10 03:00:00", "2026-03-10 03:04:59"), counted: 240, uptime: 99.991, tier: 0, amount: 0},
	}},
	{"clock-minutes", []edgeCase{
		// "Partial minutes … will not be counted", read on the clock
		// (approximations[0]: Google may count a period's minutes from its
		// first second, a minute a run more at most). 03:00:30–03:01:40, 70 s,
		// holds no whole clock minute: nothing; 03:00:30–03:03:10 holds 03:01
		// and 03:02, 120 s, 99.995514 %.
		{why: "70 s off the minute: nothing", down: down1("2026-03-10 03:00:30", "2026-03-10 03:01:40"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "2 min 40 s off the minute: two", down: down1("2026-03-10 03:00:30", "2026-03-10 03:03:10"), counted: 120, uptime: 99.9955, tier: 0, amount: 0, approximateDown: 60},
		// The seconds at hh:mm:59 and hh:mm:00: 03:00:59 to 03:02:00 holds
		// 03:01 whole, 60 s (99.9978 %); 03:00:59 to 03:01:59, sixty seconds
		// long, holds no clock minute whole: nothing; 03:01:00 to 03:01:59,
		// 59 s: nothing; 03:01:00 to 03:02:00: 60 s.
		{why: "03:00:59–03:02:00: 03:01", down: down1("2026-03-10 03:00:59", "2026-03-10 03:02:00"), counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		{why: "03:00:59–03:01:59: nothing", down: down1("2026-03-10 03:00:59", "2026-03-10 03:01:59"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "03:01:00–03:01:59: nothing", down: down1("2026-03-10 03:01:00", "2026-03-10 03:01:59"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "03:01:00–03:02:00: 03:01", down: down1("2026-03-10 03:01:00", "2026-03-10 03:02:00"), counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		// At the SLO: 03:00:30–03:45:30 is 45 min to the second but 44
		// whole clock minutes (03:01–03:44), 99.901301 %, met — the tier may
		// differ under the other reading; 03:00:30–03:46:00 holds 45,
		// 99.899058 %, 10 %, 260.05.
		{why: "45 min off the minute: 44, met", down: down1("2026-03-10 03:00:30", "2026-03-10 03:45:30"), counted: 2640, uptime: 99.9013, tier: 0, amount: 0,
			approximateDown: 60, checkTierDiffers: true, tierMayDiffer: true},
		{why: "45 whole clock minutes: 10 %", down: down1("2026-03-10 03:00:30", "2026-03-10 03:46:00"), counted: 2700, uptime: 99.8991, tier: 10, amount: 260.05},
	}},
	{"per-period", []edgeCase{
		// "the number of minutes of Downtime suffered from all Downtime
		// Periods": each period's partial minute is left out before they are
		// added. 03:00–03:22:30 on the 10th and on the 11th, 45 min to the
		// second, are 22 + 22 = 44 min, 99.901301 %, met; 22 + 23 = 45,
		// 99.899058 %, 10 %, 260.05.
		{why: "22 min 30 s twice: 44 min, met", down: [][2]string{{"2026-03-10 03:00:00", "2026-03-10 03:22:30"}, {"2026-03-11 03:00:00", "2026-03-11 03:22:30"}},
			counted: 2640, uptime: 99.9013, tier: 0, amount: 0},
		{why: "22 min 30 s and 23 min: 45, 10 %", down: [][2]string{{"2026-03-10 03:00:00", "2026-03-10 03:22:30"}, {"2026-03-11 03:00:00", "2026-03-11 03:23:00"}},
			counted: 2700, uptime: 99.8991, tier: 10, amount: 260.05},
		// "intermittent Downtime for a period of less than one minute": three
		// 59 s runs two minutes apart count nothing.
		{why: "three 59 s runs: nothing", down: [][2]string{{"2026-03-10 03:00:00", "2026-03-10 03:00:59"}, {"2026-03-10 03:02:00", "2026-03-10 03:02:59"},
			{"2026-03-10 03:04:00", "2026-03-10 03:04:59"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"across-month-end", []edgeCase{
		// Each clock minute in its month: 31 March 23:59:00 to 1 April
		// 00:01:00 Pacific is 23:59 in March ((2,674,800 − 60) / 2,674,800 =
		// 99.997757 %) and 00:00 in April ((2,592,000 − 60) / 2,592,000 =
		// 99.997685 %); 23:59:30 to 00:00:30, a minute long, holds no whole
		// clock minute on either side.
		{why: "23:59–00:01: March's 23:59", down: down1("2026-03-31 23:59:00", "2026-04-01 00:01:00"), counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		{why: "23:59–00:01: April's 00:00", month: 4, down: down1("2026-03-31 23:59:00", "2026-04-01 00:01:00"), counted: 60, uptime: 99.9977, tier: 0, amount: 0},
		{why: "23:59:30–00:00:30: nothing in March", down: down1("2026-03-31 23:59:30", "2026-04-01 00:00:30"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "23:59:30–00:00:30: nothing in April", month: 4, down: down1("2026-03-31 23:59:30", "2026-04-01 00:00:30"), counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"dst-day", []edgeCase{
		// The day the clocks go forward, 8 March (02:00 PST is 03:00 PDT): a
		// Downtime Period's minutes are the ones that passed, not the wall
		// clock's difference. 01:40 PST to 03:24 PDT is 20 + 24 = 44 min,
		// (44,580 − 44) / 44,580 = 99.901301 %, met; to 03:25, 45 min,
		// 99.899058 %, 10 %, 260.05 (by the wall clock, 104 and 105).
		{why: "8 March 01:40–03:24: 44 min, met", down: down1("2026-03-08 01:40:00", "2026-03-08 03:24:00"), counted: 2640, uptime: 99.9013, tier: 0, amount: 0},
		{why: "8 March 01:40–03:25: 45 min, 10 %", down: down1("2026-03-08 01:40:00", "2026-03-08 03:25:00"), counted: 2700, uptime: 99.8991, tier: 10, amount: 260.05},
		// The day they go back, 1 November (02:00 PDT is 01:00 PST): 00:30 PDT
		// to 02:00 PST is 30 + 60 + 60 = 150 min (by the wall clock, 90),
		// (43,260 − 150) / 43,260 = 99.653259 %, 10 % of 2,523.50: 252.35.
		// The same day's line: 00:00 to 00:43 PDT, 43 min, 99.900601 %, met;
		// to 00:44, 44 min, 99.898289 %, 10 %.
		{why: "1 November 00:30 PDT–02:00 PST: 150 min", month: 11, down: down1("2026-11-01 00:30:00", "2026-11-01 02:00:00"), counted: 9000, uptime: 99.6533, tier: 10, amount: 252.35,
			charge: 2523.5, denominator: 2595600},
		{why: "1 November 00:00–00:43: 43 min, met", month: 11, down: down1("2026-11-01 00:00:00", "2026-11-01 00:43:00"), counted: 2580, uptime: 99.9006, tier: 0, amount: 0},
		{why: "1 November 00:00–00:44: 44 min, 10 %", month: 11, down: down1("2026-11-01 00:00:00", "2026-11-01 00:44:00"), counted: 2640, uptime: 99.8983, tier: 10, amount: 252.35},
	}},
	{"pacific-month", []edgeCase{
		// The month ends at midnight Pacific, 07:00 UTC: 31 March 23:30 to 1
		// April 00:30 PDT (1 April 06:30–07:30 UTC, April's whole in UTC) is
		// 30 min in March ((44,580 − 30) / 44,580 = 99.932705 %) and 30 in
		// April ((43,200 − 30) / 43,200 = 99.930556 %).
		{why: "March's 30 min", down: down1("2026-03-31 23:30:00", "2026-04-01 00:30:00"), counted: 1800, uptime: 99.9327, tier: 0, amount: 0},
		{why: "April's 30 min", month: 4, down: down1("2026-03-31 23:30:00", "2026-04-01 00:30:00"), counted: 1800, uptime: 99.9306, tier: 0, amount: 0},
		// November ends DST: 721 h (43,260 min; 0.1 % is 43.26 min). 43 min,
		// (43,260 − 43) / 43,260 = 99.900601 %, met; 44, 99.898289 %, 10 %
		// of 721 × 3.50 = 2,523.50: 252.35.
		{why: "November, 43 min: met", month: 11, down: down1("2026-11-10 03:00:00", "2026-11-10 03:43:00"), counted: 2580, uptime: 99.9006, tier: 0, amount: 0, denominator: 2595600},
		{why: "November, 44 min: 10 %", month: 11, down: down1("2026-11-10 03:00:00", "2026-11-10 03:44:00"), counted: 2640, uptime: 99.8983, tier: 10, amount: 252.35, charge: 2523.5,
			denominator: 2595600},
	}},
	{"tiers", []edgeCase{
		// The Single Instance table: "95.00% – < 99.90% 10%, 90.00% – <
		// 95.00% 25%, < 90.00% 100%". 447 min, 98.997308 %, still 10 %
		// (260.05: the multi-zone table's 25 % below 99 % is not the single
		// instance's); 2,229 min (5 % of 44,580), exactly 95.0000 %, 10 %;
		// 2,230, 94.997757 %, 25 %, 650.12 (650.125); 4,458 min, exactly 90.0000 %,
		// 25 %; 4,459, 89.997757 %, 100 %, 2,600.50.
		{why: "447 min: 10 %", down: down1("2026-03-10 03:00:00", "2026-03-10 10:27:00"), counted: 26820, uptime: 98.9973, tier: 10, amount: 260.05},
		{why: "2,229 min: exactly 95 %, 10 %", down: down1("2026-03-10 00:00:00", "2026-03-11 13:09:00"), counted: 133740, uptime: 95, tier: 10, amount: 260.05},
		{why: "2,230 min: 25 %", down: down1("2026-03-10 00:00:00", "2026-03-11 13:10:00"), counted: 133800, uptime: 94.9978, tier: 25, amount: 650.12},
		{why: "4,458 min: exactly 90 %, 25 %", down: down1("2026-03-10 00:00:00", "2026-03-13 02:18:00"), counted: 267480, uptime: 90, tier: 25, amount: 650.12},
		{why: "4,459 min: 100 %", down: down1("2026-03-10 00:00:00", "2026-03-13 02:19:00"), counted: 267540, uptime: 89.9978, tier: 100, amount: 2600.5},
	}},
	{"february", []edgeCase{
		// February's 40,320 minutes: 0.1 % is 40.32 min. 40 min,
		// (40,320 − 40) / 40,320 = 99.900794 %, met; 41 min, 99.898313 %,
		// 10 % of 672 h × 3.50 = 2,352.00: 235.20.
		{why: "40 min: met", month: 2, down: down1("2026-02-08 03:00:00", "2026-02-08 03:40:00"), counted: 2400, uptime: 99.9008, tier: 0, amount: 0, denominator: 2419200},
		{why: "41 min: 10 %", month: 2, down: down1("2026-02-08 03:00:00", "2026-02-08 03:41:00"), counted: 2460, uptime: 99.8983, tier: 10, amount: 235.2, charge: 2352, denominator: 2419200},
	}},
	{"no-maintenance", []edgeCase{
		// No maintenance exclusion is published: 30 min inside an announced
		// window count, 99.932705 %; a window with nothing down in it takes
		// nothing out of the month.
		{why: "announced window", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: down1("2026-03-10 01:00:00", "2026-03-10 01:30:00"), counted: 1800, uptime: 99.9327, tier: 0, amount: 0},
		{why: "no window", down: down1("2026-03-10 01:00:00", "2026-03-10 01:30:00"), counted: 1800, uptime: 99.9327, tier: 0, amount: 0},
		{why: "window, nothing down in it", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: down1("2026-03-12 01:00:00", "2026-03-12 01:30:00"), counted: 1800, uptime: 99.9327, tier: 0, amount: 0, denominator: 2674800},
	}},
	{"calendar-month", []edgeCase{
		// "Monthly Uptime Percentage and Financial Credit are determined on a
		// calendar month basis … for a Single Instance, per instance": 20 h
		// down is (44,580 − 1,200) / 44,580 = 97.308210 %, 10 %, whether the
		// instance came at 16 March 12:00 (charged 372 h: 1,302.00, 10 % =
		// 130.20) or before the month (260.05). By its service period from
		// the 16th at noon it would read (1,339,200 − 72,000) / 1,339,200 =
		// 94.623656 %, the 25 % tier.
		{why: "delivered 16 March 12:00", delivered: "2026-03-16 12:00:00", down: down1("2026-03-20 03:00:00", "2026-03-20 23:00:00"),
			counted: 72000, uptime: 97.3082, tier: 10, amount: 130.2, charge: 1302, denominator: 2674800},
		{why: "delivered before", down: down1("2026-03-20 03:00:00", "2026-03-20 23:00:00"), counted: 72000, uptime: 97.3082, tier: 10, amount: 260.05, denominator: 2674800},
		// Deleted mid-month: released 16 March 12:00 after 45 min down on the
		// 10th, still over the month's minutes, 99.899058 %, 10 % of 371 h
		// (the hour DST took on the 8th is no hour of service), 1,298.50:
		// 129.85.
		{why: "released 16 March 12:00", released: "2026-03-16 12:00:00", down: down1("2026-03-10 03:00:00", "2026-03-10 03:45:00"), counted: 2700, uptime: 99.8991, tier: 10, amount: 129.85,
			charge: 1298.5, denominator: 2674800},
	}},
	{"claim-window", []edgeCase{
		// "These notifications must be submitted within 30 days from the time
		// the customer becomes eligible to receive a financial credit": the
		// month's figure is known when it ends, so March's claim by 1 May
		// 00:00 PDT, April's ((43,200 − 45) / 43,200 = 99.895833 %, 10 % of
		// 720 × 3.50 = 2,520.00: 252.00) by 31 May 00:00 PDT.
		{why: "March", down: down1("2026-03-10 03:00:00", "2026-03-10 03:45:00"), counted: 2700, uptime: 99.8991, tier: 10, amount: 260.05, deadline: "2026-05-01T00:00:00-07:00",
			letter: LetterRequest},
		{why: "April", month: 4, down: down1("2026-04-08 03:00:00", "2026-04-08 03:45:00"), counted: 2700, uptime: 99.8958, tier: 10, amount: 252, deadline: "2026-05-31T00:00:00-07:00"},
		// The 30 days are calendar days in Pacific time, across a clock
		// change: February's ((40,320 − 41) / 40,320 = 99.898313 %, 235.20)
		// from 1 March 00:00 PST to 31 March 00:00 PDT (29 days 23 h of real
		// time, not 30 × 24 h, which would end at 01:00 PDT); October's (744 h,
		// (44,640 − 45) / 44,640 = 99.899194 %, 10 % of 2,604.00: 260.40) from
		// 1 November 00:00 PDT to 1 December 00:00 PST (30 days 1 h).
		{why: "February, across the change to PDT", month: 2, down: down1("2026-02-08 03:00:00", "2026-02-08 03:41:00"), counted: 2460, uptime: 99.8983, tier: 10, amount: 235.2,
			deadline: "2026-03-31T00:00:00-07:00"},
		{why: "October, across the change to PST", month: 10, down: down1("2026-10-08 03:00:00", "2026-10-08 03:45:00"), counted: 2700, uptime: 99.8992, tier: 10, amount: 260.4,
			deadline: "2026-12-01T00:00:00-08:00"},
	}},
}

// UCloud Compute (ucloud-sdu.yaml), Copenhagen: March 2026 has 743 h
// (summer time from the 29th), 44,580 min, the denominator whatever the
// service; one GPU at 10.00 DKK an hour, 7,430.00.
var ucloudEdges = []edge{
	{"target", []edgeCase{
		// ">= 85%": 6,687 min, (44,580 − 6,687) / 44,580 = 85.0000 %, met;
		// 6,688, 84.997757 %, "80% – < 85%: 10%", 743.00.
		{why: "6,687 min: met", down: down1("2026-03-05 00:00:00", "2026-03-09 15:27:00"), counted: 401220, uptime: 85, tier: 0, amount: 0},
		{why: "6,688 min: 10 %", down: down1("2026-03-05 00:00:00", "2026-03-09 15:28:00"), counted: 401280, uptime: 84.9978, tier: 10, amount: 743},
	}},
	{"unavailable", []edgeCase{
		// "loss of connectivity to Instances".
		{why: "unreachable 10 min", down: down1("2026-03-08 03:00:00", "2026-03-08 03:10:00"), counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "GPU lost 10 min, reachable", lost: down1("2026-03-08 03:00:00", "2026-03-08 03:10:00"), counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"downtime-period", []edgeCase{
		// "one or more consecutive minutes … Partial minutes … will not be
		// counted": 59 s nothing; 60 s one minute ((2,674,800 − 60) / 2,674,800
		// = 99.997757 %); 4 min 59 s four (99.991027 %).
		{why: "59 s", down: down1("2026-03-08 03:00:00", "2026-03-08 03:00:59"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "60 s", down: down1("2026-03-08 03:00:00", "2026-03-08 03:01:00"), counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		{why: "4 min 59 s", down: down1("2026-03-08 03:00:00", "2026-03-08 03:04:59"), counted: 240, uptime: 99.991, tier: 0, amount: 0},
	}},
	{"calendar-month", []edgeCase{
		// "total number of minutes in a month": delivered on the 16th at 12:00
		// (charged 371 h, summer time from the 29th: 3,710.00) or before, 60 h
		// down read (44,580 − 3,600) / 44,580 = 91.924630 % over the month's
		// 2,674,800 s; by the service period from the 16th at noon it would
		// read 83.8 %, the 10 % tier.
		{why: "delivered 16 March 12:00", delivered: "2026-03-16 12:00:00", down: down1("2026-03-20 00:00:00", "2026-03-22 12:00:00"), counted: 216000, uptime: 91.9246, tier: 0, amount: 0,
			charge: 3710, denominator: 2674800},
		{why: "delivered before", down: down1("2026-03-20 00:00:00", "2026-03-22 12:00:00"), counted: 216000, uptime: 91.9246, tier: 0, amount: 0, denominator: 2674800},
	}},
	{"no-maintenance", []edgeCase{
		// The text read names no maintenance exclusion (the file has no
		// maintenance section: none excluded): 30 min inside an announced
		// window count, (2,674,800 − 1,800) / 2,674,800 = 99.932705 %; a window
		// with nothing down in it leaves the month's 2,674,800 s whole.
		{why: "announced window", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: down1("2026-03-10 01:00:00", "2026-03-10 01:30:00"), counted: 1800, uptime: 99.9327, tier: 0, amount: 0},
		{why: "window, nothing down in it", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: down1("2026-03-12 01:00:00", "2026-03-12 01:30:00"), counted: 1800, uptime: 99.9327, tier: 0, amount: 0, denominator: 2674800},
	}},
	{"clock-minutes", []edgeCase{
		// "Partial minutes … will not be counted", read on the clock
		// (approximations[1]: SDU may count a period's minutes from its first
		// second, a minute a run more at most). 70 s from 03:00:30 holds no
		// whole clock minute: nothing; 70 s from 03:00:00 holds 03:00,
		// (44,580 − 1) / 44,580 = 99.997757 %.
		{why: "70 s from 03:00:30: nothing", down: down1("2026-03-08 03:00:30", "2026-03-08 03:01:40"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "70 s from 03:00:00: one", down: down1("2026-03-08 03:00:00", "2026-03-08 03:01:10"), counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		// At the target: 5 March 00:00:30 to 9 March 15:28:30 is 6,688 min to
		// the second but 6,687 whole clock minutes (00:01–15:27), 85.0000 %,
		// met — the tier may differ under the other reading; to 15:29:00 it
		// holds 6,688, 84.997757 %, 10 %, 743.00.
		{why: "6,688 min off the minute: 6,687, met", down: down1("2026-03-05 00:00:30", "2026-03-09 15:28:30"), counted: 401220, uptime: 85, tier: 0, amount: 0,
			approximateDown: 60, checkTierDiffers: true, tierMayDiffer: true},
		{why: "6,688 whole clock minutes: 10 %", down: down1("2026-03-05 00:00:30", "2026-03-09 15:29:00"), counted: 401280, uptime: 84.9978, tier: 10, amount: 743,
			approximateDown: 60, checkTierDiffers: true, tierMayDiffer: false},
		// At the 80 % line: 2 March 00:00:30 to 8 March 04:37:30 holds 8,916
		// whole clock minutes, 80.0000 %, 10 %, 743.00 (the tier may differ);
		// to 04:38:00, 8,917, 79.997757 %, 25 %, 1,857.50.
		{why: "8,917 min off the minute: 8,916, 10 %", down: down1("2026-03-02 00:00:30", "2026-03-08 04:37:30"), counted: 534960, uptime: 80, tier: 10, amount: 743,
			approximateDown: 60, checkTierDiffers: true, tierMayDiffer: true},
		{why: "8,917 whole clock minutes: 25 %", down: down1("2026-03-02 00:00:30", "2026-03-08 04:38:00"), counted: 535020, uptime: 79.9978, tier: 25, amount: 1857.5},
	}},
	{"across-month-end", []edgeCase{
		// Each whole clock minute in its Copenhagen month: 31 March 23:59:00
		// to 1 April 00:01:00 (+02:00) is 23:59 in March ((44,580 − 1) /
		// 44,580 = 99.997757 %) and 00:00 in April ((43,200 − 1) / 43,200 =
		// 99.997685 %); 23:59:30 to 00:00:30, a minute long, holds no whole
		// clock minute on either side.
		{why: "23:59–00:01: March's 23:59", down: down1("2026-03-31 23:59:00", "2026-04-01 00:01:00"), counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		{why: "23:59–00:01: April's 00:00", month: 4, down: down1("2026-03-31 23:59:00", "2026-04-01 00:01:00"), counted: 60, uptime: 99.9977, tier: 0, amount: 0},
		{why: "23:59:30–00:00:30: nothing in March", down: down1("2026-03-31 23:59:30", "2026-04-01 00:00:30"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "23:59:30–00:00:30: nothing in April", month: 4, down: down1("2026-03-31 23:59:30", "2026-04-01 00:00:30"), counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"tiers", []edgeCase{
		// 8,916 min: 80.0000 %, 10 %; 8,917: 79.997757 %, 25 %, 1,857.50; 11,145:
		// 75.0000 %, 25 %; 11,146: 74.997757 %, 50 %, 3,715.00.
		{why: "8,916 min: 10 %", down: down1("2026-03-02 00:00:00", "2026-03-08 04:36:00"), counted: 534960, uptime: 80, tier: 10, amount: 743},
		{why: "8,917 min: 25 %", down: down1("2026-03-02 00:00:00", "2026-03-08 04:37:00"), counted: 535020, uptime: 79.9978, tier: 25, amount: 1857.5},
		{why: "11,145 min: 25 %", down: down1("2026-03-02 00:00:00", "2026-03-09 17:45:00"), counted: 668700, uptime: 75, tier: 25, amount: 1857.5},
		{why: "11,146 min: 50 %", down: down1("2026-03-02 00:00:00", "2026-03-09 17:46:00"), counted: 668760, uptime: 74.9978, tier: 50, amount: 3715},
	}},
	{"claim-window", []edgeCase{
		// Not in the text read: 30 days after the month (assumption).
		{why: "March", down: down1("2026-03-05 00:00:00", "2026-03-09 15:28:00"), counted: 401280, uptime: 84.9978, tier: 10, amount: 743, deadline: "2026-05-01T00:00:00+02:00"},
		{why: "April", month: 4, down: down1("2026-04-05 00:00:00", "2026-04-09 12:01:00"), counted: 388860, uptime: 84.9977, tier: 10, amount: 720, deadline: "2026-05-31T00:00:00+02:00"},
	}},
	{"each-downtime-period", []edgeCase{
		// "the number of minutes of Downtime suffered from all Downtime
		// Periods": each period's whole minutes, then summed: two of 1 min 59 s
		// are 1 + 1 = 2 min ((44,580 − 2) / 44,580 = 99.995514 %); one of 3 min
		// 58 s is 3 (99.993271 %).
		{why: "two of 1 min 59 s: 2 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:01:59"}, {"2026-03-09 03:00:00", "2026-03-09 03:01:59"}}, counted: 120, uptime: 99.9955, tier: 0, amount: 0},
		{why: "one of 3 min 58 s: 3 min", down: down1("2026-03-08 03:00:00", "2026-03-08 03:03:58"), counted: 180, uptime: 99.9933, tier: 0, amount: 0},
	}},
	{"february", []edgeCase{
		// February: 40,320 min (no clock change). 6,048 min: 85.0000 %, met;
		// 6,049: 84.997520 %, 10 % of 672 h × 10.00 = 6,720.00: 672.00.
		{why: "6,048 min: met", month: 2, down: down1("2026-02-10 00:00:00", "2026-02-14 04:48:00"), counted: 362880, uptime: 85, tier: 0, amount: 0, denominator: 2419200},
		{why: "6,049 min: 10 %", month: 2, down: down1("2026-02-10 00:00:00", "2026-02-14 04:49:00"), counted: 362940, uptime: 84.9975, tier: 10, amount: 672, charge: 6720, denominator: 2419200},
	}},
	{"clock-change", []edgeCase{
		// "total number of minutes in a month" as they elapse in Copenhagen
		// (approximations[0]): October 2026 has 31 × 1,440 + 60 = 44,700 (winter
		// time from the 25th), March 44,580 (see target). October: 6,705 min,
		// 85.0000 %, met; 6,706, 84.997763 %, 10 % of 745 h × 10.00 = 7,450.00:
		// 745.00 (by 44,640 minutes it would be 84.977599 % already at 6,697).
		{why: "October, 6,705 min: met", month: 10, down: down1("2026-10-05 00:00:00", "2026-10-09 15:45:00"), counted: 402300, uptime: 85, tier: 0, amount: 0, denominator: 2682000},
		{why: "October, 6,706 min: 10 %", month: 10, down: down1("2026-10-05 00:00:00", "2026-10-09 15:46:00"), counted: 402360, uptime: 84.9978, tier: 10, amount: 745, charge: 7450, denominator: 2682000},
	}},
	{"copenhagen-month-end", []edgeCase{
		// The month in Copenhagen time: 1 April 01:30 to 02:30 (+02:00; 31
		// March 23:30 to 1 April 00:30 UTC, across the month's end in UTC) is
		// April's 60 min alone, (43,200 − 60) / 43,200 = 99.861111 %; nothing
		// in March.
		{why: "01:30–02:30 on 1 April: nothing in March", down: down1("2026-04-01 01:30:00", "2026-04-01 02:30:00"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "01:30–02:30 on 1 April: April's 60 min", month: 4, down: down1("2026-04-01 01:30:00", "2026-04-01 02:30:00"), counted: 3600, uptime: 99.8611, tier: 0, amount: 0},
	}},
}

func init() {
	packEdges["aws-ec2-instance"] = awsEdges
	packEdges["gce-single-instance"] = gceEdges
	packEdges["ucloud-sdu"] = append(ucloudEdges, cnSecondEdges["ucloud-sdu"]...)
}
