// Package terms holds a provider contract's terms: the YAML format that
// docs/terms.md documents, parsed with go.yaml.in/yaml/v3's Node API so that
// every error names the file, the line and the field, and validated so that
// the rest of the engine can trust what it is given.
//
// On the path from an observation to a report row, this is what every step
// is judged by: the contract, read before any event.
package terms

import (
	"fmt"
	"math"
	"time"

	"github.com/gpusla/gpusla/sla/calendar"
	"github.com/gpusla/gpusla/sla/incident"
)

// Clock says how a target's elapsed time is measured.
type Clock string

// Clocks.
const (
	Wall     Clock = "wall"     // every minute counts
	Business Clock = "business" // only business-hours minutes count
)

// BillingStart says from when a node is billed.
type BillingStart string

// Billing starts.
const (
	FromOrder    BillingStart = "order"
	FromDelivery BillingStart = "delivery"
)

// Terms is one validated contract.
type Terms struct {
	File     string // where it was read from, for messages
	Line     int
	Contract string // id that node registrations name
	Provider string
	Currency string
	TimeZone string
	Calendar *calendar.Calendar

	Uptime      Uptime
	Maintenance Maintenance
	Detection   incident.Thresholds
	Support     Support
	Replacement Replacement
	Delivery    Delivery
	Claim       Claim
	Billing     Billing
	Credits     Credits
	Prices      Prices
	Network     Network
	Paperwork   Paperwork
	StatusPage  StatusPage // status_page: the public page's listing and redaction
	// ProviderStatusPage is the provider's own public status page, polled
	// for the incidents it admits; nil when the terms name none.
	ProviderStatusPage *ProviderPage
	// Sources are the published pages the figures were read from
	// (sources.go), in the file's order; figures the FigureKeys the file
	// gives.
	Sources []Source
	// Approximations are the clauses no term says exactly, each with what
	// the engine does instead and by at most how much it may differ.
	Approximations []Approximation
	figures        []string
	sourced        bool // the file has a sources: list, even an empty one
}

// Uptime is the availability promise and its credits.
type Uptime struct {
	Target float64 // percent
	// Unavailable lists the incident kinds that count as unavailable.
	Unavailable map[incident.Kind]bool
	// DowntimePeriod is the contract's definition of a counted downtime
	// period (uptime.downtime_period, or its older spelling
	// uptime.minimum_outage).
	DowntimePeriod DowntimePeriod
	// Denominator: the minutes the month's uptime is a share of.
	Denominator Denominator
	// PartialMonth: how a month the node was in service for only part of
	// is measured (exact instants, whole days, or not at all).
	PartialMonth PartialMonth
	Tiers        []Tier // ordered from the highest uptime down
	// CreditCap caps a node's credits and penalties in a month, in percent
	// of its monthly charge (above 100 where the text allows it); NoCreditCap
	// when the contract sets none.
	CreditCap float64
	// MinimumCredit: a node's credit for the month of this amount or less
	// (in the contract's currency) is not issued at all (AWS: "issued only
	// if the credit amount for the applicable monthly billing cycle is
	// greater than one dollar"); 0, every credit is.
	MinimumCredit float64
}

// NoCreditCap is uptime.credit_cap: none, a contract whose credits are not
// bounded by the charge (GPUhub's network vouchers).
var NoCreditCap = math.Inf(1)

// Denominator says what the month's uptime is a share of.
type Denominator string

// Denominators.
const (
	// ServicePeriod: the node's time in service this month (delivery to
	// release or the as-of instant).
	ServicePeriod Denominator = "service_period"
	// CalendarMonth: every minute of the calendar month, whenever the node
	// was delivered (UCloud SDU, hosted·ai: "total minutes in the month").
	CalendarMonth Denominator = "calendar_month"
)

// Tier: uptime in [Min, Max) earns Credit percent of the monthly charge.
type Tier struct {
	Min, Max float64
	Credit   float64
}

// TierFor returns the tier uptime falls in.
func (u *Uptime) TierFor(uptime float64) (Tier, bool) {
	for _, t := range u.Tiers {
		if uptime >= t.Min && uptime < t.Max {
			return t, true
		}
	}
	return Tier{}, false
}

// Maintenance: planned work excluded from the month when announced early.
// The zero Maintenance excludes nothing: a contract takes maintenance out
// only where its terms say so, with the notice they require.
type Maintenance struct {
	// Excludes: the contract takes announced maintenance out of the month
	// (maintenance: {notice: …}); false for maintenance: none and for a
	// terms file without a maintenance section.
	Excludes bool
	Notice   time.Duration
	// Excuses: what an announced window takes out, the window itself or
	// only the unavailability inside it (maintenance.excuses).
	Excuses MaintenanceExcuses
	// Stated: the terms file says it (maintenance: none or a notice);
	// false when it has no maintenance section at all, which the report
	// names so a reader can check it against the contract.
	Stated bool
}

// Target is a support time target.
type Target struct {
	BusinessHours time.Duration // for tickets opened in business hours
	OffHours      time.Duration // for tickets opened outside them
	Clock         Clock
}

// Support holds the ticket targets by priority.
type Support struct {
	Priorities []string // in the order the file lists them
	Response   map[string]Target
	Resolution map[string]Target // may be empty
	// PauseAwaitingCustomer stops the resolution clock while the provider
	// waits for the customer's reply.
	PauseAwaitingCustomer bool
	// LateResponsePenalty is percent of the node's monthly charge per ticket
	// whose first response breached its target.
	LateResponsePenalty float64
}

// Replacement is the hardware replacement promise.
type Replacement struct {
	Within time.Duration // zero: no promise
	Clock  Clock
	// Penalty: Percent of the monthly charge per started Per of lateness,
	// at most Max percent.
	Penalty StepPenalty
}

// StepPenalty grows by Percent for every started Per, up to Max.
type StepPenalty struct {
	Percent float64
	Per     time.Duration
	Max     float64
}

// For is the penalty percent for a lateness of late.
func (p StepPenalty) For(late time.Duration) float64 {
	if late <= 0 || p.Percent == 0 {
		return 0
	}
	steps := 1.0
	if p.Per > 0 {
		steps = float64((late + p.Per - 1) / p.Per)
	}
	v := steps * p.Percent
	if p.Max > 0 && v > p.Max {
		v = p.Max
	}
	return v
}

// Delivery is the order-to-usable promise.
type Delivery struct {
	Within  time.Duration // zero: no promise
	Penalty StepPenalty
	// CountsUntil says what ends the delivery: the node's first heartbeat
	// (the default, and the meaning before the field existed) or its first
	// passing acceptance check (sla/delivery.Accepted), so that a machine
	// handed over with the wrong card is not delivered.
	CountsUntil DeliveryEnd
}

// Network is what the provider publishes of the node's network.
type Network struct {
	// InternalMbps is the internal (node-to-node) bandwidth the provider
	// advertises, Mbit/s ("10Gbps内网": 10000); 0 where it names none. The
	// trial's iperf3 is held to 70 % of it ("达到标称内网带宽的70%以上").
	InternalMbps float64
}

// DeliveryEnd is what ends a delivery (terms delivery.counts_until).
type DeliveryEnd string

// Delivery ends.
const (
	UntilFirstHeartbeat   DeliveryEnd = "first_heartbeat"
	UntilAcceptancePassed DeliveryEnd = "acceptance_passed"
)

// Claim says how long after the month a claim may be filed.
type Claim struct {
	// Window after the end of the month, in days (calendar days in the
	// contract's zone); or, when BillingCycles > 0, the claim is due by the
	// end of the BillingCycles-th month after the month.
	WindowDays    int
	BillingCycles int
	// FromIncident: the window counts from the start of the month's first
	// counted outage, not from the end of the month: WindowDays after it
	// began, or the end of the BillingCycles-th billing cycle after the one
	// it began in (AWS: "by the end of the second billing cycle after which
	// the incident occurred": an outage from 31 March into April is claimed,
	// for April too, by the end of May).
	FromIncident bool
	// AnswerWithin and CreditWithin are the provider's own deadlines
	// (claim.answer_within, claim.credit_within): to answer a claim, and to
	// put the credit it grants on a bill. Unset when the text states none.
	AnswerWithin Within
	CreditWithin Within
	// Procedure is how the provider's text asks a claim to be filed.
	Procedure Procedure
}

// DeadlineFrom is the claim deadline when the window runs from the
// incidents: WindowDays after the first of them began (in the contract's
// zone, a calendar-day count), or the end of the BillingCycles-th month
// after the one it began in; the month's deadline when none counted or the
// window runs from the month's end.
func (c Claim) DeadlineFrom(monthEnd time.Time, loc *time.Location, firstIncident time.Time) time.Time {
	if !c.FromIncident || firstIncident.IsZero() {
		return c.Deadline(monthEnd, loc)
	}
	f := firstIncident.In(loc)
	if c.BillingCycles > 0 {
		return time.Date(f.Year(), f.Month()+time.Month(c.BillingCycles)+1, 1, 0, 0, 0, 0, loc)
	}
	return time.Date(f.Year(), f.Month(), f.Day()+c.WindowDays, f.Hour(), f.Minute(), f.Second(), f.Nanosecond(), loc)
}

// Deadline is the last instant a claim for the month ending at monthEnd may
// be filed (exclusive).
func (c Claim) Deadline(monthEnd time.Time, loc *time.Location) time.Time {
	m := monthEnd.In(loc)
	if c.BillingCycles > 0 {
		return time.Date(m.Year(), m.Month()+time.Month(c.BillingCycles), 1, 0, 0, 0, 0, loc)
	}
	return time.Date(m.Year(), m.Month(), m.Day()+c.WindowDays, m.Hour(), m.Minute(), 0, 0, loc)
}

// Billing is how a node is charged.
type Billing struct {
	PricePerGPUHour float64
	// Granularity: billed time is rounded up to a multiple of it.
	Granularity time.Duration
	StartsAt    BillingStart
	// ClockHourOver: a clock hour (in the contract's zone) in which the node
	// was unavailable for more than this is not charged at all (AWS: "will
	// not charge you for any Single EC2 Instance that is Unavailable for
	// more than six minutes of a clock hour"); zero: no such rule.
	ClockHourOver time.Duration
}

// Error is a problem in a terms file, with where it is. Msg is Format
// filled with Args (Format is empty where the message was built
// otherwise), so a reader in another language can have it translated.
type Error struct {
	File   string
	Line   int
	Field  string
	Msg    string
	Format string
	Args   []any
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// Credits holds the credit formulas besides the uptime tiers: downtime
// credits (a multiple of the hourly rate for every hour of downtime, as GPU
// clouds publish them) and the clock that measures the downtime.
type Credits struct {
	// Clock: from when an outage counts — the failure itself, or the
	// renter's notice (the first ticket on the node opened during it).
	// It governs both the claimable uptime and the downtime credits.
	Clock CreditClock
	// Rules are the downtime credit formulas, in file order; an outage
	// earns under every rule that names its kind.
	Rules []DowntimeRule
	// MonthCap caps what all rules credit in a month: hours of downtime,
	// an amount or a percent of the node's monthly charge; the zero Cap is
	// no cap.
	MonthCap Cap
}

// Cap bounds a credit in one of three ways, as contracts word it: hours of
// downtime credited ("at most 24 hours"), an amount in the contract's
// currency, or a percent of the node's monthly charge (above 100 where the
// text allows it). At most one is set; none set is no cap.
type Cap struct {
	Hours   time.Duration
	Amount  float64
	Percent float64
}

// None reports whether the cap bounds nothing.
func (c Cap) None() bool { return c.Hours == 0 && c.Amount == 0 && c.Percent == 0 }

// Money is the cap as an amount for a node charged charge this month;
// +Inf when the cap is in hours or none.
func (c Cap) Money(charge float64) float64 {
	switch {
	case c.Amount > 0:
		return c.Amount
	case c.Percent > 0:
		return charge * c.Percent / 100
	}
	return math.Inf(1)
}

// CreditClock says from when an outage counts.
type CreditClock string

// Credit clocks.
const (
	FromFailure CreditClock = "failure"
	FromNotice  CreditClock = "notice"
)

// CreditPer says whose hourly rate a downtime credit multiplies.
type CreditPer string

// Credit bases.
const (
	PerNode CreditPer = "node" // the node's rate: every GPU it has
	PerGPU  CreditPer = "gpu"  // only the GPUs the incident affected
)

// DowntimeRule: every incident of Kinds earns Multiple × the hourly rate ×
// its downtime, the downtime first rounded up to a multiple of RoundUp and
// then capped at IncidentCap.
type DowntimeRule struct {
	Kinds       []incident.Kind
	Multiple    float64
	RoundUp     time.Duration // zero: to the second
	IncidentCap Cap           // per incident; the zero Cap: none
	Per         CreditPer
	// RoundCredit rounds multiple × downtime up to RoundUp instead of the
	// downtime before multiplying ("minutes × 1.5, rounded up to the hour").
	RoundCredit bool
}

// Covers reports whether the rule applies to kind k.
func (r DowntimeRule) Covers(k incident.Kind) bool {
	for _, x := range r.Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// Hours is the downtime the rule credits for one incident that lasted d
// (rounded up first unless the rule rounds the credit instead).
func (r DowntimeRule) Hours(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	if !r.RoundCredit {
		d = roundUp(d, r.RoundUp)
	}
	if h := r.IncidentCap.Hours; h > 0 && d > h {
		d = h
	}
	return d
}

// CreditHours is how many hours of the rate credited downtime d earns:
// multiple × d, rounded up to RoundUp when the rule rounds the credit.
func (r DowntimeRule) CreditHours(d time.Duration) float64 {
	h := time.Duration(float64(d) * r.Multiple)
	if r.RoundCredit {
		h = roundUp(h, r.RoundUp)
	}
	return h.Hours()
}

func roundUp(d, to time.Duration) time.Duration {
	if to > 0 && d%to != 0 {
		d += to - d%to
	}
	return d
}

// Prices is the contract's price sheet for what a bill charges besides GPU
// time; zero means the contract does not say (the line cannot be checked).
type Prices struct {
	PackageWeekly, PackageMonthly float64 // per node and package
	BandwidthPerMbpsMonth         float64 // fixed-rate public bandwidth
	TrafficPerGB                  float64 // public traffic billed per GB out
	DiskSSDPerGBMonth             float64
	DiskHDDPerGBMonth             float64
	ObjectStoragePerGBMonth       float64
	CrossZonePerGB                float64
	// DisksEndWithNode: the contract deletes a node's disks with it, so
	// storage billed after the release is over-billed.
	DisksEndWithNode bool
}
