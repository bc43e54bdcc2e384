package tables

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gpusla/gpusla/sla/claims"
)

// ClaimRow is a claim and where it stands.
type ClaimRow struct {
	Claim  claims.Claim
	Status claims.Status
}

// Claims prints the claims ledger: each claim's amount, state, when it
// was sent, the provider's deadlines and what is owed and came back; dates
// in the contract's zone, amounts exact. FLAGS names what a finance team
// acts on: a window not open yet (the day it opens), sent before it opened,
// sent late, answered late, a provider deadline passed, a late
// credit, a credit beyond the grant.
func Claims(w io.Writer, rows []ClaimRow) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLAIM\tPROVIDER\tAMOUNT\tSTATE\tSENT\tANSWER DUE\tGRANTED\tRECEIVED\tOUTSTANDING\tCREDIT DUE\tFLAGS")
	for _, r := range rows {
		c, st := r.Claim, r.Status
		loc := c.Loc()
		granted := "-"
		if st.Granted != nil {
			granted = st.Granted.String()
		}
		sent := "-"
		if c.Sent != nil {
			sent = day(c.Sent.At, loc) + " " + c.Sent.Via
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, c.Provider, c.Amount, c.Currency, st.State, sent,
			day(st.AnswerDue, loc), granted, st.Received, st.Outstanding, day(st.CreditDue, loc), flags(c, st))
	}
	return tw.Flush()
}

func flags(c claims.Claim, st claims.Status) string {
	var f []string
	for _, x := range []struct {
		on   bool
		word string
	}{{st.NotOpen, "opens-" + day(c.Opens, c.Loc())}, {c.OpensHolidaysMissing != 0 && !st.SentEarly, fmt.Sprintf("opens-unsure-%d-holidays-unknown", c.OpensHolidaysMissing)}, {st.Expired, "EXPIRED-UNSENT"}, {st.SentEarly, "SENT-BEFORE-WINDOW-OPENED"}, {st.SentLate, "sent-after-deadline"}, {st.AnswerOverdue, "ANSWER-OVERDUE"}, {st.AnswerLate && !st.AnswerOverdue, "answered-late"},
		{st.CreditOverdue, "CREDIT-OVERDUE"}, {len(st.LateCredits) > 0, "credited-late"}, {st.Excess > 0, "excess " + st.Excess.String()}} {
		if x.on {
			f = append(f, x.word)
		}
	}
	if len(f) == 0 {
		return "-"
	}
	return strings.Join(f, ",")
}

// day is t's date in loc, "-" when zero.
func day(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(loc).Format("2006-01-02")
}

// Credits prints the bill credit lines of the ledger: each with the claim
// it was applied to, or why it matches none.
func Credits(w io.Writer, bs []claims.BillCredit) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tBILL\tPERIOD\tAMOUNT\tREFERENCE\tCLAIM")
	for _, b := range bs {
		to := b.Claim + " (" + b.MatchedBy + ")"
		if b.Claim == "" {
			to = "UNMATCHED: " + b.Unmatched
		}
		ref := b.Reference
		if ref == "" {
			ref = "-"
		}
		amount := b.Amount.String() + " " + b.Currency
		if b.Form != "" {
			amount += " (" + b.Form + ")"
		}
		fmt.Fprintf(tw, "%s\t%s %v\t%s\t%s\t%s\t%s\n", b.Key, b.Bill, b.Lines, b.Period, amount, ref, to)
	}
	return tw.Flush()
}

// Recovery prints what the claims recovered per provider, quarter and
// currency.
func Recovery(w io.Writer, rec claims.Recovery) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVIDER\tQUARTER\tCURRENCY\tCLAIMS\tCLAIMED\tGRANTED\tRECEIVED\tREFUSED\tOUTSTANDING\tEXCESS\tRECOVERED\tUNSENT\tOVERDUE\tPROVIDER LATE")
	for _, r := range rec.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f %%\t%d (%s)\t%d\t%d of %d\n", r.Provider, r.Quarter, r.Currency, r.Claims, r.Claimed, r.Granted,
			r.Received, r.Refused, r.Outstanding, r.Excess, r.SharePercent, r.Unsent, r.Drafted, r.Overdue, r.Late, r.Sent())
	}
	if len(rec.Booked) > 0 {
		// The books' view: what each quarter's bills credited, whatever
		// quarter the claims were for.
		fmt.Fprintln(tw, "\nPROVIDER\tBILL QUARTER\tCURRENCY\tRECEIVED ON ITS BILLS\tFOR CLAIMS OF")
		for _, b := range rec.Booked {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", b.Provider, b.Quarter, b.Currency, b.Received, strings.Join(b.ForQuarters, ", "))
		}
	}
	return tw.Flush()
}
