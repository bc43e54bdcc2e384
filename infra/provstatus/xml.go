package provstatus

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
)

// Feed walks an XML feed for RSS and Atom parsers: it checks the root
// element (local name root, namespace ns when not ""), then hands every
// element named item at the given depth below the root (RSS items sit in
// the channel, depth 2; Atom entries in the feed, depth 1) to fn with the
// line it starts on, so a parser's errors can name the line. encoding/xml
// expands no external entity, and the document is already bounded by
// CheckSize.
func Feed(format string, data []byte, root, ns string, depth int, item string, fn func(line int, d *xml.Decoder, start xml.StartElement) error) error {
	if err := CheckSize(format, data); err != nil {
		return err
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	level := -1 // the root is level 0
	sawRoot := false
	for {
		line, _ := d.InputPos()
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			if !sawRoot {
				return Errorf(format, 0, "", "empty document: no <%s> element", root)
			}
			return nil
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return Errorf(format, se.Line, "", "not well-formed XML: %s", se.Msg)
			}
			return Errorf(format, line, "", "not well-formed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			level++
			if level == 0 {
				if sawRoot {
					return Errorf(format, line, "", "a second root element <%s>", t.Name.Local)
				}
				sawRoot = true
				if t.Name.Local != root || (ns != "" && t.Name.Space != ns) {
					return Errorf(format, line, "", "the document's root is <%s> (namespace %q), not <%s>%s", t.Name.Local, t.Name.Space, root, nsNote(ns))
				}
				if err := fn(line, nil, t); err != nil { // the root itself, for its attributes
					return err
				}
				continue
			}
			if level == depth && t.Name.Local == item && (ns == "" || t.Name.Space == ns) {
				if err := fn(line, d, t); err != nil {
					return err
				}
				level-- // DecodeElement consumed the end element
			}
		case xml.EndElement:
			level--
		}
	}
}

func nsNote(ns string) string {
	if ns == "" {
		return ""
	}
	return " in namespace " + ns
}
