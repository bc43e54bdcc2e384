package document

import (
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/i18n"
	"github.com/gpusla/gpusla/sla/report"
)

// What the claim letter carries for the provider's claim procedure
// (report.Contract.Procedure, the terms' claim.*): the subject line its text
// asks for, the channel, the first day it may be filed, the incidents with
// their instance ids and regions, and a line for each thing the text asks a
// claim to hold saying where in the letter or the evidence bundle it is, so
// the billing desk accepts the claim without a second e-mail.

// subjectLine is the letter's subject: the words the provider's text asks
// for (AWS: "SLA Credit Request"), the contract and the month; a notice of
// breach says it is one.
func subjectLine(p *i18n.Printer, r *report.Report, c *report.Contract) string {
	head := p.T("Claim for service credits")
	if pr := c.Procedure; pr != nil && pr.Subject != "" {
		head = pr.Subject
	}
	if c.Letter == report.LetterNotice {
		head = p.T("Notice of breach")
	}
	ref := c.ContractNumber
	if ref == "" {
		ref = c.Contract
	}
	return strings.Join([]string{head, ref, p.Month(r.Month)}, " — ")
}

// channelText is how the claim is to be filed, as the provider's text says.
func channelText(p *i18n.Printer, pr *report.ClaimProcedure) string {
	if pr == nil || pr.Channel == "" {
		return p.T("the terms name no channel: ask the provider how claims are filed")
	}
	s := map[string]string{
		"support_case": p.T("a case in the provider's support centre"),
		"ticket":       p.T("the ticket system of your account with the provider"),
		"email":        p.T("e-mail"),
		"web_form":     p.T("the provider's web form"),
		"letter":       p.T("a letter in writing"),
	}[pr.Channel]
	if pr.Address != "" {
		s = p.T("%s: %s", s, pr.Address)
	}
	return s
}

// applicationDate is the day the letter is dated: the report's as-of day,
// or the first day a claim may be filed when the text sets one later
// (Tencent's "after the fifth working day"): a letter dated earlier would be
// refused as early.
func applicationDate(r *report.Report, c *report.Contract, loc *time.Location) time.Time {
	at, _ := time.Parse(time.RFC3339, r.AsOf)
	for _, o := range []string{c.ClaimOpens, c.ClaimOpensEarliest} {
		if opens, err := time.Parse(time.RFC3339, o); err == nil && opens.After(at) {
			at = opens
		}
	}
	return at.In(loc)
}

// incidentsTable lists each counted outage of the contract's nodes with the
// provider's instance id and region where registered: the dates and times
// of each incident, as every provider's claim procedure asks.
func incidentsTable(p *i18n.Printer, r *report.Report, c *report.Contract) *table {
	t := &table{Title: p.T("Incidents"), Widths: []float64{18, 12, 12, 18, 18, 10, 10},
		Head: []string{p.T("instance"), p.T("region"), p.T("kind"), p.T("start"), p.T("end"), p.T("duration"), p.T("counted")},
		Num:  []bool{false, false, false, false, false, true, true}}
	for i := range r.Nodes {
		n := &r.Nodes[i]
		if n.Contract != c.Contract {
			continue
		}
		for _, o := range n.Outages {
			if !o.Counted {
				continue
			}
			end := p.Stamp(o.End)
			if o.Ongoing {
				end += " " + p.T("(ongoing)")
			}
			t.add(instanceName(p, n), orDash(n.Region), p.Word(o.Kind), p.Stamp(o.Start), end, p.Secs(o.Seconds), p.Secs(o.CountedSeconds))
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// instanceName is the node as the provider knows it: its instance id with
// the renter's node id beside it, or the node id alone.
func instanceName(p *i18n.Printer, n *report.Node) string {
	if n.InstanceID == "" || n.InstanceID == n.Node {
		return n.Node
	}
	return p.T("%s (node %s)", n.InstanceID, n.Node)
}

// procedureLines say, for each thing the provider's text asks a claim to
// hold, where it is: in the letter, or in the evidence bundle to attach;
// and what is missing, so the renter adds it before sending.
func procedureLines(p *i18n.Printer, r *report.Report, c *report.Contract) []string {
	pr := c.Procedure
	if pr == nil || len(pr.Include) == 0 {
		return nil
	}
	var nodes []*report.Node
	for i := range r.Nodes {
		if r.Nodes[i].Contract == c.Contract {
			nodes = append(nodes, &r.Nodes[i])
		}
	}
	out := []string{p.T("The provider's text asks a claim to hold:")}
	for _, it := range pr.Include {
		switch it {
		case "incident_times":
			out = append(out, p.T("the date and time of each incident: the incidents table above"))
		case "instance_ids":
			out = append(out, p.T("the instance ids: in the incidents table")+missing(p, nodes, func(n *report.Node) string {
				if n.InstanceID != "" {
					return ""
				}
				return p.T("node %s has no instance id registered: write the provider's id beside it (gpusla node add --instance-id)", n.Node)
			}))
		case "region":
			out = append(out, p.T("the region of each: in the incidents table")+missing(p, nodes, func(n *report.Node) string {
				if n.Region != "" {
					return ""
				}
				return p.T("node %s has no region registered: write it beside the node (gpusla node add --region)", n.Node)
			}))
		case "logs":
			out = append(out, p.T("logs that document the errors: attach the evidence bundle (evidence.zip: every observation, and incidents.csv listing each incident above with the log lines behind it)"))
		case "ticket_ids":
			out = append(out, ticketLine(p, nodes))
		case "uptime":
			out = append(out, p.T("the availability claimed and its arithmetic: the breaches table above"))
		}
	}
	return out
}

// missing joins what each node lacks of a claim item (lacks: "" when
// nothing), as sentences to act on before sending.
func missing(p *i18n.Printer, nodes []*report.Node, lacks func(*report.Node) string) string {
	var s []string
	for _, n := range nodes {
		if l := lacks(n); l != "" {
			s = append(s, l)
		}
	}
	if len(s) == 0 {
		return ""
	}
	return p.T("; %s", strings.Join(s, "; "))
}

// ticketLine lists the month's tickets on the contract's nodes with the
// provider's own references.
func ticketLine(p *i18n.Printer, nodes []*report.Node) string {
	var ids []string
	for _, n := range nodes {
		for _, t := range n.Tickets {
			id := t.Ticket
			if t.ProviderRef != "" {
				id = p.T("%s (provider's %s)", t.Ticket, t.ProviderRef)
			}
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return p.T("the support tickets about the incidents: none was opened this month")
	}
	return p.T("the support tickets about the incidents: %s", strings.Join(ids, ", "))
}

// approxLines say where the figures are approximate and by at most how
// much: each clause the terms cannot say exactly, and for each node the
// most its counted downtime may differ, the uptime that allows and whether
// the tier could change within it.
func approxLines(p *i18n.Printer, r *report.Report, c *report.Contract) []string {
	var out []string
	for _, a := range c.Approximations {
		s := p.T("Approximate: %s, where the provider's text says “%s”", a.Why, a.Clause)
		var by []string
		if a.PerRunSeconds > 0 {
			by = append(by, p.T("%s per incident", p.Secs(a.PerRunSeconds)))
		}
		if a.PerMonthSeconds > 0 {
			by = append(by, p.T("%s in the month", p.Secs(a.PerMonthSeconds)))
		}
		if a.Bound != "" {
			by = append(by, a.Bound)
		}
		dir := map[string]string{"under": p.T("never more than the provider would count"), "over": p.T("possibly more than the provider would count"),
			"either": p.T("either way")}[a.Direction]
		out = append(out, s+p.T(": off by at most %s, %s.", strings.Join(by, p.T(" and ")), dir))
	}
	for i := range r.Nodes {
		n := &r.Nodes[i]
		if n.Contract != c.Contract || n.Approximate == nil {
			continue
		}
		x := n.Approximate
		s := p.T("%s: the provider's own count may differ by at most %s this month: uptime between %s and %s",
			n.Node, p.Secs(x.MaxDowntimeSeconds), p.Pct(x.UptimeLowPercent, 4), p.Pct(x.UptimeHighPercent, 4))
		if x.TierMayDiffer {
			s += p.T(", across a tier line: the credit tier may differ")
		} else {
			s += p.T(", within the same tier")
		}
		out = append(out, s+".")
	}
	return out
}
