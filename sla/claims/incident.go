package claims

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Incident is the outage an incident claim is for. Where the provider's
// claim window runs from the incident ("Submit within 30 days of
// incident"), the month's claim, written once the month is over, comes too
// late for an incident early in the month: each incident is claimed on its
// own, as soon as it is over, before its own deadline. Its amount is not
// known then (the month's tier depends on the rest of the month), so an
// incident claim asks for no amount: it puts the incident on record with
// the provider in time, and the month's claim asks for the credit.
type Incident struct {
	Node string `json:"node"`
	// Start is when the outage began (the window counts from it), End when
	// the counted run ended; Counted the seconds the month counts of it.
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Counted int64     `json:"counted_seconds"`
}

// incidentKeyRE is an incident claim's last id segment: the node and the
// incident's start, UTC, to the second.
var incidentKeyRE = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]{0,63})_(\d{8}T\d{6}Z)$`)

// IncidentID is the claim id of node's incident begun at start in the
// contract's month: "<contract>/<YYYY-MM>/<node>_<start UTC>".
func IncidentID(contract, month, node string, start time.Time) string {
	return ID(contract, month) + "/" + node + "_" + start.UTC().Format("20060102T150405Z")
}

// IsIncidentID says whether id names an incident claim.
func IsIncidentID(id string) bool { return strings.Count(id, "/") == 2 }

// IncidentDraft is an incident claim as the month so far states it.
type IncidentDraft struct {
	Contract, Provider, Month string
	Currency                  string
	Incident                  Incident
	// Deadline is the incident's own claim deadline (exclusive): the
	// window counted from Incident.Start in the contract's zone.
	Deadline       time.Time
	TimeZone, Lang string
	// AsOf is the instant of the figures: the incident must be over by
	// then (a claim for an outage still under way would not say its end).
	AsOf time.Time
	Record
}

// NewIncident checks an incident draft and makes its claim.
func NewIncident(d IncidentDraft) (Claim, error) {
	in := d.Incident
	switch {
	case !contractRE.MatchString(d.Contract):
		return Claim{}, invalid("contract", d.Contract, "is not a contract id")
	case !isMonth(d.Month):
		return Claim{}, invalid("month", d.Month, "is not a month (want YYYY-MM)")
	case !currencyRE.MatchString(d.Currency):
		return Claim{}, invalid("currency", d.Currency, "is not an ISO 4217 code (three capital letters)")
	case !incidentKeyRE.MatchString(in.Node + "_" + in.Start.UTC().Format("20060102T150405Z")):
		return Claim{}, invalid("node", in.Node, "is not a node id")
	case in.Start.IsZero() || !in.End.After(in.Start):
		return Claim{}, invalid("incident", in.Start.UTC().Format(time.RFC3339), "does not end after it begins (end %s)", in.End.UTC().Format(time.RFC3339))
	case in.Counted <= 0:
		return Claim{}, invalid("counted_seconds", fmt.Sprint(in.Counted), "is not positive: an incident the month does not count earns nothing")
	case d.AsOf.Before(in.End):
		return Claim{}, invalid("incident", in.Start.UTC().Format(time.RFC3339), "is not over as of %s (it ends %s): an incident is claimed once it is over",
			d.AsOf.UTC().Format(time.RFC3339), in.End.UTC().Format(time.RFC3339))
	case !d.Deadline.After(in.Start):
		return Claim{}, invalid("deadline", d.Deadline.UTC().Format(time.RFC3339), "is not after the incident began")
	case len(d.RecordedBy) > MaxBy:
		return Claim{}, invalid("by", "", "longer than %d characters", MaxBy)
	}
	if _, err := time.LoadLocation(d.TimeZone); err != nil || d.TimeZone == "" {
		return Claim{}, invalid("timezone", d.TimeZone, "is not an IANA time zone")
	}
	in.Start, in.End = in.Start.UTC(), in.End.UTC()
	return Claim{ID: IncidentID(d.Contract, d.Month, in.Node, in.Start), Contract: d.Contract, Provider: d.Provider, Month: d.Month,
		Currency: d.Currency, Deadline: d.Deadline.UTC(), TimeZone: d.TimeZone, Lang: d.Lang, Nodes: []string{in.Node}, Incident: &in,
		Drafted: Record{RecordedAt: d.RecordedAt.UTC(), RecordedBy: d.RecordedBy}, Credits: []Credit{}}, nil
}

// IncidentsOf sorts the ledger's incident claims of contract's month, by
// start: what the month's claim says was already claimed (sent) or
// time-barred (unsent at its deadline).
func IncidentsOf(cs []Claim, contract, month string) []Claim {
	var out []Claim
	for _, c := range cs {
		if c.Incident != nil && c.Contract == contract && c.Month == month {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b Claim) int { return a.Incident.Start.Compare(b.Incident.Start) })
	return out
}

// TimeBarred says the incident claim was not sent before its deadline, as
// of now: the provider may leave the incident out of the month.
func (c Claim) TimeBarred(now time.Time) bool {
	if c.Sent != nil {
		return !c.Sent.At.Before(c.Deadline)
	}
	return !now.Before(c.Deadline)
}

// notIncident refuses an answer or credit on an incident claim: it asks for
// no amount, and what the provider grants for the incident comes on the
// month's claim.
func (c Claim) notIncident() error {
	if c.Incident != nil {
		return invalid("claim", c.ID, "is an incident claim, which asks for no amount: record the provider's answer and credits on the month's claim %s", ID(c.Contract, c.Month))
	}
	return nil
}
