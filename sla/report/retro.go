package report

import (
	"sort"
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/events"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
)

// The retroactive section. The books' administrative facts — maintenance
// notices, releases, ticket times — are typed in by people, and a time can
// be typed that lies before the moment it was typed. The backend records
// both (docs/events.md, recorded_at and recorded_by), and the report
// names every fact whose time lies before its recording, with who
// recorded it and what it changed, so neither side can make counted
// downtime appear or vanish quietly:
//
//   - a maintenance notice recorded after its window began, or after an
//     outage it would take out had begun, takes out only what it was on the
//     books for (account.Maintenance.Effect) unless an administrator gave
//     an override, which is shown;
//   - a release dated before its recording ends the service period where
//     it says (the backend refused it without an override if that took
//     counted outage away), and the part of the month it placed outside the
//     period is shown;
//   - a ticket opened, answered or resolved at a time before its recording
//     is timed as it claims — the provider's own ticket system holds the
//     true time, which gpusla cannot know — and named, so the provider can
//     hold it to its record.

// adminRec is one administrative record as the log gave it: the instant it
// claims, and when and by whom the backend recorded it.
type adminRec struct {
	typ, id      string
	at           time.Time
	recordedAt   time.Time // zero: not known (a log from before it was kept)
	by, override string
}

func recOf(e *events.Event) *adminRec {
	return &adminRec{typ: e.Type, id: e.ID, at: e.At, recordedAt: e.RecordedAt, by: e.RecordedBy, override: e.Override}
}

// retroAcc collects the section while the nodes are built.
type retroAcc struct {
	recs       []Retro
	unrecorded map[string]bool // ids of records without a recording time
}

func (b *Builder) unrecorded(id string) {
	if b.retro.unrecorded == nil {
		b.retro.unrecorded = map[string]bool{}
	}
	b.retro.unrecorded[id] = true
}

// retroSection is the collected section, in node, claimed-time and id
// order.
func (b *Builder) retroSection() Retroactive {
	out := Retroactive{Records: append([]Retro{}, b.retro.recs...), Unrecorded: len(b.retro.unrecorded)}
	sort.SliceStable(out.Records, func(i, j int) bool {
		x, y := out.Records[i], out.Records[j]
		if x.Node != y.Node {
			return x.Node < y.Node
		}
		if x.ClaimedAt != y.ClaimedAt {
			return x.ClaimedAt < y.ClaimedAt // same zone per node: RFC 3339 strings order as instants
		}
		return x.ID < y.ID
	})
	return out
}

// retroMaint names the node's notices recorded late: after their window
// began, or after an outage they would take out had begun.
func (b *Builder) retroMaint(m nodeMonth, raw, clocked []account.Outage, notices []maintNotice) {
	tm := m.tm
	var counted []interval.Interval
	for _, o := range clocked {
		if ok, _ := account.Counted(tm, o); ok {
			counted = append(counted, o.Span)
		}
	}
	claimable := interval.Union(counted...).Clip(m.period)
	for _, x := range notices {
		mm := x.m
		if mm.RecordedAt.IsZero() {
			b.unrecorded(x.id)
			continue
		}
		if !mm.Late(raw) {
			continue
		}
		strict := mm
		strict.Override = ""
		// What the window would take out as announced, less what it takes
		// out as recorded: the counted outage the late recording keeps in
		// the books (or that an override takes out).
		stake := interval.Set{mm.Span}.Minus(strict.Effect(raw)).And(claimable)
		if !mm.Excluded(tm) {
			stake = nil // announced too late to take anything out either way
		}
		r := Retro{Node: m.n.id, Kind: events.TypeMaintenance, ID: x.id, ClaimedAt: ts(mm.Span.Start, tm), AnnouncedAt: ts(mm.AnnouncedAt, tm),
			RecordedAt: ts(mm.RecordedAt, tm), RecordedBy: mm.RecordedBy, LateSeconds: secs(mm.RecordedAt.Sub(mm.Span.Start)),
			Override: mm.Override, Honoured: mm.Override != "" && mm.Excluded(tm), AtStakeSeconds: secs(stake.Total())}
		switch {
		case !mm.Excluded(tm):
			r.EffectText = msg.New("announced with less than the required notice: it takes nothing out either way")
		case r.Honoured:
			r.EffectText = msg.New("taken out as announced on the override: %s of counted outage inside it does not count", time.Duration(r.AtStakeSeconds)*time.Second)
		default:
			r.EffectText = msg.New("takes out nothing before its recording nor of an outage already under way then: %s of outage inside it still counts",
				time.Duration(r.AtStakeSeconds)*time.Second)
		}
		b.addRetro(r)
	}
}

// retroRelease names a release dated before its recording.
func (b *Builder) retroRelease(m nodeMonth) {
	rel := m.n.release
	switch {
	case rel == nil:
		return
	case rel.recordedAt.IsZero():
		b.unrecorded(rel.id)
		return
	case !events.Retroactive(rel.at, rel.recordedAt):
		return
	}
	tm := m.tm
	outside := interval.Set{{Start: rel.at, End: rel.recordedAt}}.Clip(interval.Interval{Start: m.ms, End: minTime(m.me, m.asOf)})
	r := Retro{Node: m.n.id, Kind: rel.typ, ID: rel.id, ClaimedAt: ts(rel.at, tm), RecordedAt: ts(rel.recordedAt, tm), RecordedBy: rel.by,
		LateSeconds: secs(rel.recordedAt.Sub(rel.at)), Override: rel.override, Honoured: true, AtStakeSeconds: secs(outside.Total())}
	r.EffectText = msg.New("the service period and billing end at the release: %s of the month between it and its recording is outside them",
		time.Duration(r.AtStakeSeconds)*time.Second)
	b.addRetro(r)
}

// retroTicket names a ticket's records dated before their recording and
// reports whether there was one.
func (b *Builder) retroTicket(m nodeMonth, ta *ticketAcc) bool {
	tm := m.tm
	found := false
	for _, rec := range ta.recs {
		if rec.recordedAt.IsZero() {
			b.unrecorded(rec.id)
			continue
		}
		if !events.Retroactive(rec.at, rec.recordedAt) {
			continue
		}
		found = true
		late := rec.recordedAt.Sub(rec.at)
		r := Retro{Node: m.n.id, Kind: rec.typ, ID: rec.id, Ticket: ta.t.ID, ClaimedAt: ts(rec.at, tm), RecordedAt: ts(rec.recordedAt, tm),
			RecordedBy: rec.by, LateSeconds: secs(late), Honoured: true, AtStakeSeconds: secs(late)}
		r.EffectText = msg.New("dated %s before its recording and timed as dated: the provider's own record of the ticket can confirm or refute it", late)
		if rec.typ == events.TypeTicketOpened {
			r.EffectText = msg.New("opened %s before its recording: its targets run from the opening it claims, which the provider's own record of the ticket can confirm or refute", late)
		}
		b.addRetro(r)
	}
	return found
}

func (b *Builder) addRetro(r Retro) {
	r.Effect = r.EffectText.String()
	b.retro.recs = append(b.retro.recs, r)
}

// ticketRecords fills in the recording of each of the node's ticket rows
// and names their retroactive records.
func (b *Builder) ticketRecords(m nodeMonth, nr *Node) {
	for i := range nr.Tickets {
		rt := &nr.Tickets[i]
		ta := b.tickets[rt.Ticket]
		if ta == nil {
			continue
		}
		for _, rec := range ta.recs {
			if rec.typ == events.TypeTicketOpened {
				rt.RecordedAt, rt.RecordedBy = ts(rec.recordedAt, m.tm), rec.by
			}
		}
		rt.Retroactive = b.retroTicket(m, ta)
	}
}

// releaseRecord fills in the release's record on the node's period and
// names it when retroactive.
func (b *Builder) releaseRecord(m nodeMonth, nr *Node) {
	if rel := m.n.release; rel != nil && nr.Period.Released {
		nr.Period.ReleaseRecordedAt, nr.Period.ReleaseRecordedBy, nr.Period.ReleaseOverride = ts(rel.recordedAt, m.tm), rel.by, rel.override
	}
	b.retroRelease(m)
}

// wholeSpan reports whether eff is exactly span.
func wholeSpan(eff interval.Set, span interval.Interval) bool {
	return len(eff) == 1 && eff[0].Start.Equal(span.Start) && eff[0].End.Equal(span.End)
}
