// Package trial holds the seed article's trial criteria — the checklist it
// tells a renter to run on one freshly rented node of each candidate
// provider — and judges one node's check results against each: the four
// steps after delivery (nvidia-smi against the order, gpustat idle, df -h,
// curl -I), the table of stability tests (gpu_burn for 30 minutes,
// bandwidthTest at 90 % of the official figure, nccl-tests all_reduce,
// power within 5 % at full load) and the network tests (iperf3 at 70 % of
// the advertised bandwidth, ping to the gateway within 2 ms).
//
// One rule in one place: the probe's `gpuprobe trial` judges its own run
// with it for the signed acceptance record, and the scorecard's trial page
// judges every result of the trial window with it. Each criterion's pass
// line is the seed's own, read as its wording says (docs/scorecard.md,
// "Trial mode"): a verdict is decided on the unrounded figure, and Row
// says how many digits print that figure without contradicting it.
//
// On the path from an observation to a report row, this is the trial's
// verdict step: check results → one row per criterion of the seed.
package trial

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/msg"
)

// Verdicts of a criterion.
const (
	Pass = "pass"
	Warn = "warn"
	Fail = "fail"
	// NotMeasured: no result to judge (or one that does not meet the
	// criterion's own conditions, a soak shorter than 30 minutes): never a
	// pass. Ask says what to do.
	NotMeasured = "not measured"
	// NotApplicable: the criterion does not apply to this node (an
	// all-reduce across GPUs on a one-GPU node).
	NotApplicable = "not applicable"
	// Recorded: a figure the seed sets no pass line for (what the trial
	// cost).
	Recorded = "recorded"
)

// Check result verdicts and categories, as the probe writes them
// (probe/wire; sla/events repeats them).
const (
	resPass    = "pass"
	resWarn    = "warn"
	resFail    = "fail"
	resSkipped = "skipped"
)

// Result is one check result of the node.
type Result struct {
	Name      string
	Category  string
	Verdict   string
	Value     string
	Criterion string
	Number    *float64
	Unit      string
	GPU       *int
	Detail    string
	// DetailText is the probe's coded form of Detail (docs/protocol.md),
	// nil where it sent English only.
	DetailText *msg.Coded
	At         time.Time
	// Idle: read while the node should be idle — its acceptance reading
	// at delivery, or a trial run's reading before its burns. Only these
	// are held to "idle" and to the data disk's state at delivery; the
	// renter's own work later is not the provider's doing.
	Idle bool
	// Trial: read by a `gpuprobe trial` run — the results of its own
	// burns, soak and copies, not of the renter's work — so that their
	// warnings are the card's (a burn slower than a healthy card's).
	Trial bool
	// why: the reason of a judgement the trial made itself (the order
	// held to a probe that ran without it).
	why msg.Text
}

// Node is one trial node's results.
type Node struct {
	// Model is the GPU model ordered (any spelling the spec database
	// reads); the card's own reported name is preferred where a
	// gpu.model result carries it. Each GPU is held to it here too,
	// whatever order the probe was given (none: no --expect).
	Model string
	// GPUs is the number of GPUs ordered (or seen): an all-reduce needs
	// two; fewer usable than ordered fails the order.
	GPUs int
	// MemoryMiB is the memory per GPU ordered, 0 where the order names
	// none.
	MemoryMiB float64
	// AdvertisedMbps is the internal bandwidth the provider advertises in
	// its terms (network.internal_mbps), 0 where they name none: the
	// iperf3 runs are held to it, whatever figure the probe was told.
	AdvertisedMbps float64
	Results        []Result
}

// Line is a pass line: the figure passes when it is Op Value.
type Line struct {
	Value float64 `json:"value"`
	// Op: ">=" passes at or above ("…以上", at least), "<=" at or below
	// ("以内", "超过…" fails), "<" strictly below ("低于").
	Op string `json:"op"`
}

// Passes says whether v meets the line. Both are taken to 9 decimals
// first: a figure computed as a ratio (4077.4 GB/s of 4800) must not miss
// a line computed another way (95 % of 4292) by a floating-point bit.
func (l Line) Passes(v float64) bool {
	v, lv := round(v, 9), round(l.Value, 9)
	switch l.Op {
	case ">=":
		return v >= lv
	case "<=":
		return v <= lv
	case "<":
		return v < lv
	}
	return false
}

// Row is one criterion judged.
type Row struct {
	Key     string   `json:"key"`
	Verdict string   `json:"verdict"`
	Value   *float64 `json:"value"` // unrounded; nil when nothing was measured
	Unit    string   `json:"unit,omitempty"`
	// Line is what the verdict was decided against, where a figure
	// decided it.
	Line *Line `json:"line,omitempty"`
	// Digits is how many decimals print Shown without contradicting the
	// verdict: 89.996 % against a 90 % line prints as 89.996, never as
	// 90.0. Shown is Value, moved to the verdict's side of the line at
	// Digits decimals where no rounding up to MaxDigits keeps it there.
	Digits int     `json:"digits"`
	Shown  float64 `json:"shown"`
	// AtLeast: an unfinished case (not delivered, not answered) counted
	// at its time so far.
	AtLeast bool `json:"at_least,omitempty"`
	N       int  `json:"n"` // the results it rests on
	// Checks names the check results that made a verdict other than pass
	// (data from the node: renderers escape it).
	Checks []string `json:"checks,omitempty"`
	// Seed is the seed's own words the criterion comes from (Chinese).
	Seed string `json:"seed"`
	// Detail, Criterion and Ask in English; their Text forms translate.
	Detail        string   `json:"detail,omitempty"`
	Criterion     string   `json:"criterion"`
	Ask           string   `json:"ask,omitempty"`
	DetailText    msg.Text `json:"-"`
	CriterionText msg.Text `json:"-"`
	AskText       msg.Text `json:"-"`
}

// Finish fills the English forms of the Texts (the JSON's).
func (r *Row) Finish() {
	r.Detail, r.Criterion, r.Ask = str(r.DetailText), r.CriterionText.String(), str(r.AskText)
}

func str(t msg.Text) string {
	if t.IsZero() {
		return ""
	}
	return t.String()
}

// NodeKeys are the criteria a node's own results decide, in the seed's
// order; the trial page adds delivery, the 22:00 ticket and billing
// (Keys).
var NodeKeys = []string{KeyAcceptance, KeyOrder, KeyIdle, KeyDisk, KeyMirror, KeyBurn, KeyBandwidth, KeyAllReduce, KeyPower, KeyIperf, KeyGateway}

// Keys are every criterion of the trial page, in the seed's order.
var Keys = []string{KeyDelivery, KeyAcceptance, KeyOrder, KeyIdle, KeyDisk, KeyMirror, KeyBurn, KeyBandwidth, KeyAllReduce, KeyPower,
	KeyIperf, KeyGateway, KeyNightTicket, KeyBilling, KeyPrice}

// Criterion keys.
const (
	KeyDelivery    = "delivery"
	KeyAcceptance  = "acceptance"
	KeyOrder       = "order"
	KeyIdle        = "idle"
	KeyDisk        = "disk"
	KeyMirror      = "mirror"
	KeyBurn        = "burn_30min"
	KeyBandwidth   = "memory_bandwidth"
	KeyAllReduce   = "allreduce"
	KeyPower       = "power"
	KeyIperf       = "iperf3"
	KeyGateway     = "gateway"
	KeyNightTicket = "night_ticket"
	KeyBilling     = "billing_granularity"
	KeyPrice       = "trial_price"
)

// Seed is the seed's own words for each criterion.
var Seed = map[string]string{
	KeyDelivery:    "多数服务商能做到“秒级交付”付款后几分钟内，服务器IP和登录凭证就出现在控制台上……等待时间可能从几小时拉长到一两天",
	KeyAcceptance:  "这四步操作耗时不超过三分钟,但能过滤掉相当一部分硬件货不对板的问题",
	KeyOrder:       "执行nvidia-smi查看显卡型号、显存容量和驱动版本，确认与下单配置一致",
	KeyIdle:        "运行gpustat观察GPU利用率，空载状态下利用率应接近0%",
	KeyDisk:        "用df -h检查数据盘挂载情况，防止出现“系统盘已满、数据盘未挂载”的尴尬",
	KeyMirror:      "执行curl -I http://mirrors.aliyun.com测试外网连通性和延迟",
	KeyBurn:        "显卡计算能力 | gpu_burn | 连续运行30分钟无报错",
	KeyBandwidth:   "显存读写带宽 | bandwidthTest | 达到官方标称值的90%以上",
	KeyAllReduce:   "多卡通信 | nccl-tests | all_reduce延迟低于预期值",
	KeyPower:       "整机功耗 | nvidia-smi dmon | 满载时功率波动在5%以内",
	KeyIperf:       "用iperf3测试TCP/UDP吞吐量……对比结果是否达到标称内网带宽的70%以上",
	KeyGateway:     "ping -c 10 内网网关地址；如果平均延迟超过2ms,说明网络架构可能存在虚拟化层开销过大问题",
	KeyNightTicket: "选在晚上10点后提交一个测试工单,记录首次响应时间",
	KeyBilling:     "部分平台宣传“按秒计费”，但实际账单显示的是“按小时取整”",
	KeyPrice:       "假设你要开一台机器跑半小时测试，按秒计费平台花费接近一半小时价格，而按小时计费平台会直接扣满一小时费用",
}

// Judge judges the node's results against every criterion of NodeKeys, in
// that order.
func Judge(n Node) []Row {
	rows := []Row{acceptance(n), order(n), idle(n), disk(n), mirror(n), burn30(n), bandwidth(n), allReduce(n), power(n), iperf(n), gateway(n)}
	foldFourSteps(&rows[0], rows[1:5])
	for i := range rows {
		rows[i].Seed = Seed[rows[i].Key]
		rows[i].Finish()
	}
	return rows
}

// foldFourSteps makes acceptance the verdict of the seed's four steps too:
// a card 35 % busy at delivery, an unmounted data disk or an unreachable
// mirror fails (or warns) acceptance as a fault does, naming the step.
func foldFourSteps(acc *Row, steps []Row) {
	var failed, warned []string
	unordered := false
	for _, r := range steps {
		switch r.Verdict {
		case Fail:
			failed = append(failed, r.Key)
		case Warn:
			warned = append(warned, r.Key)
		case NotMeasured:
			unordered = unordered || r.Key == KeyOrder
		}
	}
	if acc.Verdict == NotMeasured && len(failed) == 0 {
		return
	}
	switch {
	case len(failed) == 0 && unordered && acc.Verdict == Pass:
		// Nothing wrong was found, but the card was never held to an
		// order: not a pass.
		acc.Verdict = NotMeasured
		acc.DetailText = msg.New("the card was not held to an order")
		acc.AskText = msg.New("Run `gpuprobe trial --expect model=… --expect gpu_memory_gb=… --expect driver=…` with what was ordered.")
	case len(failed) > 0 && acc.Verdict != Fail:
		acc.Verdict = Fail
		acc.DetailText = msg.New("the four steps failed: %s", msg.Plain(strings.Join(failed, ", ")))
		acc.AskText = msg.New("The four steps after delivery failed (%s): reject the node or ask for a replacement within the acceptance window, with the signed acceptance record.", msg.Plain(strings.Join(failed, ", ")))
	case len(failed) == 0 && len(warned) > 0 && acc.Verdict == Pass:
		acc.Verdict = Warn
		acc.DetailText = msg.New("the four steps warned: %s", msg.Plain(strings.Join(warned, ", ")))
		acc.AskText = msg.New("Ask the provider to explain the warnings (%s) in writing before signing.", msg.Plain(strings.Join(warned, ", ")))
	}
}

// MaxDigits is the most decimals a figure is printed with.
const MaxDigits = 6

// SetFigure sets the row's figure v (in unit), decided against line:
// the verdict and the digits that print it on the verdict's side.
func (r *Row) SetFigure(v float64, unit string, line Line, base int) {
	r.Value, r.Unit, r.Line = &v, unit, &line
	if line.Passes(v) {
		r.Verdict = Pass
	} else {
		r.Verdict = Fail
	}
	r.Digits, r.Shown = Digits(v, line, base)
}

// Digits is the fewest decimals from base up that print v on the same side
// of line as v itself, and the value to print: v, or — where even MaxDigits
// decimals round it across the line — v cut at MaxDigits towards its own
// side (89.9999999 against "≥ 90" prints as 89.999999).
func Digits(v float64, line Line, base int) (int, float64) {
	side := line.Passes(v)
	for d := base; d <= MaxDigits; d++ {
		if line.Passes(round(v, d)) == side {
			return d, v
		}
	}
	p := math.Pow(10, MaxDigits)
	cut := math.Floor(v*p) / p
	if line.Passes(cut) != side {
		cut = math.Ceil(v*p) / p
	}
	return MaxDigits, cut
}

// Format prints v (English digits) with the decimals Digits chooses.
func Format(v float64, line Line, base int) string {
	d, shown := Digits(v, line, base)
	return strconv.FormatFloat(shown, 'f', d, 64)
}

// Plain sets a figure with no line: printed at base decimals.
func (r *Row) Plain(v float64, unit string, base int) {
	r.Value, r.Unit, r.Digits, r.Shown = &v, unit, base, v
}

// round is v at d decimals exactly as it is printed (strconv rounds a
// tie to even: 30.5 prints as "30"), so that the digits chosen are judged
// on the very figure a reader sees.
func round(v float64, d int) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'f', d, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// judged are the results that meet a criterion: not skipped, and with a
// number where num is set.
func judged(rs []Result, want func(*Result) bool, num bool) []Result {
	var out []Result
	for i := range rs {
		r := &rs[i]
		if r.Verdict == resSkipped || !want(r) || (num && (r.Number == nil || math.IsNaN(*r.Number) || math.IsInf(*r.Number, 0))) {
			continue
		}
		out = append(out, *r)
	}
	return out
}

// worst is the worst verdict of rs (fail over warn over pass) and the
// distinct names of the results that were not a pass, each with its GPU.
func worst(rs []Result) (string, []string) {
	v := Pass
	seen := map[string]bool{}
	var names []string
	for _, r := range rs {
		switch r.Verdict {
		case resFail:
			v = Fail
		case resWarn:
			if v != Fail {
				v = Warn
			}
		default:
			continue
		}
		n := r.Name
		if r.GPU != nil {
			n += " (GPU " + strconv.Itoa(*r.GPU) + ")"
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return v, names
}

func numbers(rs []Result) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = *r.Number
	}
	return out
}
