package statuspage

import (
	"bytes"
	"encoding/xml"
	"time"
)

// PathFeed is the Atom feed of the page's incidents, for subscribers (a
// feed reader, a chat's RSS robot): one entry per incident of the last
// Days days, newest first, updated as its timeline grows. It is the page
// itself in another form, so the public feed withholds exactly what the
// public page does (same Build, same guard) and the team's needs the token.
const PathFeed = "/status/feed.atom"

type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Lang    string      `xml:"xml:lang,attr"`
	ID      string      `xml:"id"`
	Title   string      `xml:"title"`
	Updated string      `xml:"updated"`
	Links   []atomLink  `xml:"link"`
	Author  atomPerson  `xml:"author"`
	Entries []atomEntry `xml:"entry"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomPerson struct {
	Name string `xml:"name"`
}

type atomEntry struct {
	ID        string   `xml:"id"`
	Title     string   `xml:"title"`
	Published string   `xml:"published"`
	Updated   string   `xml:"updated"`
	Link      atomLink `xml:"link"`
	Summary   string   `xml:"summary"`
	Content   atomText `xml:"content"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Body string `xml:",chardata"`
}

// feed writes p's incident history as Atom. Links are relative to the
// feed's own address (Atom readers resolve them), so the feed is the same
// behind any host name.
func feed(p *Page, self string) ([]byte, error) {
	now := time.UnixMilli(p.NowUnixMS).UTC()
	f := atomFeed{Lang: string(p.Lang), ID: "urn:gpusla:status:" + string(p.Mode), Title: p.Title + " — " + p.Banner.Text,
		Updated: now.Format(time.RFC3339), Author: atomPerson{Name: "gpusla"},
		Links: []atomLink{{Rel: "self", Type: "application/atom+xml", Href: self}, {Rel: "alternate", Type: "text/html", Href: PathStatus}}}
	var newest time.Time
	for _, iv := range p.History {
		upd := iv.start
		var body bytes.Buffer
		body.WriteString(iv.Verdict + "\n")
		for _, s := range iv.Timeline {
			if s.at.After(upd) {
				upd = s.at
			}
			body.WriteString(s.At + " — " + s.What + "\n")
		}
		if iv.Detail != "" {
			body.WriteString(iv.Detail + "\n")
		}
		title := iv.KindText + " — " + iv.Node
		if iv.Open {
			title += " (" + p.Words.Open + ")"
		}
		if upd.After(newest) {
			newest = upd
		}
		f.Entries = append(f.Entries, atomEntry{ID: "urn:gpusla:incident:" + iv.ID, Title: title, Published: iv.start.UTC().Format(time.RFC3339),
			Updated: upd.UTC().Format(time.RFC3339), Link: atomLink{Rel: "alternate", Type: "text/html", Href: PathStatus + "#" + iv.ID},
			Summary: iv.Start + " — " + iv.Duration + ": " + iv.Verdict, Content: atomText{Type: "text", Body: body.String()}})
	}
	if !newest.IsZero() {
		// A feed is as new as its newest entry, so a reader polling it sees
		// no change when nothing happened (the page's own clock moves on).
		f.Updated = newest.UTC().Format(time.RFC3339)
	}
	out, err := xml.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}
