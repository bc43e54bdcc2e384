package report

import (
	"sort"
	"time"

	"github.com/gpusla/gpusla/sla/account"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/interval"
	"github.com/gpusla/gpusla/sla/msg"
	"github.com/gpusla/gpusla/sla/terms"
)

// outages finds the node's outages in its service period (gaps in what the
// backend received, split by what the node's own batches say about them;
// then check incidents), takes out the maintenance announced in time, and
// fills in the uptime, outage and maintenance rows. The books it returns
// hold the claimable uptime the credit is computed from.
//
// notices are when tickets on the node were opened: under a contract whose
// clock starts at the renter's notice, an outage counts from the first of
// them inside it. The outages returned are those the books counted, after
// that clock (clocked), and the same before it (raw).
func (b *Builder) outages(m nodeMonth, backend interval.Set, notices []time.Time, nr *Node) (books account.Books, clocked, raw []account.Outage) {
	n, tm := m.n, m.tm
	var outs []account.Outage
	var ongoing []bool
	// A row that runs into the release did not go on: the service ended
	// there (the live service closes it at the release too).
	cut := !n.released.IsZero() && m.end.Equal(n.released)
	horizon := m.horizon()
	if !m.period.Empty() {
		for _, g := range n.heardGaps(horizon) {
			if !g.span.End.After(m.period.Start) || !g.span.Start.Before(m.period.End) {
				continue
			}
			allow := incident.SilenceAllowance(n.interval, n.push, tm.Detection)
			if !incident.Overdue(g.span, backend, n.late.Alive(g.span, n.interval), allow, tm.Detection.Grace) {
				// Never silent for longer than the books allow while the
				// backend was up: nobody could hear the node while it was
				// down, and late batches arriving (a spool draining) are
				// signs of life. No incident, live or here.
				continue
			}
			for _, o := range n.splitGap(g, backend, b.backendS, b.backend) {
				outs = append(outs, o)
				ongoing = append(ongoing, g.open && !cut)
			}
		}
		for _, o := range append(n.checkIncidents(horizon), b.fleetOutages(n, horizon)...) {
			ongoing = append(ongoing, o.open && !cut)
			outs = append(outs, o.Outage)
		}
	}
	// Nothing outlasts the release: a row open at it (or closed only by
	// what the node sent after it) ends there.
	if rel := n.released; !rel.IsZero() {
		for i := range outs {
			if outs[i].Span.Start.Before(rel) && outs[i].Span.End.After(rel) {
				outs[i].Span.End = rel
				ongoing[i] = false
			}
		}
	}
	recs := b.maintenance(m)
	maint := make([]account.Maintenance, len(recs))
	for i, x := range recs {
		maint[i] = x.m
	}
	clocked = account.NoticeClock(tm, outs, notices)
	books = account.ComputeClocked(tm, m.window(), m.period, outs, clocked, maint)
	if prev := m.ms.AddDate(0, -1, 0); tm.Uptime.PartialMonth == terms.NotCounted && !books.NotCounted && m.delivered.After(prev) {
		// The month before was no service term: a fault running into this
		// one from it is owed for its minutes here only.
		books.TermFrom = m.ms
	}
	if next, rel := m.me.AddDate(0, 1, 0), m.n.released; tm.Uptime.PartialMonth == terms.NotCounted && !books.NotCounted && rel.After(m.me) && rel.Before(next) {
		// The month after is no service term (the node was released inside
		// it): a fault running into it is owed for its minutes here.
		books.TermTo = m.me
	}
	nr.Period.ExcludedSeconds = secs(books.Excluded.Total())
	nr.Uptime = uptimeRow(tm, books, !m.period.Empty())
	nr.Outages = append(nr.Outages, m.outageRows(books, outs, clocked, ongoing)...)
	nr.Maintenance = append(nr.Maintenance, m.maintRows(maint, outs)...)
	b.retroMaint(m, outs, clocked, recs)
	return books, clocked, outs
}

// maintenance is the node's and its contract's maintenance notices that
// overlap the month, in start order.
func (b *Builder) maintenance(m nodeMonth) []maintNotice {
	notices := append(append([]maintNotice{}, m.n.maint...), b.contractM[m.tm.Contract]...)
	var out []maintNotice
	for _, x := range notices {
		if x.m.Span.End.After(m.ms) && x.m.Span.Start.Before(m.me) {
			out = append(out, x)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].m.Span.Start.Before(out[j].m.Span.Start) })
	return out
}

// outageRows are the outages in start order (kind breaks ties), each with
// how much of it counted and, where not all, why.
func (m nodeMonth) outageRows(books account.Books, outs, clocked []account.Outage, ongoing []bool) []Outage {
	tm := m.tm
	order := make([]int, len(outs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, c int) bool {
		x, y := outs[order[a]], outs[order[c]]
		if !x.Span.Start.Equal(y.Span.Start) {
			return x.Span.Start.Before(y.Span.Start)
		}
		return x.Kind < y.Kind
	})
	var rows []Outage
	for _, i := range order {
		o, c := outs[i], clocked[i]
		clip := interval.Set{o.Span}.Clip(m.period)
		if len(clip) == 0 {
			continue
		}
		// An outage still going where the report stopped following it
		// (its horizon, past the month's end) is this month's row up to
		// the month's end, ongoing, as it always was; one that ended
		// shows its end. The books judged the whole run either way.
		if ongoing[i] && o.Span.End.After(m.end) {
			o.Span.End = m.end
			if c.Span.End.After(m.end) {
				c.Span.End = m.end
			}
			if c.Span.Start.After(m.end) {
				c.Span.Start = m.end
			}
		}
		// Judged on the outage as the contract clocks it (from the
		// renter's notice where the terms say so); its length is its own.
		v := account.JudgeClocked(tm, books, o, c)
		ro := Outage{Kind: string(o.Kind), Check: o.Check, Cause: o.Cause, Start: ts(o.Span.Start, tm), End: ts(o.Span.End, tm),
			Ongoing: ongoing[i], Seconds: v.Seconds, ObservedSeconds: v.ObservedSeconds, CountedSeconds: v.CountedSeconds, RoundedUpSeconds: v.RoundedSeconds,
			Counted: v.Counted, ReasonText: v.Reason, Evidence: msg.Strings(o.Evidence), EvidenceText: o.Evidence}
		ro.Reason = ro.ReasonText.String()
		rows = append(rows, ro)
	}
	return rows
}

// maintRows say of each notice whether it was announced in time, and so
// taken out of the month, and when it was recorded late, how much of it
// (account.Maintenance.Effect over the node's outages as they happened).
func (m nodeMonth) maintRows(maint []account.Maintenance, raw []account.Outage) []Maint {
	tm := m.tm
	var rows []Maint
	for _, x := range maint {
		rm := Maint{Start: ts(x.Span.Start, tm), End: ts(x.Span.End, tm), AnnouncedAt: ts(x.AnnouncedAt, tm),
			NoticeSeconds: secs(x.Notice()), RequiredNoticeSeconds: secs(tm.Maintenance.Notice), Summary: x.Summary,
			RecordedAt: ts(x.RecordedAt, tm), RecordedBy: x.RecordedBy, Override: x.Override}
		eff := x.Effect(raw)
		rm.Excluded = x.Excluded(tm) && len(eff) > 0
		late := x.Late(raw)
		switch {
		case !tm.Maintenance.Excludes && tm.Maintenance.Stated:
			rm.ReasonText = msg.New("the contract excludes no maintenance (maintenance: none): downtime counts")
		case !tm.Maintenance.Excludes:
			rm.ReasonText = msg.New("the terms state no maintenance exclusion, so none is excluded: downtime counts")
		case !x.Excluded(tm):
			rm.ReasonText = msg.New("announced %s before it started, less than the required %s: downtime counts",
				x.Notice().Round(time.Minute), tm.Maintenance.Notice)
		case late && x.Override != "":
			rm.ReasonText = msg.New("recorded late (%s), taken out as announced on an override: %s", msg.At(x.RecordedAt, tm.Calendar.Loc), msg.Plain(x.Override))
		case late:
			rm.ReasonText = msg.New("announced with enough notice but recorded only at %s: nothing before its recording, nor an outage already under way then, is taken out",
				msg.At(x.RecordedAt, tm.Calendar.Loc))
		case !account.WindowExcused(tm):
			// The contract excuses only the downtime inside the window: the
			// month keeps every minute of it.
			rm.ReasonText = msg.New("announced with enough notice: the downtime inside it is excused, the month keeps its minutes")
		default:
			rm.ReasonText = msg.New("announced with enough notice: taken out of the month")
		}
		if rm.Excluded {
			rm.ExcludedSeconds = secs(eff.Clip(m.period).Total())
			if !wholeSpan(eff, x.Span) {
				for _, iv := range eff {
					rm.Effective = append(rm.Effective, Span{Start: ts(iv.Start, tm), End: ts(iv.End, tm)})
				}
			}
		}
		rm.Reason = rm.ReasonText.String()
		rows = append(rows, rm)
	}
	return rows
}

// uptimeRow is the node's uptime as the books counted it; no figure for a
// node not in service or a month the contract does not count.
func uptimeRow(tm *terms.Terms, books account.Books, inService bool) Uptime {
	dp := tm.Uptime.DowntimePeriod
	u := Uptime{TargetPercent: tm.Uptime.Target, ObservedOutageSeconds: secs(books.ObservedDowntime),
		ClaimableOutageSeconds: secs(books.ClaimableDowntime), MinimumOutageSeconds: secs(dp.Minimum), MinimumExclusive: dp.Strict,
		DowntimeUnitSeconds: secs(dp.Unit), Denominator: string(tm.Uptime.Denominator), DenominatorSeconds: secs(books.Denominator),
		MaintenanceExclusion: maintenanceExclusion(tm.Maintenance)}
	if dp.Unit > 0 {
		u.DowntimeRounding = string(dp.Rounding)
	}
	if pm := tm.Uptime.PartialMonth; pm != terms.ExactPeriod && pm != "" {
		u.PartialMonth = string(pm)
	}
	if tm.Maintenance.Excludes {
		u.MaintenanceNoticeSeconds = secs(tm.Maintenance.Notice)
		if !account.WindowExcused(tm) {
			u.MaintenanceExcuses = string(terms.ExcuseDowntime)
		}
	}
	switch {
	case !inService:
		u.NotJudged = NotInService
	case books.NotCounted:
		u.NotJudged = PartialNotCounted
	default:
		obs, claim := round4(books.UptimeObserved), round4(books.UptimeClaimed)
		u.ObservedPercent, u.ClaimablePercent = &obs, &claim
		u.Met = books.UptimeClaimed >= tm.Uptime.Target
	}
	return u
}

func round4(v float64) float64 {
	return float64(int64(v*10000+0.5)) / 10000
}

// maintenanceExclusion is what the terms say of maintenance, for the
// report to state it (never an exclusion they do not make).
func maintenanceExclusion(m terms.Maintenance) string {
	switch {
	case m.Excludes:
		return MaintenanceByNotice
	case m.Stated:
		return MaintenanceNone
	}
	return MaintenanceNotStated
}
