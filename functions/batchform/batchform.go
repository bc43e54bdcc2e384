// Package batchform is a stored batch's decoded form: the batch ingest
// decoded and validated, written beside its body in a compact binary
// encoding, so that what reads a month of batches (the month's books, the
// export) reads each in a few microseconds instead of decoding its JSON
// again. The body stays the evidence, the signed bytes as received; this
// form is the backend's own record of what it read from them, and a record
// without it (written before it existed) is read from its body.
//
// The encoding: a magic and version, a table of the batch's distinct
// strings (a stress job's 72 checks share a handful of names, units and
// criteria), then the batch's fields in a fixed order, strings as indexes
// into the table, integers as varints, times as Unix seconds and
// nanoseconds, numbers as their IEEE 754 bits. Decode is strict: every
// count and length is bounded by what is left and by the protocol's
// limits, the form must end where the batch ends, and a damaged form is an
// error naming what could not be read, never a batch half read.
package batchform

import (
	"errors"
	"fmt"
	"math"

	"github.com/gpusla/gpusla/internal/binrec"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/msg"
)

// magic starts every form; its last byte is the version.
const magic = "gbf\x01"

// Append appends b's form to dst.
func Append(dst []byte, b *wire.Batch) []byte {
	var e encoder
	e.batch(b)
	dst = append(dst, magic...)
	dst = e.table.Append(dst)
	return append(dst, e.out...)
}

type encoder struct {
	table binrec.Strings
	out   []byte
}

func (e *encoder) str(s string) { e.out = binrec.AppendUint(e.out, e.table.Index(s)) }

func (e *encoder) uint(v uint64) { e.out = binrec.AppendUint(e.out, v) }
func (e *encoder) int(v int64)   { e.out = binrec.AppendInt(e.out, v) }

// count writes a list's length plus one, or 0 for none: a body's empty
// list and its missing one read back as they were.
func (e *encoder) count(n int, none bool) {
	if none {
		e.uint(0)
		return
	}
	e.uint(uint64(n) + 1)
}

func (e *encoder) batch(b *wire.Batch) {
	e.int(int64(b.V))
	e.str(b.ID)
	e.str(b.Node)
	e.str(b.Probe)
	e.uint(b.Seq)
	e.str(b.Prev)
	e.str(b.Chain)
	e.out = binrec.AppendTime(e.out, b.CreatedAt)
	e.int(b.ClockSkewMS)
	if d := b.Dropped; d != nil {
		e.uint(1)
		e.int(int64(d.Batches))
		e.uint(d.FromSeq)
		e.uint(d.ToSeq)
		e.str(d.Reason)
	} else {
		e.uint(0)
	}
	e.count(len(b.Observations), b.Observations == nil)
	for i := range b.Observations {
		o := &b.Observations[i]
		e.out = binrec.AppendTime(e.out, o.At)
		e.str(o.Kind)
		e.count(len(o.Checks), o.Checks == nil)
		for j := range o.Checks {
			e.check(&o.Checks[j])
		}
	}
}

// Which of a check's optional numbers follow it.
const (
	hasNumber = 1 << iota
	hasGPU
)

func (e *encoder) check(c *wire.Check) {
	for _, s := range [...]string{c.Name, c.Category, c.Verdict, c.Value, c.Criterion, c.Unit, c.UUID, c.Detail} {
		e.str(s)
	}
	var flags uint64
	if c.Number != nil {
		flags |= hasNumber
	}
	if c.GPU != nil {
		flags |= hasGPU
	}
	e.uint(flags)
	if c.Number != nil {
		e.out = binrec.AppendFloat(e.out, *c.Number)
	}
	if c.GPU != nil {
		e.int(int64(*c.GPU))
	}
	e.coded(c.ValueText)
	e.coded(c.CriterionText)
	e.coded(c.DetailText)
}

// Which of a coded text's argument forms follow it.
const (
	argString = 1 << iota
	argNumber
	argText
)

// coded writes a text in one of the probe's sentences: absent, or its key
// and its arguments, each its forms.
func (e *encoder) coded(t *wire.Text) {
	if t == nil {
		e.uint(0)
		return
	}
	e.uint(1)
	e.str(t.Key)
	e.count(len(t.Args), t.Args == nil)
	for _, a := range t.Args {
		var flags uint64
		if a.S != nil {
			flags |= argString
		}
		if a.N != nil {
			flags |= argNumber
		}
		if a.T != nil {
			flags |= argText
		}
		e.uint(flags)
		if a.S != nil {
			e.str(*a.S)
		}
		if a.N != nil {
			e.out = binrec.AppendFloat(e.out, *a.N)
		}
		if a.T != nil {
			e.coded(a.T)
		}
	}
}

// Is says whether p is a form (and not, say, a JSON body).
func Is(p []byte) bool {
	return len(p) >= len(magic) && string(p[:len(magic)-1]) == magic[:len(magic)-1]
}

// Decode reads a form Append wrote. The batch is not validated: that is
// the caller's to do, as for a body.
func Decode(p []byte) (*wire.Batch, error) {
	return (*Decoder)(nil).Decode(p)
}

// A Decoder reads forms one after another (a node's batches of a month),
// each batch's strings shared with the batch before where they are the
// same at the same place of its table: the checks' names, units, criteria
// and GPU UUIDs are the same batch after batch, and are copied out of a
// form once instead of once a batch. It is not safe for concurrent use; a
// nil Decoder shares nothing but the protocol's words.
type Decoder struct {
	last []string // the table of the batch read before
}

// Decode reads a form Append wrote, as the package's Decode does.
func (dc *Decoder) Decode(p []byte) (*wire.Batch, error) {
	if !Is(p) {
		return nil, errors.New("batch form: no form (bad magic)")
	}
	if p[len(magic)-1] != magic[len(magic)-1] {
		return nil, fmt.Errorf("batch form: version %d unknown (this build reads %d)", p[len(magic)-1], magic[len(magic)-1])
	}
	d := decoder{r: binrec.NewReader("batch form", p[len(magic):]), shared: dc}
	d.readTable()
	b := &wire.Batch{}
	d.batch(b)
	if err := d.r.End(); err != nil {
		return nil, err
	}
	return b, nil
}

// share is the string raw holds, i-th of its table: the protocol's word,
// the one the batch before held there, or a copy.
func (dc *Decoder) share(i int, raw []byte) string {
	if dc != nil && i < len(dc.last) && dc.last[i] == string(raw) {
		return dc.last[i]
	}
	if w, ok := words[string(raw)]; ok {
		return w
	}
	return string(raw)
}

type decoder struct {
	r      *binrec.Reader
	table  []string
	shared *Decoder
}

func (d *decoder) str(what string) string {
	i := d.r.Uint(what)
	if d.r.Err() != nil {
		return ""
	}
	if i >= uint64(len(d.table)) {
		d.r.Fail(what, fmt.Errorf("string %d of a table of %d", i, len(d.table)))
		return ""
	}
	return d.table[i]
}

// readTable reads the strings, each its own copy (a name kept in a report
// must not keep the form) or one the Decoder met before, the protocol's
// words as its constants.
func (d *decoder) readTable() {
	d.table = make([]string, d.r.Count("string table", math.MaxInt))
	for i := range d.table {
		d.table[i] = d.shared.share(i, d.r.View("string table"))
	}
	if d.shared != nil {
		d.shared.last = d.table
	}
}

// words are the protocol's kinds, verdicts and categories.
var words = func() map[string]string {
	m := map[string]string{"": ""}
	for _, w := range []string{wire.KindHeartbeat, wire.KindCheck, wire.Pass, wire.Warn, wire.Fail, wire.Skipped, wire.CategoryGPULost,
		wire.CategoryGPUDegraded, wire.CategoryNetwork, wire.CategoryPerformance, wire.CategoryConnectivity, wire.CategoryHost, wire.CategoryInventory} {
		m[w] = w
	}
	return m
}()

// count reads what encoder.count wrote: the length, and whether there is
// a list at all.
func (d *decoder) count(what string, limit int) (int, bool) {
	n := d.r.Uint(what)
	if d.r.Err() != nil || n == 0 {
		return 0, false
	}
	if n-1 > uint64(limit) || n-1 > uint64(d.r.Left()) {
		d.r.Fail(what, fmt.Errorf("%d is over the limit of %d or the %d bytes left", n-1, limit, d.r.Left()))
		return 0, false
	}
	return int(n - 1), true
}

func (d *decoder) batch(b *wire.Batch) {
	r := d.r
	b.V = int(r.Int("v"))
	b.ID, b.Node, b.Probe = d.str("id"), d.str("node"), d.str("probe")
	b.Seq = r.Uint("seq")
	b.Prev, b.Chain = d.str("prev"), d.str("chain")
	b.CreatedAt = r.Time("created_at")
	b.ClockSkewMS = r.Int("clock_skew_ms")
	switch r.Uint("dropped") {
	case 0:
	case 1:
		b.Dropped = &wire.Drop{Batches: int(r.Int("dropped.batches")), FromSeq: r.Uint("dropped.from_seq"), ToSeq: r.Uint("dropped.to_seq"),
			Reason: d.str("dropped.reason")}
	default:
		r.Fail("dropped", errors.New("neither absent nor present"))
	}
	n, some := d.count("observations", wire.MaxObservations)
	if !some {
		return
	}
	b.Observations = make([]wire.Observation, n)
	for i := range b.Observations {
		d.observation(&b.Observations[i])
	}
}

func (d *decoder) observation(o *wire.Observation) {
	r := d.r
	if r.Err() != nil {
		return
	}
	o.At = r.Time("observation time")
	o.Kind = d.str("observation kind")
	n, some := d.count("observation checks", wire.MaxChecks)
	if !some {
		return
	}
	o.Checks = make([]wire.Check, n)
	for j := range o.Checks {
		if r.Err() != nil {
			return
		}
		d.check(&o.Checks[j])
	}
}

func (d *decoder) check(c *wire.Check) {
	r := d.r
	c.Name, c.Category, c.Verdict, c.Value = d.str("check name"), d.str("check category"), d.str("check verdict"), d.str("check value")
	c.Criterion, c.Unit, c.UUID, c.Detail = d.str("check criterion"), d.str("check unit"), d.str("check uuid"), d.str("check detail")
	flags := r.Uint("check flags")
	if flags&^(hasNumber|hasGPU) != 0 {
		r.Fail("check flags", fmt.Errorf("unknown flags %#x", flags))
		return
	}
	if flags&hasNumber != 0 {
		v := r.Float("check number")
		if math.IsInf(v, 0) || math.IsNaN(v) {
			// A body (JSON) cannot carry one: nor may its form.
			r.Fail("check number", fmt.Errorf("%v is not a number a batch can carry", v))
			return
		}
		c.Number = &v
	}
	if flags&hasGPU != 0 {
		g := r.Int("check gpu")
		if g < math.MinInt32 || g > math.MaxInt32 {
			r.Fail("check gpu", fmt.Errorf("%d is not a GPU index", g))
			return
		}
		gi := int(g)
		c.GPU = &gi
	}
	c.ValueText, c.CriterionText, c.DetailText = d.coded("check value_text", 0), d.coded("check criterion_text", 0), d.coded("check detail_text", 0)
}

// coded reads what encoder.coded wrote, depth sentences deep: no deeper
// than a batch may nest them (msg.MaxCodedDepth), so a damaged form cannot
// recurse without bound.
func (d *decoder) coded(what string, depth int) *wire.Text {
	r := d.r
	switch r.Uint(what) {
	case 0:
		return nil
	case 1:
	default:
		r.Fail(what, errors.New("neither absent nor present"))
		return nil
	}
	if depth >= msg.MaxCodedDepth {
		r.Fail(what, fmt.Errorf("sentences nested more than %d deep", msg.MaxCodedDepth))
		return nil
	}
	t := &wire.Text{Key: d.str(what)}
	n, some := d.count(what, msg.MaxCodedArgs)
	if !some {
		return t
	}
	t.Args = make([]wire.Arg, n)
	for i := range t.Args {
		a := &t.Args[i]
		flags := r.Uint(what)
		if flags&^(argString|argNumber|argText) != 0 {
			r.Fail(what, fmt.Errorf("unknown argument flags %#x", flags))
		}
		if r.Err() != nil {
			return nil
		}
		if flags&argString != 0 {
			s := d.str(what)
			a.S = &s
		}
		if flags&argNumber != 0 {
			v := r.Float(what)
			if math.IsInf(v, 0) || math.IsNaN(v) {
				r.Fail(what, fmt.Errorf("%v is not a number a batch can carry", v))
				return nil
			}
			a.N = &v
		}
		if flags&argText != 0 {
			a.T = d.coded(what, depth+1)
		}
	}
	return t
}

// EventCheck is a batch's check as the event log holds it: the export's
// observations (and a day digest's checks) are made of it.
func EventCheck(c *wire.Check) events.Check {
	return events.Check{Name: c.Name, Category: c.Category, Verdict: c.Verdict, Value: c.Value,
		Criterion: c.Criterion, Number: c.Number, Unit: c.Unit, GPU: c.GPU, UUID: c.UUID, Detail: c.Detail,
		ValueText: c.ValueText, CriterionText: c.CriterionText, DetailText: c.DetailText}
}

// WireCheck is EventCheck undone: EventCheck(WireCheck(c)) is c.
func WireCheck(c *events.Check) wire.Check {
	return wire.Check{Name: c.Name, Category: c.Category, Verdict: c.Verdict, Value: c.Value,
		Criterion: c.Criterion, Number: c.Number, Unit: c.Unit, GPU: c.GPU, UUID: c.UUID, Detail: c.Detail,
		ValueText: c.ValueText, CriterionText: c.CriterionText, DetailText: c.DetailText}
}
