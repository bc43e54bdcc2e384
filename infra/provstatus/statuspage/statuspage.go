// Package statuspage parses Atlassian Statuspage's incidents document
// (GET <page>/api/v2/incidents.json, documented in Statuspage's public
// status API): the page's recent and unresolved incidents, each with its
// status, impact, times, the components it affected and its updates.
package statuspage

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

func convert(f string, in incident) (provstatus.Incident, error) {
	bad := func(field, msg string, args ...any) (provstatus.Incident, error) {
		return provstatus.Incident{}, provstatus.Errorf(format, 0, f+"."+field, msg, args...)
	}
	var out provstatus.Incident
	if in.ID == nil {
		return bad("id", "missing")
	}
	if msg := provstatus.CheckID(*in.ID); msg != "" {
		return bad("id", "%s", msg)
	}
	out.ID = *in.ID
	if in.Name == nil || provstatus.Text(*in.Name) == "" {
		return bad("name", "missing")
	}
	out.Title = provstatus.Text(*in.Name)
	if in.Status == nil {
		return bad("status", "missing")
	}
	out.Status = *in.Status
	closed := slices.Contains(closedStatuses, out.Status)
	if !closed && !slices.Contains(openStatuses, out.Status) {
		return bad("status", "%q is not a Statuspage incident status", out.Status)
	}
	if in.Impact != nil {
		if !slices.Contains(impacts, *in.Impact) {
			return bad("impact", "%q is not a Statuspage impact (none, minor, major, critical, maintenance)", *in.Impact)
		}
		out.Impact = *in.Impact
	}
	created, err := stamp(in.CreatedAt, true)
	if err != nil {
		return bad("created_at", "%v", err)
	}
	started, err := stamp(in.StartedAt, false)
	if err != nil {
		return bad("started_at", "%v", err)
	}
	out.Start = created
	if !started.IsZero() {
		out.Start = started
	}
	if out.Updated, err = stamp(in.UpdatedAt, false); err != nil {
		return bad("updated_at", "%v", err)
	}
	if out.Updated.IsZero() {
		out.Updated = created
	}
	resolved, err := stamp(in.ResolvedAt, false)
	if err != nil {
		return bad("resolved_at", "%v", err)
	}
	if len(in.Updates) > provstatus.MaxUpdates {
		return bad("incident_updates", "%d updates is more than %d", len(in.Updates), provstatus.MaxUpdates)
	}
	comps := map[string]bool{}
	addComp := func(name string) {
		if n := provstatus.Text(name); n != "" && !comps[n] {
			comps[n] = true
			out.Components = append(out.Components, n)
		}
	}
	for _, c := range in.Components {
		addComp(c.Name)
	}
	var firstClosed time.Time
	for j, u := range in.Updates {
		uf := fmt.Sprintf("incident_updates[%d]", j)
		at, err := stamp(u.DisplayAt, false)
		if err != nil {
			return bad(uf+".display_at", "%v", err)
		}
		if at.IsZero() {
			if at, err = stamp(u.CreatedAt, true); err != nil {
				return bad(uf+".created_at", "%v", err)
			}
		}
		if u.IncidentID != "" && u.IncidentID != out.ID {
			return bad(uf+".incident_id", "%q is not this incident's id %q", u.IncidentID, out.ID)
		}
		if !slices.Contains(closedStatuses, u.Status) && !slices.Contains(openStatuses, u.Status) {
			return bad(uf+".status", "%q is not a Statuspage incident status", u.Status)
		}
		if slices.Contains(closedStatuses, u.Status) && (firstClosed.IsZero() || at.Before(firstClosed)) {
			firstClosed = at
		}
		for _, c := range u.Affected {
			addComp(c.Name)
		}
		out.Updates = append(out.Updates, provstatus.Update{Status: u.Status, Body: provstatus.Text(u.Body), At: at})
	}
	// The API lists updates newest first; the record keeps them in time order.
	slices.SortStableFunc(out.Updates, func(a, b provstatus.Update) int { return a.At.Compare(b.At) })
	if closed {
		out.Resolved = true
		out.End = resolved
		if out.End.IsZero() {
			// An older incident may lack resolved_at: its first resolving
			// update says when.
			out.End = firstClosed
		}
		if out.End.IsZero() {
			return bad("resolved_at", "missing for an incident whose status is %q and no update resolves it", out.Status)
		}
	} else if !resolved.IsZero() {
		return bad("resolved_at", "set (%s) while the status is %q", resolved.Format(time.RFC3339), out.Status)
	}
	out.Link = in.Shortlink
	return out, nil
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
