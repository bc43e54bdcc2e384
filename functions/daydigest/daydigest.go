// Package daydigest is a node's day of stored batches as the month's books
// read it: every batch record received in one UTC day, each observation
// judged once (report.Judge) and kept with only the checks its judgement
// reads again (report.Judged.Compact). The month's books read a sealed
// day's digest, some thirty a node-month, instead of turning its batches
// back into events and judging them again, and build the same report: an
// observation added judged is recorded exactly as the observation itself
// (report.Builder.AddJudged).
//
// The encoding: a magic and the format's version, the judge's version
// (report.JudgeVersion), the node and the day, a table of the distinct
// verdict keys and names, then each batch: its sequence number, its
// receipt, its drop and its observations' kept checks as a batch form
// (functions/batchform), then each observation's judgement. A digest of
// another format or judge is ErrVersion (its day is read from its
// batches); any other damage is an error naming what could not be read.
package daydigest

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gpusla/gpusla/functions/batchform"
	"github.com/gpusla/gpusla/internal/binrec"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/report"
	"github.com/gpusla/gpusla/sla/usage"
)

// magic starts every digest; its last byte is the format's version.
const magic = "gdd\x01"

// ErrVersion is a digest written by a build of another format or judge:
// not damaged, but not to be read as this build's.
var ErrVersion = errors.New("day digest of another version")

// Digest is one node's day.
type Digest struct {
	Node string
	Day  time.Time // UTC midnight
	// Batches are the batch records received in the day, in sequence
	// order.
	Batches []Batch
}

// Batch is one batch record's judged observations (every one its events
// give, whatever the month: the books choose them by probe time) and its
// drop, if it reported one.
type Batch struct {
	Seq        uint64
	ReceivedAt time.Time
	Dropped    *wire.Drop
	// Obs are compacted (report.Judged.Compact), of the digest's node,
	// received at ReceivedAt, their Time UTC.
	Obs []report.Judged
}

// Which of an observation's judgement follows it.
const (
	fHasChecks = 1 << iota
	fPass
	fConn
	fConnFail
	fLost
	fReached
	fUsage
	fUsageOK
	fUsageBad
	fAll = 1<<iota - 1
)

// Append appends d's encoding to dst.
func Append(dst []byte, d *Digest) []byte {
	var e encoder
	e.out = binrec.AppendString(e.out, d.Node)
	e.out = binrec.AppendTime(e.out, d.Day)
	e.uint(uint64(len(d.Batches)))
	for i := range d.Batches {
		e.batch(&d.Batches[i])
	}
	dst = append(dst, magic...)
	dst = binrec.AppendUint(dst, report.JudgeVersion)
	dst = e.table.Append(dst)
	return append(dst, e.out...)
}

type encoder struct {
	table binrec.Strings
	out   []byte
}

func (e *encoder) uint(v uint64) { e.out = binrec.AppendUint(e.out, v) }

func (e *encoder) str(s string) { e.uint(e.table.Index(s)) }

func (e *encoder) batch(b *Batch) {
	e.uint(b.Seq)
	e.out = binrec.AppendTime(e.out, b.ReceivedAt)
	form := wire.Batch{Seq: b.Seq, Dropped: b.Dropped}
	if b.Obs != nil {
		form.Observations = make([]wire.Observation, len(b.Obs))
	}
	for i := range b.Obs {
		j := &b.Obs[i]
		o := &form.Observations[i]
		o.At, o.Kind = j.Time, wire.KindCheck
		if j.Beat {
			o.Kind = wire.KindHeartbeat
		}
		if j.Checks != nil {
			o.Checks = make([]wire.Check, len(j.Checks))
			for k := range j.Checks {
				o.Checks[k] = batchform.WireCheck(&j.Checks[k])
			}
		}
	}
	e.out = binrec.AppendRaw(e.out, batchform.Append(nil, &form))
	for i := range b.Obs {
		e.judged(&b.Obs[i])
	}
}

func (e *encoder) judged(j *report.Judged) {
	var f uint64
	for _, b := range []struct {
		on   bool
		flag uint64
	}{{j.HasChecks, fHasChecks}, {j.Pass, fPass}, {j.Conn.OK, fConn}, {j.Conn.Fail, fConnFail}, {j.Conn.Lost, fLost}, {j.Conn.Reached, fReached},
		{j.HasUsage, fUsage}, {j.UsageOK, fUsageOK}, {j.UsageBad, fUsageBad}} {
		if b.on {
			f |= b.flag
		}
	}
	e.uint(f)
	if j.Conn.Fail {
		e.uint(uint64(j.Conn.Ev))
	}
	e.uint(uint64(len(j.Verdicts)))
	for _, v := range j.Verdicts {
		e.uint(uint64(kindIndex(v.Kind)))
		e.str(v.Key)
		e.str(v.Name)
		e.uint(uint64(v.Ev + 1)) // 0: it passed
	}
	for _, l := range [][]int32{j.Figures, j.Inventory} {
		e.uint(uint64(len(l)))
		for _, x := range l {
			e.uint(uint64(x))
		}
	}
	switch {
	case j.UsageBad:
		e.out = binrec.AppendString(e.out, j.UsageErr)
	case j.UsageOK:
		e.reading(&j.Usage)
	}
}

// Which of a usage reading's parts follow it (flags' order: boot, disks,
// interfaces), and the most a disk's (rotational, virtual, system) or an
// interface's (physical, default route) flags can be.
const (
	uBoot   = 1
	uDisks  = 2
	uIfaces = 4
	uAll    = 7
	dAll    = 7
	iAll    = 3
)

// flags is bits as a number, the first the lowest.
func flags(bits ...bool) uint64 {
	var f uint64
	for i, b := range bits {
		if b {
			f |= 1 << i
		}
	}
	return f
}

// reading writes a usage reading but for its time (the observation's).
func (e *encoder) reading(r *usage.Reading) {
	e.uint(flags(r.Boot != nil, r.Disks != nil, r.Ifaces != nil))
	if b := r.Boot; b != nil {
		e.str(b.ID)
		e.out = binrec.AppendTime(e.out, b.Time)
		e.out = binrec.AppendFloat(e.out, b.UptimeSeconds)
	}
	if r.Disks != nil {
		e.uint(uint64(len(r.Disks)))
	}
	for _, d := range r.Disks {
		e.str(d.Name)
		e.uint(d.SizeBytes)
		e.uint(flags(d.Rotational, d.Virtual, d.System))
		e.str(d.Vendor)
		e.str(d.Model)
	}
	if r.Ifaces != nil {
		e.uint(uint64(len(r.Ifaces)))
	}
	for _, i := range r.Ifaces {
		e.str(i.Name)
		e.uint(i.RxBytes)
		e.uint(i.TxBytes)
		e.uint(flags(i.Physical, i.DefaultRoute))
		e.out = binrec.AppendInt(e.out, i.SpeedMbps)
		e.out = binrec.AppendInt(e.out, i.Index)
	}
}

func kindIndex(k incident.Kind) int {
	for i, x := range incident.Kinds {
		if x == k {
			return i
		}
	}
	return len(incident.Kinds) // no kind: refused when read
}

// Decode reads a digest Append wrote; forms, when set, shares the strings
// of the checks with the batches read before (batchform.Decoder).
func Decode(p []byte, forms *batchform.Decoder) (*Digest, error) {
	if len(p) < len(magic) || string(p[:len(magic)-1]) != magic[:len(magic)-1] {
		return nil, errors.New("day digest: bad magic")
	}
	r := binrec.NewReader("day digest", p[len(magic):])
	if v, jv := p[len(magic)-1], r.Uint("judge version"); r.Err() == nil && (v != magic[len(magic)-1] || jv != report.JudgeVersion) {
		return nil, fmt.Errorf("%w: format %d, judge %d (this build: %d, %d)", ErrVersion, v, jv, magic[len(magic)-1], report.JudgeVersion)
	}
	d := decoder{r: r, forms: forms}
	d.table = make([]string, r.Count("string table", math.MaxInt))
	for i := range d.table {
		d.table[i] = r.String("string table")
	}
	dg := &Digest{Node: r.String("node"), Day: r.Time("day")}
	if r.Err() == nil && !dg.Day.Equal(dg.Day.Truncate(24*time.Hour)) {
		r.Fail("day", fmt.Errorf("%s is not a UTC midnight", dg.Day))
	}
	n := r.Count("batches", r.Left())
	if r.Err() == nil {
		dg.Batches = make([]Batch, n)
	}
	for i := range dg.Batches {
		if r.Err() != nil {
			break
		}
		d.batch(dg.Node, &dg.Batches[i])
	}
	if err := r.End(); err != nil {
		return nil, err
	}
	return dg, nil
}

type decoder struct {
	r     *binrec.Reader
	table []string
	forms *batchform.Decoder
}

func (d *decoder) str(what string) string {
	i := d.r.Uint(what)
	if d.r.Err() == nil && i >= uint64(len(d.table)) {
		d.r.Fail(what, fmt.Errorf("string %d of a table of %d", i, len(d.table)))
	}
	if d.r.Err() != nil {
		return ""
	}
	return d.table[i]
}

func (d *decoder) batch(node string, b *Batch) {
	r := d.r
	b.Seq, b.ReceivedAt = r.Uint("seq"), r.Time("received_at")
	raw := r.View("checks")
	if r.Err() != nil {
		return
	}
	form, err := d.forms.Decode(raw)
	if err != nil {
		r.Fail(fmt.Sprintf("batch %d's checks", b.Seq), err)
		return
	}
	if form.Seq != b.Seq {
		r.Fail("checks", fmt.Errorf("of batch %d in batch %d", form.Seq, b.Seq))
		return
	}
	b.Dropped = form.Dropped
	if form.Observations != nil {
		b.Obs = make([]report.Judged, len(form.Observations))
	}
	for i := range form.Observations {
		o := &form.Observations[i]
		j := &b.Obs[i]
		j.Node, j.Time, j.Beat = node, o.At, o.Kind == wire.KindHeartbeat
		j.At, j.Recv = o.At.UnixNano(), b.ReceivedAt.UnixNano()
		if o.Checks != nil {
			j.Checks = make([]events.Check, len(o.Checks))
			for k := range o.Checks {
				j.Checks[k] = batchform.EventCheck(&o.Checks[k])
			}
		}
		d.judged(j)
		if r.Err() != nil {
			return
		}
	}
}

func (d *decoder) judged(j *report.Judged) {
	r := d.r
	f := r.Uint("judgement")
	if r.Err() == nil && (f&^fAll != 0 || f&(fConnFail|fLost|fReached) != 0 && f&fConn == 0 || f&^fHasChecks != 0 && f&fHasChecks == 0) {
		r.Fail("judgement", fmt.Errorf("flags %#x", f))
	}
	j.HasChecks, j.Pass = f&fHasChecks != 0, f&fPass != 0
	j.Conn = report.JudgedConn{OK: f&fConn != 0, Fail: f&fConnFail != 0, Lost: f&fLost != 0, Reached: f&fReached != 0, Ev: -1}
	if j.Conn.Fail {
		j.Conn.Ev = d.index("connectivity evidence", len(j.Checks))
	}
	n := r.Count("verdicts", wire.MaxChecks)
	if r.Err() != nil {
		return
	}
	if n > 0 {
		j.Verdicts = make([]report.JudgedVerdict, n)
	}
	for k := range j.Verdicts {
		v := &j.Verdicts[k]
		ki := r.Uint("verdict kind")
		if r.Err() == nil && ki >= uint64(len(incident.Kinds)) {
			r.Fail("verdict kind", fmt.Errorf("%d of %d kinds", ki, len(incident.Kinds)))
		}
		if r.Err() != nil {
			return
		}
		v.Kind, v.Key, v.Name = incident.Kinds[ki], d.str("verdict key"), d.str("verdict name")
		v.Ev = d.index("verdict evidence", len(j.Checks)+1) - 1
		v.Fail = v.Ev >= 0
	}
	if !j.HasChecks && (len(j.Verdicts) > 0 || j.Checks != nil) {
		r.Fail("judgement", errors.New("verdicts or checks of an observation without checks"))
	}
	j.Figures, j.Inventory = d.indexes("figures", len(j.Checks)), d.indexes("inventory", len(j.Checks))
	j.HasUsage, j.UsageOK, j.UsageBad = f&fUsage != 0, f&fUsageOK != 0, f&fUsageBad != 0
	if r.Err() == nil && (j.UsageOK || j.UsageBad) && (!j.HasUsage || j.UsageOK == j.UsageBad) {
		r.Fail("usage", fmt.Errorf("flags %#x", f))
	}
	switch {
	case j.UsageBad:
		j.UsageErr = r.String("usage error")
	case j.UsageOK:
		j.Usage = d.reading(j.Time)
	}
}

// bits reads flags of at most all.
func (d *decoder) bits(what string, all uint64) uint64 {
	f := d.r.Uint(what)
	if d.r.Err() == nil && f&^all != 0 {
		d.r.Fail(what, fmt.Errorf("flags %#x", f))
	}
	return f
}

// reading reads what encoder.reading wrote, the reading's time at.
func (d *decoder) reading(at time.Time) usage.Reading {
	r := d.r
	u := usage.Reading{At: at}
	f := d.bits("usage reading", uAll)
	if f&uBoot != 0 {
		u.Boot = &usage.Boot{ID: d.str("boot id"), Time: r.Time("boot time"), UptimeSeconds: r.Float("uptime")}
	}
	if f&uDisks != 0 && r.Err() == nil {
		u.Disks = make([]usage.Disk, r.Count("disks", r.Left()))
	}
	for k := range u.Disks {
		dk := &u.Disks[k]
		dk.Name, dk.SizeBytes = d.str("disk name"), r.Uint("disk size")
		df := d.bits("disk flags", dAll)
		dk.Rotational, dk.Virtual, dk.System = df&1 != 0, df&2 != 0, df&4 != 0
		dk.Vendor, dk.Model = d.str("disk vendor"), d.str("disk model")
		if r.Err() != nil {
			return u
		}
	}
	if f&uIfaces != 0 && r.Err() == nil {
		u.Ifaces = make([]usage.Iface, r.Count("interfaces", r.Left()))
	}
	for k := range u.Ifaces {
		i := &u.Ifaces[k]
		i.Name, i.RxBytes, i.TxBytes = d.str("interface name"), r.Uint("rx bytes"), r.Uint("tx bytes")
		nf := d.bits("interface flags", iAll)
		i.Physical, i.DefaultRoute = nf&1 != 0, nf&2 != 0
		i.SpeedMbps, i.Index = r.Int("speed"), r.Int("ifindex")
		if r.Err() != nil {
			return u
		}
	}
	return u
}

// index reads an index below n.
func (d *decoder) index(what string, n int) int32 {
	i := d.r.Uint(what)
	if d.r.Err() == nil && i >= uint64(n) {
		d.r.Fail(what, fmt.Errorf("%d of %d", i, n))
	}
	if d.r.Err() != nil {
		return -1
	}
	return int32(i)
}

// indexes reads a list of indexes below n (none: nil).
func (d *decoder) indexes(what string, n int) []int32 {
	c := d.r.Count(what, n)
	if d.r.Err() != nil || c == 0 {
		return nil
	}
	out := make([]int32, c)
	for k := range out {
		out[k] = d.index(what, n)
	}
	return out
}
