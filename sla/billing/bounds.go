package billing

import (
	"errors"
	"fmt"
	"io"
)

// Bounds on a bill (docs/bills.md, "Size bounds"). No provider console
// writes a cell near MaxCellBytes; a file past them is a mistake or an
// attack, refused with its line and column before the parser holds it —
// encoding/csv gathers a record whole, however long, so a single 200 MB
// cell would otherwise take over a gigabyte of memory.
const (
	// MaxCellBytes bounds one cell of a bill, in either CSV form or an AWS
	// CUR.
	MaxCellBytes = 4 << 10
	// MaxLineBytes bounds one line (a record: every cell, the commas and
	// the quotes); MaxCURLineBytes one row of an AWS CUR, which has a
	// column for every tag and pricing attribute.
	MaxLineBytes    = 64 << 10
	MaxCURLineBytes = 1 << 20
	// MaxFileBytes bounds a bill in the gpusla forms (maxLines lines of a
	// few hundred bytes fit 16 times over); MaxCURBytes an AWS CUR, which
	// has a row per resource and hour.
	MaxFileBytes = 64 << 20
	MaxCURBytes  = 1 << 30
)

// bounded is a bill's bytes on their way to csv.Reader: it refuses a
// record longer than maxLine, and a file longer than maxFile, as they
// arrive, so neither is ever held whole. It follows quotes to tell a line
// break inside a quoted cell from the end of a record.
type bounded struct {
	name          string
	r             io.Reader
	maxLine       int64
	maxFile       int64
	read, rec     int64 // bytes of the file and of the record under way
	line, recLine int   // the line being read, the line the record began on
	quoted        bool
}

func newBounded(name string, r io.Reader, maxLine, maxFile int64) *bounded {
	return &bounded{name: name, r: r, maxLine: maxLine, maxFile: maxFile, line: 1, recLine: 1}
}

// BoundError is a bill past one of its bounds.
type BoundError struct{ msg string }

func (e *BoundError) Error() string { return e.msg }

func (b *bounded) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	for i, c := range p[:n] {
		b.read++
		b.rec++
		switch c {
		case '"':
			b.quoted = !b.quoted
		case '\n':
			b.line++
			if !b.quoted {
				b.rec, b.recLine = 0, b.line
			}
		}
		if b.rec > b.maxLine {
			return i, &BoundError{fmt.Sprintf("%s:%d: a line longer than %d bytes (a bill's cell is at most %d bytes, a line at most %d; docs/bills.md)",
				b.name, b.recLine, b.maxLine, MaxCellBytes, b.maxLine)}
		}
		if b.read > b.maxFile {
			return i, &BoundError{fmt.Sprintf("%s:%d: the file is longer than %d bytes, the most a bill may be (docs/bills.md); split it", b.name, b.line, b.maxFile)}
		}
	}
	return n, err
}

// checkCells refuses a record with a cell over MaxCellBytes, naming its
// line, column and the column's name.
func checkCells(name string, rec, head []string, pos func(int) (int, int)) error {
	for i, c := range rec {
		if len(c) <= MaxCellBytes {
			continue
		}
		line, col := pos(i)
		what := fmt.Sprintf("column %d", i+1)
		if i < len(head) && head[i] != "" && len(head[i]) <= 100 {
			what = fmt.Sprintf("column %d (%s)", i+1, head[i])
		}
		return &BoundError{fmt.Sprintf("%s:%d:%d: %s: a cell of %d bytes; a bill's cell is at most %d bytes (docs/bills.md)", name, line, col, what, len(c), MaxCellBytes)}
	}
	return nil
}

// asBound is err itself when it is a bill past a bound (its message names
// the file already).
func asBound(err error) (error, bool) {
	var be *BoundError
	if errors.As(err, &be) {
		return be, true
	}
	return nil, false
}
