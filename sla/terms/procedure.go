package terms

import (
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/calendar"
)

// Procedure is what the provider's text asks a claim to be: through which
// channel, with which subject line, holding what, filed no earlier than
// when; and what a month with a breach but no credit gets. The claim letter
// and the evidence bundle follow it, so the billing desk accepts the claim
// without a second e-mail.
type Procedure struct {
	// Channel is how the claim reaches the provider; empty when the text
	// names none (the letter then says so).
	Channel Channel
	// Address is where: the support centre's or the ticket system's page,
	// or an e-mail address (required for an e-mail channel).
	Address string
	// Subject is the words the text asks for in the subject line (AWS:
	// "SLA Credit Request").
	Subject string
	// Include lists what the text asks the claim to hold, in the text's
	// order.
	Include []ClaimItem
	// OpensAfterWorkingDays: the claim may be filed only after this many
	// working days of the month after the month have passed (Tencent:
	// "在没有达标的相应服务月度结束后的次月的第五（5）个工作日后"). Working
	// days are Monday to Friday, less the terms' holidays, plus their extra
	// working days.
	OpensAfterWorkingDays int
	// WithoutCredit is what a month with a breach that earns no credit
	// gets: a notice of breach (the default) or nothing.
	WithoutCredit WithoutCredit
}

// Channel is how a claim is filed.
type Channel string

// Channels.
const (
	SupportCase Channel = "support_case" // a case in the provider's support centre (AWS)
	Ticket      Channel = "ticket"       // the account's ticket system (工单)
	Email       Channel = "email"
	WebForm     Channel = "web_form"
	Letter      Channel = "letter" // in writing, by post or courier
)

// Channels lists them in the order the docs give.
var Channels = []Channel{SupportCase, Ticket, Email, WebForm, Letter}

// ClaimItem is one thing a provider's text asks a claim to contain.
type ClaimItem string

// Claim items.
const (
	ItemIncidentTimes ClaimItem = "incident_times" // the dates and times of each incident claimed
	ItemInstanceIDs   ClaimItem = "instance_ids"   // the affected instances' ids
	ItemRegion        ClaimItem = "region"         // the region (and zone) of each
	ItemLogs          ClaimItem = "logs"           // logs or monitoring data that document the errors
	ItemTicketIDs     ClaimItem = "ticket_ids"     // the support tickets opened about them
	ItemUptime        ClaimItem = "uptime"         // the availability figure claimed, with its arithmetic
)

// ClaimItems lists every item, in the order a letter gives them.
var ClaimItems = []ClaimItem{ItemIncidentTimes, ItemInstanceIDs, ItemRegion, ItemLogs, ItemTicketIDs, ItemUptime}

// WithoutCredit is what a breach that earns no credit gets.
type WithoutCredit string

// What a breach without credit gets.
const (
	NoticeOfBreach WithoutCredit = "notice"
	NoLetter       WithoutCredit = "nothing"
)

// Wants reports whether the procedure asks for item.
func (p Procedure) Wants(item ClaimItem) bool {
	for _, x := range p.Include {
		if x == item {
			return true
		}
	}
	return false
}

// OpensAt is the first instant a claim for the month ending at monthEnd may
// be filed: the start of the day after the N-th working day of the next
// month (in cal's zone); monthEnd itself without such a rule.
func (p Procedure) OpensAt(monthEnd time.Time, cal *calendar.Calendar) time.Time {
	if p.OpensAfterWorkingDays <= 0 {
		return monthEnd
	}
	d := calendar.DateOf(monthEnd, cal.Loc)
	// A year of holidays would be a broken calendar, not a rule: the claim
	// then opens when the month ends.
	for n, i := 0, 0; i < 366; i, d = i+1, d.AddDays(1) {
		if workingDay(cal, d) {
			if n++; n == p.OpensAfterWorkingDays {
				return d.AddDays(1).At(0, cal.Loc)
			}
		}
	}
	return monthEnd
}

// OpensUnknown is the year whose holidays the opening of a claim for the
// month ending at monthEnd depends on and the calendar does not list (0
// when it lists every year the count runs through, or the text sets no
// opening). OpensAt then counts that year's weekdays alone, the earliest
// the opening can be: a holiday the terms do not name would put it later.
func (p Procedure) OpensUnknown(monthEnd time.Time, cal *calendar.Calendar) int {
	if p.OpensAfterWorkingDays <= 0 {
		return 0
	}
	last := calendar.DateOf(p.OpensAt(monthEnd, cal), cal.Loc).AddDays(-1)
	for d := calendar.DateOf(monthEnd, cal.Loc); !last.Before(d); d = d.AddDays(1) {
		if !cal.Covers(d.Year) {
			return d.Year
		}
	}
	return 0
}

// workingDay: Monday to Friday unless a holiday, or an extra working day.
func workingDay(cal *calendar.Calendar, d calendar.Date) bool {
	if _, ok := cal.Extra[d]; ok {
		return true
	}
	if _, ok := cal.Holidays[d]; ok {
		return false
	}
	wd := d.Weekday()
	return wd != time.Saturday && wd != time.Sunday
}

// procedure reads the claim section's procedure fields: channel, address,
// subject, include, opens_after_working_days, without_credit.
func (p *parser) procedure(c *object, t *Terms) error {
	pr := Procedure{WithoutCredit: NoticeOfBreach}
	if v, ok := c.vals["channel"]; ok {
		s, err := p.str(v, "claim.channel")
		if err != nil {
			return err
		}
		if !containsChannel(s) {
			return p.err(v, "claim.channel", "%q is not a channel (%s)", s, channelList())
		}
		pr.Channel = Channel(s)
	}
	for key, dst := range map[string]*string{"address": &pr.Address, "subject": &pr.Subject} {
		if v, ok := c.vals[key]; ok {
			s, err := p.str(v, "claim."+key)
			if err != nil {
				return err
			}
			if len(s) > 200 || strings.ContainsAny(s, "\r\n") {
				return p.err(v, "claim."+key, "must be one line of at most 200 characters")
			}
			*dst = s
		}
	}
	if err := p.claimAddress(c, pr); err != nil {
		return err
	}
	if err := p.claimItems(c, &pr); err != nil {
		return err
	}
	if v, ok := c.vals["opens_after_working_days"]; ok {
		n, err := p.integer(v, "claim.opens_after_working_days", 1)
		if err != nil {
			return err
		}
		if n > 20 {
			return p.err(v, "claim.opens_after_working_days", "%d working days is more than a month", n)
		}
		pr.OpensAfterWorkingDays = n
	}
	if v, ok := c.vals["without_credit"]; ok {
		s, err := p.either(v, "claim.without_credit", string(NoticeOfBreach), string(NoLetter))
		if err != nil {
			return err
		}
		pr.WithoutCredit = WithoutCredit(s)
	}
	t.Claim.Procedure = pr
	return nil
}

// claimAddress checks the address fits the channel: an e-mail channel needs
// an address that is one.
func (p *parser) claimAddress(c *object, pr Procedure) error {
	v, ok := c.vals["address"]
	if pr.Channel != Email {
		return nil
	}
	if !ok {
		return p.err(c.vals["channel"], "claim.address", "missing: an e-mail channel needs the address claims go to")
	}
	if a, err := mail.ParseAddress(pr.Address); err != nil || a.Address != pr.Address {
		return p.err(v, "claim.address", "%q is not an e-mail address", pr.Address)
	}
	return nil
}

// claimItems reads claim.include: known items, each once.
func (p *parser) claimItems(c *object, pr *Procedure) error {
	v, ok := c.vals["include"]
	if !ok {
		return nil
	}
	items, err := p.seq(v, "claim.include")
	if err != nil {
		return err
	}
	for i, it := range items {
		f := fmt.Sprintf("claim.include[%d]", i)
		s, err := p.str(it, f)
		if err != nil {
			return err
		}
		known := false
		for _, k := range ClaimItems {
			known = known || string(k) == s
		}
		if !known {
			return p.err(it, f, "%q is not a claim item (%s)", s, itemList())
		}
		if pr.Wants(ClaimItem(s)) {
			return p.err(it, f, "%q is listed twice", s)
		}
		pr.Include = append(pr.Include, ClaimItem(s))
	}
	return nil
}

func containsChannel(s string) bool {
	for _, c := range Channels {
		if string(c) == s {
			return true
		}
	}
	return false
}

func channelList() string {
	var out []string
	for _, c := range Channels {
		out = append(out, string(c))
	}
	return strings.Join(out, ", ")
}

func itemList() string {
	var out []string
	for _, c := range ClaimItems {
		out = append(out, string(c))
	}
	return strings.Join(out, ", ")
}
