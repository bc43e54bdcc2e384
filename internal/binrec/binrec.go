// Package binrec writes and reads the project's compact binary records (a
// stored batch record, a batch's decoded form, a node's part of a month):
// integers as varints, strings and byte strings with their length first,
// numbers as their IEEE 754 bits, times as Unix seconds and nanoseconds.
// A Reader is strict and sticky: the first read past the end, or of a
// length longer than what is left, or of a value out of its range, is its
// error (naming what was being read), every later read gives zero, and
// nothing it returns points past the record.
package binrec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// AppendUint appends v as a uvarint.
func AppendUint(dst []byte, v uint64) []byte { return binary.AppendUvarint(dst, v) }

// AppendInt appends v as a varint.
func AppendInt(dst []byte, v int64) []byte { return binary.AppendVarint(dst, v) }

// AppendString appends s, its length first.
func AppendString(dst []byte, s string) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(s))), s...)
}

// AppendRaw appends p, its length first, as AppendString (View reads it).
func AppendRaw(dst, p []byte) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(p))), p...)
}

// AppendBytes appends p so that nil and empty read back apart: a length of
// 0 for nil, of n+1 for n bytes.
func AppendBytes(dst, p []byte) []byte {
	if p == nil {
		return append(dst, 0)
	}
	return append(binary.AppendUvarint(dst, uint64(len(p))+1), p...)
}

// AppendFloat appends v's bits.
func AppendFloat(dst []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendTime appends t: a 0 for the zero time, else a 1, its Unix seconds
// and its nanoseconds. It reads back in UTC.
func AppendTime(dst []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(dst, 0)
	}
	dst = binary.AppendVarint(append(dst, 1), t.Unix())
	return binary.AppendUvarint(dst, uint64(t.Nanosecond()))
}

// Reader reads a record.
type Reader struct {
	p   []byte
	err error
	// Name starts every error ("batch record").
	Name string
}

// NewReader reads p.
func NewReader(name string, p []byte) *Reader { return &Reader{p: p, Name: name} }

// ErrShort is what a read past the end is.
var ErrShort = errors.New("cut short")

// Fail makes err, about what, the reader's error unless it has one.
func (r *Reader) Fail(what string, err error) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: %s: %w", r.Name, what, err)
	}
}

// Err is the first error.
func (r *Reader) Err() error { return r.err }

// Left is how many bytes are left.
func (r *Reader) Left() int { return len(r.p) }

// End is the reader's error, or one when bytes are left after the record.
func (r *Reader) End() error {
	if r.err == nil && len(r.p) > 0 {
		r.err = fmt.Errorf("%s: %d bytes after its end", r.Name, len(r.p))
	}
	return r.err
}

// Uint reads a uvarint.
func (r *Reader) Uint(what string) uint64 { return next(r, what, binary.Uvarint) }

// Int reads a varint.
func (r *Reader) Int(what string) int64 { return next(r, what, binary.Varint) }

// next reads one varint with read.
func next[T uint64 | int64](r *Reader, what string, read func([]byte) (T, int)) T {
	if r.err != nil {
		return 0
	}
	v, n := read(r.p)
	if n <= 0 {
		r.Fail(what, ErrShort)
		return 0
	}
	r.p = r.p[n:]
	return v
}

// Count reads a count of at most limit (and never more than the bytes
// left, each item taking one at least).
func (r *Reader) Count(what string, limit int) int {
	n := r.Uint(what)
	if r.err == nil && (n > uint64(limit) || n > uint64(len(r.p))) {
		r.Fail(what, fmt.Errorf("%d is over the limit of %d or the %d bytes left", n, limit, len(r.p)))
		return 0
	}
	return int(n)
}

// take returns the next n bytes, a view into the record.
func (r *Reader) take(what string, n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.p)) {
		r.Fail(what, fmt.Errorf("%d bytes, %d left", n, len(r.p)))
		return nil
	}
	out := r.p[:n:n]
	r.p = r.p[n:]
	return out
}

// View reads a string AppendString wrote, as a view into the record.
func (r *Reader) View(what string) []byte { return r.take(what, r.Uint(what)) }

// String reads a string AppendString wrote.
func (r *Reader) String(what string) string { return string(r.View(what)) }

// Bytes reads what AppendBytes wrote, a copy of its own.
func (r *Reader) Bytes(what string) []byte {
	n := r.Uint(what)
	if n == 0 || r.err != nil {
		return nil
	}
	return append([]byte{}, r.take(what, n-1)...)
}

// Float reads what AppendFloat wrote.
func (r *Reader) Float(what string) float64 {
	p := r.take(what, 8)
	if p == nil {
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(p))
}

// Time reads what AppendTime wrote.
func (r *Reader) Time(what string) time.Time {
	switch r.Uint(what) {
	case 0:
		return time.Time{}
	case 1:
	default:
		r.Fail(what, errors.New("neither absent nor present"))
		return time.Time{}
	}
	sec, ns := r.Int(what), r.Uint(what)
	if r.err == nil && ns >= uint64(time.Second) {
		r.Fail(what, fmt.Errorf("%d nanoseconds", ns))
	}
	if r.err != nil {
		return time.Time{}
	}
	return time.Unix(sec, int64(ns)).UTC()
}

// Strings is a record's table of its distinct strings: each is written
// once, in the table, and referred to by its index.
type Strings struct {
	index map[string]uint64
	list  []string
}

// Index is s's index in the table, s added if it is not there yet.
func (t *Strings) Index(s string) uint64 {
	i, ok := t.index[s]
	if !ok {
		if t.index == nil {
			t.index = map[string]uint64{}
		}
		i = uint64(len(t.list))
		t.index[s] = i
		t.list = append(t.list, s)
	}
	return i
}

// Append appends the table: its length, then each string.
func (t *Strings) Append(dst []byte) []byte {
	dst = AppendUint(dst, uint64(len(t.list)))
	for _, s := range t.list {
		dst = AppendString(dst, s)
	}
	return dst
}
