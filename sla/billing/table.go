package billing

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"
)

// table is a bill CSV read strictly: a header of known columns, each once,
// the required ones present, then records of the header's width.
type table struct {
	name string
	cr   *csv.Reader
	head []string
	col  map[string]int
}

func openTable(name string, r io.Reader, columns, required []string) (*table, error) {
	cr := csv.NewReader(newBounded(name, r, MaxLineBytes, MaxFileBytes))
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file; want a header line such as %q", name, strings.Join(columns, ","))
	}
	if err != nil {
		return nil, csvErr(name, err)
	}
	if err := checkCells(name, head, nil, cr.FieldPos); err != nil {
		return nil, err
	}
	t := &table{name: name, cr: cr, head: head, col: map[string]int{}}
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if !slices.Contains(columns, h) {
			return nil, fmt.Errorf("%s:1: column %d %q is not one of %s", name, i+1, h, strings.Join(columns, ", "))
		}
		if _, dup := t.col[h]; dup {
			return nil, fmt.Errorf("%s:1: column %q appears twice", name, h)
		}
		t.col[h] = i
	}
	for _, req := range required {
		if _, ok := t.col[req]; !ok {
			return nil, fmt.Errorf("%s:1: header has no %q column (have %s)", name, req, strings.Join(head, ","))
		}
	}
	return t, nil
}

// each calls fn for every non-blank record with its line number, at most
// maxLines of them.
func (t *table) each(fn func(rec []string, line int) error) error {
	n := 0
	for {
		rec, err := t.cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return csvErr(t.name, err)
		}
		line, _ := t.cr.FieldPos(0)
		if err := checkCells(t.name, rec, t.head, t.cr.FieldPos); err != nil {
			return err
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(t.head) {
			return fmt.Errorf("%s:%d: %d fields, the header has %d", t.name, line, len(rec), len(t.head))
		}
		if n >= maxLines {
			return fmt.Errorf("%s:%d: more than %d lines; split the bill by month", t.name, line, maxLines)
		}
		n++
		if err := fn(rec, line); err != nil {
			return err
		}
	}
	if n == 0 {
		return fmt.Errorf("%s: header but no lines", t.name)
	}
	return nil
}
