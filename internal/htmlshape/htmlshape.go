// Package htmlshape reads a page as its shape — its elements with their
// attribute names, in document order — and its text, so a test can hold a
// page with text from outside to the same page with harmless text: any
// element or attribute the outside text made shows as a difference.
package htmlshape

import (
	"io"
	"strings"

	"golang.org/x/net/html"
)

// Of parses the page r and returns its elements, each written name[attr]…,
// comments as "<!--comment-->", and its text nodes joined by spaces.
func Of(r io.Reader) (shape []string, text string, err error) {
	root, err := html.Parse(r)
	if err != nil {
		return nil, "", err
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.ElementNode:
			s := n.Data
			for _, a := range n.Attr {
				s += "[" + a.Key + "]"
			}
			shape = append(shape, s)
		case html.TextNode:
			b.WriteString(n.Data + " ")
		case html.CommentNode:
			shape = append(shape, "<!--comment-->")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return shape, b.String(), nil
}
