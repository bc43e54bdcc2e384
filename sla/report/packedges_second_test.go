package report

// Edge tests of yandex-compute-vm, hostedai-gpu, gpuhub-network and
// alibaba-ecs, redone clause by clause from their providers' texts. These
// lists replace the first drafts of packedges_others_test.go: Go runs a
// package's init functions file by file in name order, so this file's,
// named after it, registers last.

func init() {
	packEdges["yandex-compute-vm"] = yandexComputeEdges
}

// down is one outage [a, b).
func down(a, b string) [][2]string { return [][2]string{{a, b}} }

// Yandex Compute Cloud, a single VM (yandex-compute-vm.yaml): one GPU at
// 3.00 USD an hour, Moscow time; March's charge 744 h × 3.00 = 2,232.00
// (10 % 223.20, 15 % 334.80, 30 % 669.60), April's 720 h × 3.00 = 2,160.00.
// The texts define no unavailability period, so a run counts to the second
// (approximations[2]); March is 2,678,400 s, and 0.05 % of it is 1,339.2 s.
var yandexComputeEdges = []edge{
	{"target", []edgeCase{
		// "Service Level 99.95%": 1,339 s (22 min 19 s), (2,678,400 − 1,339)
		// / 2,678,400 = 99.950007 %, met; 1,340 s, 99.949970 %, "< 99.95%":
		// 10 %, 223.20. Both read 99.9500 to four places: the tier is the
		// exact figure's.
		{why: "1,339 s: met", down: down("2026-03-08 03:00:00", "2026-03-08 03:22:19"), counted: 1339, uptime: 99.95, tier: 0, amount: 0, letter: LetterNone},
		{why: "1,340 s: 10 %", down: down("2026-03-08 03:00:00", "2026-03-08 03:22:20"), counted: 1340, uptime: 99.95, tier: 10, amount: 223.2, letter: LetterRequest},
	}},
	{"unavailable", []edgeCase{
		// "Loss of connectivity … on all network interfaces of a single
		// Virtual Machine": 23 min unreachable count, 99.948477 %, 10 %; a GPU
		// lost for 23 min on a VM that stays reachable is no Unavailability.
		{why: "unreachable 23 min", down: down("2026-03-08 03:00:00", "2026-03-08 03:23:00"), counted: 1380, uptime: 99.9485, tier: 10, amount: 223.2},
		{why: "GPU lost 23 min, reachable", lost: down("2026-03-08 03:00:00", "2026-03-08 03:23:00"), counted: 0, uptime: 100, tier: 0, amount: 0},
	}},
	{"tiers", []edgeCase{
		// "< 99.95%-99.00% 10.0%": 99.00 % is 1 % of March down, 26,784 s (7 h
		// 26 min 24 s), exactly 99.0000 %: still 10 %, 223.20; 26,785 s,
		// 98.999963 %: "< 99.00%-95.00%", 15 %, 334.80. Exactly 95 % is
		// 133,920 s (37 h 12 min): 15 %; 133,921 s, 94.999963 %: "less than
		// 95.00%", 30 %, 669.60.
		{why: "exactly 99 %: 10 %", down: down("2026-03-08 03:00:00", "2026-03-08 10:26:24"), counted: 26784, uptime: 99, tier: 10, amount: 223.2},
		{why: "a second more: 15 %", down: down("2026-03-08 03:00:00", "2026-03-08 10:26:25"), counted: 26785, uptime: 99, tier: 15, amount: 334.8},
		{why: "exactly 95 %: 15 %", down: down("2026-03-05 00:00:00", "2026-03-06 13:12:00"), counted: 133920, uptime: 95, tier: 15, amount: 334.8},
		{why: "a second more: 30 %", down: down("2026-03-05 00:00:00", "2026-03-06 13:12:01"), counted: 133921, uptime: 95, tier: 30, amount: 669.6},
	}},
	{"cap", []edgeCase{
		// "Compensation amount … will, under no circumstances, exceed the total
		// cost of the Service usage in Accrual Period": the highest tier is
		// 30 %, so a VM down ten days (67.741935 %) or the whole month (0 %)
		// earns 669.60, never more.
		{why: "ten days: 30 %", down: down("2026-03-05 00:00:00", "2026-03-15 00:00:00"), counted: 864000, uptime: 67.7419, tier: 30, amount: 669.6},
		{why: "the whole month: 30 %", down: down("2026-03-01 00:00:00", "2026-04-01 00:00:00"), counted: 2678400, uptime: 0, tier: 30, amount: 669.6},
	}},
	{"bill", []edgeCase{
		// "Compensation … is calculated as % depends on the cost of the Virtual
		// Machine that was Unavailable": 23 min, 10 % of this VM's month, one
		// GPU 2,232.00 → 223.20; eight GPUs, 744 h × 24.00 = 17,856.00 →
		// 1,785.60.
		{why: "1 GPU", down: down("2026-03-08 03:00:00", "2026-03-08 03:23:00"), counted: 1380, uptime: 99.9485, tier: 10, amount: 223.2, charge: 2232},
		{why: "8 GPUs", gpus: 8, down: down("2026-03-08 03:00:00", "2026-03-08 03:23:00"), counted: 1380, uptime: 99.9485, tier: 10, amount: 1785.6, charge: 17856},
	}},
	{"to-the-second", []edgeCase{
		// No unavailability period is defined: 22 min 20 s counts 1,340 s,
		// 10 %, but if Yandex counted full minutes (22, met) the tier would
		// differ: the claim page says so, a minute a run at most
		// (approximations[2]). 23 min 30 s, 1,410 s, 99.947356 %, is 10 %
		// either way (23 full minutes, 99.948477 %).
		{why: "22 min 20 s: the tier may differ", down: down("2026-03-08 03:00:00", "2026-03-08 03:22:20"), counted: 1340, uptime: 99.95, tier: 10, amount: 223.2,
			approximateDown: 60, checkTierDiffers: true, tierMayDiffer: true},
		{why: "23 min 30 s: it may not", down: down("2026-03-08 03:00:00", "2026-03-08 03:23:30"), counted: 1410, uptime: 99.9474, tier: 10, amount: 223.2,
			approximateDown: 60, checkTierDiffers: true, tierMayDiffer: false},
	}},
	{"across-month-end", []edgeCase{
		// Each second in its own month (Moscow): 31 March 23:40:00 to 1 April
		// 00:03:00 is 20 min in March, (2,678,400 − 1,200) / 2,678,400 =
		// 99.955197 %, met, and 3 min in April, 99.993056 %, met; the same 23
		// min inside March would be 10 %. 31 March 23:37:00 to 1 April
		// 00:03:00 is 23 min in March, 99.948477 %, 10 %.
		{why: "20 min in March", down: down("2026-03-31 23:40:00", "2026-04-01 00:03:00"), counted: 1200, uptime: 99.9552, tier: 0, amount: 0},
		{why: "3 min in April", month: 4, down: down("2026-03-31 23:40:00", "2026-04-01 00:03:00"), counted: 180, uptime: 99.9931, tier: 0, amount: 0},
		{why: "23 min in March", down: down("2026-03-31 23:37:00", "2026-04-01 00:03:00"), counted: 1380, uptime: 99.9485, tier: 10, amount: 223.2},
	}},
	{"no-maintenance", []edgeCase{
		// Neither text names a maintenance exclusion: 30 min down inside a
		// window announced ten days before count, 99.932796 %, 10 %; a window
		// with nothing down in it leaves the month whole: 22 min down outside
		// it, 99.950717 %, met, on all 2,678,400 s.
		{why: "30 min inside an announced window", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: down("2026-03-10 01:00:00", "2026-03-10 01:30:00"), counted: 1800, uptime: 99.9328, tier: 10, amount: 223.2, denominator: 2678400},
		{why: "a window, nothing down in it", maint: []maintSpec{{"2026-03-10 00:00:00", "2026-03-10 06:00:00", "2026-03-01 00:00:00"}},
			down: down("2026-03-12 01:00:00", "2026-03-12 01:22:00"), counted: 1320, uptime: 99.9507, tier: 0, amount: 0, denominator: 2678400},
	}},
	{"mid-day-delivery", []edgeCase{
		// The VM's Accrual Period from its delivery (approximations[3]):
		// delivered 16 March 12:00, 1,339,200 s in service; 12 min down,
		// (1,339,200 − 720) / 1,339,200 = 99.946237 %, 10 % of 372 h × 3.00 =
		// 1,116.00: 111.60. In service the whole month the same 12 min read
		// 99.973118 %, met. 0.05 % of 1,339,200 s is 669.6 s: 669 s meet.
		{why: "delivered 16 March 12:00, 12 min", delivered: "2026-03-16 12:00:00", down: down("2026-03-20 03:00:00", "2026-03-20 03:12:00"), counted: 720, uptime: 99.9462, tier: 10, amount: 111.6,
			charge: 1116, denominator: 1339200},
		{why: "delivered 16 March 12:00, 669 s", delivered: "2026-03-16 12:00:00", down: down("2026-03-20 03:00:00", "2026-03-20 03:11:09"), counted: 669, uptime: 99.95, tier: 0, amount: 0,
			charge: 1116, denominator: 1339200},
		{why: "the whole month, 12 min", down: down("2026-03-20 03:00:00", "2026-03-20 03:12:00"), counted: 720, uptime: 99.9731, tier: 0, amount: 0, denominator: 2678400},
	}},
	{"claim", []edgeCase{
		// Not in the texts read: 14 days after the month (assumption), through
		// 14 April Moscow time, due before 15 April 00:00; April's before 15
		// May. The letter requests the credit; a month met has none.
		{why: "March", down: down("2026-03-08 03:00:00", "2026-03-08 03:23:00"), counted: 1380, uptime: 99.9485, tier: 10, amount: 223.2,
			deadline: "2026-04-15T00:00:00+03:00", letter: LetterRequest},
		{why: "April", month: 4, down: down("2026-04-08 03:00:00", "2026-04-08 03:23:00"), counted: 1380, uptime: 99.9468, tier: 10, amount: 216,
			deadline: "2026-05-15T00:00:00+03:00", letter: LetterRequest},
		{why: "March met", down: down("2026-03-08 03:00:00", "2026-03-08 03:22:00"), counted: 1320, uptime: 99.9507, tier: 0, amount: 0, letter: LetterNone},
	}},
}
