// Package rss parses a provider's status page published as RSS 2.0
// (https://www.rssboard.org/rss-specification): each item of the channel
// is one incident, its guid (else its link) the id, its pubDate the time
// it was posted, its categories the components it names. RSS carries no
// state, so an item never says the incident is over.
package rss

import (
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/provstatus"
)

const format = "rss"

type item struct {
	Title       string   `xml:"title"`
	Description string   `xml:"description"`
	Link        string   `xml:"link"`
	GUID        string   `xml:"guid"`
	PubDate     *string  `xml:"pubDate"`
	Categories  []string `xml:"category"`
}

// Parse reads an RSS 2.0 document. It refuses the whole document, naming
// the line and field, when the root is not <rss version="2.0">, an item
// has neither guid nor link, neither title nor description, no pubDate or
// one in a zone RFC 822 does not define.
func Parse(data []byte) ([]provstatus.Incident, error) { return ParseIn(data, nil) }

// ParseIn is Parse for a page published from zone: a pubDate's zone name
// that zone goes by is read as zone (provstatus.ParseRFC822In: "CST"
// under Asia/Shanghai is +08:00), any other as RFC 822 defines it.
func ParseIn(data []byte, zone *time.Location) ([]provstatus.Incident, error) {
	var out []provstatus.Incident
	n := 0
	err := provstatus.Feed(format, data, "rss", "", 2, "item", func(line int, d *xml.Decoder, start xml.StartElement) error {
		if d == nil {
			for _, a := range start.Attr {
				if a.Name.Local == "version" && a.Value != "2.0" {
					return provstatus.Errorf(format, line, "rss.version", "%q: only RSS 2.0 is read", a.Value)
				}
			}
			return nil
		}
		f := fmt.Sprintf("item[%d]", n)
		n++
		if n > provstatus.MaxIncidents {
			return provstatus.Errorf(format, line, "", "more than the %d items a status page may list", provstatus.MaxIncidents)
		}
		var it item
		if err := d.DecodeElement(&it, &start); err != nil {
			return provstatus.Errorf(format, line, f, "%v", err)
		}
		inc, err := convert(it, zone)
		if err != nil {
			return provstatus.Errorf(format, line, f+"."+err.field, "%s", err.msg)
		}
		out = append(out, inc)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, provstatus.Check(format, out)
}

type fieldErr struct{ field, msg string }

func convert(it item, zone *time.Location) (provstatus.Incident, *fieldErr) {
	var out provstatus.Incident
	out.ID = strings.TrimSpace(it.GUID)
	field := "guid"
	if out.ID == "" {
		out.ID, field = strings.TrimSpace(it.Link), "link"
	}
	if out.ID == "" {
		return out, &fieldErr{"guid", "missing, and no link either: nothing identifies the incident across fetches"}
	}
	if msg := provstatus.CheckID(out.ID); msg != "" {
		return out, &fieldErr{field, msg}
	}
	out.Title = provstatus.Text(it.Title)
	if out.Title == "" {
		out.Title = provstatus.Text(it.Description)
	}
	if out.Title == "" {
		return out, &fieldErr{"title", "missing, and no description either"}
	}
	if it.PubDate == nil || strings.TrimSpace(*it.PubDate) == "" {
		return out, &fieldErr{"pubDate", "missing: without it the incident has no time"}
	}
	at, err := provstatus.ParseRFC822In(strings.TrimSpace(*it.PubDate), zone)
	if err != nil {
		return out, &fieldErr{"pubDate", err.Error()}
	}
	out.Start, out.Updated = at, at
	out.Link = strings.TrimSpace(it.Link)
	for _, c := range it.Categories {
		if c = provstatus.Text(c); c != "" {
			out.Components = append(out.Components, c)
		}
	}
	return out, nil
}
