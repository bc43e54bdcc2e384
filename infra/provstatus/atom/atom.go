// Package atom parses a provider's status page published as an Atom feed
// (RFC 4287): each entry is one incident, its id the id, published (else
// updated) when it was posted and updated its last update, its categories
// the components it names. Atom carries no state, so an entry never says
// the incident is over; updated is all that is known of how long it lasted.
package atom

import (
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/provstatus"
)

const (
	format = "atom"
	// Namespace is Atom's XML namespace; a feed's root must be in it.
	Namespace = "http://www.w3.org/2005/Atom"
)

type entry struct {
	ID        string  `xml:"id"`
	Title     string  `xml:"title"`
	Summary   string  `xml:"summary"`
	Updated   *string `xml:"updated"`
	Published *string `xml:"published"`
	Links     []struct {
		Rel  string `xml:"rel,attr"`
		Href string `xml:"href,attr"`
	} `xml:"link"`
	Categories []struct {
		Term  string `xml:"term,attr"`
		Label string `xml:"label,attr"`
	} `xml:"category"`
}

// Parse reads an Atom feed. It refuses the whole document, naming the line
// and field, when the root is not Atom's <feed>, or an entry lacks the id,
// title or updated RFC 4287 requires, or a date has no zone.
func Parse(data []byte) ([]provstatus.Incident, error) {
	var out []provstatus.Incident
	n := 0
	err := provstatus.Feed(format, data, "feed", Namespace, 1, "entry", func(line int, d *xml.Decoder, start xml.StartElement) error {
		if d == nil {
			return nil
		}
		f := fmt.Sprintf("entry[%d]", n)
		n++
		if n > provstatus.MaxIncidents {
			return provstatus.Errorf(format, line, "", "more than the %d entries a status page may list", provstatus.MaxIncidents)
		}
		var e entry
		if err := d.DecodeElement(&e, &start); err != nil {
			return provstatus.Errorf(format, line, f, "%v", err)
		}
		inc, field, err := convert(e)
		if err != nil {
			return provstatus.Errorf(format, line, f+"."+field, "%v", err)
		}
		out = append(out, inc)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, provstatus.Check(format, out)
}

func convert(e entry) (provstatus.Incident, string, error) {
	var out provstatus.Incident
	out.ID = strings.TrimSpace(e.ID)
	if msg := provstatus.CheckID(out.ID); msg != "" {
		return out, "id", fmt.Errorf("%s", msg)
	}
	out.Title = provstatus.Text(e.Title)
	if out.Title == "" {
		return out, "title", fmt.Errorf("missing")
	}
	if e.Updated == nil || strings.TrimSpace(*e.Updated) == "" {
		return out, "updated", fmt.Errorf("missing (RFC 4287 requires it)")
	}
	var err error
	if out.Updated, err = provstatus.ParseISO(strings.TrimSpace(*e.Updated)); err != nil {
		return out, "updated", err
	}
	out.Start = out.Updated
	if e.Published != nil && strings.TrimSpace(*e.Published) != "" {
		var pub time.Time
		if pub, err = provstatus.ParseISO(strings.TrimSpace(*e.Published)); err != nil {
			return out, "published", err
		}
		if pub.After(out.Updated) {
			return out, "published", fmt.Errorf("%s is after updated %s", pub.Format(time.RFC3339), out.Updated.Format(time.RFC3339))
		}
		out.Start = pub
	}
	for _, l := range e.Links {
		if l.Rel == "" || l.Rel == "alternate" {
			out.Link = strings.TrimSpace(l.Href)
			break
		}
	}
	for _, c := range e.Categories {
		name := c.Label
		if name == "" {
			name = c.Term
		}
		if name = provstatus.Text(name); name != "" {
			out.Components = append(out.Components, name)
		}
	}
	return out, "", nil
}
