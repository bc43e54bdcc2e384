package bundle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"time"

	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/report"
)

// RecordsFile holds the books' administrative records behind the report —
// every maintenance notice, release and ticket event of its nodes in the
// month, and how each node enrolled (the token, who made it, when), as the event log holds them, with when and by whom each was
// recorded (docs/events.md, recorded_at, recorded_by, override) — so the
// provider sees who entered what, and when, as well as the renter does.
// Verify holds the report's maintenance rows, tickets and
// retroactive section to them.
const RecordsFile = "records.jsonl"

// isRecord reports whether an event type is an administrative record.
func isRecord(typ string) bool {
	switch typ {
	case events.TypeMaintenance, events.TypeNodeReleased, events.TypeTicketOpened, events.TypeProviderResponded,
		events.TypeCustomerReplied, events.TypeTicketResolved, events.TypeHardwareReplaced, events.TypeNodeEnrolled:
		return true
	}
	return false
}

// recordScope is what of the log the report's records are: its nodes,
// their contracts' months, its as-of instant.
type recordScope struct {
	nodes    map[string]string // node → contract
	months   map[string][2]time.Time
	asOf     time.Time
	tickets  map[string]bool // tickets opened on a node of the report
	from, to time.Time       // the widest month
}

func newRecordScope(r *report.Report) recordScope {
	sc := recordScope{nodes: map[string]string{}, months: map[string][2]time.Time{}, tickets: map[string]bool{}}
	sc.asOf, _ = time.Parse(time.RFC3339, r.AsOf)
	for _, n := range r.Nodes {
		sc.nodes[n.Node] = n.Contract
	}
	for _, c := range r.Contracts {
		ms, _ := time.Parse(time.RFC3339, c.MonthStart)
		me, _ := time.Parse(time.RFC3339, c.MonthEnd)
		sc.months[c.Contract] = [2]time.Time{ms, me}
		if sc.from.IsZero() || ms.Before(sc.from) {
			sc.from = ms
		}
		if me.After(sc.to) {
			sc.to = me
		}
	}
	return sc
}

// wants reports whether e is one of the report's records: known by as_of,
// about one of its nodes (a notice of its node or its contract, overlapping
// the month; its release; a ticket opened on it in the month, and every
// later event of that ticket).
func (sc *recordScope) wants(e *events.Event) bool {
	if !isRecord(e.Type) || e.RecordedAt.After(sc.asOf) || claimedAt(e).After(sc.asOf) {
		return false // left out of the report as of as_of
	}
	switch e.Type {
	case events.TypeMaintenance:
		contract, own := sc.nodes[e.Node]
		if e.Node == "" {
			contract = e.Contract
		}
		m, ok := sc.months[contract]
		return (own || e.Node == "") && ok && e.Start.Before(m[1]) && e.End.After(m[0])
	case events.TypeNodeReleased, events.TypeNodeEnrolled:
		_, ok := sc.nodes[e.Node]
		return ok
	case events.TypeTicketOpened:
		c, ok := sc.nodes[e.Node]
		m := sc.months[c]
		if ok && !e.At.Before(m[0]) && e.At.Before(m[1]) {
			sc.tickets[e.Ticket] = true
			return true
		}
		return false
	}
	// A ticket's later events name only the ticket; the backend's export
	// writes them after its opening, and one that comes first is kept too
	// when its ticket is one of the report's (filtered once the log is read).
	return true
}

// adminRecords is records.jsonl: the report's records in log order, each
// once (the log is at-least-once), as their lines.
func adminRecords(r *report.Report, log LogSource) ([]byte, int, error) {
	sc := newRecordScope(r)
	type rec struct {
		ticket string
		typ    string
		line   []byte
	}
	var recs []rec
	seen := map[string]bool{}
	err := scan(log, func(e *events.Event) {
		if seen[e.ID] || !sc.wants(e) {
			return
		}
		seen[e.ID] = true
		var buf bytes.Buffer
		ew := events.NewWriter(&buf)
		if ew.Write(e) == nil && ew.Flush() == nil {
			recs = append(recs, rec{e.Ticket, e.Type, buf.Bytes()})
		}
	})
	if err != nil {
		return nil, 0, err
	}
	var out bytes.Buffer
	n := 0
	for _, x := range recs {
		later := x.ticket != "" && x.typ != events.TypeTicketOpened
		if later && !sc.tickets[x.ticket] {
			continue
		}
		out.Write(x.line)
		n++
	}
	return out.Bytes(), n, nil
}

// records checks records.jsonl against report.json: every line an
// administrative record; every retroactive record the report names is a
// line with the same recording; every line dated before its recording is
// named; every maintenance row and ticket of the report rests on a line.
func (v *verifier) records(data []byte, r *report.Report) {
	byID := map[string]events.Event{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), events.MaxLineBytes)
	for n := 1; sc.Scan(); n++ {
		var e events.Event
		if err := events.NewReader(RecordsFile, bytes.NewReader(sc.Bytes())).Next(&e); err != nil {
			v.add(RecordsFile, n, "not a valid event line: %v", unwrapLine(err))
			continue
		}
		if !isRecord(e.Type) {
			v.add(RecordsFile, n, "a %s event; only maintenance notices, releases, enrolments and ticket events belong here", e.Type)
			continue
		}
		byID[e.ID] = e
		v.res.Records++
	}
	if err := sc.Err(); err != nil {
		v.add(RecordsFile, 0, "cannot be read: %v", err)
	}
	if r == nil {
		return
	}
	v.retroNamed(byID, r)
	v.rowsRecorded(byID, r)
}

// retroNamed: the report's retroactive section and the records agree, both
// ways.
func (v *verifier) retroNamed(byID map[string]events.Event, r *report.Report) {
	named := map[string]bool{}
	for _, x := range r.Retroactive.Records {
		named[x.ID] = true
		e, ok := byID[x.ID]
		at, _ := time.Parse(time.RFC3339, x.RecordedAt)
		switch {
		case !ok:
			v.add(RecordsFile, 0, "report.json names retroactive record %s (%s of %s), which is not here", x.ID, x.Kind, x.Node)
		case !e.RecordedAt.Truncate(time.Second).Equal(at) || e.RecordedBy != x.RecordedBy || e.Override != x.Override:
			v.add(RecordsFile, 0, "record %s was recorded %s by %q (override %q); report.json says %s by %q (override %q)", x.ID,
				e.RecordedAt.Format(time.RFC3339), e.RecordedBy, e.Override, x.RecordedAt, x.RecordedBy, x.Override)
		}
	}
	for id, e := range byID {
		if lateOnItsFace(&e) && !named[id] {
			v.add(RecordsFile, 0, "record %s (%s) is dated %s but was recorded %s by %q, and report.json does not name it as retroactive",
				id, e.Type, dated(&e).Format(time.RFC3339), e.RecordedAt.Format(time.RFC3339), e.RecordedBy)
		}
	}
}

// dated is the instant a record claims: a notice's start, else its time.
func dated(e *events.Event) time.Time {
	if e.Type == events.TypeMaintenance {
		return e.Start
	}
	return e.At
}

// claimedAt is the instant the report holds to its as_of: a notice's
// announcement, else the record's time.
func claimedAt(e *events.Event) time.Time {
	if e.Type == events.TypeMaintenance {
		return e.AnnouncedAt
	}
	return e.At
}

// lateOnItsFace: a notice recorded after its start, any other record more
// than events.RecordSlack after its time — what the report must name
// whatever the outages were (a notice recorded before its start but after
// an outage under way began is named too; only the report knows the
// outages).
func lateOnItsFace(e *events.Event) bool {
	if e.Type == events.TypeMaintenance {
		return !e.RecordedAt.IsZero() && e.RecordedAt.After(e.Start)
	}
	return events.Retroactive(e.At, e.RecordedAt)
}

// rowsRecorded: each maintenance row and ticket of the report rests on a
// record the provider can see.
func (v *verifier) rowsRecorded(byID map[string]events.Event, r *report.Report) {
	notices := map[string]bool{}
	opened := map[string]bool{}
	for _, e := range byID {
		switch e.Type {
		case events.TypeMaintenance:
			notices[e.Node+"|"+e.Contract+"|"+e.Start.UTC().Format(time.RFC3339)+"|"+e.End.UTC().Format(time.RFC3339)] = true
		case events.TypeTicketOpened:
			opened[e.Ticket] = true
		}
	}
	utc := func(s string) string {
		t, _ := time.Parse(time.RFC3339, s)
		return t.UTC().Format(time.RFC3339)
	}
	for _, n := range r.Nodes {
		for _, m := range n.Maintenance {
			k := "|" + utc(m.Start) + "|" + utc(m.End)
			if !notices[n.Node+"|"+k] && !notices[n.Node+"|"+n.Contract+k] && !notices["|"+n.Contract+k] {
				v.add(RecordsFile, 0, "report.json takes node %s's maintenance %s to %s from a notice that is not here", n.Node, m.Start, m.End)
			}
		}
		for _, t := range n.Tickets {
			if !opened[t.Ticket] {
				v.add(RecordsFile, 0, "report.json times ticket %s of node %s, whose opening is not here", t.Ticket, n.Node)
			}
		}
	}
}

// keepsRecords reports whether report.json comes from a version that kept
// the books' records (it has a retroactive section): only such a bundle
// must carry records.jsonl.
func keepsRecords(rj []byte) bool {
	var probe struct {
		Retroactive *json.RawMessage `json:"retroactive"`
	}
	return json.Unmarshal(rj, &probe) == nil && probe.Retroactive != nil
}
