package scorecard

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/trial"
)

// The trial (docs/scorecard.md, "Trial mode") is the seed's own method:
// rent one machine from each candidate, run the same checks, compare. One
// node per provider is one observation per figure, so nothing is ranked:
// every criterion of the seed is a row (sla/trial), judged on every check
// result of the trial window, and each provider gets the questions to ask
// next.

// TrialSchema names the trial's JSON form.
const TrialSchema = "gpusla.trial/v2"

// Verdicts of a trial figure (sla/trial's).
const (
	TrialPass          = trial.Pass
	TrialWarn          = trial.Warn
	TrialFail          = trial.Fail
	TrialUnknown       = trial.NotMeasured
	TrialNotApplicable = trial.NotApplicable
	TrialRecorded      = trial.Recorded
)

// The seed's pass criteria, and ours where it gives no number (its 22:00
// test ticket says only "record the first response").
const (
	TrialDeliveryWarn = 24 * time.Hour // "hours … to a day or two" is the slow end
	TrialGranularity  = time.Minute    // per second (or minute) billing, not rounded to the hour
	TrialNightFrom    = 22             // "after 10 pm", local time of the contract
	TrialNightUntil   = 6
)

// Trial is the side-by-side page: one column per trial node, by provider.
type Trial struct {
	Schema    string        `json:"schema"`
	From      string        `json:"from"`
	To        string        `json:"to"`
	AsOf      string        `json:"as_of"`
	Providers []TrialColumn `json:"providers"`
}

// TrialColumn is one trial node of a provider and its figures, in the
// order of TrialKeys.
type TrialColumn struct {
	Provider string `json:"provider"`
	Contract string `json:"contract"`
	Node     string `json:"node"`
	// Nodes: how many of the provider's nodes the months hold; each has
	// its column, the first ordered first.
	Nodes   int           `json:"nodes"`
	Figures []TrialFigure `json:"figures"`
}

// TrialKeys are the trial's criteria, in the seed's order (sla/trial).
var TrialKeys = trial.Keys

// TrialFigure is one criterion of the trial node, judged.
type TrialFigure = trial.Row

// BuildTrial computes the trial page: per provider, each of its nodes
// (the first ordered first) judged against every criterion of the seed,
// on every check result of its window. The builder must have been made with Options.Trial (it
// keeps the check results only then). It can be called once instead of
// Build.
func (b *Builder) BuildTrial() (*Trial, error) {
	if !b.opts.Trial {
		return nil, errNotTrial
	}
	reps, err := b.buildReports()
	if err != nil {
		return nil, err
	}
	return b.BuildTrialFrom(reps)
}

// BuildTrialFrom is BuildTrial from month reports built elsewhere, as
// BuildFrom is Build.
func (b *Builder) BuildTrialFrom(reps []*report.Report) (*Trial, error) {
	if !b.opts.Trial {
		return nil, errNotTrial
	}
	facts, _, err := b.gather(reps)
	if err != nil {
		return nil, err
	}
	tr := &Trial{Schema: TrialSchema, From: b.opts.From.String(), To: b.opts.To.String(), AsOf: b.opts.AsOf.UTC().Format(time.RFC3339), Providers: []TrialColumn{}}
	groups := map[string][]*nodeFacts{}
	for _, f := range facts.sorted() {
		groups[f.provider] = append(groups[f.provider], f)
	}
	names := make([]string, 0, len(groups))
	for name := range groups {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		// Every node of the provider is judged in its own column: the
		// seed's iperf3 needs a second node (服务器A, 服务器B), and a
		// faulty second node must not hide behind a good first one.
		fs := byOrder(groups[name])
		for _, f := range fs {
			col := TrialColumn{Provider: name, Contract: f.contract, Node: f.id, Nodes: len(fs)}
			node := trial.Judge(trial.Node{Model: f.model, GPUs: f.gpus, MemoryMiB: b.orderedMemory(f.id), AdvertisedMbps: b.advertisedMbps(f.contract),
				Results: b.trialResults(f.id)})
			col.Figures = append(append([]TrialFigure{trialDelivery(f)}, node...), trialNightTicket(f), trialBilling(f), trialPrice(f))
			for i := range col.Figures {
				x := &col.Figures[i]
				x.Seed = trial.Seed[x.Key]
				x.Finish()
			}
			tr.Providers = append(tr.Providers, col)
		}
	}
	return tr, nil
}

// byOrder are a provider's nodes, the first ordered first (its delivery in
// the months; then by id; a node with no order in the months last).
func byOrder(fs []*nodeFacts) []*nodeFacts {
	ordered := func(f *nodeFacts) (time.Time, bool) {
		if f.delivery == nil {
			return time.Time{}, false
		}
		t, err := time.Parse(time.RFC3339, f.delivery.OrderedAt)
		return t, err == nil
	}
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(x, y *nodeFacts) int {
		tx, okx := ordered(x)
		ty, oky := ordered(y)
		switch {
		case okx && oky && !tx.Equal(ty):
			return tx.Compare(ty)
		case okx != oky:
			if okx {
				return -1
			}
			return 1
		}
		return strings.Compare(x.id, y.id)
	})
	return out
}

// Two limits of a wait: within pass passes, beyond fail fails.
type waitLimits struct{ pass, fail float64 }

// judgeWait judges a wait of v minutes (open: not over yet, counted to the
// as-of instant): a finished wait within the pass limit passes, beyond the
// fail limit fails, in between warns. An open one is judged only once it
// has passed a limit — past the pass limit it can only end as a warning or
// a failure (warn, "≥"), past the fail limit it has failed — and is not
// measured before. The figure prints with the digits that keep it on its
// side of both limits.
func judgeWait(x *TrialFigure, v float64, open bool, l waitLimits, ask msg.Text) {
	x.Value, x.Unit, x.AtLeast, x.N = &v, "min", open, 1
	d1, _ := trial.Digits(v, trial.Line{Value: l.pass, Op: "<="}, 0)
	d2, _ := trial.Digits(v, trial.Line{Value: l.fail, Op: "<="}, 0)
	x.Digits, x.Shown = max(d1, d2), v
	switch {
	case v > l.fail:
		x.Verdict = TrialFail
	case v > l.pass:
		x.Verdict = TrialWarn
	case open:
		x.Verdict = TrialUnknown
	default:
		x.Verdict = TrialPass
	}
	if x.Verdict != TrialPass {
		x.AskText = ask
	}
}

// trialDelivery: order to delivery in minutes; the seed's "within minutes
// of payment" passes, "hours" warns, "a day or two" fails. A node not
// delivered counts to the as-of instant.
func trialDelivery(f *nodeFacts) TrialFigure {
	x := TrialFigure{Key: trial.KeyDelivery, Unit: "min",
		CriterionText: msg.New("delivered within %d min of the order (the seed: most deliver \"within minutes of payment\"; waits of hours to a day or two are the slow end; over %d h fails)",
			int(DeliveryStandard.Minutes()), int(TrialDeliveryWarn.Hours()))}
	dl := f.delivery
	if dl == nil {
		x.Verdict = TrialUnknown
		x.AskText = msg.New("Order the trial node within the months compared, so that its delivery time is measured.")
		return x
	}
	judgeWait(&x, f.deliveryWait().Minutes(), dl.DeliveredAt == "", waitLimits{DeliveryStandard.Minutes(), TrialDeliveryWarn.Minutes()},
		msg.New("Are machines racked and powered before the order, ready for instant delivery? What delivery time will the contract promise, with what penalty?"))
	return x
}

// trialNightTicket: the tickets opened from 22:00 to 06:00 local (the
// contract's zone), each judged on its first response in minutes (one
// still unanswered at its wait so far), and the worst of them shown: a
// provider that answered one night ticket in 5 minutes and another in
// 2 hours is the seed's "深夜就进入排队模式", not a pass.
func trialNightTicket(f *nodeFacts) TrialFigure {
	x := TrialFigure{Key: trial.KeyNightTicket, Unit: "min",
		CriterionText: msg.New("a test ticket opened after 22:00 is first answered within %d min, %d min at most (the seed only says to record it; these are this scorecard's standards for every provider)",
			int(ResponseStandardFast.Minutes()), int(ResponseStandardSlow.Minutes()))}
	limits := waitLimits{ResponseStandardFast.Minutes(), ResponseStandardSlow.Minutes()}
	ask := msg.New("Is there phone or WeChat Work support at night? What response time does the support SLA promise off-hours, and does it carry compensation?")
	rank := map[string]int{TrialPass: 0, TrialUnknown: 1, TrialWarn: 2, TrialFail: 3}
	var worst *TrialFigure
	opened, n := "", 0
	for _, t := range f.tickets {
		at, err := time.Parse(time.RFC3339, t.OpenedAt)
		if err != nil || (at.Hour() < TrialNightFrom && at.Hour() >= TrialNightUntil) {
			continue
		}
		o, ok := waited(f, t.OpenedAt, t.Response)
		if !ok {
			continue
		}
		n++
		y := x
		judgeWait(&y, o.v, o.censored, limits, ask)
		if worst == nil || rank[y.Verdict] > rank[worst.Verdict] || (rank[y.Verdict] == rank[worst.Verdict] && (*y.Value > *worst.Value || *y.Value == *worst.Value && t.OpenedAt < opened)) {
			worst, opened = &y, t.OpenedAt
		}
	}
	if worst == nil {
		x.Verdict = TrialUnknown
		x.AskText = msg.New("Open a test ticket after 22:00 local time and record when it is first answered.")
		return x
	}
	x = *worst
	x.DetailText = msg.New("opened %s", msg.Plain(opened))
	if n > 1 {
		x.DetailText = msg.New("opened %s, the slowest of %d night tickets", msg.Plain(opened), n)
	}
	return x
}

// trialBilling: the contract's billing granularity, and with a bill
// whether the node was billed beyond it.
func trialBilling(f *nodeFacts) TrialFigure {
	x := TrialFigure{Key: trial.KeyBilling, Unit: "s",
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
	x.Plain(float64(gran), "s", 0)
	x.N = 1
	x.Verdict = TrialPass
	if time.Duration(gran)*time.Second > TrialGranularity {
		x.Verdict = TrialWarn
		x.AskText = msg.New("The contract rounds up to %s: a half-hour test is billed as a whole unit. Will you bill per second?", time.Duration(gran)*time.Second)
	}
	billed := false
	for _, r := range f.billRows {
		switch r.Status {
		case billing.StatusOverBilled:
			billed, x.Verdict = true, TrialFail
			if r.OverHours > 1.0/3600 {
				x.DetailText = msg.New("the bill charged %.2f h beyond the contract", r.OverHours)
				x.AskText = msg.New("The bill charged %.2f h beyond the contract's hours: ask for the difference back, and how the bill rounds.", r.OverHours)
			} else {
				x.DetailText = msg.New("the bill charged %.2f %s beyond the contract's price", r.OverAmount, msg.Plain(r.Currency))
				x.AskText = msg.New("The bill charged %.2f %s beyond the contract's price for its hours: ask for the difference back.", r.OverAmount, msg.Plain(r.Currency))
			}
		case billing.StatusMatches, billing.StatusUnderBilled:
			billed = true
		}
	}
	if x.Verdict == TrialPass && !billed {
		// "宣传按秒计费，但实际账单显示的是按小时取整": the contract is the
		// advertisement; only the bill shows how it was billed.
		x.Verdict = TrialUnknown
		x.DetailText = msg.New("the contract bills per %s; no bill of the node shows how it was billed", time.Duration(gran)*time.Second)
		x.AskText = msg.New("Compare the provider's bill for the trial node with the contract: `gpusla scorecard --trial --bill BILL.csv`.")
	}
	return x
}

// trialPrice: what the trial node cost over the months — the bill's amount
// where it has one, else what the contract charges for the hours it bills
// — against the hours it was usable. The seed sets no line: recorded.
func trialPrice(f *nodeFacts) TrialFigure {
	x := TrialFigure{Key: trial.KeyPrice,
		CriterionText: msg.New("recorded: what the trial cost, the bill's amount where there is one (the seed: a half-hour test costs about half an hour billed per second, a whole hour billed by the hour)")}
	amounts := map[string]float64{}
	var billed, usable float64
	fromBill, fromHours := 0, 0
	for _, m := range f.months {
		bh, hoursOnly := f.billedHours[m.month]
		hoursOnly = hoursOnly && !m.fromBill
		if m.billed <= 0 && !m.fromBill && !hoursOnly {
			continue
		}
		switch {
		case hoursOnly:
			// A bill of hours only: what those hours cost, not what
			// the contract's hours would have (a per-second half hour
			// billed as an hour costs the hour).
			amounts[m.currency] += bh.amount
			billed += bh.hours * 3600
			fromHours++
		default:
			amounts[m.currency] += m.charge
			billed += float64(m.billed)
		}
		usable += float64(m.usable)
		if m.fromBill {
			fromBill++
		}
	}
	if len(amounts) == 0 {
		x.Verdict = TrialUnknown
		x.AskText = msg.New("Bill the trial node for a half-hour test and compare the bill with the contract.")
		return x
	}
	var curs []string
	for c := range amounts {
		curs = append(curs, c)
	}
	sort.Strings(curs)
	x.Verdict, x.N = TrialRecorded, len(f.months)
	if len(curs) == 1 {
		x.Plain(amounts[curs[0]], curs[0], 2)
	}
	parts := make([]string, len(curs))
	for i, c := range curs {
		parts[i] = fmt.Sprintf("%.2f %s", amounts[c], c)
	}
	x.DetailText = msg.New("%.2f h billed, %.2f h usable; %d month(s) at the bill's amount", billed/3600, usable/3600, fromBill)
	if len(curs) > 1 {
		x.DetailText = msg.New("%s for %.2f h billed, %.2f h usable; %d month(s) at the bill's amount", msg.Plain(strings.Join(parts, " + ")),
			billed/3600, usable/3600, fromBill)
	}
	if fromHours > 0 {
		x.DetailText = msg.New("%s; %d month(s) at the bill's hours and the contract's price", x.DetailText, fromHours)
	}
	return x
}
