package scorecard

import (
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/stat"
)

// The trial (docs/scorecard.md, "Trial mode") is the seed's own method:
// rent one machine from each candidate, run the same checks, compare. One
// node per provider is one observation per figure, so nothing is ranked:
// each figure is judged against the seed's pass criteria, and each
// provider gets the questions to ask next.

// TrialSchema names the trial's JSON form.
const TrialSchema = "gpusla.trial/v1"

// Verdicts of a trial figure.
const (
	TrialPass    = "pass"
	TrialWarn    = "warn"
	TrialFail    = "fail"
	TrialUnknown = "not measured" // nothing to judge yet: the Ask says what to do
)

// The seed's pass criteria, and ours where it gives no number (its 22:00
// test ticket says only "record the first response").
const (
	TrialDeliveryWarn = 24 * time.Hour // "hours … to a day or two" is the slow end
	TrialRTTMaxMS     = 2.0            // "average latency over 2 ms"
	TrialIperfMin     = 0.7            // "at least 70 % of the advertised internal bandwidth"
	TrialGranularity  = time.Minute    // per second (or minute) billing, not rounded to the hour
	TrialNightFrom    = 22             // "after 10 pm", local time of the contract
	TrialNightUntil   = 6
)

// Trial is the side-by-side page: one column per provider.
type Trial struct {
	Schema    string        `json:"schema"`
	From      string        `json:"from"`
	To        string        `json:"to"`
	AsOf      string        `json:"as_of"`
	Providers []TrialColumn `json:"providers"`
}

// TrialColumn is one provider's trial node and its figures, in the order
// of TrialKeys.
type TrialColumn struct {
	Provider string `json:"provider"`
	Contract string `json:"contract"`
	Node     string `json:"node"`
	// Nodes: how many of the provider's nodes the months hold; the trial
	// is judged on the first ordered.
	Nodes   int           `json:"nodes"`
	Figures []TrialFigure `json:"figures"`
}

// TrialKeys are the trial's figures, in the seed's order.
var TrialKeys = []string{"delivery", "acceptance", "gateway_rtt", "iperf3", "night_ticket", "billing_granularity"}

// TrialFigure is one check of the trial node, judged.
type TrialFigure struct {
	Key   string   `json:"key"`
	Value *float64 `json:"value"`
	Unit  string   `json:"unit"`
	// AtLeast: an unfinished case (not delivered, not answered) counted
	// at its time so far.
	AtLeast bool   `json:"at_least,omitempty"`
	N       int    `json:"n"` // the results it rests on
	Verdict string `json:"verdict"`
	// Detail, Criterion and Ask in English; their Text forms translate.
	Detail        string   `json:"detail,omitempty"`
	Criterion     string   `json:"criterion"`
	Ask           string   `json:"ask,omitempty"`
	DetailText    msg.Text `json:"-"`
	CriterionText msg.Text `json:"-"`
	AskText       msg.Text `json:"-"`
}

// BuildTrial computes the trial page: per provider, its first-ordered
// node's checks judged against the seed's criteria. It can be called once
// instead of Build.
func (b *Builder) BuildTrial() (*Trial, error) {
	facts, _, _, err := b.gather()
	if err != nil {
		return nil, err
	}
	tr := &Trial{Schema: TrialSchema, From: b.opts.From.String(), To: b.opts.To.String(), AsOf: b.opts.AsOf.UTC().Format(time.RFC3339), Providers: []TrialColumn{}}
	groups := map[string][]*nodeFacts{}
	for _, f := range facts.sorted() {
		groups[f.provider] = append(groups[f.provider], f)
	}
	for name, fs := range groups {
		f := firstOrdered(fs)
		col := TrialColumn{Provider: name, Contract: f.contract, Node: f.id, Nodes: len(fs)}
		col.Figures = []TrialFigure{trialDelivery(f), trialAcceptance(f), trialRTT(f), trialIperf(f), trialNightTicket(f), trialBilling(f)}
		for i := range col.Figures {
			x := &col.Figures[i]
			x.Detail, x.Criterion, x.Ask = msgString(x.DetailText), x.CriterionText.String(), msgString(x.AskText)
		}
		tr.Providers = append(tr.Providers, col)
	}
	sort.Slice(tr.Providers, func(i, j int) bool { return tr.Providers[i].Provider < tr.Providers[j].Provider })
	return tr, nil
}

func msgString(t msg.Text) string {
	if t.IsZero() {
		return ""
	}
	return t.String()
}

// firstOrdered is the node ordered first (its delivery in the months;
// then by id), the trial's node.
func firstOrdered(fs []*nodeFacts) *nodeFacts {
	ordered := func(f *nodeFacts) (time.Time, bool) {
		if f.delivery == nil {
			return time.Time{}, false
		}
		t, err := time.Parse(time.RFC3339, f.delivery.OrderedAt)
		return t, err == nil
	}
	best := fs[0]
	bt, bok := ordered(best)
	for _, f := range fs[1:] {
		if t, ok := ordered(f); ok && (!bok || t.Before(bt)) {
			best, bt, bok = f, t, true
		}
	}
	return best
}

// trialDelivery: order to delivery in minutes; the seed's "within minutes
// of payment" passes, "hours" warns, "a day or two" fails.
func trialDelivery(f *nodeFacts) TrialFigure {
	x := TrialFigure{Key: "delivery", Unit: "min",
		CriterionText: msg.New("delivered within %d min of the order (the seed: most deliver \"within minutes of payment\"; waits of hours to a day or two are the slow end)", int(DeliveryStandard.Minutes()))}
	dl := f.delivery
	if dl == nil {
		x.Verdict = TrialUnknown
		x.AskText = msg.New("Order the trial node within the months compared, so that its delivery time is measured.")
		return x
	}
	took := time.Duration(dl.Seconds) * time.Second
	x.Value, x.N = val(took.Minutes()), 1
	judgeWait(&x, took.Minutes(), dl.DeliveredAt == "", DeliveryStandard.Minutes(), TrialDeliveryWarn.Minutes(),
		msg.New("Are machines racked and powered before the order, ready for instant delivery? What delivery time will the contract promise, with what penalty?"))
	return x
}

// judgeWait judges a wait of v minutes (open: not over yet, counted so
// far): within pass passes, over fail fails, an open one in between is not
// judged yet, a finished one warns; anything but a pass asks ask.
func judgeWait(x *TrialFigure, v float64, open bool, pass, fail float64, ask msg.Text) {
	x.AtLeast = open
	switch {
	case v <= pass && !open:
		x.Verdict = TrialPass
	case v > fail:
		x.Verdict = TrialFail
	case open:
		x.Verdict = TrialUnknown
	default:
		x.Verdict = TrialWarn
	}
	if x.Verdict != TrialPass {
		x.AskText = ask
	}
}

// trialAcceptance: the node's first check results (the seed's nvidia-smi
// model and memory, gpustat idle, df -h, the outbound curl) all passing.
func trialAcceptance(f *nodeFacts) TrialFigure {
	x := TrialFigure{Key: "acceptance", Unit: "failing checks",
		CriterionText: msg.New("the first checks pass: GPU model, memory and driver as ordered, GPUs idle, data disk mounted, outbound network (the seed's four-step check)")}
	if !f.accepted {
		x.Verdict = TrialUnknown
		x.AskText = msg.New("Run the probe's acceptance check on the trial node as soon as it is delivered.")
		return x
	}
	var names []string
	seen := map[string]bool{}
	for _, r := range f.accFails {
		if !seen[r.name] {
			seen[r.name] = true
			names = append(names, r.name)
		}
	}
	x.Value, x.N = val(float64(len(names))), 1
	if len(names) == 0 {
		x.Verdict = TrialPass
		return x
	}
	x.Verdict = TrialFail
	x.DetailText = msg.Plain(strings.Join(names, ", "))
	x.AskText = msg.New("The acceptance check failed (%s): replace the node, or explain why in writing, before anything is signed.", msg.Plain(strings.Join(names, ", ")))
	return x
}

// trialRTT: the median of the node's gateway ping averages.
func trialRTT(f *nodeFacts) TrialFigure {
	return trialMedian(f, 'r', TrialFigure{Key: "gateway_rtt", Unit: "ms",
		CriterionText: msg.New("ping to the gateway averages %g ms or less (the seed: over 2 ms means virtualisation overhead or shared bandwidth)", TrialRTTMaxMS)},
		func(v float64) bool { return v <= TrialRTTMaxMS },
		msg.New("Let the probe's network check run on the trial node (ping -c 10 to the gateway)."),
		msg.New("Is the network shared bandwidth, or is a virtualisation layer in the path? What latency to the gateway do you guarantee?"))
}

// trialIperf: the median iperf3 run against the advertised bandwidth.
func trialIperf(f *nodeFacts) TrialFigure {
	return trialMedian(f, 'i', TrialFigure{Key: "iperf3", Unit: "share",
		CriterionText: msg.New("iperf3 reaches %.0f %% of the advertised internal bandwidth or more (the seed)", 100*TrialIperfMin)},
		func(v float64) bool { return v >= TrialIperfMin },
		msg.New("Run iperf3 between the trial node and a second machine of the same provider, against the advertised bandwidth."),
		msg.New("What are the single-machine and the cross-node bandwidth limits, and is the advertised figure cross-rack? Ask for the bandwidth topology in writing."))
}

// trialMedian judges the median of the node's network results of one
// kind: ok passes it; none measured asks measure, a fail asks failed.
func trialMedian(f *nodeFacts, kind byte, x TrialFigure, ok func(float64) bool, measure, failed msg.Text) TrialFigure {
	vs := f.netValues(kind)
	if len(vs) == 0 {
		x.Verdict, x.AskText = TrialUnknown, measure
		return x
	}
	x.Value, x.N = val(stat.Median(vs)), len(vs)
	x.Verdict = TrialPass
	if !ok(*x.Value) {
		x.Verdict, x.AskText = TrialFail, failed
	}
	return x
}

// trialNightTicket: the first ticket opened from 22:00 to 06:00 local
// (the contract's zone), and its first response in minutes; one still
// unanswered counts at its wait so far.
func trialNightTicket(f *nodeFacts) TrialFigure {
	x := TrialFigure{Key: "night_ticket", Unit: "min",
		CriterionText: msg.New("a test ticket opened after 22:00 is first answered within %d min (the seed only says to record it; %d min is this scorecard's standard for every provider)",
			int(ResponseStandardFast.Minutes()), int(ResponseStandardFast.Minutes()))}
	var night *obs
	opened := ""
	for _, t := range f.tickets {
		at, err := time.Parse(time.RFC3339, t.OpenedAt)
		if err != nil || (at.Hour() < TrialNightFrom && at.Hour() >= TrialNightUntil) {
			continue
		}
		if o, ok := waited(f, t.OpenedAt, t.Response); ok && (opened == "" || t.OpenedAt < opened) {
			night, opened = &o, t.OpenedAt
		}
	}
	if night == nil {
		x.Verdict = TrialUnknown
		x.AskText = msg.New("Open a test ticket after 22:00 local time and record when it is first answered.")
		return x
	}
	x.Value, x.N = val(night.v), 1
	x.DetailText = msg.New("opened %s", msg.Plain(opened))
	judgeWait(&x, night.v, night.censored, ResponseStandardFast.Minutes(), ResponseStandardSlow.Minutes(),
		msg.New("Is there phone or WeChat Work support at night? What response time does the support SLA promise off-hours, and does it carry compensation?"))
	return x
}

// trialBilling: the contract's billing granularity, and with a bill
// whether the node was billed beyond it.
func trialBilling(f *nodeFacts) TrialFigure {
	x := TrialFigure{Key: "billing_granularity", Unit: "s",
		CriterionText: msg.New("billed per second or per minute, as the bill shows (the seed: \"per second\" in the advertisement, \"rounded to the hour\" on the bill)")}
	var gran int64 = -1
	for _, m := range f.months {
		if m.billed > 0 || m.inService {
			gran = max(gran, m.granularity)
		}
	}
	if gran < 0 {
		x.Verdict = TrialUnknown
		x.AskText = msg.New("Bill the trial node for a half-hour test and compare the bill with the contract.")
		return x
	}
	x.Value, x.N = val(float64(gran)), 1
	x.Verdict = TrialPass
	if time.Duration(gran)*time.Second > TrialGranularity {
		x.Verdict = TrialWarn
		x.AskText = msg.New("The contract rounds up to %s: a half-hour test is billed as a whole unit. Will you bill per second?", time.Duration(gran)*time.Second)
	}
	for _, r := range f.billRows {
		if r.Status == billing.StatusOverBilled {
			x.Verdict = TrialFail
			x.DetailText = msg.New("the bill charged %.2f h beyond the contract", r.OverHours)
			x.AskText = msg.New("The bill charged %.2f h beyond the contract's hours: ask for the difference back, and how the bill rounds.", r.OverHours)
		}
	}
	return x
}

// netValues are the node's network results of one kind ('r' gateway RTT
// ms, 'i' iperf3 share of nominal).
func (f *nodeFacts) netValues(kind byte) []float64 {
	var vs []float64
	for _, r := range f.net {
		if r.kind == kind {
			vs = append(vs, r.val)
		}
	}
	return vs
}
