package report

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpusla/gpusla/sla/terms"
)

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
		// The text names no month for such an outage (approximations[1]):
		// its 2 min may all be March's or all April's, and the claim page
		// says when that moves the tier. April, the 90 s across and 9 min on
		// the 10th: 630 s, (2,592,000 − 630) / 2,592,000 = 99.975694 %, met;
		// by Tencent's count 540 s (99.979167 %) or 660 s (99.974537 %, 10 %):
		// the tier may differ, by 90 s at most. With 8 min on the 10th, 570 s
		// (99.978009 %), 600 s at most (99.976852 %): met either way.
		{why: "90 s across and 9 min: the tier may differ", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:00"}, {"2026-04-10 03:00:00", "2026-04-10 03:09:00"}},
			counted: 630, uptime: 99.9757, tier: 0, amount: 0, approximateDown: 90, checkTierDiffers: true, tierMayDiffer: true},
		{why: "90 s across and 8 min: the tier the same", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:00"}, {"2026-04-10 03:00:00", "2026-04-10 03:08:00"}},
			counted: 570, uptime: 99.978, tier: 0, amount: 0, approximateDown: 90, checkTierDiffers: true, tierMayDiffer: false},
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
		// Whole days in Beijing time: delivered 17 March 07:00 (16 March 23:00
		// UTC) is the 17th: 15 days, 99.972222 %, 10 % of the fee from 07:00,
		// 353 h × 25.00 = 8,825.00: 882.50.
		{why: "delivered 17 March 07:00 Beijing (the 16th in UTC)", delivered: "2026-03-17 07:00:00", down: down1("2026-03-25 08:00:00", "2026-03-25 08:06:00"),
			counted: 360, uptime: 99.9722, tier: 10, amount: 882.5, charge: 8825, denominator: 1296000},
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
		// A second either side of 432 min, rounded up: 431 min 59 s is 432,
		// 99.0000 %, 10 %; 432 min 1 s is 433, 98.997685 %, 25 %.
		{why: "431 min 59 s: 432, 10 %", month: 4, down: down1("2026-04-15 09:00:00", "2026-04-15 16:11:59"), counted: 25920, uptime: 99, tier: 10, amount: 1800},
		{why: "432 min 1 s: 433, 25 %", month: 4, down: down1("2026-04-15 09:00:00", "2026-04-15 16:12:01"), counted: 25980, uptime: 98.9977, tier: 25, amount: 4500},
	}},
	{"cap", []edgeCase{
		// "赔偿总额不超过相应未达标服务月度内您就本服务支付的相应月度服务费": the 100 %
		// voucher is the month's fee, 18,000.00, no more; 25 % is 4,500.00.
		{why: "100 %: the fee", month: 4, down: [][2]string{{"2026-04-05 12:00:00", "2026-04-07 00:01:00"}}, counted: 129660, uptime: 94.9977, tier: 100, amount: 18000},
		{why: "25 %: a quarter", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:13:00"}}, counted: 25980, uptime: 98.9977, tier: 25, amount: 4500},
		// A partial month's fee: delivered 17 March 00:00, 15 × 24 × 25.00 =
		// 9,000.00; 1,081 min down of 21,600: 94.995370 %, 100 %: 9,000.00.
		{why: "100 % of a partial month: its fee", delivered: "2026-03-17 00:00:00", down: down1("2026-03-20 00:00:00", "2026-03-20 18:01:00"),
			counted: 64860, uptime: 94.9954, tier: 100, amount: 9000, charge: 9000},
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
		// An outage running past the window's end is judged on its part
		// outside it: 05:59:30 to 06:01:00 leaves 60 s, "不超过1分钟", nothing;
		// to 06:01:01, 61 s, 2 min ((44,640 − 2) / 44,640 = 99.995520 %).
		{why: "60 s past the window's end: nothing", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: down1("2026-03-10 05:59:30", "2026-03-10 06:01:00"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "61 s past the window's end: 2 min", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: down1("2026-03-10 05:59:30", "2026-03-10 06:01:01"), counted: 120, uptime: 99.9955, tier: 0, amount: 0},
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
		// The window runs from the end of the service month that missed, and
		// a released node's last one ends with its term ("第4个服务月度是指6月1日到
		// 6月16日"): released 20 March 10:00, 8 min down of 28,800 (1–20 March):
		// 99.972222 %, 10 % of 466 h × 25.00 = 11,650.00: 1,165.00; the month
		// ends at the latest at the end of the 20th, at the earliest (the
		// example's reading) at the end of the 19th: 60 days after it, 20
		// March – 18 May, due before 19 May 00:00, not 31 May. Released 31
		// March 23:59: 12 min of 44,640, 10 %; due before 30 May 00:00.
		{why: "released 20 March 10:00: due 19 May", released: "2026-03-20 10:00:00", down: down1("2026-03-10 03:00:00", "2026-03-10 03:08:00"), counted: 480, uptime: 99.9722, tier: 10, amount: 1165,
			deadline: "2026-05-19T00:00:00+08:00", opens: "2026-04-09T00:00:00+08:00"},
		{why: "released 31 March 23:59: due 30 May", released: "2026-03-31 23:59:00", down: down1("2026-03-08 03:00:00", "2026-03-08 03:12:00"), counted: 720, uptime: 99.9731, tier: 10, amount: -1,
			deadline: "2026-05-30T00:00:00+08:00"},
		// September, 12 min of 43,200: 99.972222 %, 10 %, 1,800.00. October's
		// working days after 国庆节 (1–7 October): the 8th, 9th, 10th (调休
		// Saturday), 12th, 13th: from 14 October; 60 days after 30 September
		// (1 October – 29 November): before 30 November.
		{why: "September: from 14 October", month: 9, down: down1("2026-09-10 03:00:00", "2026-09-10 03:12:00"), counted: 720, uptime: 99.9722, tier: 10, amount: 1800,
			deadline: "2026-11-30T00:00:00+08:00", opens: "2026-10-14T00:00:00+08:00"},
	}},
	{"fee", []edgeCase{
		// "月度服务费不含用代金券、优惠券…抵扣的费用": the engine reckons on the order's
		// fee (approximate, over by the voucher-paid part): 10 % of 18,600.00,
		// 25 % of 18,000.00.
		{why: "March, 10 % of the order's fee", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:12:00"}}, counted: 720, uptime: 99.9731, tier: 10, amount: 1860},
		{why: "April, 25 % of the order's fee", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:13:00"}}, counted: 25980, uptime: 98.9977, tier: 25, amount: 4500},
		// The instance's fee, all its GPUs: 8 × 744 h × 25.00 = 148,800.00, 10 %
		// = 14,880.00.
		{why: "8 GPUs: 10 % of the instance's fee", gpus: 8, down: down1("2026-03-08 03:00:00", "2026-03-08 03:12:00"), counted: 720, uptime: 99.9731, tier: 10, amount: 14880, charge: 148800},
	}},
	{"beijing-month-end", []edgeCase{
		// The service month is Beijing time's: 31 March 23:50 to 1 April
		// 00:20 (15:50–16:20 UTC, inside March in UTC) is 30 min across the
		// month's end, March its 10 ((44,640 − 10) / 44,640 = 99.977599 %,
		// met), April its 20 ((43,200 − 20) / 43,200 = 99.953704 %, 10 % of
		// 18,000.00 = 1,800.00). 1 April 07:50 to 08:20 (31 March 23:50 to
		// 1 April 00:20 UTC, across the month's end in UTC) is April's alone:
		// March 100 %, April 30 min, 99.930556 %, 1,800.00.
		{why: "23:50–00:20 Beijing: March's 10 min", down: down1("2026-03-31 23:50:00", "2026-04-01 00:20:00"), counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "23:50–00:20 Beijing: April's 20 min", month: 4, down: down1("2026-03-31 23:50:00", "2026-04-01 00:20:00"), counted: 1200, uptime: 99.9537, tier: 10, amount: 1800},
		{why: "07:50–08:20 Beijing on 1 April: nothing in March", down: down1("2026-04-01 07:50:00", "2026-04-01 08:20:00"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "07:50–08:20 Beijing on 1 April: April's 30 min", month: 4, down: down1("2026-04-01 07:50:00", "2026-04-01 08:20:00"), counted: 1800, uptime: 99.9306, tier: 10, amount: 1800},
	}},
	{"each-outage-rounded", []edgeCase{
		// "单实例服务不可用分钟数为该实例在一个服务月度内单实例单次服务不可用分钟数之和":
		// each outage is rounded up on its own, then summed. Two of 61 s are
		// 2 + 2 = 4 min ((44,640 − 4) / 44,640 = 99.991039 %), not ⌈122 s⌉ = 3;
		// five of 61 s are 10 min, 99.977599 %, met; six are 12 min, 99.973118
		// %, 10 %, 1,860.00 (their 366 s summed first would be 7 min, met).
		{why: "two of 61 s: 4 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:01:01"}, {"2026-03-09 03:00:00", "2026-03-09 03:01:01"}},
			counted: 240, uptime: 99.991, tier: 0, amount: 0},
		{why: "five of 61 s: 10 min, met", down: sixtyOneSeconds(5), counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "six of 61 s: 12 min, 10 %", down: sixtyOneSeconds(6), counted: 720, uptime: 99.9731, tier: 10, amount: 1860},
	}},
	{"february", []edgeCase{
		// February 2026: 28 × 24 × 60 = 40,320 min; the fee 672 h × 25.00 =
		// 16,800.00. 10 min: 40,310 / 40,320 = 99.975198 %, met; 11 min:
		// 99.972718 %, 10 %, 1,680.00. Due 60 days after 28 February (1 March
		// – 29 April): before 30 April 00:00; March's working days 2–6: from
		// 7 March.
		{why: "10 min: met", month: 2, down: down1("2026-02-10 03:00:00", "2026-02-10 03:10:00"), counted: 600, uptime: 99.9752, tier: 0, amount: 0, denominator: 2419200},
		{why: "11 min: 10 %", month: 2, down: down1("2026-02-10 03:00:00", "2026-02-10 03:11:00"), counted: 660, uptime: 99.9727, tier: 10, amount: 1680, charge: 16800,
			denominator: 2419200, deadline: "2026-04-30T00:00:00+08:00", opens: "2026-03-07T00:00:00+08:00"},
	}},
	{"release-day", []edgeCase{
		// The last service month in whole days, the day of the release
		// counted whole (approximations[2]): released 20 March 10:00, 1–20
		// March, 28,800 min; 7 min down: 28,793 / 28,800 = 99.975694 %, met.
		// Released 20 March 00:00: 1–19 March, 27,360 min, 99.974415 %, 10 % of
		// 19 × 24 × 25.00 = 11,400.00: 1,140.00.
		{why: "released 20 March 10:00: 20 days", released: "2026-03-20 10:00:00", down: down1("2026-03-10 03:00:00", "2026-03-10 03:07:00"),
			counted: 420, uptime: 99.9757, tier: 0, amount: 0, charge: 11650, denominator: 1728000},
		{why: "released 20 March 00:00: 19 days", released: "2026-03-20 00:00:00", down: down1("2026-03-10 03:00:00", "2026-03-10 03:07:00"),
			counted: 420, uptime: 99.9744, tier: 10, amount: 1140, charge: 11400, denominator: 1641600},
	}},
	{"maintenance-month-end", []edgeCase{
		// A window from 31 March 22:00 to 1 April 02:00 announced on the 1st:
		// down 21:50–22:10 (its 10 min before the window count: 99.977599 %)
		// and 23:00–01:00 (inside, excused in both months: April 100 %).
		{why: "March: the 10 min before the window", maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-31 21:50:00", "2026-03-31 22:10:00"}, {"2026-03-31 23:00:00", "2026-04-01 01:00:00"}}, counted: 600, uptime: 99.9776, tier: 0, amount: 0, denominator: 2678400},
		{why: "April: inside the window, nothing", month: 4, maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-31 21:50:00", "2026-03-31 22:10:00"}, {"2026-03-31 23:00:00", "2026-04-01 01:00:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0, denominator: 2592000},
	}},
	{"thirty-day-month", []edgeCase{
		// The text's own example (2.2): "假设当月为30天 … 30天 × 24小时 × 60分钟 ×
		// 99.975% = 43189.2分钟，即可存在 43200 - 43189.2 = 10.8分钟的不可用时间":
		// April, 10 min: 43,190 / 43,200 = 99.976852 %, met; 10 min 1 s is 11
		// min, 99.974537 %, 10 % of 18,000.00 = 1,800.00.
		{why: "10 min: met", month: 4, down: down1("2026-04-15 09:00:00", "2026-04-15 09:10:00"), counted: 600, uptime: 99.9769, tier: 0, amount: 0, denominator: 2592000},
		{why: "10 min 1 s: 11 min, 10 %", month: 4, down: down1("2026-04-15 09:00:00", "2026-04-15 09:10:01"), counted: 660, uptime: 99.9745, tier: 10, amount: 1800, denominator: 2592000},
	}},
}

func init() { packEdges["tencent-cvm"] = append(tencentCVMEdges, cnSecondEdges["tencent-cvm"]...) }

// sixtyOneSeconds is n outages of 61 s, one a day from 8 March 03:00.
func sixtyOneSeconds(n int) [][2]string {
	var out [][2]string
	for i := range n {
		d := fmt.Sprintf("2026-03-%02d", 8+i)
		out = append(out, [2]string{d + " 03:00:00", d + " 03:01:01"})
	}
	return out
}

// Tencent Cloud International CVM (tencent-intl-cvm.yaml): the same rules
// in the English text; one GPU at 0.80 USD an hour: March's fee 744 h ×
// 0.80 = 595.20 USD, April's 720 h × 0.80 = 576.00 USD.
var tencentIntlCVMEdges = []edge{
	{"target", []edgeCase{
		// "no less than 99.975%": 11 min (44,640 − 11) / 44,640 = 99.975358 %,
		// met; 12 min 99.973118 %, "≥ 99% and < 99.975%": 10 % of 595.20 = 59.52.
		{why: "11 min: met", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:11:00"}}, counted: 660, uptime: 99.9754, tier: 0, amount: 0},
		{why: "12 min: 10 %", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:12:00"}}, counted: 720, uptime: 99.9731, tier: 10, amount: 59.52},
	}},
	{"unavailable", []edgeCase{
		// "fails to communicate with an IP address, neither incoming nor
		// outgoing, via TCP or UDP": unreachable 10 min counts; a GPU lost on
		// a reachable instance does not.
		{why: "unreachable 10 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "GPU lost 10 min, reachable", lost: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"more-than-a-minute", []edgeCase{
		// "lasts for more than one (1) minute": 60 s is nothing; 61 s, "longer
		// than one (1) minute but shorter than two (2) minutes", two minutes.
		{why: "60 s: not counted", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:01:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "61 s: 2 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:01:01"}}, counted: 120, uptime: 99.9955, tier: 0, amount: 0},
	}},
	{"rounded-up", []edgeCase{
		// "one (1) minute and one (1) second … would be two (2) minutes": 11 min
		// 0 s met, 11 min 1 s is 12 min and 10 %, 59.52; 121 s is 3 min.
		{why: "121 s: 3 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:02:01"}}, counted: 180, uptime: 99.9933, tier: 0, amount: 0},
		{why: "11 min 0 s: met", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:11:00"}}, counted: 660, uptime: 99.9754, tier: 0, amount: 0},
		{why: "11 min 1 s: 12 min, 10 %", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:11:01"}}, counted: 720, uptime: 99.9731, tier: 10, amount: 59.52},
	}},
	{"across-month-end", []edgeCase{
		// "= the time Instance Unavailability is fixed – the time it starts",
		// on the whole outage: 31 March 23:59:30 to 1 April 00:01:00, 90 s, two
		// minutes: March its 30 s, April its 60 s and the 30 s of rounding.
		{why: "90 s across: March's 30 s", down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:00"}}, counted: 30, uptime: 99.9989, tier: 0, amount: 0},
		{why: "90 s across: April's 90 s", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:00"}}, counted: 90, uptime: 99.9965, tier: 0, amount: 0},
		{why: "60 s across: nothing in April", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:00:30"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		// Which month the outage is in is not said (approximations[1]): April
		// with 9 min on the 10th, 630 s, 99.975694 %, met, may be 660 s by
		// Tencent's count, 99.974537 %, 10 %: the tier may differ; with 8 min,
		// 570 s, at most 600 s, met either way (see tencent-cvm).
		{why: "90 s across and 9 min: the tier may differ", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:00"}, {"2026-04-10 03:00:00", "2026-04-10 03:09:00"}},
			counted: 630, uptime: 99.9757, tier: 0, amount: 0, approximateDown: 90, checkTierDiffers: true, tierMayDiffer: true},
		{why: "90 s across and 8 min: the tier the same", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:00"}, {"2026-04-10 03:00:00", "2026-04-10 03:08:00"}},
			counted: 570, uptime: 99.978, tier: 0, amount: 0, approximateDown: 90, checkTierDiffers: true, tierMayDiffer: false},
	}},
	{"whole-days", []edgeCase{
		// "the first Service Month from March 17 to March 31", its minutes
		// "the total number of days … × 24 × 60": 15 days whether delivered at
		// 00:00 or 23:59 on the 17th; 14 from the 18th. 6 min: 99.972222 % and
		// 99.970238 %, 10 % either way.
		{why: "delivered 17 March 00:00", delivered: "2026-03-17 00:00:00", down: [][2]string{{"2026-03-25 08:00:00", "2026-03-25 08:06:00"}},
			counted: 360, uptime: 99.9722, tier: 10, amount: -1, denominator: 1296000},
		{why: "delivered 17 March 23:59", delivered: "2026-03-17 23:59:00", down: [][2]string{{"2026-03-25 08:00:00", "2026-03-25 08:06:00"}},
			counted: 360, uptime: 99.9722, tier: 10, amount: -1, denominator: 1296000},
		{why: "delivered 18 March 00:00", delivered: "2026-03-18 00:00:00", down: [][2]string{{"2026-03-25 08:00:00", "2026-03-25 08:06:00"}},
			counted: 360, uptime: 99.9702, tier: 10, amount: -1, denominator: 1209600},
	}},
	{"tiers", []edgeCase{
		// April: 432 min, 99.0000 %, "≥ 99%": 10 %, 57.60; 433 min, 98.997685 %:
		// 25 %, 144.00; 2,160 min, 95.0000 %: 25 %; 2,161 min, 94.997685 %,
		// "< 95%": 100 %, 576.00.
		{why: "432 min: 10 %", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:12:00"}}, counted: 25920, uptime: 99, tier: 10, amount: 57.6},
		{why: "433 min: 25 %", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:13:00"}}, counted: 25980, uptime: 98.9977, tier: 25, amount: 144},
		{why: "2,160 min: 25 %", month: 4, down: [][2]string{{"2026-04-05 12:00:00", "2026-04-07 00:00:00"}}, counted: 129600, uptime: 95, tier: 25, amount: 144},
		{why: "2,161 min: 100 %", month: 4, down: [][2]string{{"2026-04-05 12:00:00", "2026-04-07 00:01:00"}}, counted: 129660, uptime: 94.9977, tier: 100, amount: 576},
		// A second either side of 432 min, rounded up: 431 min 59 s is 432,
		// 99.0000 %, 10 %; 432 min 1 s is 433, 25 %.
		{why: "431 min 59 s: 432, 10 %", month: 4, down: down1("2026-04-15 09:00:00", "2026-04-15 16:11:59"), counted: 25920, uptime: 99, tier: 10, amount: 57.6},
		{why: "432 min 1 s: 433, 25 %", month: 4, down: down1("2026-04-15 09:00:00", "2026-04-15 16:12:01"), counted: 25980, uptime: 98.9977, tier: 25, amount: 144},
	}},
	{"cap", []edgeCase{
		// "the aggregate amount shall be no more than the applicable Monthly
		// Service Fee": 100 % is the fee, 576.00; 25 % is 144.00. A partial
		// month's: delivered 17 March, 360 h × 0.80 = 288.00; 1,081 min of
		// 21,600, 94.995370 %: 288.00.
		{why: "100 %: the fee", month: 4, down: [][2]string{{"2026-04-05 12:00:00", "2026-04-07 00:01:00"}}, counted: 129660, uptime: 94.9977, tier: 100, amount: 576},
		{why: "25 %", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:13:00"}}, counted: 25980, uptime: 98.9977, tier: 25, amount: 144},
		{why: "100 % of a partial month: its fee", delivered: "2026-03-17 00:00:00", down: down1("2026-03-20 00:00:00", "2026-03-20 18:01:00"),
			counted: 64860, uptime: 94.9954, tier: 100, amount: 288, charge: 288},
	}},
	{"maintenance", []edgeCase{
		// 4.10: downtime of "normal maintenance or upgrade" "shall not be
		// counted towards Service unavailability period"; the month keeps its
		// 44,640 minutes: 12 min outside a 6-hour window, 99.973118 % with or
		// without 30 min down inside it; a window announced after it began
		// excuses nothing: 42 min, 99.905914 %.
		{why: "window, nothing down in it", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-20 03:00:00", "2026-03-20 03:12:00"}}, counted: 720, uptime: 99.9731, tier: 10, amount: 59.52, denominator: 2678400},
		{why: "window, 30 min down in it", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-10 01:00:00", "2026-03-10 01:30:00"}, {"2026-03-20 03:00:00", "2026-03-20 03:12:00"}}, counted: 720, uptime: 99.9731, tier: 10, amount: 59.52},
		{why: "announced after it began", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-10 00:30:00"}},
			down: [][2]string{{"2026-03-10 01:00:00", "2026-03-10 01:30:00"}, {"2026-03-20 03:00:00", "2026-03-20 03:12:00"}}, counted: 2520, uptime: 99.9059, tier: 10, amount: 59.52},
	}},
	{"claim-window", []edgeCase{
		// "no later than sixty (60) calendar days following the expiry of the
		// applicable Service Month": before 31 May, before 30 June; "after the
		// fifth (5th) business day" by China's calendar: from 9 April, from
		// 12 May (see tencent-cvm).
		{why: "March", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:12:00"}}, counted: 720, uptime: 99.9731, tier: 10, amount: 59.52,
			deadline: "2026-05-31T00:00:00+08:00", opens: "2026-04-09T00:00:00+08:00"},
		{why: "April", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:13:00"}}, counted: 25980, uptime: 98.9977, tier: 25, amount: 144,
			deadline: "2026-06-30T00:00:00+08:00", opens: "2026-05-12T00:00:00+08:00"},
		// "following the expiry of the applicable Service Month": released 20
		// March 10:00, the Service Month ends with the 19th or the 20th: due
		// before 19 May 00:00 (8 min of 28,800, 10 % of 466 h × 0.80 = 372.80:
		// 37.28); released 31 March 23:59: before 30 May.
		{why: "released 20 March 10:00: due 19 May", released: "2026-03-20 10:00:00", down: down1("2026-03-10 03:00:00", "2026-03-10 03:08:00"), counted: 480, uptime: 99.9722, tier: 10, amount: 37.28,
			deadline: "2026-05-19T00:00:00+08:00"},
		{why: "released 31 March 23:59: due 30 May", released: "2026-03-31 23:59:00", down: down1("2026-03-08 03:00:00", "2026-03-08 03:12:00"), counted: 720, uptime: 99.9731, tier: 10, amount: -1,
			deadline: "2026-05-30T00:00:00+08:00"},
	}},
	{"fee", []edgeCase{
		// "excluding … the portion deducted by a voucher or promotional coupon":
		// reckoned on the order's fee: 10 % of 595.20, 25 % of 576.00.
		{why: "March", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:12:00"}}, counted: 720, uptime: 99.9731, tier: 10, amount: 59.52},
		{why: "April", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:13:00"}}, counted: 25980, uptime: 98.9977, tier: 25, amount: 144},
		// "for a Single Instance": all its GPUs, 8 × 744 h × 0.80 = 4,761.60,
		// 10 % = 476.16.
		{why: "8 GPUs: the instance's fee", gpus: 8, down: down1("2026-03-08 03:00:00", "2026-03-08 03:12:00"), counted: 720, uptime: 99.9731, tier: 10, amount: 476.16, charge: 4761.6},
	}},
	{"beijing-month-end", []edgeCase{
		// The Service Month in Beijing time (see tencent-cvm): 31 March 23:50
		// to 1 April 00:20 is March's 10 min (99.977599 %) and April's 20
		// (99.953704 %, 10 % of 576.00 = 57.60); 1 April 07:50–08:20 (across the
		// month's end in UTC) is April's 30 min alone (99.930556 %, 57.60).
		{why: "23:50–00:20 Beijing: March's 10 min", down: down1("2026-03-31 23:50:00", "2026-04-01 00:20:00"), counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "23:50–00:20 Beijing: April's 20 min", month: 4, down: down1("2026-03-31 23:50:00", "2026-04-01 00:20:00"), counted: 1200, uptime: 99.9537, tier: 10, amount: 57.6},
		{why: "07:50–08:20 Beijing on 1 April: nothing in March", down: down1("2026-04-01 07:50:00", "2026-04-01 08:20:00"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "07:50–08:20 Beijing on 1 April: April's 30 min", month: 4, down: down1("2026-04-01 07:50:00", "2026-04-01 08:20:00"), counted: 1800, uptime: 99.9306, tier: 10, amount: 57.6},
	}},
	{"each-outage-rounded", []edgeCase{
		// "the total of Single Instance Single Service Downtime Calculated in
		// Minutes": each outage rounded up, then summed: five of 61 s are 10
		// min, met; six are 12 min, 99.973118 %, 10 %, 59.52.
		{why: "five of 61 s: 10 min, met", down: sixtyOneSeconds(5), counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "six of 61 s: 12 min, 10 %", down: sixtyOneSeconds(6), counted: 720, uptime: 99.9731, tier: 10, amount: 59.52},
	}},
	{"february", []edgeCase{
		// 40,320 min; the fee 672 h × 0.80 = 537.60. 10 min, 99.975198 %, met;
		// 11 min, 99.972718 %, 10 %, 53.76; due before 30 April, from 7 March.
		{why: "10 min: met", month: 2, down: down1("2026-02-10 03:00:00", "2026-02-10 03:10:00"), counted: 600, uptime: 99.9752, tier: 0, amount: 0, denominator: 2419200},
		{why: "11 min: 10 %", month: 2, down: down1("2026-02-10 03:00:00", "2026-02-10 03:11:00"), counted: 660, uptime: 99.9727, tier: 10, amount: 53.76, charge: 537.6,
			denominator: 2419200, deadline: "2026-04-30T00:00:00+08:00", opens: "2026-03-07T00:00:00+08:00"},
	}},
	{"thirty-day-month", []edgeCase{
		// "Assuming that a Service Month has thirty (30) days … 43200 – 43189.2 =
		// 10.8 minutes": April, 10 min, 99.976852 %, met; 10 min 1 s is 11 min,
		// 99.974537 %, 10 %, 57.60.
		{why: "10 min: met", month: 4, down: down1("2026-04-15 09:00:00", "2026-04-15 09:10:00"), counted: 600, uptime: 99.9769, tier: 0, amount: 0},
		{why: "10 min 1 s: 11 min, 10 %", month: 4, down: down1("2026-04-15 09:00:00", "2026-04-15 09:10:01"), counted: 660, uptime: 99.9745, tier: 10, amount: 57.6},
	}},
	{"release-day", []edgeCase{
		// "the fourth from June 1 to June 16", the day of the release counted
		// whole (approximations[3]): released 20 March 10:00, 20 days, 7 min
		// 99.975694 %, met; released 20 March 00:00, 19 days, 99.974415 %, 10 %
		// of 456 h × 0.80 = 364.80: 36.48.
		{why: "released 20 March 10:00: 20 days", released: "2026-03-20 10:00:00", down: down1("2026-03-10 03:00:00", "2026-03-10 03:07:00"),
			counted: 420, uptime: 99.9757, tier: 0, amount: 0, denominator: 1728000},
		{why: "released 20 March 00:00: 19 days", released: "2026-03-20 00:00:00", down: down1("2026-03-10 03:00:00", "2026-03-10 03:07:00"),
			counted: 420, uptime: 99.9744, tier: 10, amount: 36.48, charge: 364.8, denominator: 1641600},
	}},
	{"maintenance-month-end", []edgeCase{
		// A window 31 March 22:00 – 1 April 02:00, announced: down 21:50–22:10
		// (10 min before it count, 99.977599 %) and 23:00–01:00 (excused in
		// both months).
		{why: "March: the 10 min before the window", maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-31 21:50:00", "2026-03-31 22:10:00"}, {"2026-03-31 23:00:00", "2026-04-01 01:00:00"}}, counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "April: inside the window, nothing", month: 4, maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-31 21:50:00", "2026-03-31 22:10:00"}, {"2026-03-31 23:00:00", "2026-04-01 01:00:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
}

// Tencent Cloud Application Rendering (tencent-car.yaml): one concurrency
// at 2.00 USD an hour: March's fee 1,488.00 USD, April's 1,440.00 USD.
var tencentCAREdges = []edge{
	{"target", []edgeCase{
		// "no less than 99%": 446 min, (44,640 − 446) / 44,640 = 99.000896 %,
		// met; 447 min, 98.998656 %, "Less than 99% but is or higher than 97%":
		// 5 % of 1,488.00 = 74.40.
		{why: "446 min: met", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:26:00"}}, counted: 26760, uptime: 99.0009, tier: 0, amount: 0},
		{why: "447 min: 5 %", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 5, amount: 74.4},
	}},
	{"unavailable", []edgeCase{
		// "the access to the Service with any IP address in both directions
		// (outgoing/incoming) by UDP protocol fails": the concurrency heard by
		// nobody counts; a GPU lost on a reachable one does not.
		{why: "unreachable 10 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "GPU lost 10 min, reachable", lost: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:10:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"more-than-a-minute", []edgeCase{
		// "if the duration of Service Unavailability … does not exceed one
		// minute, such duration is not counted": 60 s nothing; 61 s, "longer
		// than one minute but less than two minutes … would be one minute":
		// (44,640 − 1) / 44,640 = 99.997760 %.
		{why: "60 s: not counted", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:01:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "61 s: 1 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:01:01"}}, counted: 60, uptime: 99.9978, tier: 0, amount: 0},
	}},
	{"rounded-down", []edgeCase{
		// "calculated in minutes … one minute and one second … one minute":
		// 119 s is 1 min, 120 s and 121 s are 2. At the tier
		// line: 446 min 59 s is 446 min, met (99.000896 %) — counted to the
		// second, 26,819 s, it would be 98.998693 %, the 5 % voucher; 447 min
		// 0 s is 447 min, 5 %, 74.40.
		{why: "119 s: 1 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:01:59"}}, counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		{why: "120 s: 2 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:02:00"}}, counted: 120, uptime: 99.9955, tier: 0, amount: 0},
		{why: "121 s: 2 min", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 03:02:01"}}, counted: 120, uptime: 99.9955, tier: 0, amount: 0},
		{why: "446 min 59 s: met", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:26:59"}}, counted: 26760, uptime: 99.0009, tier: 0, amount: 0},
		{why: "447 min 0 s: 5 %", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 5, amount: 74.4},
	}},
	{"across-month-end", []edgeCase{
		// On the whole outage: 31 March 23:59:00 to 1 April 00:01:00 is two
		// minutes, one in each month (March (2,678,400 − 60) / 2,678,400 =
		// 99.997760 %, April (2,592,000 − 60) / 2,592,000 = 99.997685 %): half by
		// half each would "not exceed one minute". 23:59:30 to 00:01:10, 100 s,
		// is one minute counted from its start, 23:59:30 to 00:00:30: 30 s in
		// each month (99.998880 %, 99.998843 %).
		{why: "2 min across: March's minute", down: [][2]string{{"2026-03-31 23:59:00", "2026-04-01 00:01:00"}}, counted: 60, uptime: 99.9978, tier: 0, amount: 0},
		{why: "2 min across: April's minute", month: 4, down: [][2]string{{"2026-03-31 23:59:00", "2026-04-01 00:01:00"}}, counted: 60, uptime: 99.9977, tier: 0, amount: 0},
		{why: "100 s across: March's 30 s", down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:10"}}, counted: 30, uptime: 99.9989, tier: 0, amount: 0},
		{why: "100 s across: April's 30 s", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:10"}}, counted: 30, uptime: 99.9988, tier: 0, amount: 0},
		// The text names no month for the outage (approximations[1]): its one
		// minute may be all March's or all April's. April, its 30 s and 432 min
		// on the 10th: 25,950 s, (2,592,000 − 25,950) / 2,592,000 = 98.998843 %,
		// 5 % of 1,440.00, 72.00; by Tencent's count 25,920 s, exactly 99 %,
		// nothing, or 25,980 s, 5 %: the claim page says the tier may differ.
		// With 431 min, 25,890 s (99.001157 %) and at most 25,920 s, exactly
		// 99 %: met either way.
		{why: "100 s across and 432 min: the tier may differ", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:10"}, {"2026-04-10 03:00:00", "2026-04-10 10:12:00"}},
			counted: 25950, uptime: 98.9988, tier: 5, amount: 72, approximateDown: 30, checkTierDiffers: true, tierMayDiffer: true},
		{why: "100 s across and 431 min: met either way", month: 4, down: [][2]string{{"2026-03-31 23:59:30", "2026-04-01 00:01:10"}, {"2026-04-10 03:00:00", "2026-04-10 10:11:00"}},
			counted: 25890, uptime: 99.0012, tier: 0, amount: 0, approximateDown: 30, checkTierDiffers: true, tierMayDiffer: false},
	}},
	{"whole-days", []edgeCase{
		// "the first Service Month from March 17 to March 31", "the total
		// number of days … × 24 × 60": 210 min down. Delivered on the 17th, at
		// 00:00 or 23:59: 21,600 min, (21,600 − 210) / 21,600 = 99.027778 %, met
		// (from the instant of 23:59 it would be 20,161 min, 98.958385 %, 5 %).
		// From the 18th: 20,160 min, 98.958333 %, 5 %.
		{why: "delivered 17 March 00:00", delivered: "2026-03-17 00:00:00", down: [][2]string{{"2026-03-25 08:00:00", "2026-03-25 11:30:00"}},
			counted: 12600, uptime: 99.0278, tier: 0, amount: 0, denominator: 1296000},
		{why: "delivered 17 March 23:59", delivered: "2026-03-17 23:59:00", down: [][2]string{{"2026-03-25 08:00:00", "2026-03-25 11:30:00"}},
			counted: 12600, uptime: 99.0278, tier: 0, amount: 0, denominator: 1296000},
		{why: "delivered 18 March 00:00", delivered: "2026-03-18 00:00:00", down: [][2]string{{"2026-03-25 08:00:00", "2026-03-25 11:30:00"}},
			counted: 12600, uptime: 98.9583, tier: 5, amount: -1, denominator: 1209600},
	}},
	{"tiers", []edgeCase{
		// April, 43,200 min: 432 min, 99.0000 %, met; 433, 98.997685 %: 5 %,
		// 72.00; 1,296 min, 97.0000 %, "is or higher than 97%": 5 %; 1,297,
		// 96.997685 %: 10 %, 144.00; 2,160, 95.0000 %: 10 %; 2,161, 94.997685 %,
		// "Less than 95%": 20 %, 288.00.
		{why: "432 min: met", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:12:00"}}, counted: 25920, uptime: 99, tier: 0, amount: 0},
		{why: "433 min: 5 %", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:13:00"}}, counted: 25980, uptime: 98.9977, tier: 5, amount: 72},
		{why: "1,296 min: 5 %", month: 4, down: [][2]string{{"2026-04-15 00:00:00", "2026-04-15 21:36:00"}}, counted: 77760, uptime: 97, tier: 5, amount: 72},
		{why: "1,297 min: 10 %", month: 4, down: [][2]string{{"2026-04-15 00:00:00", "2026-04-15 21:37:00"}}, counted: 77820, uptime: 96.9977, tier: 10, amount: 144},
		{why: "2,160 min: 10 %", month: 4, down: [][2]string{{"2026-04-05 12:00:00", "2026-04-07 00:00:00"}}, counted: 129600, uptime: 95, tier: 10, amount: 144},
		{why: "2,161 min: 20 %", month: 4, down: [][2]string{{"2026-04-05 12:00:00", "2026-04-07 00:01:00"}}, counted: 129660, uptime: 94.9977, tier: 20, amount: 288},
	}},
	{"cap", []edgeCase{
		// "the aggregate amount shall be no more than the Monthly Service Fee":
		// the highest voucher, 20 %, is 288.00, within it; the whole month down
		// is still 20 %.
		{why: "2,161 min: 20 %", month: 4, down: [][2]string{{"2026-04-05 12:00:00", "2026-04-07 00:01:00"}}, counted: 129660, uptime: 94.9977, tier: 20, amount: 288},
		{why: "ten days: 20 %", month: 4, down: [][2]string{{"2026-04-10 00:00:00", "2026-04-20 00:00:00"}}, counted: 864000, uptime: 66.6667, tier: 20, amount: 288},
		// A partial month's fee: delivered 17 March, 360 h × 2.00 = 720.00;
		// 1,081 min of 21,600, 94.995370 %: 20 %, 144.00.
		{why: "20 % of a partial month's fee", delivered: "2026-03-17 00:00:00", down: down1("2026-03-20 00:00:00", "2026-03-20 18:01:00"),
			counted: 64860, uptime: 94.9954, tier: 20, amount: 144, charge: 720},
	}},
	{"maintenance", []edgeCase{
		// "When the Service is in a non-maintenance state" and 4.12 "routine
		// maintenance … shall not be counted": 447 min outside a 6-hour window,
		// (44,640 − 447) / 44,640 = 98.998656 %, 5 %, with or without 30 min down
		// inside; 30 min straddling its start: 15 + 447 = 462 min, 98.965054 %.
		{why: "window, nothing down in it", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-20 03:00:00", "2026-03-20 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 5, amount: 74.4, denominator: 2678400},
		{why: "window, 30 min down in it", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-10 01:00:00", "2026-03-10 01:30:00"}, {"2026-03-20 03:00:00", "2026-03-20 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 5, amount: 74.4},
		{why: "30 min straddling its start", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-09 23:45:00", "2026-03-10 00:15:00"}, {"2026-03-20 03:00:00", "2026-03-20 10:27:00"}}, counted: 27720, uptime: 98.9651, tier: 5, amount: 74.4},
	}},
	{"claim-window", []edgeCase{
		// "no later than the sixtieth (60th) calendar day following the end of
		// the applicable Service Month": before 31 May, before 30 June; "after
		// the fifth (5th) business day": from 9 April, from 12 May.
		{why: "March", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 5, amount: 74.4,
			deadline: "2026-05-31T00:00:00+08:00", opens: "2026-04-09T00:00:00+08:00"},
		{why: "April", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:13:00"}}, counted: 25980, uptime: 98.9977, tier: 5, amount: 72,
			deadline: "2026-06-30T00:00:00+08:00", opens: "2026-05-12T00:00:00+08:00"},
		// "following the end of the applicable Service Month": released 20
		// March 10:00, 300 min of 28,800, 98.958333 %, 5 % of 466 h × 2.00 =
		// 932.00: 46.60, due before 19 May 00:00; released 31 March 23:59, 447
		// min of 44,640, 5 %, before 30 May.
		{why: "released 20 March 10:00: due 19 May", released: "2026-03-20 10:00:00", down: down1("2026-03-10 03:00:00", "2026-03-10 08:00:00"), counted: 18000, uptime: 98.9583, tier: 5, amount: 46.6,
			deadline: "2026-05-19T00:00:00+08:00"},
		{why: "released 31 March 23:59: due 30 May", released: "2026-03-31 23:59:00", down: down1("2026-03-08 03:00:00", "2026-03-08 10:27:00"), counted: 26820, uptime: 98.9987, tier: 5, amount: -1,
			deadline: "2026-05-30T00:00:00+08:00"},
	}},
	{"fee", []edgeCase{
		// "excluding … the fees deducted with vouchers, coupons": reckoned on
		// the order's fee: 5 % of 1,488.00 and of 1,440.00.
		{why: "March", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 10:27:00"}}, counted: 26820, uptime: 98.9987, tier: 5, amount: 74.4},
		{why: "April", month: 4, down: [][2]string{{"2026-04-15 09:00:00", "2026-04-15 16:13:00"}}, counted: 25980, uptime: 98.9977, tier: 5, amount: 72},
	}},
	{"each-outage-rounded-down", []edgeCase{
		// "Service Downtime Calculated in Minutes = the time the Service
		// Unavailability is fixed – the time … starts", each in whole minutes
		// rounded down, then summed: two outages of 223 min 30 s are 223 + 223 =
		// 446 min, (44,640 − 446) / 44,640 = 99.000896 %, met (their 447 min
		// summed first would be 98.998656 %, 5 %); 223 min 30 s and 224 min
		// are 447, 5 %, 74.40.
		{why: "two of 223 min 30 s: 446, met", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 06:43:30"}, {"2026-03-09 03:00:00", "2026-03-09 06:43:30"}},
			counted: 26760, uptime: 99.0009, tier: 0, amount: 0},
		{why: "223 min 30 s and 224 min: 447, 5 %", down: [][2]string{{"2026-03-08 03:00:00", "2026-03-08 06:43:30"}, {"2026-03-09 03:00:00", "2026-03-09 06:44:00"}},
			counted: 26820, uptime: 98.9987, tier: 5, amount: 74.4},
	}},
	{"february", []edgeCase{
		// 40,320 min; the fee 672 h × 2.00 = 1,344.00. 403 min: 39,917 /
		// 40,320 = 99.000496 %, met; 404 min: 98.998016 %, 5 %, 67.20; due
		// before 30 April, from 7 March.
		{why: "403 min: met", month: 2, down: down1("2026-02-10 03:00:00", "2026-02-10 09:43:00"), counted: 24180, uptime: 99.0005, tier: 0, amount: 0, denominator: 2419200},
		{why: "404 min: 5 %", month: 2, down: down1("2026-02-10 03:00:00", "2026-02-10 09:44:00"), counted: 24240, uptime: 98.998, tier: 5, amount: 67.2, charge: 1344,
			denominator: 2419200, deadline: "2026-04-30T00:00:00+08:00", opens: "2026-03-07T00:00:00+08:00"},
	}},
	{"thirty-day-month", []edgeCase{
		// "Assuming that a month contains 30 days … the Service Downtime
		// Calculated in Minutes shall be less than 432 minutes": 432 min is
		// exactly 99.0000 %, "no less than 99%" by the formula and below no row
		// of the table ("Less than 99% …"), so no voucher either way; 432 min
		// 59 s is 432 whole minutes, the same; 433 min, 98.997685 %, 5 %, 72.00.
		{why: "432 min 59 s: 432, no voucher", month: 4, down: down1("2026-04-15 09:00:00", "2026-04-15 16:12:59"), counted: 25920, uptime: 99, tier: 0, amount: 0},
		{why: "433 min: 5 %", month: 4, down: down1("2026-04-15 09:00:00", "2026-04-15 16:13:00"), counted: 25980, uptime: 98.9977, tier: 5, amount: 72},
	}},
	{"beijing-month-end", []edgeCase{
		// The Service Month in Beijing time: 31 March 23:50 to 1 April 00:20
		// is March's 10 min (99.977599 %) and April's 20 (99.953704 %); 1 April
		// 07:50–08:20 (across the month's end in UTC) is April's 30 min alone
		// (99.930556 %). Met in all.
		{why: "23:50–00:20 Beijing: March's 10 min", down: down1("2026-03-31 23:50:00", "2026-04-01 00:20:00"), counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "23:50–00:20 Beijing: April's 20 min", month: 4, down: down1("2026-03-31 23:50:00", "2026-04-01 00:20:00"), counted: 1200, uptime: 99.9537, tier: 0, amount: 0},
		{why: "07:50–08:20 Beijing on 1 April: nothing in March", down: down1("2026-04-01 07:50:00", "2026-04-01 08:20:00"), counted: 0, uptime: 100, tier: 0, amount: 0},
		{why: "07:50–08:20 Beijing on 1 April: April's 30 min", month: 4, down: down1("2026-04-01 07:50:00", "2026-04-01 08:20:00"), counted: 1800, uptime: 99.9306, tier: 0, amount: 0},
	}},
	{"release-day", []edgeCase{
		// The day of the release counted whole (approximations[3]): released 20
		// March 10:00, 20 days, 28,800 min; 288 min down: 28,512 / 28,800 =
		// 99.0000 %, met; released 20 March 00:00, 19 days, 27,360 min:
		// 98.947368 %, 5 % of 456 h × 2.00 = 912.00: 45.60.
		{why: "released 20 March 10:00: 20 days", released: "2026-03-20 10:00:00", down: down1("2026-03-10 03:00:00", "2026-03-10 07:48:00"),
			counted: 17280, uptime: 99, tier: 0, amount: 0, denominator: 1728000},
		{why: "released 20 March 00:00: 19 days", released: "2026-03-20 00:00:00", down: down1("2026-03-10 03:00:00", "2026-03-10 07:48:00"),
			counted: 17280, uptime: 98.9474, tier: 5, amount: 45.6, charge: 912, denominator: 1641600},
	}},
	{"maintenance-month-end", []edgeCase{
		// A window 31 March 22:00 – 1 April 02:00, announced: down 21:50–22:10
		// (10 min before it count, 99.977599 %) and 23:00–01:00 (excused in
		// both months).
		{why: "March: the 10 min before the window", maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-31 21:50:00", "2026-03-31 22:10:00"}, {"2026-03-31 23:00:00", "2026-04-01 01:00:00"}}, counted: 600, uptime: 99.9776, tier: 0, amount: 0},
		{why: "April: inside the window, nothing", month: 4, maint: []maintSpec{{"2026-03-31 22:00:00", "2026-04-01 02:00:00", "2026-03-01 00:00:00"}},
			down: [][2]string{{"2026-03-31 21:50:00", "2026-03-31 22:10:00"}, {"2026-03-31 23:00:00", "2026-04-01 01:00:00"}}, counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
}

func init() {
	packEdges["tencent-intl-cvm"] = append(tencentIntlCVMEdges, cnSecondEdges["tencent-intl-cvm"]...)
	packEdges["tencent-car"] = append(tencentCAREdges, cnSecondEdges["tencent-car"]...)
}

// "在没有达标的相应服务月度结束后的次月的第五（5）个工作日后" / "after the fifth (5th)
// business day of the month immediately following such Service Month": the
// packs list China's 2026 holidays only. November 2026, 12 min of 43,200
// (99.972222 %, 10 %): December's working days 1 (Tue), 2, 3, 4, 7 — from 8
// December, a day the report gives; due 60 days after 30 November (1
// December – 29 January): before 30 January 2027. December 2026, 12 min of 44,640
// (99.973118 %, 10 %): January 2027's five working days depend on 2027's
// holidays (1 January, 元旦, is one by law), which the packs do not list, so
// the report gives no opening day, only the earliest it can be (weekdays
// alone: 1, 4, 5, 6, 7 — not before 8 January) and the year it lacks; due
// 60 days after 31 December (1 January – 1 March): before 2 March 2027.
func TestTencentClaimOpensInAYearWithoutHolidays(t *testing.T) {
	for _, pack := range []string{"tencent-cvm", "tencent-intl-cvm", "tencent-car"} {
		tm := packTerms(t, pack)
		for _, c := range []struct {
			month                     time.Month
			down                      [][2]string
			opens, earliest, deadline string
			missing                   int
		}{
			{11, down1("2026-11-10 03:00:00", "2026-11-10 03:12:00"), "2026-12-08T00:00:00+08:00", "", "2027-01-30T00:00:00+08:00", 0},
			{12, down1("2026-12-10 03:00:00", "2026-12-10 03:12:00"), "", "2027-01-08T00:00:00+08:00", "2027-03-02T00:00:00+08:00", 2027},
		} {
			r := buildFrom(t, []*terms.Terms{tm}, Options{Year: 2026, Month: c.month, AsOf: time.Date(2027, 1, 2, 12, 0, 0, 0, time.UTC)},
				edgeLog(t, tm, edgeCase{month: c.month, down: c.down, released: "2027-01-02 00:00:00"}))
			k := r.Contracts[0]
			if k.ClaimOpens != c.opens || k.ClaimOpensEarliest != c.earliest || k.ClaimOpensHolidaysMissing != c.missing {
				t.Errorf("%s %s: opens %q, earliest %q, holidays missing %d; want %q, %q, %d", pack, c.month, k.ClaimOpens, k.ClaimOpensEarliest,
					k.ClaimOpensHolidaysMissing, c.opens, c.earliest, c.missing)
			}
			if n := node(t, r, "n1"); n.ClaimDeadline != c.deadline || n.Uptime.ClaimableOutageSeconds != 720 {
				t.Errorf("%s %s: deadline %s, counted %d s; want %s, 720", pack, c.month, n.ClaimDeadline, n.Uptime.ClaimableOutageSeconds, c.deadline)
			}
		}
	}
}
