package atlassian

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gpusla/gpusla/infra/provstatus"
	"github.com/gpusla/gpusla/infra/provstatus/provstatustest"
)

func TestParseIncidents(t *testing.T) {
	data := provstatustest.Document(t, "incidents.json")
	incs, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(incs) != 3 {
		t.Fatalf("%d incidents, want 3", len(incs))
	}
	open, done, pm := incs[0], incs[1], incs[2]
	// Open: started_at wins over created_at; +08:00 read as such.
	if open.ID != "p31zjtct2jer" || open.Status != "investigating" || open.Impact != "major" || open.Resolved || !open.End.IsZero() ||
		!open.Start.Equal(time.Date(2026, 11, 30, 9, 40, 0, 0, time.UTC)) || !open.Updated.Equal(time.Date(2026, 11, 30, 10, 5, 11, 12e6, time.UTC)) ||
		open.Link != "https://stspg.io/p31zjtct2jer" || strings.Join(open.Components, "|") != "GPU Compute (cn-east-2)" {
		t.Fatalf("open incident %+v", open)
	}
	// Updates in time order although the API lists them newest first.
	if len(open.Updates) != 2 || !open.Updates[0].At.Before(open.Updates[1].At) || !strings.HasPrefix(open.Updates[0].Body, "We are investigating reports") {
		t.Fatalf("updates %+v", open.Updates)
	}
	if !done.Resolved || !done.Start.Equal(time.Date(2026, 11, 12, 2, 5, 0, 0, time.UTC)) || !done.End.Equal(time.Date(2026, 11, 12, 4, 2, 17, 400e6, time.UTC)) ||
		strings.Join(done.Components, "|") != "Public Network" || len(done.Updates) != 3 || done.Updates[2].Status != "resolved" {
		t.Fatalf("resolved incident %+v", done)
	}
	// Postmortem with resolved_at null: the first resolving update ends it
	// (09:47:30 EDT); no started_at: created_at starts it.
	if !pm.Resolved || !pm.End.Equal(time.Date(2026, 10, 28, 13, 47, 30, 0, time.UTC)) || !pm.Start.Equal(time.Date(2026, 10, 28, 13, 0, 12, 0, time.UTC)) ||
		pm.Impact != "none" || pm.Components != nil {
		t.Fatalf("postmortem incident %+v", pm)
	}
}

func TestParseRefuses(t *testing.T) {
	good := provstatustest.Document(t, "incidents.json")
	c := provstatustest.C
	cases := []provstatustest.Case{
		c("not json", `"page": {`, `"page": {{`, 2, "", "not JSON"),
		c("no incidents", `"incidents": [`, `"incidentz": [`, 0, "incidents", "missing"),
		c("wrong type", `"name": "Console login failures"`, `"name": 42`, 0, "incidents.name", "number where string was expected"),
		c("missing id", `"id": "k7q0c3pp9bnd",`, ``, 0, "incidents[1].id", "missing"),
		c("missing name", `"name": "Console login failures",`, ``, 0, "incidents[2].name", "missing"),
		c("missing created_at", `"created_at": "2026-10-28T09:00:12.000-04:00",`, ``, 0, "incidents[2].created_at", "missing"),
		c("no zone", `"started_at": "2026-11-12T02:05:00.000Z"`, `"started_at": "2026-11-12T10:05:00.000"`, 0, "incidents[1].started_at", "has no time zone"),
		c("impossible zone", `"started_at": "2026-11-12T02:05:00.000Z"`, `"started_at": "2026-11-12T02:05:00.000+15:30"`, 0, "incidents[1].started_at", "no place uses"),
		c("not a time", `"started_at": "2026-11-12T02:05:00.000Z"`, `"started_at": "yesterday"`, 0, "incidents[1].started_at", "not an ISO 8601 time"),
		c("unknown status", `"status": "postmortem",`, `"status": "on_fire",`, 0, "incidents[2].status", `"on_fire" is not a Statuspage incident status`),
		c("unknown impact", `"impact": "minor"`, `"impact": "catastrophic"`, 0, "incidents[1].impact", "not a Statuspage impact"),
		c("open but resolved_at", `"resolved_at": null,
      "impact": "major"`, `"resolved_at": "2026-11-30T18:00:00+08:00",
      "impact": "major"`, 0, "incidents[0].resolved_at", `while the status is "investigating"`),
		c("update of another incident", `"incident_id": "b0rj4q2xw8yt",
         "created_at": "2026-11-02`, `"incident_id": "zzz",
         "created_at": "2026-11-02`, 0, "incidents[2].incident_updates[0].incident_id", "not this incident's id"),
		c("ends before it starts", `"resolved_at": "2026-11-12T04:02:17.400Z"`, `"resolved_at": "2026-11-12T01:00:00Z"`, 0, `incident "k7q0c3pp9bnd"`, "resolved 2026-11-12T01:00:00Z before it started"),
		c("control characters in id", `"id": "k7q0c3pp9bnd",`, `"id": "k7q0\u0007",`, 0, "incidents[1].id", "control characters"),
		c("two documents", "\n}\n", "\n}\n{}\n", 0, "", "more than one JSON value"),
	}
	provstatustest.Refuses(t, "statuspage", good, Parse, cases)
}

func TestParseOversized(t *testing.T) {
	big := `{"incidents": [], "pad": "` + strings.Repeat("x", provstatus.MaxBytes) + `"}`
	_, err := Parse([]byte(big))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("oversized: %v", err)
	}
	var b strings.Builder
	b.WriteString(`{"incidents": [`)
	for i := 0; i <= provstatus.MaxIncidents; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{}`)
	}
	b.WriteString(`]}`)
	if _, err := Parse([]byte(b.String())); err == nil || !strings.Contains(err.Error(), "more than the 1000") {
		t.Fatalf("too many incidents: %v", err)
	}
}

func TestParseSyntaxErrorNamesLine(t *testing.T) {
	_, err := Parse([]byte("{\n\"incidents\": [\n{\"id\": \"a\",,}\n]}"))
	var pe *provstatus.Error
	if !errors.As(err, &pe) || pe.Line != 3 {
		t.Fatalf("got %v, want line 3", err)
	}
}

func TestParseRefusesSmallDocuments(t *testing.T) {
	inc := func(id, status, resolved string) string {
		return `{"id": "` + id + `", "name": "x", "status": "` + status + `", "created_at": "2026-11-01T00:00:00Z", "resolved_at": ` + resolved +
			`, "incident_updates": [{"status": "investigating", "created_at": "2026-11-01T00:00:00Z"}]}`
	}
	for _, c := range []struct{ name, doc, field, msg string }{
		{"resolved without a time", `{"incidents": [` + inc("a", "resolved", "null") + `]}`, "incidents[0].resolved_at", `missing for an incident whose status is "resolved"`},
		{"duplicate id", `{"incidents": [` + inc("a", "resolved", `"2026-11-01T01:00:00Z"`) + `, ` + inc("a", "investigating", "null") + `]}`, "incident 1", `id "a" is also the id of incident 0`},
	} {
		_, err := Parse([]byte(c.doc))
		var pe *provstatus.Error
		if !errors.As(err, &pe) || pe.Field != c.field || !strings.Contains(pe.Msg, c.msg) {
			t.Errorf("%s: got %v, want field %q containing %q", c.name, err, c.field, c.msg)
		}
	}
}

func FuzzParse(f *testing.F) { provstatustest.Fuzz(f, "incidents.json", Parse) }
