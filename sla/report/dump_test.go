package report

// The plain Markdown dump of a report that this package's scenario tests
// keep as golden files and read in their failures. It is not a document a
// renter gets: every document (md, html, pdf, csv, in the reader's language)
// is written by functions/document. The fleet baselines are left out here;
// their text is functions/document's too.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

func dur(s int64) string {
	if s == 0 {
		return "0"
	}
	if s < 0 {
		return "-" + dur(-s)
	}
	h, m, sec := s/3600, s%3600/60, s%60
	var b strings.Builder
	if h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if sec > 0 {
		fmt.Fprintf(&b, "%ds", sec)
	}
	return b.String()
}

func money(v float64, cur string) string { return strconv.FormatFloat(v, 'f', 2, 64) + " " + cur }

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ") }

// Markdown writes a human-readable report.
func Markdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# SLA report %s\n\nAs of %s. Read %d events (%d duplicates ignored, %d after the as-of instant left out).\n\n",
		r.Month, r.AsOf, r.Input.Events, r.Input.Duplicates, r.Input.AfterAsOf)
	b.WriteString("## Claims by provider\n\n| contract | provider | nodes | below target | charge | claim | claim by | tickets breached |\n|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.Contracts {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | **%s** | %s | %d |\n", cell(c.Contract), cell(c.Provider), c.Nodes, c.NodesBelow,
			money(c.Charge, c.Currency), money(c.Claim, c.Currency), c.ClaimDeadline, c.TicketsBreached)
	}
	for _, n := range r.Nodes {
		fmt.Fprintf(&b, "\n## Node %s (%s, %s)\n\n", n.Node, n.Contract, cell(n.Provider))
		fmt.Fprintf(&b, "%d × %s. Times in %s.\n\n", n.Hardware.GPUCount, cell(n.Hardware.GPUModel), n.TimeZone)
		if n.Period.InService {
			fmt.Fprintf(&b, "- In service %s to %s (%s, of which %s excluded maintenance)\n", n.Period.Start, n.Period.End, dur(n.Period.Seconds), dur(n.Period.ExcludedSeconds))
		} else {
			b.WriteString("- Not in service this month\n")
		}
		met := "met"
		if !n.Uptime.Met {
			met = "**missed**"
		}
		// The target to two decimals, or all of them (99.975 %, never 99.97).
		target := strconv.FormatFloat(n.Uptime.TargetPercent, 'f', 2, 64)
		if all := strconv.FormatFloat(n.Uptime.TargetPercent, 'f', -1, 64); len(all) > len(target) {
			target = all
		}
		if n.Uptime.NotJudged != "" {
			fmt.Fprintf(&b, "- Uptime: not judged (%s); target %s %%\n", n.Uptime.NotJudged, target)
		} else {
			fmt.Fprintf(&b, "- Uptime: claimable %.4f %% (%s down), observed %.4f %% (%s unreachable or down); target %s %% %s\n",
				*n.Uptime.ClaimablePercent, dur(n.Uptime.ClaimableOutageSeconds), *n.Uptime.ObservedPercent, dur(n.Uptime.ObservedOutageSeconds), target, met)
		}
		fmt.Fprintf(&b, "- Uptime over: %s (%s); maintenance exclusion: %s\n", n.Uptime.Denominator, dur(n.Uptime.DenominatorSeconds), n.Uptime.MaintenanceExclusion)
		fmt.Fprintf(&b, "- Delivery: ordered %s, first heartbeat %s, took %s against %s: %s\n", n.Delivery.OrderedAt, orDash(n.Delivery.DeliveredAt), dur(n.Delivery.Seconds), dur(n.Delivery.TargetSeconds), n.Delivery.Status)
		fmt.Fprintf(&b, "- Billed %s × %d GPUs × %s/GPU-hour = %s (usable %s)\n", dur(n.Billing.BilledSeconds), n.Billing.GPUs,
			strconv.FormatFloat(n.Billing.PricePerGPUHour, 'f', 2, 64), money(n.Billing.Charge, n.Currency), dur(n.Billing.UsableSeconds))
		for _, h := range n.Billing.UnchargedHours {
			fmt.Fprintf(&b, "  - not charged: clock hour %s to %s, %s unavailable (more than %s)\n", h.Start, h.End, dur(h.UnavailableSeconds), dur(n.Billing.ClockHourRuleSeconds))
		}
		tier := "none"
		if n.Credit.Tier != nil {
			tier = fmt.Sprintf("[%g, %g) → %g %%", n.Credit.Tier.MinPercent, n.Credit.Tier.MaxPercent, n.Credit.Tier.CreditPercent)
		}
		capped := ""
		switch {
		case n.Credit.Capped:
			capped = fmt.Sprintf(" (capped from %g %% at %g %%)", n.Credit.UncappedPercent, n.Credit.CapPercent)
		case n.Credit.NoCap:
			capped = " (no cap)"
		}
		fmt.Fprintf(&b, "- Credit: tier %s; %g %%%s of the charge = **%s**; claim by %s\n", tier, n.Credit.Percent, capped, money(n.Credit.Amount, n.Currency), n.ClaimDeadline)
		for _, p := range n.Credit.Penalties {
			fmt.Fprintf(&b, "  - penalty %s %s: %g %% (%s)\n", p.Kind, p.Ref, p.Percent, cell(p.Reason))
		}
		for _, d := range n.Credit.DowntimeCredits {
			b.WriteString("  - " + downtimeText(d, n.Currency) + "\n")
		}
		if len(n.Outages) > 0 {
			b.WriteString("\n| kind | cause | start | end | duration | counted | why not / evidence |\n|---|---|---|---|---|---|---|\n")
			for _, o := range n.Outages {
				end := o.End
				if o.Ongoing {
					end += " (ongoing)"
				}
				note := o.Reason
				if note == "" {
					note = strings.Join(o.Evidence, "; ")
				} else {
					note += "; " + strings.Join(o.Evidence, "; ")
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", o.Kind, o.Cause, o.Start, end, dur(o.Seconds), dur(o.CountedSeconds), cell(note))
			}
		}
		if len(n.Maintenance) > 0 {
			b.WriteString("\n| maintenance start | end | announced | notice | excluded | |\n|---|---|---|---|---|---|\n")
			for _, m := range n.Maintenance {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %v | %s |\n", m.Start, m.End, m.AnnouncedAt, dur(m.NoticeSeconds), m.Excluded, cell(m.Reason))
			}
		}
		if len(n.Tickets) > 0 {
			b.WriteString("\n| ticket | priority | opened | off-hours | response | resolution | replacement |\n|---|---|---|---|---|---|---|\n")
			for _, t := range n.Tickets {
				fmt.Fprintf(&b, "| %s | %s | %s (%s) | %v | %s | %s | %s |\n", cell(t.Ticket), cell(t.Priority), t.OpenedAt, t.OpenedOn, t.OffHours,
					targetText(t.Response), targetText(t.Resolution), targetText(t.Replacement))
			}
		}
		for _, e := range n.Evidence {
			fmt.Fprintf(&b, "- Evidence %s at %s: %s\n", e.Kind, e.At, cell(e.Detail))
		}
	}
	for i := range r.Contracts {
		if r.Contracts[i].ProviderStatus != nil {
			providerMarkdown(&b, &r.Contracts[i])
		}
	}
	retroMarkdown(&b, r.Retroactive)
	_, err := io.WriteString(w, b.String())
	return err
}

// downtimeText is one downtime credit's arithmetic, as a renter checks it.
func downtimeText(d DowntimeCredit, cur string) string {
	s := fmt.Sprintf("downtime credit (%s) %s to %s: %s down", strings.Join(d.Kinds, ", "), d.Start, d.End, dur(d.DowntimeSeconds))
	var why []string
	if d.RoundUpSeconds > 0 {
		why = append(why, "rounded up to "+dur(d.RoundUpSeconds))
	}
	if d.MonthCapped {
		why = append(why, "the month's cap reached")
	}
	if d.CreditedSeconds != d.DowntimeSeconds {
		s += ", credited " + dur(d.CreditedSeconds)
	}
	if len(why) > 0 {
		s += " (" + strings.Join(why, "; ") + ")"
	}
	who := "the node's"
	if d.Per == "gpu" {
		who = "the affected GPUs'"
	}
	return fmt.Sprintf("%s; %g × %s → %s h of %s hourly rate (%d GPUs, %s/h) = %s", s, d.Multiple, dur(d.CreditedSeconds),
		strconv.FormatFloat(d.CreditHours, 'f', -1, 64), who, d.GPUs, strconv.FormatFloat(d.HourlyRate, 'f', 2, 64), money(d.Amount, cur))
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func targetText(t *Target) string {
	if t == nil {
		return "—"
	}
	s := fmt.Sprintf("%s: %s of %s (%s clock), due %s", t.Status, dur(t.ElapsedSeconds), dur(t.TargetSeconds), t.Clock, t.Deadline)
	if t.LateSeconds > 0 {
		s += ", late " + dur(t.LateSeconds)
	}
	return s
}

// providerMarkdown writes a contract's status page comparison in the plain
// English Markdown form.
func providerMarkdown(b *strings.Builder, c *Contract) {
	ps := c.ProviderStatus
	fmt.Fprintf(b, "\n## Provider status page: %s (%s)\n\n", cell(c.Provider), c.Contract)
	fmt.Fprintf(b, "%s (%s), matched with %s slack either side. Acknowledgement is listed only: it never changes what is counted.\n\n", ps.URL, ps.Format, dur(ps.SlackSeconds))
	if p := ps.Polled; p != nil {
		fmt.Fprintf(b, "- Read from %s to %s (%d fetches, %d failed)\n", p.From, p.To, p.Fetches, p.Failures)
	} else {
		b.WriteString("- The log has no record of the page being read\n")
	}
	if ps.Ignored > 0 {
		fmt.Fprintf(b, "- %d incidents matched none of the keywords (%s) and are left out\n", ps.Ignored, strings.Join(ps.Keywords, ", "))
	}
	ackList := func(title string, l []OutageAck) {
		fmt.Fprintf(b, "\n%s: %d\n", title, len(l))
		for _, a := range l {
			what := a.Kind
			if a.Check != "" {
				what += " " + a.Check
			}
			fmt.Fprintf(b, "- %s %s %s to %s (%s counted)", a.Node, what, a.Start, a.End, dur(a.CountedSeconds))
			if len(a.Incidents) > 0 {
				b.WriteString(": " + strings.Join(a.Incidents, ", "))
			}
			b.WriteString("\n")
		}
	}
	ackList("Measured outages the provider acknowledged", ps.Acknowledged)
	ackList("Measured outages the provider never acknowledged", ps.Unacknowledged)
	fmt.Fprintf(b, "\nProvider incidents the probes did not see: %d\n", len(ps.Unseen))
	for _, id := range ps.Unseen {
		fmt.Fprintf(b, "- %s\n", id)
	}
	if len(ps.Incidents) > 0 {
		b.WriteString("\n| provider incident | title | status | start | resolved | outages overlapping |\n|---|---|---|---|---|---|\n")
		for _, i := range ps.Incidents {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %d |\n", cell(i.ID), cell(i.Title), orDash(i.Status), i.Start, orDash(i.End), i.Outages)
		}
	}
}

// retroMarkdown is the retroactive section: shown only when it has
// something to say.
func retroMarkdown(b *strings.Builder, rs Retroactive) {
	if len(rs.Records) == 0 && rs.Unrecorded == 0 {
		return
	}
	b.WriteString("\n## Retroactive records\n")
	if rs.Unrecorded > 0 {
		fmt.Fprintf(b, "\n- %d records carry no recording time (an old log): taken as they claim\n", rs.Unrecorded)
	}
	if len(rs.Records) == 0 {
		return
	}
	b.WriteString("\n| node | record | claimed | recorded | by | late | override | honoured | at stake | effect |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, x := range rs.Records {
		fmt.Fprintf(b, "| %s | %s %s | %s | %s | %s | %s | %s | %v | %s | %s |\n", x.Node, x.Kind, cell(x.ID), x.ClaimedAt, x.RecordedAt,
			cell(x.RecordedBy), dur(x.LateSeconds), cell(x.Override), x.Honoured, dur(x.AtStakeSeconds), cell(x.Effect))
	}
}
