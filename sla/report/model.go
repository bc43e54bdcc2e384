// Package report builds the monthly SLA report from contract terms and the
// event log, and renders it as JSON (the stable contract documented in
// docs/reports.md) and as plain English Markdown, the form its scenario
// tests keep as golden files. The documents people read (claim pages,
// every language, HTML, PDF, CSV) are functions/document's.
//
// The Builder streams the log: it keeps per-node running state (coverage
// spans of heartbeats, compact check records for the month) rather than the
// events, so a month of minute heartbeats for a hundred nodes fits in a few
// tens of megabytes. Build does the arithmetic once every event is in; a
// reading error means no report at all.
//
// On the path from an observation to a report row, this is the last step:
// the books, tickets, delivery and evidence of each node become the month's
// report rows.
package report

import (
	"github.com/gpusla/gpusla/sla/baseline"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/usage"
)

// Schema names the JSON form; it changes only with docs/reports.md.
const Schema = "gpusla.report/v1"

// Report is one month's report for every node in the log.
type Report struct {
	Schema string `json:"schema"`
	Month  string `json:"month"` // YYYY-MM, in each contract's time zone
	AsOf   string `json:"as_of"` // RFC 3339, UTC
	// Provisional: as of AsOf the month is not over in the zone of some
	// contract given (Contract.Provisional says which): its figures cover
	// the service up to AsOf only and will change, and no claim can be
	// filed for it yet.
	Provisional bool       `json:"provisional"`
	Input       Input      `json:"input"`
	Contracts   []Contract `json:"contracts"`
	Nodes       []Node     `json:"nodes"`
	// Fleet compares each node's stress figures with its siblings (the
	// nodes of its GPU model); absent when no node sent stress results.
	Fleet *baseline.Result `json:"fleet,omitempty"`
	// Seal is the evidence bundle's fingerprint, set when the bundle is
	// written (functions/bundle): the claim page quotes it.
	Seal *Seal `json:"seal,omitempty"`
	// Retroactive lists every administrative record whose time lies
	// before its recording (retro.go, docs/reports.md "Retroactive
	// records"): what it claims, who recorded it when, and what it changed.
	Retroactive Retroactive `json:"retroactive"`
	// LeftOut names the nodes registered under a contract no terms given
	// define: they cannot be judged and are not in Nodes, and the document
	// says so itself, so a partial report never reads as a whole one.
	LeftOut []Skipped `json:"left_out"`
	// DemoOver names serve's demo node where it is left out of a month its
	// demo was over in (demo.go): said to the operator, not in the
	// document, which is the renter's own nodes' and not partial.
	DemoOver []Skipped `json:"-"`
}

// Retroactive is the report's section of retroactive records.
type Retroactive struct {
	Records []Retro `json:"records"`
	// Unrecorded counts the month's administrative records (maintenance
	// notices, releases, ticket events) that carry no recording time: a
	// log exported before recording times were kept. They are taken as
	// they claim; whether any was retroactive cannot be told from the log.
	Unrecorded int `json:"unrecorded"`
}

// Retro is one retroactive record: a maintenance notice recorded after its
// window began or after an outage it would take out had begun, a release
// or a ticket event dated more than events.RecordSlack before its
// recording.
type Retro struct {
	Node string `json:"node"`
	// Kind is the record's event type (maintenance, node_released,
	// ticket_opened, ticket_provider_responded, …) and ID its event id.
	Kind   string `json:"kind"`
	ID     string `json:"id"`
	Ticket string `json:"ticket,omitempty"`
	// ClaimedAt is the instant the record claims (a notice's start, the
	// release, the ticket event's time); AnnouncedAt a notice's
	// announcement; RecordedAt and RecordedBy its recording.
	ClaimedAt   string `json:"claimed_at"`
	AnnouncedAt string `json:"announced_at,omitempty"`
	RecordedAt  string `json:"recorded_at"`
	RecordedBy  string `json:"recorded_by,omitempty"`
	// LateSeconds is recorded_at − claimed_at (negative for a notice
	// recorded before its window but after an outage under way began).
	LateSeconds int64 `json:"late_seconds"`
	// Override is the administrator's documented reason for letting it
	// change the books.
	Override string `json:"override,omitempty"`
	// Honoured: the books take the record as it claims. A notice is
	// honoured only with an override; a release and a ticket's times are
	// always, and named here.
	Honoured bool `json:"honoured"`
	// AtStakeSeconds is what the claim moves: for a notice, the counted
	// outage inside its window that the recording time alone would not
	// take out (still counted unless honoured); for a release, the part of
	// the month between the release and its recording placed outside the
	// service period; for a ticket event, LateSeconds.
	AtStakeSeconds int64    `json:"at_stake_seconds"`
	Effect         string   `json:"effect"`
	EffectText     msg.Text `json:"-"`
}

// Seal names the evidence behind a report: the SHA-256 of the bundle's
// observations file and the head of the hash chain over its batches, and
// the SHA-256 of its records file.
type Seal struct {
	ObservationsSHA256 string `json:"observations_sha256"`
	ChainHead          string `json:"chain_head"`
	Batches            int    `json:"batches"`
	// RecordsSHA256 is the SHA-256 of the bundle's records.jsonl: who
	// recorded the report's notices, releases and ticket times, and when.
	RecordsSHA256 string `json:"records_sha256,omitempty"`
}

// Input says what was read.
type Input struct {
	Lines      int `json:"lines"`
	Events     int `json:"events"`
	Duplicates int `json:"duplicates"`
	// AfterAsOf counts events the backend could not have known at as_of
	// (received or happening later); they are left out.
	AfterAsOf int `json:"after_as_of"`
}

// Contract is the per-provider summary.
type Contract struct {
	Contract string `json:"contract"`
	Provider string `json:"provider"`
	Currency string `json:"currency"`
	TimeZone string `json:"timezone"`
	// Provisional: the month is not over in TimeZone as of the report's
	// as_of; the claim is what the service so far would earn, not a claim.
	Provisional     bool    `json:"provisional"`
	MonthStart      string  `json:"month_start"`
	MonthEnd        string  `json:"month_end"`
	MonthSeconds    int64   `json:"month_seconds"`
	UptimeTarget    float64 `json:"uptime_target_percent"`
	Nodes           int     `json:"nodes"`
	NodesBelow      int     `json:"nodes_below_target"`
	Charge          float64 `json:"charge"`
	Claim           float64 `json:"claim"`
	ClaimDeadline   string  `json:"claim_deadline"`
	ObservedSeconds int64   `json:"observed_outage_seconds"`
	ClaimSeconds    int64   `json:"claimable_outage_seconds"`
	TicketsBreached int     `json:"tickets_breached"`
	// Paperwork for the claim (terms renter, contract_number, report.lang,
	// clauses): who claims, under which contract number, the documents'
	// default language, and each clause key's citation (clause id and
	// terms file:line).
	Renter         string            `json:"renter,omitempty"`
	ContractNumber string            `json:"contract_number,omitempty"`
	Lang           string            `json:"lang"`
	Clauses        map[string]string `json:"clauses"`
	// ProviderStatus lists which measured outages the provider's own
	// status page acknowledged (provider.go); absent when the terms name
	// no page. It never changes what is counted.
	ProviderStatus *ProviderStatus `json:"provider_status,omitempty"`
	// Sources are the published pages the contract's figures were read
	// from (terms sources:); Unverified the term keys only a secondary
	// source backs, which the claim says it could not check against the
	// provider's own text.
	Sources    []Source `json:"sources"`
	Unverified []string `json:"unverified_terms"`
	// Letter is what the month's claim letter is (LetterRequest,
	// LetterNotice, LetterNone): a request when a credit is owed, a notice
	// of breach when a breach earns none (unless the renter chose no
	// letter, claim.without_credit: nothing), none without a breach or
	// for a month not over (Provisional). A letter never requests 0.00.
	Letter string `json:"letter"`
	// Procedure is how the provider's text asks a claim to be filed
	// (claim.channel, subject, include, …); absent when the terms state
	// none of it.
	Procedure *ClaimProcedure `json:"claim_procedure,omitempty"`
	// ClaimOpens is the first instant a claim may be filed, when the text
	// sets one (claim.opens_after_working_days).
	ClaimOpens string `json:"claim_opens,omitempty"`
	// ClaimOpensEarliest replaces ClaimOpens when the working days it
	// counts fall in a year whose public holidays the terms do not list
	// (ClaimOpensHolidaysMissing): the day is not known, and this is the
	// earliest it can be (that year's weekdays alone); a holiday the terms
	// do not name puts it later, so no day is given as the opening.
	ClaimOpensEarliest        string `json:"claim_opens_earliest,omitempty"`
	ClaimOpensHolidaysMissing int    `json:"claim_opens_holidays_missing,omitempty"`
	// Approximations are the clauses of the provider's text the terms
	// cannot say exactly, each with what the engine does instead and its
	// bound (nodes[].approximate: each node's for the month).
	Approximations []Approximation `json:"approximations,omitempty"`
}

// What a contract's claim letter is (Contract.Letter).
const (
	LetterRequest = "request"
	LetterNotice  = "notice"
	LetterNone    = "none"
)

// ClaimProcedure is the provider's claim procedure as the terms give it.
type ClaimProcedure struct {
	Channel               string   `json:"channel,omitempty"`
	Address               string   `json:"address,omitempty"`
	Subject               string   `json:"subject,omitempty"`
	Include               []string `json:"include,omitempty"`
	OpensAfterWorkingDays int      `json:"opens_after_working_days,omitempty"`
	WithoutCredit         string   `json:"without_credit"`
}

// Approximation is one clause the terms cannot say exactly.
type Approximation struct {
	Clause          string   `json:"clause"`
	Terms           []string `json:"terms,omitempty"`
	Why             string   `json:"why"`
	Direction       string   `json:"direction"` // under, over, either
	PerRunSeconds   int64    `json:"per_run_seconds,omitempty"`
	PerMonthSeconds int64    `json:"per_month_seconds,omitempty"`
	Bound           string   `json:"bound,omitempty"`
}

// Approximate is a node's month as far as the contract's approximations
// reach: the most the counted downtime may differ from the provider's
// (every approximation bounded in downtime, over the month's counted
// runs), the uptime range that allows, and whether the tier could differ
// within it.
type Approximate struct {
	MaxDowntimeSeconds int64   `json:"max_downtime_seconds"`
	UptimeLowPercent   float64 `json:"uptime_low_percent"`
	UptimeHighPercent  float64 `json:"uptime_high_percent"`
	TierMayDiffer      bool    `json:"tier_may_differ"`
}

// Source is one page the contract's terms cite.
type Source struct {
	Terms     []string `json:"terms"`
	URL       string   `json:"url"`
	Read      string   `json:"read"` // YYYY-MM-DD
	Quote     string   `json:"quote"`
	Secondary bool     `json:"secondary"`
}

// Node is one node's month.
type Node struct {
	Node     string   `json:"node"`
	Contract string   `json:"contract"`
	Provider string   `json:"provider"`
	Currency string   `json:"currency"`
	TimeZone string   `json:"timezone"`
	Hardware Hardware `json:"hardware"`
	// InstanceID and Region are the provider's own names for the node and
	// where it runs, as registered (node_registered); a claim quotes them.
	InstanceID    string   `json:"instance_id,omitempty"`
	Region        string   `json:"region,omitempty"`
	Period        Period   `json:"period"`
	Uptime        Uptime   `json:"uptime"`
	Outages       []Outage `json:"outages"`
	Maintenance   []Maint  `json:"maintenance"`
	Tickets       []Ticket `json:"tickets"`
	Delivery      Delivery `json:"delivery"`
	Billing       Billing  `json:"billing"`
	Credit        Credit   `json:"credit"`
	ClaimDeadline string   `json:"claim_deadline"`
	// IncidentClaims are the month's counted incidents, each with its own
	// claim deadline, where the claim window runs from the incident
	// (claim.from: incident, within_days): the month's letter, written once
	// the month is over, is too late for an incident whose window closes
	// before, so each is claimed on its own as soon as it is over.
	IncidentClaims []IncidentClaim `json:"incident_claims,omitempty"`
	Evidence       []Evidence      `json:"evidence"`
	// Usage is what the node's probe measured of what a bill charges
	// besides GPU time (disks, interface traffic, boots), when it sent
	// usage readings (docs/bills.md).
	Usage *usage.Month `json:"usage,omitempty"`
	// Breach: the month breached the contract on this node (uptime below
	// target, a penalty or downtime credit earned, a ticket target or the
	// delivery missed), whether or not it earns a credit.
	Breach bool `json:"breach"`
	// Approximate bounds the node's figures where the terms approximate the
	// provider's text (Contract.Approximations); absent when none bears on
	// its downtime or it has no uptime figure.
	Approximate *Approximate `json:"approximate,omitempty"`
}

// Hardware is what was ordered.
type Hardware struct {
	GPUModel string `json:"gpu_model"`
	GPUCount int    `json:"gpu_count"`
}

// Period is the part of the month the node was in service (delivered, not
// released, not after as_of).
type Period struct {
	InService       bool   `json:"in_service"`
	Start           string `json:"start,omitempty"`
	End             string `json:"end,omitempty"`
	Seconds         int64  `json:"seconds"`
	ExcludedSeconds int64  `json:"excluded_seconds"`
	// Released: the node was given back inside the month (End is then the
	// release), so anything billed for it after End needs a reason, or
	// before it (then not InService: listed so the renter sees why).
	Released bool `json:"released,omitempty"`
	// ReleaseRecordedAt, ReleaseRecordedBy, ReleaseOverride: the release's
	// record (absent in an old log or for a node not released).
	ReleaseRecordedAt string `json:"release_recorded_at,omitempty"`
	ReleaseRecordedBy string `json:"release_recorded_by,omitempty"`
	ReleaseOverride   string `json:"release_override,omitempty"`
}

// Uptime is both figures. A node the month's books do not judge (never in
// service this month, or a partial month the contract does not count) has
// no uptime figure at all: the percents are absent and NotJudged says why,
// never a 100 % that would say it ran.
type Uptime struct {
	TargetPercent    float64  `json:"target_percent"`
	ObservedPercent  *float64 `json:"observed_percent,omitempty"`
	ClaimablePercent *float64 `json:"claimable_percent,omitempty"`
	// NotJudged is why there is no figure: not_in_service, or
	// partial_month (uptime.partial_month: not_counted).
	NotJudged              string `json:"not_judged,omitempty"`
	ObservedOutageSeconds  int64  `json:"observed_outage_seconds"`
	ClaimableOutageSeconds int64  `json:"claimable_outage_seconds"`
	MinimumOutageSeconds   int64  `json:"minimum_outage_seconds"`
	// MinimumExclusive: a run must last more than the minimum
	// (downtime_period.more_than), one of exactly it counts nothing.
	MinimumExclusive bool `json:"minimum_exclusive,omitempty"`
	// DowntimeUnitSeconds: each counted run counts in whole units of this
	// (uptime.downtime_period.unit; 0: to the second), rounded as
	// DowntimeRounding says (down, up or clock).
	DowntimeUnitSeconds int64  `json:"downtime_unit_seconds,omitempty"`
	DowntimeRounding    string `json:"downtime_rounding,omitempty"`
	// PartialMonth is how a partial month is measured when not to the
	// instant (uptime.partial_month: whole_days or not_counted).
	PartialMonth string `json:"partial_month,omitempty"`
	// MaintenanceExcuses is "downtime" when announced maintenance excuses
	// only the downtime inside it and the month keeps its minutes
	// (maintenance.excuses); absent when the window leaves the month.
	MaintenanceExcuses string `json:"maintenance_excuses,omitempty"`
	// Denominator is what the uptime is a share of (uptime.denominator):
	// service_period or calendar_month; DenominatorSeconds that time,
	// before excluded maintenance.
	Denominator        string `json:"denominator"`
	DenominatorSeconds int64  `json:"denominator_seconds"`
	// MaintenanceExclusion is what the terms say of maintenance: notice
	// (announced maintenance with at least MaintenanceNoticeSeconds of
	// notice is excluded), none (maintenance: none) or not_stated (no
	// maintenance section: none is excluded).
	MaintenanceExclusion     string `json:"maintenance_exclusion"`
	MaintenanceNoticeSeconds int64  `json:"maintenance_notice_seconds,omitempty"`
	// Met: the claimable figure reached the target; false for a node not
	// judged (which is not counted below target either).
	Met bool `json:"met"`
}

// Uptime's reasons for no figure (Uptime.NotJudged).
const (
	NotInService      = "not_in_service"
	PartialNotCounted = "partial_month"
)

// Claimable is the claimable uptime percent, 0 for a node not judged.
func (u Uptime) Claimable() float64 {
	if u.ClaimablePercent == nil {
		return 0
	}
	return *u.ClaimablePercent
}

// ObservedFigure is the observed uptime percent, 0 for a node not judged.
func (u Uptime) ObservedFigure() float64 {
	if u.ObservedPercent == nil {
		return 0
	}
	return *u.ObservedPercent
}

// Maintenance exclusions (Uptime.MaintenanceExclusion).
const (
	MaintenanceByNotice  = "notice"
	MaintenanceNone      = "none"
	MaintenanceNotStated = "not_stated"
)

// Outage is one interval of one incident, with whose fault it was.
type Outage struct {
	Kind string `json:"kind"`
	// Check is the check whose results opened and closed a check incident
	// (name, and "/gpuN" for one GPU's); empty for unreachable.
	Check           string `json:"check,omitempty"`
	Cause           string `json:"cause"`
	Start           string `json:"start"`
	End             string `json:"end"`
	Ongoing         bool   `json:"ongoing"`
	Seconds         int64  `json:"seconds"`
	ObservedSeconds int64  `json:"observed_seconds"`
	CountedSeconds  int64  `json:"counted_seconds"`
	// RoundedUpSeconds is the part of CountedSeconds beyond the outage's
	// own time: the contract rounds each run up to whole units and this
	// outage ended the run (downtime_period.rounding: up).
	RoundedUpSeconds int64    `json:"rounded_up_seconds,omitempty"`
	Counted          bool     `json:"counted"`
	Reason           string   `json:"reason,omitempty"`
	Evidence         []string `json:"evidence"`
	// ReasonText and EvidenceText are Reason and Evidence as sentences a
	// renderer can translate (sla/msg); the JSON carries the English.
	ReasonText   msg.Text   `json:"-"`
	EvidenceText []msg.Text `json:"-"`
}

// IncidentClaim is one counted incident of a node's month and its own
// claim deadline (Node.IncidentClaims).
type IncidentClaim struct {
	// Start is when the incident began (the window counts from it), End
	// when its counted run ended; CountedSeconds what the month counts of
	// it.
	Start          string `json:"start"`
	End            string `json:"end"`
	CountedSeconds int64  `json:"counted_seconds"`
	// Deadline is the incident's claim deadline (exclusive), in the
	// contract's zone.
	Deadline string `json:"deadline"`
	// Ongoing: the run had not ended as of the report: not claimable yet.
	Ongoing bool `json:"ongoing,omitempty"`
}

// Maint is one maintenance notice.
type Maint struct {
	Start                 string   `json:"start"`
	End                   string   `json:"end"`
	AnnouncedAt           string   `json:"announced_at"`
	NoticeSeconds         int64    `json:"notice_seconds"`
	RequiredNoticeSeconds int64    `json:"required_notice_seconds"`
	Excluded              bool     `json:"excluded"`
	ExcludedSeconds       int64    `json:"excluded_seconds"`
	Reason                string   `json:"reason"`
	Summary               string   `json:"summary,omitempty"`
	ReasonText            msg.Text `json:"-"`
	// RecordedAt and RecordedBy: when and by whom the backend recorded the
	// notice (absent in an old log); Override: the documented reason a
	// notice recorded late is still taken as announced.
	RecordedAt string `json:"recorded_at,omitempty"`
	RecordedBy string `json:"recorded_by,omitempty"`
	Override   string `json:"override,omitempty"`
	// Effective lists the parts of the window taken out when not the whole
	// of it (a notice recorded late takes out nothing before its
	// recording, nor an outage already under way).
	Effective []Span `json:"effective,omitempty"`
}

// Span is a stretch of time in the contract's zone.
type Span struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// Ticket is one ticket opened in the month.
type Ticket struct {
	Ticket      string `json:"ticket"`
	Priority    string `json:"priority"`
	Category    string `json:"category,omitempty"`
	ProviderRef string `json:"provider_ref,omitempty"`
	Summary     string `json:"summary,omitempty"`
	OpenedAt    string `json:"opened_at"`
	// RecordedAt and RecordedBy: when and by whom the opening was recorded
	// (absent in an old log); Retroactive: it or one of the ticket's
	// events claims a time before its recording (listed in the report's
	// retroactive section).
	RecordedAt  string `json:"recorded_at,omitempty"`
	RecordedBy  string `json:"recorded_by,omitempty"`
	Retroactive bool   `json:"retroactive,omitempty"`
	OffHours    bool   `json:"off_hours"`
	OpenedOn    string `json:"opened_on"` // workday, weekend, holiday, extra_working_day
	// OpenedOnName is the calendar's name of that holiday or adjusted
	// working day (春节 Spring Festival), as the terms give it.
	OpenedOnName string  `json:"opened_on_name,omitempty"`
	Response     *Target `json:"response"`
	Resolution   *Target `json:"resolution"`
	Replacement  *Target `json:"replacement"`
	Breached     bool    `json:"breached"`
}

// Target is one ticket target's verdict.
type Target struct {
	TargetSeconds  int64  `json:"target_seconds"`
	Clock          string `json:"clock"` // wall or business
	Deadline       string `json:"deadline,omitempty"`
	At             string `json:"at,omitempty"` // when it was met
	ElapsedSeconds int64  `json:"elapsed_seconds"`
	PausedSeconds  int64  `json:"paused_seconds"`
	Status         string `json:"status"` // met, breached, pending
	LateSeconds    int64  `json:"late_seconds"`
	// HolidaysUnknown are the years the verdict depends on whose holidays
	// the terms do not list: read on their weekdays alone, a breach may be
	// none, and it earns no penalty.
	HolidaysUnknown []int `json:"holidays_unknown,omitempty"`
}

// Delivery is order to delivery: the first heartbeat, or the first passing
// acceptance check (CountsUntil, the terms' delivery.counts_until).
type Delivery struct {
	OrderedAt   string `json:"ordered_at"`
	DeliveredAt string `json:"delivered_at,omitempty"`
	// CountsUntil is "acceptance_passed" when the contract counts delivery
	// to the first passing acceptance check; absent for the first heartbeat.
	CountsUntil   string `json:"counts_until,omitempty"`
	Seconds       int64  `json:"seconds"`
	TargetSeconds int64  `json:"target_seconds"`
	Status        string `json:"status"` // met, breached, pending, no_target
	LateSeconds   int64  `json:"late_seconds"`
	InMonth       bool   `json:"ordered_in_month"`
	// JudgedAt is the instant an undelivered node was judged at (the
	// month's end or as_of, the earlier): Seconds and LateSeconds run to
	// it. Absent once delivered.
	JudgedAt string `json:"judged_at,omitempty"`
}

// Billing is what the node was charged for the month.
type Billing struct {
	PricePerGPUHour    float64 `json:"price_per_gpu_hour"`
	GPUs               int     `json:"gpus"`
	From               string  `json:"from,omitempty"`
	To                 string  `json:"to,omitempty"`
	BilledSeconds      int64   `json:"billed_seconds"`
	GranularitySeconds int64   `json:"granularity_seconds"`
	UsableSeconds      int64   `json:"usable_seconds"`
	Charge             float64 `json:"charge"`
	// ClockHourRuleSeconds is the contract's billing.clock_hour_rule (a
	// clock hour with more unavailability than this is not charged; 0:
	// no such rule); UnchargedHours are those hours and UnchargedSeconds
	// their billed part the charge leaves out.
	ClockHourRuleSeconds int64           `json:"clock_hour_rule_seconds,omitempty"`
	UnchargedHours       []UnchargedHour `json:"uncharged_hours,omitempty"`
	UnchargedSeconds     int64           `json:"uncharged_seconds,omitempty"`
}

// UnchargedHour is one clock hour the contract does not charge for: its
// claimable downtime, and how much of it lay in the billed span.
type UnchargedHour struct {
	Start              string `json:"start"`
	End                string `json:"end"`
	UnavailableSeconds int64  `json:"unavailable_seconds"`
	UnchargedSeconds   int64  `json:"uncharged_seconds"`
}

// Credit is what the month earns.
type Credit struct {
	Tier        *Tier     `json:"tier"`
	TierPercent float64   `json:"tier_percent"`
	Penalties   []Penalty `json:"penalties"`
	// DowntimeCredits are the contract's downtime formulas (a multiple of
	// the hourly rate per hour of downtime), one per incident and rule;
	// DowntimeAmount is their sum before the cap.
	DowntimeCredits []DowntimeCredit `json:"downtime_credits"`
	DowntimeAmount  float64          `json:"downtime_amount"`
	UncappedPercent float64          `json:"uncapped_percent"`
	CapPercent      float64          `json:"cap_percent"`
	// NoCap: the contract caps the month's credit at nothing
	// (uptime.credit_cap: none); CapPercent is then 0.
	NoCap   bool    `json:"no_cap,omitempty"`
	Capped  bool    `json:"capped"`
	Percent float64 `json:"percent"`
	Amount  float64 `json:"amount"`
	// Truncated: a line of Amount (see Lines) had a part of a cent cut
	// off, never rounded up, so a reviewer who rounds each line to the
	// nearest cent may find up to a cent a line more.
	Truncated bool `json:"truncated,omitempty"`
	// BelowMinimum is the credit the month would have earned, not issued
	// because it is not more than the contract's minimum_credit (AWS's
	// "greater than one dollar"): Amount is then 0 and the breach gets a
	// notice, never a request.
	BelowMinimum float64 `json:"below_minimum,omitempty"`
}

// DowntimeCredit is one incident's credit under one downtime rule:
// hourly_rate × credit_hours (multiple × credited hours, rounded up after
// multiplying when the rule says round: credit).
type DowntimeCredit struct {
	Rule            int      `json:"rule"` // index into the contract's credits.downtime
	Kinds           []string `json:"kinds"`
	Start           string   `json:"start"`
	End             string   `json:"end"`
	DowntimeSeconds int64    `json:"downtime_seconds"`
	CreditedSeconds int64    `json:"credited_seconds"` // rounded up, capped per incident and by the month
	RoundUpSeconds  int64    `json:"round_up_seconds"`
	MonthCapped     bool     `json:"month_capped"`
	IncidentCapped  bool     `json:"incident_capped,omitempty"` // the rule's incident_cap in money bounded it
	Per             string   `json:"per"`                       // node or gpu
	GPUs            int      `json:"gpus"`
	Multiple        float64  `json:"multiple"`
	HourlyRate      float64  `json:"hourly_rate"`
	CreditHours     float64  `json:"credit_hours"` // multiple × credited hours, rounded when the rule rounds the credit
	Amount          float64  `json:"amount"`
}

// Tier is the uptime range [min, max) and its credit.
type Tier struct {
	MinPercent    float64 `json:"min_percent"`
	MaxPercent    float64 `json:"max_percent"`
	CreditPercent float64 `json:"credit_percent"`
}

// Penalty is one extra credit for a late promise.
type Penalty struct {
	Kind    string   `json:"kind"`
	Ref     string   `json:"ref"`
	Percent float64  `json:"percent"`
	Reason  string   `json:"reason"`
	Text    msg.Text `json:"-"` // Reason, translatable
}

// EvidenceUsageUnreadable is the evidence kind of a usage reading the
// report could not read (and left out).
const EvidenceUsageUnreadable = "usage_unreadable"

// Evidence is a data-quality notice about the node's log.
type Evidence struct {
	Kind   string   `json:"kind"` // batch_dropped, chain_break, EvidenceUsageUnreadable
	At     string   `json:"at"`
	Detail string   `json:"detail"`
	Text   msg.Text `json:"-"` // Detail, translatable
}
