// Package provstatus holds what a provider's public status page says: the
// incidents it lists, as one type every format's parser returns
// (infra/provstatus/atlassian for Atlassian Statuspage, rss and atom: one
// package per format), the limits every parser keeps, and the one error
// type they report with.
// infra/provstatus/poll fetches a page and picks the parser its terms name.
//
// What a provider says is never evidence against the renter nor for the
// provider: the monthly report only lists which measured outages the page
// acknowledged (sla/report), and nothing counted changes with it.
package provstatus

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits every parser keeps. A status page is small (Statuspage's
// incidents.json lists the last 50 incidents); anything much larger is not
// a status page, and a bounded document cannot exhaust the poller.
const (
	MaxBytes     = 4 << 20 // a fetched document
	MaxIncidents = 1000
	MaxUpdates   = 200  // per incident
	MaxIDLen     = 180  // an event id (docs/events.md) is prefixed with the contract
	MaxTextLen   = 1000 // titles, component names and update bodies are cut here
)

// Incident is one incident as the provider's page lists it. Times are UTC.
type Incident struct {
	// ID is the page's own id of it (Statuspage's incident id, an RSS
	// item's guid or link, an Atom entry's id): stable across fetches, so
	// a re-fetch finds the incident it stored before.
	ID    string `json:"id"`
	Title string `json:"title"`
	// Status is the page's word for where the incident stands
	// (Statuspage: investigating, identified, monitoring, resolved,
	// postmortem); "" where the format has none (RSS, Atom).
	Status string `json:"status,omitempty"`
	// Impact is Statuspage's impact (none, minor, major, critical,
	// maintenance); "" for RSS and Atom.
	Impact string `json:"impact,omitempty"`
	// Start is when the provider says it began (Statuspage's started_at,
	// else created_at) or first published it (RSS pubDate, Atom published
	// or updated).
	Start time.Time `json:"start"`
	// End is when the page says it was resolved; zero while it is not, or
	// where the format cannot say (RSS, Atom: see Resolved).
	End time.Time `json:"end,omitzero"`
	// Resolved is true when the page says the incident is over. RSS and
	// Atom carry no state: their incidents are never Resolved, and Updated
	// is all that is known of how long they lasted.
	Resolved bool `json:"resolved,omitempty"`
	// Updated is the page's last update of it (Statuspage updated_at, Atom
	// updated; RSS: pubDate).
	Updated    time.Time `json:"updated"`
	Link       string    `json:"link,omitempty"`
	Components []string  `json:"components,omitempty"`
	Updates    []Update  `json:"updates,omitempty"`
}

// Update is one update the provider posted on an incident (Statuspage's
// incident_updates), oldest first.
type Update struct {
	Status string    `json:"status"`
	Body   string    `json:"body,omitempty"`
	At     time.Time `json:"at"`
}

// Error is a document a parser refused, naming the format, where (a line
// for XML formats, 0 when the format has none) and the field.
type Error struct {
	Format string // "statuspage", "rss", "atom"
	Line   int
	Field  string // e.g. incidents[2].started_at
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Format)
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	return b.String() + ": " + e.Msg
}

// Errorf makes an Error.
func Errorf(format string, line int, field, msg string, args ...any) *Error {
	return &Error{Format: format, Line: line, Field: field, Msg: fmt.Sprintf(msg, args...)}
}

// CheckSize refuses a document over MaxBytes before it is parsed.
func CheckSize(format string, data []byte) error {
	if len(data) > MaxBytes {
		return Errorf(format, 0, "", "document of %d bytes is larger than the %d a status page may be", len(data), MaxBytes)
	}
	return nil
}

// CheckID refuses an id that is empty, too long or holds control
// characters: ids are store keys.
func CheckID(id string) string {
	switch {
	case strings.TrimSpace(id) == "":
		return "missing"
	case len(id) > MaxIDLen:
		return fmt.Sprintf("%d characters is longer than %d", len(id), MaxIDLen)
	case !utf8.ValidString(id) || strings.IndexFunc(id, unicode.IsControl) >= 0:
		return fmt.Sprintf("%q holds control characters or invalid UTF-8", id)
	}
	return ""
}

// Text trims s and cuts it to MaxTextLen runes, so one long title cannot
// bloat every stored record and report.
func Text(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if utf8.RuneCountInString(s) <= MaxTextLen {
		return s
	}
	r := []rune(s)
	return string(r[:MaxTextLen-1]) + "…"
}

// Check validates what every parser must hand back: an id, a title, a
// start, an end not before it, and ids not repeated.
func Check(format string, incs []Incident) error {
	if len(incs) > MaxIncidents {
		return Errorf(format, 0, "", "%d incidents is more than the %d a status page may list", len(incs), MaxIncidents)
	}
	seen := map[string]int{}
	for i, in := range incs {
		if j, dup := seen[in.ID]; dup {
			return Errorf(format, 0, fmt.Sprintf("incident %d", i), "id %q is also the id of incident %d", in.ID, j)
		}
		seen[in.ID] = i
		if !in.End.IsZero() && in.End.Before(in.Start) {
			return Errorf(format, 0, fmt.Sprintf("incident %q", in.ID), "resolved %s before it started %s",
				in.End.Format(time.RFC3339), in.Start.Format(time.RFC3339))
		}
	}
	return nil
}

// ParseISO reads an RFC 3339 / ISO 8601 time with its zone (Statuspage,
// Atom) and returns it in UTC. A time without a zone is refused: read in
// the wrong zone it would move an incident by hours. So is an offset no
// place on Earth uses (beyond -12:00 … +14:00).
func ParseISO(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if _, lerr := time.Parse("2006-01-02T15:04:05.999999999", s); lerr == nil {
			return time.Time{}, fmt.Errorf("%q has no time zone (want an offset such as Z or +08:00)", s)
		}
		return time.Time{}, fmt.Errorf("%q is not an ISO 8601 time with a zone", s)
	}
	if err := checkOffset(t); err != nil {
		return time.Time{}, fmt.Errorf("%q %v", s, err)
	}
	return t.UTC(), nil
}

func checkOffset(t time.Time) error {
	if _, off := t.Zone(); off > 14*3600 || off < -12*3600 {
		return fmt.Errorf("has a zone offset no place uses (%+03d:%02d)", off/3600, abs(off%3600)/60)
	}
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// rfc822Zones are the zone names RFC 822 (section 5.1) defines, which RSS
// 2.0 dates may use. Any other name (CET, JST, BST …) is refused: Go would
// read an unknown name as UTC, hours off.
var rfc822Zones = map[string]int{
	"UT": 0, "GMT": 0, "Z": 0,
	"EST": -5 * 3600, "EDT": -4 * 3600, "CST": -6 * 3600, "CDT": -5 * 3600, "MST": -7 * 3600, "MDT": -6 * 3600, "PST": -8 * 3600, "PDT": -7 * 3600,
}

// zoneCalls says whether zone goes by the name at the wall time (read in
// zone with layout), and at which offset then.
func zoneCalls(zone *time.Location, layout, wall, name string) (int, bool) {
	if zone == nil {
		return 0, false
	}
	t, err := time.ParseInLocation(layout, wall, zone)
	if err != nil {
		return 0, false
	}
	abbr, off := t.Zone()
	return off, strings.EqualFold(abbr, name)
}

// ParseRFC822 reads an RSS 2.0 date (RFC 822 with a four-digit year, as
// the RSS 2.0 specification recommends; the weekday and seconds may be
// left out) and returns it in UTC. Zones are a numeric offset (+0800) or
// one of RFC 822's names; a two-digit year is refused as ambiguous.
func ParseRFC822(s string) (time.Time, error) { return ParseRFC822In(s, nil) }

// ParseRFC822In is ParseRFC822 for a page published from zone: a zone
// name that zone itself goes by at that date is read as zone's offset,
// before RFC 822's table. A Chinese provider's "CST" is China Standard
// Time (+08:00) under Asia/Shanghai, not RFC 822's US Central (−06:00):
// read as US Central it moves every incident by 14 hours. Under
// America/Chicago, CST stays −06:00; names zone does not use keep RFC
// 822's meaning. nil is no zone.
func ParseRFC822In(s string, zone *time.Location) (time.Time, error) {
	f := strings.Fields(s)
	if len(f) > 0 && strings.HasSuffix(f[0], ",") {
		f = f[1:] // the weekday says nothing the date does not
	}
	if len(f) != 5 {
		return time.Time{}, fmt.Errorf("%q is not an RFC 822 date (want e.g. \"Mon, 30 Nov 2026 10:15:00 +0000\")", s)
	}
	if len(f[2]) != 4 {
		return time.Time{}, fmt.Errorf("%q: year %q is not four digits", s, f[2])
	}
	name := f[4]
	clock := f[3]
	layout := "2 Jan 2006 15:04:05"
	if strings.Count(clock, ":") == 1 {
		layout = "2 Jan 2006 15:04"
	}
	wall := strings.Join(f[:4], " ")
	off, named := rfc822Zones[strings.ToUpper(name)]
	if zoneOff, ok := zoneCalls(zone, layout, wall, name); ok {
		off, named = zoneOff, true
	}
	var loc *time.Location
	if named {
		loc = time.FixedZone(name, off)
	} else {
		zone := name
		z, err := time.Parse("-0700", zone)
		if err != nil || (zone[0] != '+' && zone[0] != '-') {
			return time.Time{}, fmt.Errorf("%q: zone %q is neither an offset like +0800 nor a zone RFC 822 names (UT, GMT, EST, EDT, CST, CDT, MST, MDT, PST, PDT)", s, zone)
		}
		if err := checkOffset(z); err != nil {
			return time.Time{}, fmt.Errorf("%q: zone %q %v", s, zone, err)
		}
		_, o := z.Zone()
		loc = time.FixedZone(zone, o)
	}
	t, err := time.ParseInLocation(layout, wall, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 822 date: %v", s, err)
	}
	return t.UTC(), nil
}
