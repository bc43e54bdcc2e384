package report

// Tencent Cloud CVM (tencent-cvm.yaml): March 2026 has 31 × 24 × 60 =
// 44,640 minutes, April 43,200 ("单实例服务月度总分钟数 = 总天数 × 24 × 60");
// one GPU at 25.00 CNY an hour: March's fee 744 h × 25.00 = 18,600.00 CNY,
// April's 720 h × 25.00 = 18,000.00 CNY.
var tencentCVMEdges = []edge{
	{"target", []edgeCase{
		// "单实例服务可用性不低于99.975%": 11 min, (44,640 − 11) / 44,640 =
		// 99.975358 %, met; 12 min, 99.973118 %, "低于99.975%但等于或高于99%":
		// 10 % of 18,600.00 = 1,860.00.
		{why: "11 min: met", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:11:00"}}, counted: 660, uptime: 99.9754, tier: 0, amount: 0, letter: LetterNone},
		{why: "12 min: 10 %", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:12:00"}}, counted: 720, uptime: 99.9731, tier: 10, amount: 1860, letter: LetterRequest},
	}},
	{"unavailable", []edgeCase{
		// "以 TCP 或者 UDP 协议与任一 IP 地址的双向都无法联通": 10 min unreachable
		// counts, (44,640 − 10) / 44,640 = 99.977599 %; a GPU lost for 10 min
		// on a node that stays reachable is not "实例不可用": nothing.
		{why: "unreachable 10 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "GPU lost 10 min, reachable", lost: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"more-than-a-minute", []edgeCase{
		// "实例不可用持续时间不超过1分钟的，不计入不可用时间": 60 s, nothing; 61 s is
		// "超过1分钟但不足2分钟": 2 min, (44,640 − 2) / 44,640 = 99.995520 %.
		{why: "60 s: not counted", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:01:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "61 s: 2 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:01:01"}}, counted: 120, uptime: 99.9955, tier: 0, amount: 0},
	}},
	{"rounded-up", []edgeCase{
		// "超过1分钟但不足2分钟的按2分钟计算": 119 s and 120 s count 2 min, 121 s
		// 3 min ((44,640 − 3) / 44,640 = 99.993280 %). At the tier line: 11 min
		// 0 s is 11 min, met (99.975358 %); 11 min 1 s is 12 min, 99.973118 %,
		// the 10 % voucher, 1,860.00 — counted to the second (661 s, 99.975321 %)
		// it would have been met.
		{why: "119 s: 2 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:01:59"}}, counted: 120, uptime: 99.9955, tier: 0, amount: 0},
		{why: "120 s: 2 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:02:00"}}, counted: 120, uptime: 99.9955, tier: 0, amount: 0},
		{why: "121 s: 3 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:02:01"}}, counted: 180, uptime: 99.9933, tier: 0, amount: 0},
		{why: "11 min 0 s: met", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:11:00"}}, counted: 660, uptime: 99.9754, tier: 0, amount: 0},
		{why: "11 min 1 s: 12 min, 10 %", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:11:01"}}, counted: 720, uptime: 99.9731, tier: 10, amount: 1860},
	}},
	{"across-month-end", []edgeCase{
		// "单实例单次服务不可用分钟数 = 实例不可用解决时间 - 实例不可用开始时间", the rule on
		// the whole outage: 31 March 23:59:00 to 1 April 00:01:00 is 2 min, "超过
		// 1分钟": March its 60 s ((2,678,400 − 60) / 2,678,400 = 99.997760 %),
		// April its 60 s ((2,592,000 − 60) / 2,592,000 = 99.997685 %). Judged
		// half by half, each 60 s half would be "不超过1分钟": nothing.
		{why: "2 min across: March's minute", down: [][2]string{{"2026-03-31 23:59:00", "2026-04-01 00:01:00"}}, counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		{why: "2 min across: April's minute", month: 4, down: [][2]string{{"2026-03-31 23:59:00", "2026-04-01 00:01:00"}}, counted: 60, uptime: 99.9977, tier: 0, amount: 0},
		// 23:59:30 to 00:01:00, 90 s: 2 min; March its own 30 s (99.998880 %),
		// April its 60 s and the 30 s of rounding, the outage having ended in
		// April: 90 s (99.996528 %).
		{why: "90 s across: March's 30 s", down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:00"}}, counted: 30, uptime: 99.9989, tier: 0, amount: 0},
		{why: "90 s across: April's 90 s", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:00"}}, counted: 90, uptime: 99.9965, tier: 0, amount: 0},
		// 23:59:30 to 00:00:30, 60 s: "不超过1分钟", nothing in either month.
		{why: "60 s across: nothing in March", down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:00:30"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "60 s across: nothing in April", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:00:30"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"whole-days", []edgeCase{
		// "服务开通之日为3月17日 … 第1个服务月度是指3月17日到3月31日", its minutes "总天数 ×
		// 24 × 60": delivered 17 March at 00:00 or at 23:59, the month is 15 days
		// (1,296,000 s); 6 min down: (21,600 − 6) / 21,600 = 99.972222 %, 10 %.
		// Delivered 18 March 00:00: 14 days (1,209,600 s), (20,160 − 6) / 20,160 =
		// 99.970238 %.
		{why: "delivered 17 March 00:00", delivered: "2026-03-17 00:00:00", down: [][2]string{{"2026-03-25 08:00:00", "2026-03-25 08:06:00"}},
			counted: 360, uptime: 99.9722, tier: 10, amount: -1, denominator: 1296000},
		{why: "delivered 17 March 23:59", delivered: "2026-03-17 23:59:00", down: [][2]string{{"2026-03-25 08:00:00", "2026-03-25 08:06:00"}},
			counted: 360, uptime: 99.9722, tier: 10, amount: -1, denominator: 1296000},
		{why: "delivered 18 March 00:00", delivered: "2026-03-18 00:00:00", down: [][2]string{{"2026-03-25 08:00:00", "2026-03-25 08:06:00"}},
			counted: 360, uptime: 99.9702, tier: 10, amount: -1, denominator: 1209600},
	}},
	{"tiers", []edgeCase{
		// April, 43,200 min. 432 min: 42,768 / 43,200 = 99.0000 %, "等于或高于99%":
		// 10 %, 1,800.00; 433 min: 98.997685 %, "低于99%但等于或高于95%": 25 %,
		// 4,500.00; 2,160 min: exactly 95.0000 %, 25 %; 2,161 min: 94.997685 %,
		// "低于95%": 100 %, 18,000.00.
		{why: "432 min: 10 %", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:12:00"}}, counted: 25920, uptime: 99, tier: 10, amount: 1800},
		{why: "433 min: 25 %", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:13:00"}}, counted: 25980, uptime: 98.9977, tier: 25, amount: 4500},
		{why: "2,160 min: 25 %", month: 4, down: [][2]string{{"2026-04-05 12:00:00", "2026-04-07 00:00:00"}}, counted: 129600, uptime: 95, tier: 25, amount: 4500},
		{why: "2,161 min: 100 %", month: 4, down: [][2]string{{"2026-04-05 12:00:00", "2026-04-07 00:01:00"}}, counted: 129660, uptime: 94.9977, tier: 100, amount: 18000},
	}},
	{"cap", []edgeCase{
		// "赔偿总额不超过相应未达标服务月度内您就本服务支付的相应月度服务费": the 100 %
		// voucher is the month's fee, 18,000.00, no more; 25 % is 4,500.00.
		{why: "100 %: the fee", month: 4, down: [][2]string{{"2026-04-05 12:00:00", "2026-04-07 00:01:00"}}, counted: 129660, uptime: 94.9977, tier: 100, amount: 18000},
		{why: "25 %: a quarter", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:13:00"}}, counted: 25980, uptime: 98.9977, tier: 25, amount: 4500},
	}},
	{"maintenance", []edgeCase{
		// 4.10: unavailability in 常规维护 "不属于服务不可用的计算范畴"; the month keeps
		// its 44,640 minutes. A 6-hour window on 10 March announced on the 1st,
		// 12 min down on the 20th: (44,640 − 12) / 44,640 = 99.973118 % whether
		// or not the node was down inside the window (30 min there excused);
		// 30 min straddling its start, 15 min before it: 27 min, 99.939516 %. A
		// window announced after it began (notice 0s: none given) excuses
		// nothing: 30 + 12 = 42 min, 99.905914 %.
		{why: "window, nothing down in it", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-20 03:00:00", "2026-03-20 03:12:00"}}, counted: 720, uptime: 99.9731, tier: 10, amount: 1860, denominator: 2678400},
		{why: "window, 30 min down in it", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-10 01:00:00", "2026-03-10 01:30:00"}, {"2026-03-20 03:00:00", "2026-03-20 03:12:00"}}, counted: 720, uptime: 99.9731, tier: 10, amount: 1860},
		{why: "30 min straddling its start", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-09 23:45:00", "2026-03-10 00:15:00"}, {"2026-03-20 03:00:00", "2026-03-20 03:12:00"}}, counted: 1620, uptime: 99.9395, tier: 10, amount: 1860},
		{why: "announced after it began", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-10 00:30:00"}},
			down: [][2]string{{"2026-03-10 01:00:00", "2026-03-10 01:30:00"}, {"2026-03-20 03:00:00", "2026-03-20 03:12:00"}}, counted: 2520, uptime: 99.9059, tier: 10, amount: 1860},
	}},
	{"claim-window", []edgeCase{
		// "不应超过未达标的相应服务月度结束后六十（60）个自然日": 60 days after 31 March
		// are 1 April–30 May, due before 31 May 00:00; after 30 April, 1 May–29
		// June, before 30 June 00:00. "次月的第五（5）个工作日后": April 2026's
		// working days are the 1st, 2nd, 3rd, (4–6 清明), 7th, 8th: from 9 April;
		// May's (1–5 劳动节) the 6th, 7th, 8th, 9th (调休 Saturday), 11th: from 12 May.
		{why: "March", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:12:00"}}, counted: 720, uptime: 99.9731, tier: 10, amount: 1860,
			deadline: "2026-05-31T00:00:00+08:00", opens: "2026-04-09T00:00:00+08:00"},
		{why: "April", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:13:00"}}, counted: 25980, uptime: 98.9977, tier: 25, amount: 4500,
			deadline: "2026-06-30T00:00:00+08:00", opens: "2026-05-12T00:00:00+08:00"},
	}},
	{"fee", []edgeCase{
		// "月度服务费不含用代金券、优惠券…抵扣的费用": the engine reckons on the order's
		// fee (approximate, over by the voucher-paid part): 10 % of 18,600.00,
		// 25 % of 18,000.00.
		{why: "March, 10 % of the order's fee", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:12:00"}}, counted: 720, uptime: 99.9731, tier: 10, amount: 1860},
		{why: "April, 25 % of the order's fee", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:13:00"}}, counted: 25980, uptime: 98.9977, tier: 25, amount: 4500},
	}},
}

func init() { packEdges["tencent-cvm"] = tencentCVMEdges }
