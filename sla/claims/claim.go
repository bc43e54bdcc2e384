package claims

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gpusla/gpusla/sla/terms"
)

// Claim is one month's credit claim under one contract and what became of
// it. Times are UTC; the contract's zone (TimeZone) is for calendar
// questions (the month, a deadline counted in days or billing cycles).
type Claim struct {
	// ID is "<contract>/<YYYY-MM>": one claim per contract and month; an
	// incident claim's is "<contract>/<YYYY-MM>/<node>_<start>" (IncidentID).
	ID       string `json:"id"`
	Contract string `json:"contract"`
	Provider string `json:"provider"`
	Month    string `json:"month"`
	// Amount is what the report's claim asks for, in Currency.
	Amount   Cents  `json:"amount"`
	Currency string `json:"currency"`
	// Deadline is the contract's claim deadline (exclusive): the claim
	// must reach the provider before it.
	Deadline time.Time `json:"deadline"`
	// Opens is the first instant the provider's text lets the claim be
	// filed, when it sets one (Tencent: "after the fifth (5th) business
	// day of the month immediately following such Service Month"); zero
	// when a claim may be filed as soon as the month ends. A claim sent
	// before it is outside the window as surely as one sent after the
	// deadline. OpensHolidaysMissing is the year whose holidays the count
	// of working days runs through and the terms do not list: Opens is
	// then the earliest the window can open (weekdays alone), and the
	// text's own opening may be later.
	Opens                time.Time `json:"opens,omitzero"`
	OpensHolidaysMissing int       `json:"opens_holidays_missing,omitempty"`
	TimeZone             string    `json:"timezone"`
	// Lang is the contract's documents' language (report.lang), the
	// language of the ledger's alerts and follow-up letters.
	Lang string `json:"lang"`
	// Nodes are the nodes the claim's credit is for.
	Nodes []string `json:"nodes,omitempty"`
	// Lines are the credit lines Amount sums, each truncated to the cent
	// (a node's month percentage, each downtime credit: sla/account's
	// MoneyDown). A provider that rounds each to the nearest cent instead
	// pays up to a cent a line more: the ledger's rounding allowance.
	Lines int `json:"lines,omitempty"`
	// Seal is the sealed report's fingerprint (the evidence bundle's):
	// what the claim rests on.
	Seal Seal `json:"seal"`
	// Incident is the incident an incident claim is for (NewIncident);
	// nil for a month's claim.
	Incident *Incident `json:"incident,omitempty"`
	// Drafted is when the claim was drafted from the report and by whom.
	Drafted Record  `json:"drafted"`
	Sent    *Sent   `json:"sent,omitempty"`
	Answer  *Answer `json:"answer,omitempty"`
	// Credits are the credits later bills carry against it, in the order
	// they were applied.
	Credits []Credit `json:"credits"`
}

// Seal names the evidence the claim rests on (sla/report.Seal).
type Seal struct {
	ObservationsSHA256 string `json:"observations_sha256"`
	ChainHead          string `json:"chain_head"`
	Batches            int    `json:"batches"`
	RecordsSHA256      string `json:"records_sha256,omitempty"`
}

// Record is when a fact was recorded and by whom: the API key ("api:ID
// (name)"), the command line ("cli:USER"), the report job ("report-job").
type Record struct {
	RecordedAt time.Time `json:"recorded_at"`
	RecordedBy string    `json:"recorded_by,omitempty"`
}

// Sent is how the claim reached the provider.
type Sent struct {
	// At is when it was sent (the provider's deadline to answer counts
	// from it).
	At time.Time `json:"at"`
	// Via is how: one of Vias.
	Via string `json:"via"`
	// Reference is the provider's case or ticket number, if it gave one;
	// a credit line quoting it is matched to this claim.
	Reference string `json:"reference,omitempty"`
	Record
}

// Vias are the ways a claim is sent: the channels a provider's text names
// (terms.Channels).
var Vias = func() []string {
	out := make([]string, len(terms.Channels))
	for i, c := range terms.Channels {
		out[i] = string(c)
	}
	return out
}()

// Answer outcomes.
const (
	Accepted = "accepted" // granted in full
	Partial  = "partial"  // granted in part: Granted
	Refused  = "refused"
)

// Outcomes are every answer outcome.
var Outcomes = []string{Accepted, Partial, Refused}

// Answer is the provider's answer to the claim.
type Answer struct {
	At      time.Time `json:"at"`
	Outcome string    `json:"outcome"`
	// Granted is what the provider agreed to credit: the claim's amount
	// when accepted, less when partial, 0 when refused.
	Granted Cents `json:"granted"`
	// Reason and Reference are the provider's, as it gave them.
	Reason    string `json:"reason,omitempty"`
	Reference string `json:"reference,omitempty"`
	Record
}

// Credit is a credit a bill carries against the claim.
type Credit struct {
	// Key identifies the bill line (BillCredit.Key): one line is applied
	// once in the whole ledger.
	Key string `json:"key"`
	// Period is the bill's month (YYYY-MM); At the earliest instant the
	// line allows it was applied (its own date, else the period's start in
	// the contract's zone), which a provider deadline is held to.
	Period string    `json:"period"`
	At     time.Time `json:"at"`
	Amount Cents     `json:"amount"`
	// MatchedBy says how it was matched: "reference", "amount_period", or
	// "manual" (applied by a person).
	MatchedBy string `json:"matched_by"`
	Reference string `json:"reference,omitempty"`
	// Form is how it was given back: empty for a credit on a bill, else
	// FormCoupon, FormVoucher or FormCash. A coupon or voucher pays the
	// claim as the provider's terms offer it (JD Cloud: "compensated in the
	// form of coupon"), yet it is account balance, not money returned: the
	// ledger keeps which.
	Form string `json:"form,omitempty"`
	Record
}

// How a provider gives a credit back.
const (
	FormBillCredit = ""        // a credit line on a bill
	FormCoupon     = "coupon"  // a coupon in the account (JD Cloud)
	FormVoucher    = "voucher" // a voucher (Tencent's 代金券)
	FormCash       = "cash"    // money paid back
)

// Forms lists them, the bill credit first.
var Forms = []string{FormBillCredit, FormCoupon, FormVoucher, FormCash}

// How a credit was matched to its claim.
const (
	ByReference    = "reference"
	ByAmountPeriod = "amount_period"
	ByHand         = "manual"
)

// Bounds of what a person records, so a record stays one small item.
const (
	MaxText    = 500 // a reason, a reference, a description
	MaxBy      = 200
	MaxCredits = 100 // credits on one claim
	// MaxLead is how far ahead of now a fact may be dated: the slack of a
	// clock a little ahead, never a plan.
	MaxLead = 5 * time.Minute
)

// Error is a refused change: the field at fault, its value and why.
// Conflict marks one that contradicts what is recorded (a second, different
// answer); NotFound one that names nothing recorded.
type Error struct {
	Field, Value, Msg  string
	Conflict, NotFound bool
}

func (e *Error) Error() string {
	if e.Value == "" {
		return e.Field + ": " + e.Msg
	}
	return fmt.Sprintf("%s: %q %s", e.Field, e.Value, e.Msg)
}

func invalid(field, value, format string, a ...any) *Error {
	return &Error{Field: field, Value: value, Msg: fmt.Sprintf(format, a...)}
}

func conflict(field, value, format string, a ...any) *Error {
	return &Error{Field: field, Value: value, Msg: fmt.Sprintf(format, a...), Conflict: true}
}

var (
	currencyRE = regexp.MustCompile(`^[A-Z]{3}$`)
	contractRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
)

// ID is the claim id of a contract's month.
func ID(contract, month string) string { return contract + "/" + month }

// ParseID splits a claim id, refusing one that is not "<contract>/<YYYY-MM>"
// or an incident claim's (IncidentID).
func ParseID(id string) (contract, month string, err error) {
	contract, month, ok := strings.Cut(id, "/")
	if m, key, inc := strings.Cut(month, "/"); inc {
		month, ok = m, ok && incidentKeyRE.MatchString(key)
	}
	if !ok || !contractRE.MatchString(contract) || !isMonth(month) {
		return "", "", invalid("claim", id, "is not a claim id (want <contract>/<YYYY-MM>, e.g. cn-example/2026-11, or an incident's <contract>/<YYYY-MM>/<node>_<YYYYMMDDTHHMMSSZ>)")
	}
	return contract, month, nil
}

func isMonth(s string) bool {
	t, err := time.Parse("2006-01", s)
	return err == nil && t.Format("2006-01") == s
}

// Draft is a month's claim as the sealed report states it.
type Draft struct {
	Contract, Provider, Month string
	Amount                    Cents
	Currency                  string
	Deadline                  time.Time
	Opens                     time.Time
	OpensHolidaysMissing      int
	TimeZone, Lang            string
	Nodes                     []string
	Lines                     int
	Seal                      Seal
	// MonthEnd is the end of the month in the contract's zone and AsOf
	// the report's as-of instant: a report of a month not over (a
	// provisional one) never makes a claim.
	MonthEnd, AsOf time.Time
	Record
}

// New checks a draft and makes its claim: a positive amount in a currency
// code, a month that is over as of the report, a sealed report, a deadline.
func New(d Draft) (Claim, error) {
	switch {
	case !contractRE.MatchString(d.Contract):
		return Claim{}, invalid("contract", d.Contract, "is not a contract id")
	case !isMonth(d.Month):
		return Claim{}, invalid("month", d.Month, "is not a month (want YYYY-MM)")
	case d.Amount <= 0:
		return Claim{}, invalid("amount", d.Amount.String(), "is not positive: a month with no credit makes no claim")
	case d.Amount > MaxCents:
		return Claim{}, invalid("amount", d.Amount.String(), "is more than %s", MaxCents)
	case !currencyRE.MatchString(d.Currency):
		return Claim{}, invalid("currency", d.Currency, "is not an ISO 4217 code (three capital letters)")
	case d.MonthEnd.IsZero() || d.AsOf.Before(d.MonthEnd):
		return Claim{}, invalid("month", d.Month, "is provisional: the report is as of %s, before the month ends (%s); a claim is drafted from a finished month only",
			d.AsOf.UTC().Format(time.RFC3339), d.MonthEnd.UTC().Format(time.RFC3339))
	case d.Seal.ObservationsSHA256 == "" || d.Seal.ChainHead == "":
		return Claim{}, invalid("seal", "", "missing: the report is not sealed (write its evidence bundle first), and a claim rests on sealed evidence")
	case d.Deadline.IsZero():
		return Claim{}, invalid("deadline", "", "missing")
	case !d.Opens.IsZero() && !d.Opens.Before(d.Deadline):
		return Claim{}, invalid("opens", d.Opens.UTC().Format(time.RFC3339), "is not before the claim deadline %s: the window would never open",
			d.Deadline.UTC().Format(time.RFC3339))
	case len(d.RecordedBy) > MaxBy:
		return Claim{}, invalid("by", "", "longer than %d characters", MaxBy)
	case d.Lines < 0 || Cents(d.Lines) > d.Amount:
		return Claim{}, invalid("lines", fmt.Sprint(d.Lines), "is not a count of credit lines of at least a cent each in %s", d.Amount)
	}
	if _, err := time.LoadLocation(d.TimeZone); err != nil || d.TimeZone == "" {
		return Claim{}, invalid("timezone", d.TimeZone, "is not an IANA time zone")
	}
	c := Claim{ID: ID(d.Contract, d.Month), Contract: d.Contract, Provider: d.Provider, Month: d.Month, Amount: d.Amount,
		Currency: d.Currency, Deadline: d.Deadline.UTC(), TimeZone: d.TimeZone, Lang: d.Lang, Nodes: slices.Clone(d.Nodes),
		Lines: d.Lines, Seal: d.Seal, Drafted: Record{RecordedAt: d.RecordedAt.UTC(), RecordedBy: d.RecordedBy}, Credits: []Credit{}}
	if !d.Opens.IsZero() {
		c.Opens, c.OpensHolidaysMissing = d.Opens.UTC(), d.OpensHolidaysMissing
	}
	return c, nil
}

// Rounding is the difference between what the claim asks and what a bill
// credits that is rounding, not a short or an excess payment: a cent per
// credit line (one for a claim that does not say how many lines it has).
// The claim truncates each line to the cent; a provider that does too pays
// it exactly, one that rounds to the nearest pays up to this much more,
// and one that truncates a claim rounded to the nearest up to this much
// less. Either is paid in full.
func (c Claim) Rounding() Cents { return Cents(max(c.Lines, 1)) }

// Loc is the contract's zone (UTC if it cannot be loaded, which New refuses).
func (c Claim) Loc() *time.Location {
	if loc, err := time.LoadLocation(c.TimeZone); err == nil {
		return loc
	}
	return time.UTC
}

// MonthStart is the first instant of the claim's month in its zone.
func (c Claim) MonthStart() time.Time {
	t, _ := time.ParseInLocation("2006-01", c.Month, c.Loc())
	return t
}

// PeriodStart is the first instant of a bill's month in the claim's zone.
func (c Claim) PeriodStart(period string) time.Time {
	t, _ := time.ParseInLocation("2006-01", period, c.Loc())
	return t
}

func checkText(field, v string) error {
	if len(v) > MaxText {
		return invalid(field, "", "longer than %d characters", MaxText)
	}
	return nil
}

func checkAt(field string, at, now time.Time) error {
	switch {
	case at.IsZero():
		return invalid(field, "", "missing")
	case at.After(now.Add(MaxLead)):
		return invalid(field, at.Format(time.RFC3339), "is in the future (now %s)", now.UTC().Format(time.RFC3339))
	}
	return nil
}

// Send records that the claim was sent. The same again changes nothing
// (changed false); another is a conflict naming the one recorded: a claim
// is sent once. It may be sent before its month ends (a window counted
// from the incident) but not before the month began.
func (c Claim) Send(s Sent, now time.Time) (out Claim, changed bool, err error) {
	s.At = s.At.UTC()
	if err := checkAt("at", s.At, now); err != nil {
		return c, false, err
	}
	if s.At.Before(c.MonthStart()) {
		return c, false, invalid("at", s.At.Format(time.RFC3339), "is before the claim's month %s began", c.Month)
	}
	if s.Via == "" {
		return c, false, invalid("via", "", "missing: say how the claim was sent (%s); the contract's terms name no claim.channel", strings.Join(Vias, ", "))
	}
	if !slices.Contains(Vias, s.Via) {
		return c, false, invalid("via", s.Via, "is not a way a claim is sent (%s)", strings.Join(Vias, ", "))
	}
	if err := errorsOf(checkText("reference", s.Reference), checkBy(s.RecordedBy)); err != nil {
		return c, false, err
	}
	if c.Sent != nil {
		if c.Sent.At.Equal(s.At) && c.Sent.Via == s.Via && c.Sent.Reference == s.Reference {
			return c, false, nil
		}
		return c, false, conflict("at", s.At.Format(time.RFC3339), "claim %s was already recorded as sent at %s via %s; a claim is sent once",
			c.ID, c.Sent.At.Format(time.RFC3339), c.Sent.Via)
	}
	s.RecordedAt = s.RecordedAt.UTC()
	c.Sent = &s
	return c, true, nil
}

func checkBy(by string) error {
	if len(by) > MaxBy {
		return invalid("by", "", "longer than %d characters", MaxBy)
	}
	return nil
}

func errorsOf(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// AnswerIn is an answer as a person records it; Currency, when given, must
// be the claim's (an answer in another currency is not this claim's).
type AnswerIn struct {
	Answer
	// HasGranted says Granted was given (an accepted claim defaults to its
	// amount).
	HasGranted bool
	Currency   string
}

// Answered records the provider's answer: after the claim was sent, an
// outcome with the amount it grants (accepted: the amount claimed; partial:
// more than 0 and less than claimed; refused: nothing). The same again
// changes nothing; another is a conflict: an answer is recorded once.
func (c Claim) Answered(in AnswerIn, now time.Time) (out Claim, changed bool, err error) {
	a := in.Answer
	a.At = a.At.UTC()
	if err := c.notIncident(); err != nil {
		return c, false, err
	}
	if c.Sent == nil {
		return c, false, invalid("claim", c.ID, "has not been recorded as sent: record how and when it was sent before its answer")
	}
	if err := checkAt("at", a.At, now); err != nil {
		return c, false, err
	}
	if a.At.Before(c.Sent.At) {
		return c, false, invalid("at", a.At.Format(time.RFC3339), "is before the claim was sent (%s)", c.Sent.At.Format(time.RFC3339))
	}
	if in.Currency != "" && in.Currency != c.Currency {
		return c, false, invalid("currency", in.Currency, "is not the claim's currency (%s): amounts in two currencies are never mixed", c.Currency)
	}
	if err := grantOf(c, &a, in.HasGranted); err != nil {
		return c, false, err
	}
	if err := errorsOf(checkText("reason", a.Reason), checkText("reference", a.Reference), checkBy(a.RecordedBy)); err != nil {
		return c, false, err
	}
	if c.Answer != nil {
		p := c.Answer
		if p.At.Equal(a.At) && p.Outcome == a.Outcome && p.Granted == a.Granted && p.Reason == a.Reason && p.Reference == a.Reference {
			return c, false, nil
		}
		return c, false, conflict("outcome", a.Outcome, "claim %s was already answered (%s on %s); an answer is recorded once",
			c.ID, p.Outcome, p.At.Format(time.RFC3339))
	}
	if c.received() > a.Granted+c.Rounding() && a.Outcome != Refused {
		return c, false, invalid("granted", a.Granted.String(), "is less than the %s already credited against claim %s", c.received(), c.ID)
	}
	a.RecordedAt = a.RecordedAt.UTC()
	c.Answer = &a
	return c, true, nil
}

// grantOf checks the outcome and sets a.Granted by it.
func grantOf(c Claim, a *Answer, has bool) error {
	g := a.Granted.String()
	switch {
	case has && a.Granted < 0:
		return invalid("granted", g, "is negative")
	case a.Outcome == Accepted && has && a.Granted != c.Amount && max(a.Granted-c.Amount, c.Amount-a.Granted) > c.Rounding():
		return invalid("granted", g, "differs from the %s claimed by more than rounding (%s): an accepted claim grants it all (record a partial answer for less)",
			c.Amount, c.Rounding())
	case a.Outcome == Accepted:
		a.Granted = c.Amount
	case a.Outcome == Partial && !has:
		return invalid("granted", "", "missing: a partial answer says how much it grants")
	case a.Outcome == Partial && (a.Granted <= 0 || a.Granted >= c.Amount):
		return invalid("granted", g, "is not between 0 and the %s claimed (exclusive): a partial grant is some of it", c.Amount)
	case a.Outcome == Refused && has && a.Granted != 0:
		return invalid("granted", g, "is not 0: a refused claim grants nothing")
	case a.Outcome == Refused:
		a.Granted = 0
	case !slices.Contains(Outcomes, a.Outcome):
		return invalid("outcome", a.Outcome, "is not an outcome (%s)", strings.Join(Outcomes, ", "))
	}
	return nil
}

// received is what the credits applied so far add up to.
func (c Claim) received() Cents {
	var s Cents
	for _, cr := range c.Credits {
		s += cr.Amount
	}
	return s
}

// CreditIn is a credit to apply, with its currency.
type CreditIn struct {
	Credit
	Currency string
}

// Apply applies a bill's credit to the claim: the claim's currency, a
// positive amount, a bill for a month after the claim's, a claim that was
// sent and not refused, a line not applied before. The credit may exceed
// what is outstanding (Status shows the excess): a bill is what it is.
func (c Claim) Apply(in CreditIn) (Claim, error) {
	cr := in.Credit
	if err := c.notIncident(); err != nil {
		return c, err
	}
	switch {
	case in.Currency != c.Currency:
		return c, invalid("currency", in.Currency, "is not the claim's currency (%s): amounts in two currencies are never mixed", c.Currency)
	case cr.Amount <= 0:
		return c, invalid("amount", cr.Amount.String(), "is not positive: a credit is an amount given back (a bill's negative line, as a positive amount)")
	case !isMonth(cr.Period):
		return c, invalid("period", cr.Period, "is not a month (want YYYY-MM)")
	case cr.Period <= c.Month:
		return c, invalid("period", cr.Period, "is not after the claim's month %s: a credit for it is on a later bill", c.Month)
	case c.Sent == nil:
		return c, invalid("claim", c.ID, "has not been recorded as sent: a credit is applied to a claim the provider has")
	case c.Answer != nil && c.Answer.Outcome == Refused:
		return c, invalid("claim", c.ID, "was refused (%s): a refused claim takes no credit; the credit stays unmatched", c.Answer.At.Format(time.RFC3339))
	case len(c.Credits) >= MaxCredits:
		return c, invalid("claim", c.ID, "has %d credits already, the most one claim holds", MaxCredits)
	case cr.Key == "":
		return c, invalid("key", "", "missing")
	}
	if err := errorsOf(checkText("reference", cr.Reference), checkText("key", cr.Key), checkBy(cr.RecordedBy)); err != nil {
		return c, err
	}
	for _, p := range c.Credits {
		if p.Key == cr.Key {
			return c, conflict("key", cr.Key, "is already applied to claim %s (on %s): a bill's credit is applied once", c.ID, p.RecordedAt.Format(time.RFC3339))
		}
	}
	if cr.At.IsZero() {
		cr.At = c.PeriodStart(cr.Period)
	}
	cr.At, cr.RecordedAt = cr.At.UTC(), cr.RecordedAt.UTC()
	c.Credits = append(slices.Clone(c.Credits), cr)
	return c, nil
}
