package chantext

import (
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/sla/claims"
	"github.com/gpusla/gpusla/sla/i18n"
)

// Claim alert kinds: which provider deadline passed, or that the renter's
// own deadline to file passed with the claim never sent.
const (
	AnswerOverdue = "answer_overdue"
	CreditOverdue = "credit_overdue"
	ExpiredUnsent = "expired_unsent"
)

// ClaimExpired is the notice that a drafted claim was never sent and its
// claim deadline (exclusive, on the contract's clock) has passed: the
// credit the contract gave for the month is very likely lost. It says
// what the ledger holds: the claim, its amount and the deadline missed.
func ClaimExpired(lang i18n.Lang, c claims.Claim) notify.Notice {
	w := wordsOf(string(lang), c.TimeZone)
	p := w.p
	n := notify.Notice{Kind: notify.NoticeClaimReminder, Contract: c.Contract, Provider: c.Provider, Month: c.Month, Lang: string(lang), Urgent: true,
		Title: "⌛ " + p.T("Claim deadline passed, never sent: %s, %s (%s)", p.Month(c.Month), c.Provider, c.Contract)}
	if in := c.Incident; in != nil {
		n.Lines = append(n.Lines,
			spans(p, "The claim for the incident on %s from %s to %s (`%s`) was never sent: it had to be in before *%s*, and that has passed.",
				in.Node, w.stamp(in.Start), w.stamp(in.End), c.ID, w.stamp(c.Deadline)),
			spans(p, "The provider may leave this incident out of the month's credit; the month's claim still counts it, and its claim page says whether the tier rests on it. If you sent it anyway, record it: `gpusla claims sent %s`", c.ID))
		return n
	}
	n.Lines = append(n.Lines,
		spans(p, "Claim `%s` (%s) is still a draft: it had to be in before *%s*, and that has passed.", c.ID, p.Money(c.Amount.Float(), c.Currency), w.stamp(c.Deadline)),
		spans(p, "The provider may refuse it as late; if you send it anyway, record it: `gpusla claims sent %s`", c.ID))
	return n
}

// ClaimOverdue is the notice that a provider let one of its own deadlines
// on a claim pass (kind AnswerOverdue or CreditOverdue), in lang (the
// contract's report.lang) with times on the contract's clock: which claim,
// the deadline and the clause that sets it, what the bills recorded so far
// carry, when and how the claim was sent, and the command that prints the
// follow-up letter. It states what the ledger holds and no more ("not on
// the bills recorded so far", never "not credited").
func ClaimOverdue(lang i18n.Lang, c claims.Claim, st claims.Status, d claims.Deadlines, kind string) notify.Notice {
	w := wordsOf(string(lang), c.TimeZone)
	p := w.p
	money := func(v claims.Cents) string { return p.Money(v.Float(), c.Currency) }
	n := notify.Notice{Kind: notify.NoticeClaimOverdue, Contract: c.Contract, Provider: c.Provider, Month: c.Month, Lang: string(lang), Urgent: true,
		Title: "⏳ " + p.T("Provider deadline passed on the claim for %s: %s (%s)", p.Month(c.Month), c.Provider, c.Contract)}
	if kind == AnswerOverdue {
		n.Lines = append(n.Lines, spans(p, "%s has not answered claim `%s` (%s) by its own deadline, *%s* (%s).",
			c.Provider, c.ID, money(c.Amount), w.stamp(st.AnswerDue), d.AnswerClause))
	} else {
		n.Lines = append(n.Lines, spans(p, "*%s* of claim `%s` (%s) is not on the bills recorded so far, and %s's own deadline to credit it, *%s* (%s), has passed; a credit in time is on a bill for %s at the latest.",
			money(st.Outstanding), c.ID, money(c.Amount), c.Provider, w.stamp(st.CreditDue), d.CreditClause, p.Month(st.LastInTimePeriod)))
	}
	if s := c.Sent; s != nil && s.Reference != "" {
		n.Lines = append(n.Lines, spans(p, "Sent %s by %s (case %s).", w.stamp(s.At), p.Word(s.Via), s.Reference))
	} else if s != nil {
		n.Lines = append(n.Lines, spans(p, "Sent %s by %s.", w.stamp(s.At), p.Word(s.Via)))
	}
	n.Lines = append(n.Lines, spans(p, "Follow-up letter: `gpusla claims letter %s`", c.ID))
	return n
}

// FollowUpKept is the alert's line naming where its follow-up letter is
// kept, ready to send.
func FollowUpKept(lang i18n.Lang, where string) notify.Line {
	return spans(i18n.New(lang), "The follow-up letter is ready: `%s`", where)
}

// RecoveryLines are the report notice's lines of what the claims of a
// provider recovered (claims.Recover's rows for it), in lang: one per
// quarter and currency.
func RecoveryLines(lang i18n.Lang, rows []claims.RecoveryRow) []notify.Line {
	p := i18n.New(lang)
	var out []notify.Line
	for _, r := range rows {
		m := func(c claims.Cents) string { return p.Money(c.Float(), r.Currency) }
		l := spans(p, "Claims %s, %s: claimed %s · granted %s · received on bills %s · refused %s · outstanding *%s* · %s recovered",
			r.Quarter, r.Provider, m(r.Claimed), m(r.Granted), m(r.Received), m(r.Refused), m(r.Outstanding), p.Pct(r.SharePercent, 1))
		if r.Overdue > 0 {
			l = append(l, spans(p, " · %d past the provider's deadline", r.Overdue)...)
		}
		out = append(out, l)
	}
	return out
}

// IncidentReminder is the reminder to claim one incident before its own
// deadline (exclusive; lastDay the last calendar day to file, in the
// contract's zone), where the window runs from the incident: what is known
// so far and no amount, as the month's tier may still change.
func IncidentReminder(lang i18n.Lang, c claims.Claim, lastDay string, left time.Duration) notify.Notice {
	w := wordsOf(string(lang), c.TimeZone)
	p := w.p
	day := lastDay
	if d, err := time.Parse("2006-01-02", lastDay); err == nil {
		day = p.Date(d)
	}
	in := c.Incident
	n := notify.Notice{Kind: notify.NoticeClaimReminder, Contract: c.Contract, Provider: c.Provider, Month: c.Month, Lang: string(lang),
		Urgent: left <= 24*time.Hour,
		Title:  "⏰ " + p.T("Claim the incident on %s: %s (%s)", in.Node, c.Provider, c.Contract)}
	n.Lines = append(n.Lines,
		spans(p, "Incident on %s from %s to %s: %s counted so far.", in.Node, w.stamp(in.Start), w.stamp(in.End), p.Secs(in.Counted)),
		spans(p, "Last day to file: *%s*; the claim must be in before %s; %s left.", day, w.stamp(c.Deadline), p.Words(left.Round(time.Hour))),
		spans(p, "The window counts from the incident, so it closes before the month's report is written: claim the incident now. The month's tier, and so the credit, is not known until the month is over; the month's claim asks for it."),
		spans(p, "Send the provider the node, the incident's start and end above and its evidence; once sent, record it: `gpusla claims sent %s`", c.ID))
	return n
}
