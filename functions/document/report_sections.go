package document

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpusla/gpusla/sla/billing"
	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

// doc is the report laid out once, in the reader's language: every
// heading, label and sentence already translated, every figure formatted
// for the locale. Markdown, HTML and PDF each draw it; only the drawing
// differs, so the three say the same in every language.
type doc struct {
	P     *i18n.Printer
	Lang  string // BCP 47, for <html lang>
	Title string
	Intro string
	// Provisional says, when the month is not over as of the as-of
	// instant, that the figures are the service so far and that no claim
	// letter is written; Mark is its short form for every page.
	Provisional, Mark string
	TotalLabel        string
	Totals            []string // total claim, one entry per currency
	Claims            []claimPage
	// Summary tables: by contract, by node, the bill's reconciliation.
	Contracts, Nodes table
	Bill             *table
	// Lines is the bill judged line by line (Extras.Lines) and Full the
	// judgment itself, whose CSV keeps machine values.
	Lines *linesSec
	Full  *billing.Full
	Fleet *fleetSec
	Score *scoreSec
	// Retro lists the records dated before their recording (retro.go).
	Retro *retroSec
	// LeftOut names the nodes the report could not judge (report_sources.go).
	LeftOut *leftOutSec
	// Status compares each contract's provider status page with the
	// measured outages (provider.go).
	Status   []statusSec
	Legend   []legendItem
	NodeSecs []nodeSec
	Footer   string
}

type table struct {
	Title  string
	Head   []string
	Rows   [][]string
	Widths []float64 // relative column widths (PDF)
	Num    []bool    // right-aligned numeric columns (HTML)
	Bad    [][]bool  // cells to mark (HTML)
}

type field struct{ Label, Value string }

// linesSec is a bill judged line by line: the totals per currency, then
// every line with its verdict, why, and the evidence that would settle it.
type linesSec struct {
	Title  string
	Totals []string
	Table  table
}

// claimPage is the first page of a contract's claim, a letter to the
// provider (report_letter.go): who claims what from whom, on which
// clauses, by when, the evidence it rests on, the signature block, and an
// appendix of where each clause came from. It is in its own language (P).
type claimPage struct {
	P        *i18n.Printer
	Lang     string // BCP 47, for the section's lang
	Contract string
	Title    string
	Fields   []field
	Breaches table
	// Incidents lists each counted outage with the provider's instance id
	// and region (report_procedure.go); nil when none counted.
	Incidents *table
	Request   string // the sentence that asks for the credit
	// Procedure says where each thing the provider's text asks a claim to
	// hold is; Approx where the figures are approximate and by how much.
	Procedure, Approx []string
	// NoLetter: the month needs no letter (no breach, or a breach without
	// credit the renter sends no notice for); the page says so and is not
	// signed.
	NoLetter bool
	Evidence []field
	Note     string
	Sign     []string // the signature block, a line each
	Appendix table
	AppNote  string
	// Unverified names the terms only a secondary source backs, and
	// Sources lists every page the terms cite (report_sources.go).
	Unverified string
	Sources    *table
}

type card struct {
	Label, Value, Note string
	Good, Bad          bool
}

type legendItem struct{ Class, Label string }

type nodeSec struct {
	ID        string
	Heading   string
	Sub       string
	Para      string
	Cards     []card
	Penalties []string
	Chart     chartData
	Daily     string // chart titles
	Timeline  string
	Outages   *table
	Maint     *table
	Tickets   *table
	Quality   []string
	QTitle    string
	Usage     []string // the probe's usage readings (usageLines)
	UTitle    string
}

func (t *table) add(cells ...string) { t.Rows = append(t.Rows, cells) }

// newDoc lays out r in x's language.
func newDoc(r *report.Report, x Extras) (*doc, error) {
	p := i18n.New(langOf(r, x))
	d := &doc{P: p, Lang: map[i18n.Lang]string{i18n.EN: "en", i18n.ZH: "zh-Hans"}[p.Lang]}
	d.Title = p.T("SLA report %s", p.Month(r.Month))
	d.TotalLabel = p.T("Total claim")
	if r.Provisional {
		d.Mark = p.T("provisional, as of %s", p.Stamp(r.AsOf))
		d.Title = p.T("%s (%s)", d.Title, d.Mark)
		d.TotalLabel = p.T("Credit earned so far (provisional)")
		d.Provisional = p.T("Provisional, as of %s: the month is not over, so these figures cover the service up to that instant and will change. A claim is filed for a month that is over: this report holds no claim letter.", p.Stamp(r.AsOf))
	}
	d.Intro = p.T("As of %s. Read %d events (%d duplicates ignored, %d after the as-of instant left out). Each contract's month is its calendar month in its own time zone; times are in that zone.",
		p.Stamp(r.AsOf), r.Input.Events, r.Input.Duplicates, r.Input.AfterAsOf)
	sums := map[string]float64{}
	for _, c := range r.Contracts {
		sums[c.Currency] += c.Claim
	}
	d.Totals = p.Totals(sums)
	if len(d.Totals) == 0 {
		// No node of the contracts given was in service: say so, rather
		// than leave the total blank.
		d.Totals = []string{p.T("none: no node of these contracts was in service this month")}
	}
	for i := range r.Contracts {
		// A month that is not over has no claim yet: no letter is written
		// that could be signed and sent.
		if r.Contracts[i].Provisional {
			continue
		}
		d.Claims = append(d.Claims, claim(claimPrinter(p, x, &r.Contracts[i]), r, &r.Contracts[i]))
	}
	d.Contracts = table{Title: p.T("Claims by provider"), Widths: []float64{12, 18, 16, 6, 7, 9, 9, 7, 14, 13, 16},
		Head: []string{p.T("contract"), p.T("provider"), p.T("month (time zone)"), p.T("nodes"), p.T("below target"), p.T("outage observed"),
			p.T("outage claimable"), p.T("tickets breached"), p.T("charge"), p.T("claim"), p.T("claim by")},
		Num: []bool{false, false, false, true, true, true, true, true, true, true, false}}
	for _, c := range r.Contracts {
		d.Contracts.add(c.Contract, c.Provider, p.Day(c.MonthStart)+" – "+p.Day(c.MonthEnd)+" ("+c.TimeZone+")", p.Num(float64(c.Nodes), 0),
			p.Num(float64(c.NodesBelow), 0), p.Secs(c.ObservedSeconds), p.Secs(c.ClaimSeconds), p.Num(float64(c.TicketsBreached), 0),
			p.Money(c.Charge, c.Currency), p.Money(c.Claim, c.Currency), p.Stamp(c.ClaimDeadline))
	}
	d.Nodes = table{Title: p.T("Nodes"), Widths: []float64{12, 12, 18, 9, 9, 7, 7, 7, 9, 7, 12},
		Head: []string{p.T("node"), p.T("contract"), p.T("GPUs"), p.T("uptime claimable %%"), p.T("observed %%"), p.T("target %%"),
			p.T("outages"), p.T("tickets breached"), p.T("delivery"), p.T("credit %%"), p.T("claim")},
		Num: []bool{false, false, false, true, true, true, true, true, false, true, true}}
	for i := range r.Nodes {
		n := &r.Nodes[i]
		// A node never in service this month has no uptime: "100 %" would
		// say it ran.
		claimable, observed := uptimeCells(p, n.Uptime, "")
		d.Nodes.add(n.Node, n.Contract, fmt.Sprintf("%d × %s", n.Hardware.GPUCount, n.Hardware.GPUModel), claimable,
			observed, p.Num(n.Uptime.TargetPercent, -1), p.Num(float64(len(n.Outages)), 0),
			p.Num(float64(breached(n)), 0), p.Word(n.Delivery.Status), p.Num(n.Credit.Percent, -1), p.Money(n.Credit.Amount, n.Currency))
		d.Nodes.Bad = append(d.Nodes.Bad, []bool{false, false, false, !n.Uptime.Met && n.Uptime.NotJudged == ""})
	}
	d.Retro = retroSection(p, r.Retroactive)
	d.LeftOut = leftOutSection(p, r.LeftOut)
	if x.Bill != nil {
		d.Bill = billTable(p, x.Bill)
	}
	if x.Lines != nil {
		d.Lines, d.Full = linesSection(p, x.Lines), x.Lines
	}
	d.Fleet = fleet(p, r.Fleet)
	d.Score = scorecardSec(p, r.Month, x.Scorecard)
	d.Status = statusSections(p, r)
	d.Legend = []legendItem{{bandUp, p.T("up")}, {bandCounted, p.T("outage counted")}, {bandObserved, p.T("down or unreachable, not counted")},
		{bandExcluded, p.T("maintenance excluded")}, {"maint-late", p.T("maintenance without enough notice")}, {bandOff, p.T("not in service")},
		{"ticket-breached", p.T("ticket breached")}, {"ticket", p.T("ticket within target")}}
	for i := range r.Nodes {
		s, err := section(p, r, &r.Nodes[i])
		if err != nil {
			return nil, err
		}
		d.NodeSecs = append(d.NodeSecs, s)
	}
	d.Footer = p.T("Generated by gpusla from the renter's own monitoring; report schema %s.", r.Schema)
	return d, nil
}

// langOf is the language asked for, else the contracts' own (report.lang)
// when they all agree, else English.
func langOf(r *report.Report, x Extras) i18n.Lang {
	if x.Lang != "" {
		return x.Lang
	}
	l := ""
	for _, c := range r.Contracts {
		if l != "" && c.Lang != l {
			return i18n.EN
		}
		l = c.Lang
	}
	if got, err := i18n.Parse(l); err == nil {
		return got
	}
	return i18n.EN
}

func breached(n *report.Node) int {
	k := 0
	for _, t := range n.Tickets {
		if t.Breached {
			k++
		}
	}
	return k
}

func billTable(p *i18n.Printer, b *billing.Reconciliation) *table {
	t := &table{Title: p.T("Billing reconciliation"), Widths: []float64{10, 5, 7, 8, 7, 7, 7, 8, 7, 10, 10, 8, 20},
		Head: []string{p.T("node"), p.T("bill line"), p.T("billed h"), p.T("billed amount"), p.T("exact h"), p.T("contract h"), p.T("rounding h"),
			p.T("contract amount"), p.T("usable h"), p.T("over contract"), p.T("billed, not usable"), p.T("status"), p.T("note")},
		Num: []bool{false, true, true, true, true, true, true, true, true, true, true, false, false}}
	opt := func(v *float64) string {
		if v == nil {
			return "—"
		}
		return p.Num(*v, -1)
	}
	for _, row := range b.Rows {
		line := ""
		if row.BillLine > 0 {
			line = strconv.Itoa(row.BillLine)
		}
		if len(row.BillLines) > 0 {
			line = billing.LineList(row.BillLines)
		}
		t.add(row.Node, line, opt(row.BilledHours), opt(row.BilledAmount), p.Num(row.ExactHours, -1), p.Num(row.ContractHours, -1),
			p.Num(row.RoundingHours, -1), p.Num(row.ContractAmount, 2), p.Num(row.UsableHours, -1),
			p.Num(row.OverHours, -1)+" h / "+p.Num(row.OverAmount, 2), p.Num(row.UnusableBilled, -1)+" h / "+p.Num(row.UnusableAmount, 2),
			p.Word(row.Status), p.Texts(row.Notes))
		t.Bad = append(t.Bad, []bool{false, false, false, false, false, false, false, false, false, row.OverAmount > 0})
	}
	return t
}

func linesSection(p *i18n.Printer, f *billing.Full) *linesSec {
	// The month as the bill writes it (YYYY-MM), the same in every language.
	s := &linesSec{Title: p.T("Bill reconciliation %s", f.Month)}
	curs := make([]string, 0, len(f.Billed))
	for c := range f.Billed {
		curs = append(curs, c)
	}
	sort.Strings(curs)
	for _, c := range curs {
		s.Totals = append(s.Totals, p.T("%s: billed %s; over-billed %s; %s on lines that cannot be verified", c,
			p.Num(f.Billed[c], 2), p.Num(f.OverBilled[c], 2), p.Num(f.Unverified[c], 2)))
	}
	for _, l := range f.LeftOut {
		s.Totals = append(s.Totals, p.T("not judged: %d row(s) of the bill, %s: %s", l.Rows, p.Money(l.Amount, l.Currency), p.Text(l.Text)))
	}
	s.Table = table{Widths: []float64{5, 10, 10, 7, 10, 8, 12, 22, 16}, Num: []bool{true, false, false, true, true, true},
		Head: []string{p.T("line"), p.T("node"), p.T("kind"), p.T("quantity"), p.T("billed"), p.T("expected"), p.T("verdict"), p.T("why"), p.T("evidence needed")}}
	for _, j := range f.Items {
		exp := "—"
		if j.Expected != nil {
			exp = p.Num(*j.Expected, 2)
		}
		verdict := p.Word(j.Verdict)
		if j.Verdict == billing.VerdictOverBilled {
			verdict = p.T("over-billed by %s", p.Money(j.Over, j.Currency))
		}
		s.Table.add(strconv.Itoa(j.Line), j.Node, j.Kind, p.Num(j.Quantity, -1), p.Money(j.Billed, j.Currency), exp, verdict,
			p.Texts(j.WhyText), p.Text(j.NeededText))
		s.Table.Bad = append(s.Table.Bad, []bool{false, false, false, false, false, false, j.Verdict == billing.VerdictOverBilled})
	}
	return s
}

// runsNote says which runs of outage the contract does not count.
func runsNote(p *i18n.Printer, u report.Uptime) string {
	s := p.T("runs under %s ignored", p.Secs(u.MinimumOutageSeconds))
	if u.DowntimeUnitSeconds > 0 {
		s += p.T(", counted in whole %s", p.Secs(u.DowntimeUnitSeconds))
	}
	return s
}

// chargeNote is the charge's arithmetic, with the clock hours the contract
// does not charge.
func chargeNote(p *i18n.Printer, b report.Billing) string {
	s := p.T("%s × %d GPUs × %s; usable %s", p.Secs(b.BilledSeconds), b.GPUs, p.Num(b.PricePerGPUHour, 2), p.Secs(b.UsableSeconds))
	if b.UnchargedSeconds > 0 {
		s += p.T("; %s in %d clock hours with more than %s unavailable not charged", p.Secs(b.UnchargedSeconds), len(b.UnchargedHours), p.Secs(b.ClockHourRuleSeconds))
	}
	return s
}

// downtimeText is one downtime credit's arithmetic, as a renter checks it.
func downtimeText(p *i18n.Printer, d report.DowntimeCredit, cur string) string {
	kinds := make([]string, len(d.Kinds))
	for i, k := range d.Kinds {
		kinds[i] = p.Word(k)
	}
	s := p.T("downtime credit (%s) %s to %s: %s down", strings.Join(kinds, ", "), p.Stamp(d.Start), p.Stamp(d.End), p.Secs(d.DowntimeSeconds))
	if d.CreditedSeconds != d.DowntimeSeconds {
		s += p.T(", credited %s", p.Secs(d.CreditedSeconds))
	}
	var why []string
	if d.RoundUpSeconds > 0 {
		why = append(why, p.T("rounded up to %s", p.Secs(d.RoundUpSeconds)))
	}
	if d.IncidentCapped {
		why = append(why, p.T("the incident's cap reached"))
	}
	if d.MonthCapped {
		why = append(why, p.T("the month's cap reached"))
	}
	if len(why) > 0 {
		s += " (" + strings.Join(why, "; ") + ")"
	}
	rate := p.T("%s × %s → %s h of the node's hourly rate (%d GPUs, %s/h) = %s", p.Num(d.Multiple, -1), p.Secs(d.CreditedSeconds),
		p.Num(d.CreditHours, -1), d.GPUs, p.Num(d.HourlyRate, 2), p.Money(d.Amount, cur))
	if d.Per == "gpu" {
		rate = p.T("%s × %s → %s h of the affected GPUs' hourly rate (%d GPUs, %s/h) = %s", p.Num(d.Multiple, -1), p.Secs(d.CreditedSeconds),
			p.Num(d.CreditHours, -1), d.GPUs, p.Num(d.HourlyRate, 2), p.Money(d.Amount, cur))
	}
	return s + "; " + rate
}

func targetText(p *i18n.Printer, t *report.Target) string {
	if t == nil {
		return "—"
	}
	s := p.T("%s: %s of %s (%s clock), due %s", p.Word(t.Status), p.Secs(t.ElapsedSeconds), p.Secs(t.TargetSeconds), p.Word(t.Clock), p.Stamp(t.Deadline))
	if t.LateSeconds > 0 {
		s += p.T(", late %s", p.Secs(t.LateSeconds))
	}
	return s
}

// section lays out one node's month.
func section(p *i18n.Printer, r *report.Report, n *report.Node) (nodeSec, error) {
	cd, err := nodeChart(r.Month, n, p)
	if err != nil {
		return nodeSec{}, err
	}
	s := nodeSec{ID: n.Node, Chart: cd, Heading: p.T("Node %s", n.Node), Sub: n.Contract + ", " + n.Provider,
		Daily: p.T("Daily uptime"), Timeline: p.T("Incident timeline"), QTitle: p.T("Data quality")}
	svc := p.T("Not in service this month.")
	if n.Period.InService {
		svc = p.T("In service %s to %s (%s, of which %s excluded maintenance).", p.Stamp(n.Period.Start), p.Stamp(n.Period.End),
			p.Secs(n.Period.Seconds), p.Secs(n.Period.ExcludedSeconds))
	}
	s.Para = p.T("%d × %s. Times in %s.", n.Hardware.GPUCount, n.Hardware.GPUModel, n.TimeZone) + " " + svc + " " + formulaText(p, n.Uptime)
	met := p.T("met")
	switch {
	case n.Uptime.NotJudged != "":
		met = p.T("not judged")
	case !n.Uptime.Met:
		met = p.T("missed")
	}
	tier := p.T("no tier")
	if n.Credit.Tier != nil {
		tier = p.T("tier [%s, %s) → %s %%", p.Num(n.Credit.Tier.MinPercent, -1), p.Num(n.Credit.Tier.MaxPercent, -1), p.Num(n.Credit.Tier.CreditPercent, -1))
	}
	if n.Credit.Capped {
		tier += p.T(", capped from %s %%", p.Num(n.Credit.UncappedPercent, -1))
	}
	claimable, observed := uptimeCells(p, n.Uptime, " %")
	s.Cards = []card{
		{Label: p.T("uptime claimable"), Value: claimable, Note: p.T("target %s %% — %s", p.Num(n.Uptime.TargetPercent, -1), met),
			Good: n.Uptime.Met, Bad: !n.Uptime.Met && n.Uptime.NotJudged == ""},
		{Label: p.T("uptime observed"), Value: observed, Note: p.T("%s unreachable or down", p.Secs(n.Uptime.ObservedOutageSeconds))},
		{Label: p.T("claimable outage"), Value: p.Secs(n.Uptime.ClaimableOutageSeconds), Note: runsNote(p, n.Uptime)},
		{Label: p.T("delivery"), Value: p.Word(n.Delivery.Status), Note: deliveryNote(p, n.Delivery)},
		{Label: p.T("charge"), Value: p.Money(n.Billing.Charge, n.Currency), Note: chargeNote(p, n.Billing)},
		{Label: p.T("credit"), Value: p.Num(n.Credit.Percent, -1) + " % = " + p.Money(n.Credit.Amount, n.Currency), Note: tier + p.T("; claim by %s", p.Stamp(n.ClaimDeadline))},
	}
	for _, pen := range n.Credit.Penalties {
		s.Penalties = append(s.Penalties, p.T("Penalty %s %s: %s %% (%s)", p.Word(pen.Kind), pen.Ref, p.Num(pen.Percent, -1), p.Text(pen.Text)))
	}
	for _, dc := range n.Credit.DowntimeCredits {
		s.Penalties = append(s.Penalties, downtimeText(p, dc, n.Currency))
	}
	if len(n.Outages) > 0 {
		t := &table{Title: p.T("Outages"), Widths: []float64{9, 10, 13, 13, 6, 6, 18, 30}, Num: []bool{false, false, false, false, true, true},
			Head: []string{p.T("kind"), p.T("cause"), p.T("start"), p.T("end"), p.T("duration"), p.T("counted"), p.T("why not counted"), p.T("evidence")}}
		for _, o := range n.Outages {
			end := p.Stamp(o.End)
			if o.Ongoing {
				end += " " + p.T("(ongoing)")
			}
			t.add(p.Word(o.Kind), p.Word(o.Cause), p.Stamp(o.Start), end, p.Secs(o.Seconds), p.Secs(o.CountedSeconds), p.Text(o.ReasonText), p.Texts(o.EvidenceText))
			t.Bad = append(t.Bad, []bool{false, false, false, false, false, o.Counted})
		}
		s.Outages = t
	}
	if len(n.Maintenance) > 0 {
		t := &table{Title: p.T("Maintenance"), Widths: []float64{12, 12, 12, 14, 6, 6, 8, 12, 22}, Num: []bool{false, false, false, false, true, true},
			Head: []string{p.T("start"), p.T("end"), p.T("announced"), p.T("head:recorded"), p.T("notice"), p.T("required"), p.T("excluded"), p.T("summary"), p.T("why")}}
		for _, m := range n.Maintenance {
			ex := p.T("no")
			if m.Excluded {
				ex = p.T("yes, %s", p.Secs(m.ExcludedSeconds))
			}
			t.add(p.Stamp(m.Start), p.Stamp(m.End), p.Stamp(m.AnnouncedAt), recordedCell(p, m.RecordedAt, m.RecordedBy), p.Secs(m.NoticeSeconds),
				p.Secs(m.RequiredNoticeSeconds), ex, m.Summary, p.Text(m.ReasonText))
			t.Bad = append(t.Bad, []bool{false, false, false, false, false, false, !m.Excluded})
		}
		s.Maint = t
	}
	if len(n.Tickets) > 0 {
		t := &table{Title: p.T("Tickets"), Widths: []float64{10, 5, 14, 8, 19, 19, 19, 6},
			Head: []string{p.T("ticket"), p.T("priority"), p.T("opened"), p.T("off-hours"), p.T("response"), p.T("resolution"), p.T("replacement"), p.T("breached")}}
		for _, tk := range n.Tickets {
			id := tk.Ticket
			if tk.ProviderRef != "" {
				id += " (" + tk.ProviderRef + ")"
			}
			if tk.Summary != "" {
				id += "\n" + tk.Summary
			}
			if tk.Retroactive {
				id += "\n" + p.T("retroactive record: see Retroactive records")
			}
			t.add(id, tk.Priority, p.Stamp(tk.OpenedAt)+" ("+dayKind(p, tk)+")", map[bool]string{true: p.T("off-hours"), false: p.T("business hours")}[tk.OffHours],
				targetText(p, tk.Response), targetText(p, tk.Resolution), targetText(p, tk.Replacement), map[bool]string{true: p.T("breached"), false: p.T("no")}[tk.Breached])
			t.Bad = append(t.Bad, []bool{false, false, false, false, false, false, false, tk.Breached})
		}
		s.Tickets = t
	}
	for _, e := range n.Evidence {
		s.Quality = append(s.Quality, p.T("%s at %s: %s", p.Word(e.Kind), p.Stamp(e.At), p.Text(e.Text)))
	}
	if s.Usage = usageLines(p, n); s.Usage != nil {
		s.UTitle = p.T("Measured by the probe (what the bill's lines are held to)")
	}
	return s, nil
}

// dayKind names the day a ticket was opened on, with the holiday's name
// from the calendar: "holiday: 春节 Spring Festival".
func dayKind(p *i18n.Printer, t report.Ticket) string {
	k := p.Word(t.OpenedOn)
	if t.OpenedOnName != "" {
		return k + ": " + t.OpenedOnName
	}
	return k
}

// claim lays out contract c's claim page, a letter in p's language.
func claim(p *i18n.Printer, r *report.Report, c *report.Contract) claimPage {
	ci := &citer{c: c, p: p}
	cp := claimPage{P: p, Lang: bcp47(p.Lang), Contract: c.Contract, Title: p.T("Claim for service credits")}
	switch c.Letter {
	case report.LetterNotice:
		cp.Title = p.T("Notice of breach")
	case report.LetterNone:
		cp.Title, cp.NoLetter = p.T("No claim letter this month"), true
	}
	if !cp.NoLetter {
		cp.Fields = letterHead(p, r, c, ci)
	}
	bt := table{Head: []string{p.T("node"), p.T("breach"), p.T("clause"), p.T("credit %%")}, Widths: []float64{12, 56, 16, 8},
		Num: []bool{false, false, false, true}}
	for i := range r.Nodes {
		if n := &r.Nodes[i]; n.Contract == c.Contract {
			breachRows(p, &bt, n, ci)
		}
	}
	cp.Request = p.T("No breach of the contract this month: there is nothing to claim and no letter to send.")
	switch {
	case len(bt.Rows) == 0:
		bt.add("—", p.T("no breach this month"), "", "—")
	case c.Letter == report.LetterNone:
		// Breached, but nothing the contract pays for, and the renter sends
		// no notice for that (claim.without_credit: nothing).
		cp.Request = p.T("The breaches listed above earn no credit under the contract, and the terms say no notice of breach is sent for them: this page is for the renter's records.")
	case c.Letter == report.LetterNotice:
		// Breached, but nothing the contract pays for: a notice of breach,
		// never a request for 0.00.
		cp.Request = p.T("%s gives notice of the breaches of contract %s listed above, in the service of %s. They earn no credit under the contract, and no credit is requested; %s reserves its rights under the contract.",
			party(p, c.Renter), orDash(c.ContractNumber), p.Month(r.Month), party(p, c.Renter))
	}
	cp.Breaches = bt
	if c.Letter == report.LetterRequest {
		cp.Request = p.T("Under the clauses cited, %s requests a service credit of %s under contract %s for the service of %s, to be deducted from the next invoice.",
			party(p, c.Renter), p.LetterMoney(c.Claim, c.Currency), orDash(c.ContractNumber), p.Month(r.Month))
	}
	if !cp.NoLetter {
		cp.Incidents = incidentsTable(p, r, c)
		cp.Procedure = procedureLines(p, r, c)
	}
	cp.Approx = approxLines(p, r, c)
	if r.Seal != nil {
		cp.Evidence = []field{{p.T("Evidence bundle: observations SHA-256"), r.Seal.ObservationsSHA256},
			{p.T("Evidence bundle: hash chain head (%d batches)", r.Seal.Batches), r.Seal.ChainHead}}
		if r.Seal.RecordsSHA256 != "" {
			cp.Evidence = append(cp.Evidence, field{p.T("Evidence bundle: records SHA-256 (who recorded each notice and ticket time)"), r.Seal.RecordsSHA256})
		}
		cp.Note = p.T("The evidence bundle (evidence.zip, written by gpusla bundle from the same terms, event log, month and as-of) holds the raw observations behind every counted outage; gpusla verify evidence.zip re-derives each of these values offline.")
	} else {
		cp.Note = p.T("No evidence bundle was sealed for this rendering; the monthly job's evidence.zip, or gpusla bundle run on the event log, carries the observations and the chain head.")
	}
	if !cp.NoLetter {
		cp.Sign = signature(p, c)
	}
	cp.Appendix = ci.appendix()
	cp.Unverified, cp.Sources = unverifiedNote(p, c), sourcesTable(p, c)
	file := ""
	for _, v := range c.Clauses {
		if _, where := splitClause(v); where != "" {
			file, _, _ = strings.Cut(where, ":")
			break
		}
	}
	cp.AppNote = p.T("Lines are those of the contract terms file gpusla read (%s, contract %s), not of the signed contract.", orDash(file), c.Contract)
	return cp
}

// breachRows adds node n's breaches to the letter's table: the uptime
// missed with its tier, each penalty, each late resolution, then the
// node's credit reckoned from its charge.
func breachRows(p *i18n.Printer, bt *table, n *report.Node, ci *citer) {
	rows := 0
	if !n.Uptime.Met && n.Uptime.NotJudged == "" {
		s := p.T("uptime for the month (as the contract counts it) %s, below the committed %s (%s of counted outage)", p.Pct(n.Uptime.Claimable(), 4),
			p.Pct(n.Uptime.TargetPercent, -1), p.Secs(n.Uptime.ClaimableOutageSeconds))
		if t := tierText(p, n.Credit.Tier); t != "" {
			s += p.T("; tier: %s", t)
		}
		bt.add(n.Node, s, ci.cite("uptime", "uptime.tiers"), p.Num(n.Credit.TierPercent, -1))
		rows++
	}
	for _, pen := range n.Credit.Penalties {
		keys := map[string][]string{"late_response": {"support.response", "support.late_response_penalty"},
			"late_replacement": {"hardware_replacement"}, "late_delivery": {"delivery"}}[pen.Kind]
		what := p.T("%s: %s", pen.Ref, p.Text(pen.Text))
		if pen.Kind == "late_response" || pen.Kind == "late_replacement" {
			what = p.T("ticket %s: %s", pen.Ref, p.Text(pen.Text))
		}
		if retroTicket(n, pen.Ref) {
			what += " (" + p.T("retroactive record: see Retroactive records") + ")"
		}
		bt.add(n.Node, what, ci.cite(keys...), p.Num(pen.Percent, -1))
		rows++
	}
	// A downtime credit is an amount, not a percent: its own arithmetic
	// (rounding, caps) is the breach's text; the sum below holds it.
	for _, dc := range n.Credit.DowntimeCredits {
		bt.add(n.Node, downtimeText(p, dc, n.Currency), ci.cite("credits"), "—")
		rows++
	}
	for _, tk := range n.Tickets {
		if tk.Resolution != nil && tk.Resolution.Status == "breached" {
			bt.add(n.Node, p.T("ticket %s: resolved %s late (committed within %s)", tk.Ticket, p.Secs(tk.Resolution.LateSeconds), p.Secs(tk.Resolution.TargetSeconds)),
				ci.cite("support.resolution"), "—")
			rows++
		}
	}
	rows += uncreditedRows(p, bt, n, ci)
	// A node whose breaches earn nothing has no credit line: a letter never
	// reckons a credit of 0.00.
	if rows == 0 || n.Credit.Amount == 0 {
		return
	}
	sum := p.T("credit for %s: %s of the month's charge of %s (%s) = %s", n.Node, p.Pct(n.Credit.Percent, -1), p.LetterMoney(n.Billing.Charge, n.Currency),
		chargeBasis(p, n), p.LetterMoney(n.Credit.Amount, n.Currency))
	keys := []string{"billing", "uptime.credit_cap"}
	sum += capText(p, n.Credit)
	// A line cut to the cent is a cent below what a reviewer who rounds
	// finds: say so beside it, only where a line was cut.
	if n.Credit.Truncated {
		sum += p.T(". Each credit line is truncated to the cent, never rounded up: a line reckoned with rounding to the nearest cent may come to up to %s more.", p.Price(0.01, n.Currency))
	}
	bt.add("", sum, ci.cite(keys...), p.Num(n.Credit.Percent, -1))
}

// capText says which cap the credit was held to, so the provider's desk
// can check it against its own text: capped, within the cap, or none.
func capText(p *i18n.Printer, c report.Credit) string {
	switch {
	case c.Capped:
		return p.T(" (capped from %s %% at the contract's cap of %s %% of the charge)", p.Num(c.UncappedPercent, -1), p.Num(c.CapPercent, -1))
	case c.NoCap:
		return p.T(" (the contract sets no cap on the credit)")
	}
	return p.T(" (within the contract's cap of %s %% of the charge)", p.Num(c.CapPercent, -1))
}

// formulaText says how the node's uptime was reckoned: what it is a share
// of, and what the terms say of maintenance (never an exclusion they do
// not make).
func formulaText(p *i18n.Printer, u report.Uptime) string {
	s := p.T("Uptime is a share of the node's service period (%s).", p.Secs(u.DenominatorSeconds))
	if u.Denominator == "calendar_month" {
		s = p.T("Uptime is a share of the whole calendar month (%s), as the contract's formula counts it, whenever the node was delivered.", p.Secs(u.DenominatorSeconds))
	}
	switch u.MaintenanceExclusion {
	case report.MaintenanceByNotice:
		s += " " + p.T("Maintenance announced at least %s ahead is excluded.", p.Secs(u.MaintenanceNoticeSeconds))
	case report.MaintenanceNone:
		s += " " + p.T("The contract excludes no maintenance.")
	default:
		s += " " + p.T("The terms state no maintenance exclusion: none is excluded.")
	}
	return s
}

// deliveryNote is how long delivery took against its target, or for a
// node not delivered, since when it is awaited and how late it is so far.
func deliveryNote(p *i18n.Printer, d report.Delivery) string {
	if d.DeliveredAt == "" && d.JudgedAt != "" {
		if d.LateSeconds > 0 {
			return p.T("not delivered as of %s, %s late so far (target %s)", p.Stamp(d.JudgedAt), p.Secs(d.LateSeconds), p.Secs(d.TargetSeconds))
		}
		if d.TargetSeconds == 0 {
			return p.T("not delivered as of %s, %s since the order", p.Stamp(d.JudgedAt), p.Secs(d.Seconds))
		}
		return p.T("not delivered as of %s, %s since the order (target %s)", p.Stamp(d.JudgedAt), p.Secs(d.Seconds), p.Secs(d.TargetSeconds))
	}
	return p.T("%s against %s", p.Secs(d.Seconds), p.Secs(d.TargetSeconds))
}

// uncreditedRows adds node n's breaches that earn no penalty under the
// contract (a late first response or replacement, a late delivery, where
// the terms attach no percent to it): breached all the same, and the
// letter says so rather than "no breach this month".
func uncreditedRows(p *i18n.Printer, bt *table, n *report.Node, ci *citer) int {
	has := map[string]bool{}
	for _, pen := range n.Credit.Penalties {
		has[pen.Kind+"/"+pen.Ref] = true
	}
	rows := 0
	for _, tk := range n.Tickets {
		for _, x := range []struct {
			t       *report.Target
			kind    string
			format  string
			unknown string // read on weekdays alone: the terms list no holidays for its years
			key     string
		}{{tk.Response, "late_response", "ticket %s: first response %s late (committed within %s); the contract attaches no credit to it",
			"ticket %s: first response %s late on weekdays alone (committed within %s); the terms list no holidays for %s, so no credit is requested for it", "support.response"},
			{tk.Replacement, "late_replacement", "ticket %s: hardware replaced %s late (committed within %s); the contract attaches no credit to it",
				"ticket %s: hardware replaced %s late on weekdays alone (committed within %s); the terms list no holidays for %s, so no credit is requested for it", "hardware_replacement"}} {
			if x.t == nil || x.t.Status != "breached" || has[x.kind+"/"+tk.Ticket] {
				continue
			}
			what := p.T(x.format, tk.Ticket, p.Secs(x.t.LateSeconds), p.Secs(x.t.TargetSeconds))
			if len(x.t.HolidaysUnknown) > 0 {
				years := make([]string, len(x.t.HolidaysUnknown))
				for i, y := range x.t.HolidaysUnknown {
					years[i] = strconv.Itoa(y)
				}
				what = p.T(x.unknown, tk.Ticket, p.Secs(x.t.LateSeconds), p.Secs(x.t.TargetSeconds), strings.Join(years, ", "))
			}
			bt.add(n.Node, what, ci.cite(x.key), "—")
			rows++
		}
	}
	if d := n.Delivery; d.Status == "breached" && d.InMonth && !has["late_delivery/"+n.Node] {
		what := p.T("delivered %s late (committed within %s); the contract attaches no credit to it", p.Secs(d.LateSeconds), p.Secs(d.TargetSeconds))
		if d.DeliveredAt == "" {
			what = p.T("not delivered as of %s, %s late so far (committed within %s); the contract attaches no credit to it", p.Stamp(d.JudgedAt), p.Secs(d.LateSeconds), p.Secs(d.TargetSeconds))
		}
		bt.add(n.Node, what, ci.cite("delivery"), "—")
		rows++
	}
	return rows
}

// recordedCell is when and by whom a record was recorded, "—" for a
// record from a log that did not say.
func recordedCell(p *i18n.Printer, at, by string) string {
	if at == "" {
		return "—"
	}
	return p.Stamp(at) + "\n" + orDash(by)
}

// retroTicket reports whether ticket id of node n rests on a record dated
// before its recording.
func retroTicket(n *report.Node, id string) bool {
	for _, t := range n.Tickets {
		if t.Ticket == id {
			return t.Retroactive
		}
	}
	return false
}

// uptimeCells are a node's claimable and observed uptime as a table shows
// them: the figures, or why there are none (never "100 %" for a node that
// did not run, nor a figure for a month the contract does not count).
func uptimeCells(p *i18n.Printer, u report.Uptime, unit string) (claimable, observed string) {
	switch u.NotJudged {
	case "":
		return p.Num(u.Claimable(), 4) + unit, p.Num(u.ObservedFigure(), 4) + unit
	case report.PartialNotCounted:
		return p.T("partial month, not counted"), p.T("partial month, not counted")
	}
	return p.T("not in service"), p.T("not in service")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
