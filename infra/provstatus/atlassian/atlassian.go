// Package atlassian parses Atlassian Statuspage's incidents document
// (GET <page>/api/v2/incidents.json, documented in Statuspage's public
// status API): the page's recent and unresolved incidents, each with its
// status, impact, times, the components it affected and its updates.
package atlassian

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gpusla/gpusla/infra/provstatus"
)

const format = "statuspage"

// Statuses an incident may have: the incident states of the API, and the
// states of scheduled maintenance, which the same list may carry.
var (
	openStatuses   = []string{"investigating", "identified", "monitoring", "scheduled", "in_progress", "verifying"}
	closedStatuses = []string{"resolved", "postmortem", "completed"}
	impacts        = []string{"none", "minor", "major", "critical", "maintenance"}
)

type document struct {
	Page *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"page"`
	Incidents *[]incident `json:"incidents"`
}

type incident struct {
	ID         *string     `json:"id"`
	Name       *string     `json:"name"`
	Status     *string     `json:"status"`
	Impact     *string     `json:"impact"`
	CreatedAt  *string     `json:"created_at"`
	UpdatedAt  *string     `json:"updated_at"`
	StartedAt  *string     `json:"started_at"`
	ResolvedAt *string     `json:"resolved_at"`
	Shortlink  string      `json:"shortlink"`
	Components []component `json:"components"`
	Updates    []update    `json:"incident_updates"`
}

type component struct {
	Name string `json:"name"`
}

type update struct {
	Status     string      `json:"status"`
	Body       string      `json:"body"`
	CreatedAt  *string     `json:"created_at"`
	DisplayAt  *string     `json:"display_at"`
	Affected   []component `json:"affected_components"`
	IncidentID string      `json:"incident_id"`
}

// Parse reads an incidents.json document. It refuses the whole document,
// naming the incident and field, when anything it needs is missing or
// wrong: a time without a zone, an unknown status or impact, a resolved
// incident with no resolution time, more than the limits allow.
func Parse(data []byte) ([]provstatus.Incident, error) {
	if err := provstatus.CheckSize(format, data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var doc document
	if err := dec.Decode(&doc); err != nil {
		return nil, jsonError(data, err)
	}
	if dec.More() {
		return nil, provstatus.Errorf(format, 0, "", "more than one JSON value in the document")
	}
	if doc.Incidents == nil {
		return nil, provstatus.Errorf(format, 0, "incidents", "missing: not a Statuspage incidents.json document")
	}
	if len(*doc.Incidents) > provstatus.MaxIncidents {
		return nil, provstatus.Errorf(format, 0, "incidents", "%d incidents is more than the %d a status page may list", len(*doc.Incidents), provstatus.MaxIncidents)
	}
	out := make([]provstatus.Incident, 0, len(*doc.Incidents))
	for i, in := range *doc.Incidents {
		inc, err := convert(fmt.Sprintf("incidents[%d]", i), in)
		if err != nil {
			return nil, err
		}
		out = append(out, inc)
	}
	return out, provstatus.Check(format, out)
}

// convert checks one incident (f names it: incidents[i]) and makes it the
// record.
func convert(f string, in incident) (provstatus.Incident, error) {
	at := where(f)
	var out provstatus.Incident
	closed, err := in.heading(at, &out)
	if err != nil {
		return provstatus.Incident{}, err
	}
	resolved, err := in.times(at, &out)
	if err != nil {
		return provstatus.Incident{}, err
	}
	if len(in.Updates) > provstatus.MaxUpdates {
		return provstatus.Incident{}, at.bad("incident_updates", "%d updates is more than %d", len(in.Updates), provstatus.MaxUpdates)
	}
	firstClosed, err := in.updates(at, &out)
	if err != nil {
		return provstatus.Incident{}, err
	}
	out.Components = in.components()
	if err := resolution(at, &out, closed, resolved, firstClosed); err != nil {
		return provstatus.Incident{}, err
	}
	out.Link = in.Shortlink
	return out, nil
}

// where is the incident an error is about: incidents[i].
type where string

// bad is the error at field of the incident.
func (w where) bad(field, msg string, args ...any) error {
	return provstatus.Errorf(format, 0, string(w)+"."+field, msg, args...)
}

// heading checks and keeps the incident's id, title, status and impact;
// closed says the status is one that ends it.
func (in incident) heading(at where, out *provstatus.Incident) (closed bool, err error) {
	if in.ID == nil {
		return false, at.bad("id", "missing")
	}
	if msg := provstatus.CheckID(*in.ID); msg != "" {
		return false, at.bad("id", "%s", msg)
	}
	out.ID = *in.ID
	if in.Name == nil || provstatus.Text(*in.Name) == "" {
		return false, at.bad("name", "missing")
	}
	out.Title = provstatus.Text(*in.Name)
	if in.Status == nil {
		return false, at.bad("status", "missing")
	}
	out.Status = *in.Status
	closed = slices.Contains(closedStatuses, out.Status)
	if !closed && !slices.Contains(openStatuses, out.Status) {
		return false, at.bad("status", "%q is not a Statuspage incident status", out.Status)
	}
	if in.Impact != nil {
		if !slices.Contains(impacts, *in.Impact) {
			return false, at.bad("impact", "%q is not a Statuspage impact (none, minor, major, critical, maintenance)", *in.Impact)
		}
		out.Impact = *in.Impact
	}
	return closed, nil
}

// times keeps the incident's start (started_at, else created_at) and last
// update (updated_at, else created_at), and returns its resolved_at.
func (in incident) times(at where, out *provstatus.Incident) (resolved time.Time, err error) {
	created, err := stamp(in.CreatedAt, true)
	if err != nil {
		return time.Time{}, at.bad("created_at", "%v", err)
	}
	started, err := stamp(in.StartedAt, false)
	if err != nil {
		return time.Time{}, at.bad("started_at", "%v", err)
	}
	out.Start = created
	if !started.IsZero() {
		out.Start = started
	}
	if out.Updated, err = stamp(in.UpdatedAt, false); err != nil {
		return time.Time{}, at.bad("updated_at", "%v", err)
	}
	if out.Updated.IsZero() {
		out.Updated = created
	}
	if resolved, err = stamp(in.ResolvedAt, false); err != nil {
		return time.Time{}, at.bad("resolved_at", "%v", err)
	}
	return resolved, nil
}

// updates checks and keeps the incident's updates, in time order, and
// returns when the first update that resolves it was made.
func (in incident) updates(at where, out *provstatus.Incident) (firstClosed time.Time, err error) {
	for j, u := range in.Updates {
		uf := fmt.Sprintf("incident_updates[%d]", j)
		when, err := stamp(u.DisplayAt, false)
		if err != nil {
			return time.Time{}, at.bad(uf+".display_at", "%v", err)
		}
		if when.IsZero() {
			if when, err = stamp(u.CreatedAt, true); err != nil {
				return time.Time{}, at.bad(uf+".created_at", "%v", err)
			}
		}
		if u.IncidentID != "" && u.IncidentID != out.ID {
			return time.Time{}, at.bad(uf+".incident_id", "%q is not this incident's id %q", u.IncidentID, out.ID)
		}
		if !slices.Contains(closedStatuses, u.Status) && !slices.Contains(openStatuses, u.Status) {
			return time.Time{}, at.bad(uf+".status", "%q is not a Statuspage incident status", u.Status)
		}
		if slices.Contains(closedStatuses, u.Status) && (firstClosed.IsZero() || when.Before(firstClosed)) {
			firstClosed = when
		}
		out.Updates = append(out.Updates, provstatus.Update{Status: u.Status, Body: provstatus.Text(u.Body), At: when})
	}
	// The API lists updates newest first; the record keeps them in time order.
	slices.SortStableFunc(out.Updates, func(a, b provstatus.Update) int { return a.At.Compare(b.At) })
	return firstClosed, nil
}

// components are the components the incident names, then those its
// updates affected, each once, in the order first named.
func (in incident) components() []string {
	var out []string
	seen := map[string]bool{}
	add := func(cs []component) {
		for _, c := range cs {
			if n := provstatus.Text(c.Name); n != "" && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	add(in.Components)
	for _, u := range in.Updates {
		add(u.Affected)
	}
	return out
}

// resolution ends an incident whose status closes it at resolved_at, or
// at its first resolving update when it has none; an open incident must
// have no resolved_at.
func resolution(at where, out *provstatus.Incident, closed bool, resolved, firstClosed time.Time) error {
	if !closed {
		if !resolved.IsZero() {
			return at.bad("resolved_at", "set (%s) while the status is %q", resolved.Format(time.RFC3339), out.Status)
		}
		return nil
	}
	out.Resolved = true
	out.End = resolved
	if out.End.IsZero() {
		// An older incident may lack resolved_at: its first resolving
		// update says when.
		out.End = firstClosed
	}
	if out.End.IsZero() {
		return at.bad("resolved_at", "missing for an incident whose status is %q and no update resolves it", out.Status)
	}
	return nil
}

// stamp reads an ISO 8601 time with its zone offset; null or absent is the
// zero time unless required.
func stamp(s *string, required bool) (time.Time, error) {
	if s == nil || *s == "" {
		if required {
			return time.Time{}, errors.New("missing")
		}
		return time.Time{}, nil
	}
	return provstatus.ParseISO(*s)
}

// jsonError names where a document stopped being JSON, or which field
// had the wrong type.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return provstatus.Errorf(format, line, "", "not JSON: %v (byte %d)", se, se.Offset)
	case errors.As(err, &te):
		return provstatus.Errorf(format, 0, te.Field, "%s where %s was expected", te.Value, te.Type)
	}
	return provstatus.Errorf(format, 0, "", "not JSON: %v", err)
}
