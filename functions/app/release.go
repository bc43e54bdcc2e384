package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/events"
)

// MaxAdminLead is how far in the future an operator may date a release or
// a maintenance announcement: the slack of a clock a little ahead, never a
// plan (a release takes effect when it is recorded, a notice is announced
// when it is made).
const MaxAdminLead = 5 * time.Minute

// The bounds of the books' administrative records: without them a
// contract-wide maintenance window from year 0001 to 9999 would take every
// outage out.
// A release, or a notice's start, may lie at most MaxAdminPast before it is
// recorded — two months, so last month's report can still be put right,
// and the record is then named as retroactive — and a notice may be
// recorded at most MaxMaintenanceAhead before its start, announced at most
// that long before it; its window is at most events.MaxMaintenanceWindow
// long (the event log holds every log to the same bound).
const (
	MaxAdminPast        = 62 * 24 * time.Hour
	MaxMaintenanceAhead = 366 * 24 * time.Hour
)

// NodeRelease is a release as an operator records it.
type NodeRelease struct {
	Node string
	// At is when the node was given back.
	At time.Time
	// By is who records it: "api:ID (name)" for an API key, "cli:USER" for
	// the command line.
	By string
	// Override is the documented reason for a release dated before counted
	// outage, which is otherwise refused.
	Override string
}

// ReleaseNode ends the node's service period and billing at r.At (`gpusla
// node release`), recording when and by whom. At must be no earlier than
// the node's order nor MaxAdminPast ago, and no later than now plus
// MaxAdminLead. Releasing again at the same instant returns the node
// unchanged; at another instant it is a conflict naming the recorded
// release. From the release on the node raises no alerts, the watchdog
// closes whatever was open at the release, observations after it are not
// evaluated, and the monthly report ends its period there.
//
// A release dated before its recording that would put counted outage
// outside the service period is refused unless it carries an override
// saying why: a backdated release must not make counted
// downtime vanish quietly. With the override it is recorded, and the
// report names it with the override in its retroactive section; one that
// takes no counted outage away is recorded and named all the same.
func (s *Service) ReleaseNode(ctx context.Context, r NodeRelease) (store.Node, error) {
	id := r.Node
	n, err := s.store.GetNode(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Node{}, Errorf(ENotFound, "node", "%q is not registered", id)
	}
	if err != nil {
		return store.Node{}, err
	}
	at := r.At.UTC()
	now := s.Now()
	if err := checkRelease(n, at, now, r); err != nil {
		return store.Node{}, err
	}
	if events.Retroactive(at, now) && r.Override == "" && n.ReleasedAt.IsZero() {
		if err := s.refuseBackdatedRelease(ctx, n, at, now); err != nil {
			return store.Node{}, err
		}
	}
	got, err := s.store.ReleaseNode(ctx, id, store.Release{At: at, RecordedAt: now, By: r.By, Override: r.Override})
	if errors.Is(err, store.ErrConflict) {
		if cur, gerr := s.store.GetNode(ctx, id); gerr == nil {
			return store.Node{}, Errorf(EConflict, "at", "node %s was already released at %s; a release is recorded once",
				id, cur.ReleasedAt.Format(time.RFC3339Nano))
		}
		return store.Node{}, Errorf(EConflict, "at", "node %s was already released", id)
	}
	if err != nil {
		return store.Node{}, err
	}
	s.nodes.Delete(id) // this process's cache; others refresh within nodeCacheTTL
	s.log.Info("node released", "node", id, "at", got.ReleasedAt, "recorded_at", got.ReleaseRecordedAt, "by", got.ReleaseRecordedBy,
		"override", got.ReleaseOverride)
	return got, nil
}

// checkRelease holds a release to its bounds.
func checkRelease(n store.Node, at, now time.Time, r NodeRelease) error {
	switch {
	case at.IsZero():
		return Errorf(EInvalid, "at", "missing")
	case at.Before(n.OrderedAt):
		return Errorf(EInvalid, "at", "%s is before the node was ordered (%s)", at.Format(time.RFC3339), n.OrderedAt.Format(time.RFC3339))
	case at.After(now.Add(MaxAdminLead)):
		return Errorf(EInvalid, "at", "%s is in the future (now %s; at most %s ahead is taken as clock slack)",
			at.Format(time.RFC3339), now.Format(time.RFC3339), MaxAdminLead)
	case at.Before(now.Add(-MaxAdminPast)):
		return Errorf(EInvalid, "at", "%s is more than %s before now (%s)", at.Format(time.RFC3339), MaxAdminPast, now.Format(time.RFC3339))
	}
	return checkRecord(r.By, r.Override)
}

// checkRecord bounds who records and the override, as the event log does.
func checkRecord(by, override string) error {
	switch {
	case len(by) > events.MaxRecordedBy:
		return Errorf(EInvalid, "by", "longer than %d characters", events.MaxRecordedBy)
	case len(override) > events.MaxOverride:
		return Errorf(EInvalid, "override", "longer than %d characters", events.MaxOverride)
	}
	return nil
}

// refuseBackdatedRelease refuses a release at at, recorded now, that would
// put counted outage of node n outside its service period, naming how much
// and the first such incident.
func (s *Service) refuseBackdatedRelease(ctx context.Context, n store.Node, at, now time.Time) error {
	js, err := s.JudgedIncidents(ctx, n.ID, at, now)
	if err != nil {
		return fmt.Errorf("release %s: %w", n.ID, err)
	}
	var counted int64
	var first *JudgedIncident
	for i := range js {
		if js[i].CountedSeconds > 0 {
			counted += js[i].CountedSeconds
			if first == nil {
				first = &js[i]
			}
		}
	}
	if first == nil {
		return nil
	}
	return Errorf(EInvalid, "at", "%s is %s before now and would put %s of counted outage (%s from %s) outside the service period; "+
		"a release dated before counted outage needs an override saying why, which the report names",
		at.Format(time.RFC3339), now.Sub(at).Round(time.Second), time.Duration(counted)*time.Second, first.Kind, first.Start.UTC().Format(time.RFC3339))
}

// NewMaintenance is a maintenance notice as the provider announced it.
type NewMaintenance struct {
	Contract    string // every node of the contract; or
	Node        string // one node
	Start, End  time.Time
	AnnouncedAt time.Time
	Summary     string
	// By is who records it ("api:ID (name)", "cli:USER"); Override the
	// documented reason a notice recorded after its start, or after an
	// outage under way began, should still take out its whole window
	// (account.Maintenance.Effect).
	By       string
	Override string
}

// AnnounceMaintenance records a maintenance notice (`gpusla maintenance
// add`) with when and by whom: the live verdicts and the monthly report
// take its window out of the books when it was announced at least the
// contract's maintenance.notice ahead — but a notice recorded late takes
// out nothing before its recording nor of an outage already under way
// then, unless it carries an override (account.Maintenance.Effect), and
// the report names it either way. Exactly one of contract and node; the
// window within its bounds (checkWindow); the announcement not in the
// future beyond MaxAdminLead. The same notice recorded again is a no-op;
// another notice of the same scope and start, or the same with another
// override, is a conflict: a notice is recorded once.
func (s *Service) AnnounceMaintenance(ctx context.Context, in NewMaintenance) (store.Maintenance, error) {
	now := s.Now()
	bad := func(f, format string, a ...any) (store.Maintenance, error) {
		return store.Maintenance{}, Errorf(EInvalid, f, format, a...)
	}
	if (in.Contract == "") == (in.Node == "") {
		return bad("contract", "name exactly one of a contract and a node")
	}
	if err := checkWindow(in, now); err != nil {
		return store.Maintenance{}, err
	}
	if in.Node != "" {
		if _, err := s.store.GetNode(ctx, in.Node); errors.Is(err, store.ErrNotFound) {
			return bad("node", "%q is not registered", in.Node)
		} else if err != nil {
			return store.Maintenance{}, err
		}
	} else if book := s.TermsBook(); len(book) > 0 {
		if _, ok := book[in.Contract]; !ok {
			return bad("contract", "%q: unknown contract; known: %s", in.Contract, strings.Join(book.Contracts(), ", "))
		}
	}
	m := store.Maintenance{ID: store.MaintenanceID(in.Contract, in.Node, in.Start), Contract: in.Contract, Node: in.Node,
		Start: in.Start.UTC(), End: in.End.UTC(), AnnouncedAt: in.AnnouncedAt.UTC(), Summary: in.Summary, CreatedAt: now,
		RecordedBy: in.By, Override: in.Override}
	err := s.store.PutMaintenance(ctx, m)
	if errors.Is(err, store.ErrExists) {
		return s.sameNotice(ctx, m)
	}
	if err != nil {
		return store.Maintenance{}, err
	}
	s.log.Info("maintenance announced", "id", m.ID, "start", m.Start, "end", m.End, "announced_at", m.AnnouncedAt,
		"recorded_by", m.RecordedBy, "override", m.Override, "recorded_after_start", now.After(m.Start))
	return m, nil
}

// checkWindow holds a notice to its bounds, naming the field and value.
// Instants are compared, never differences: year 0001 to 9999 overflows a
// Duration.
func checkWindow(in NewMaintenance, now time.Time) error {
	bad := func(f, format string, a ...any) error { return Errorf(EInvalid, f, format, a...) }
	rfc := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	switch {
	case in.Start.IsZero():
		return bad("start", "missing")
	case in.End.IsZero():
		return bad("end", "missing")
	case !in.End.After(in.Start):
		return bad("end", "%s is not after the start %s", rfc(in.End), rfc(in.Start))
	case in.End.After(in.Start.Add(events.MaxMaintenanceWindow)):
		return bad("end", "%s is more than %s after the start %s: a maintenance window is at most that long", rfc(in.End), events.MaxMaintenanceWindow, rfc(in.Start))
	case in.Start.Before(now.Add(-MaxAdminPast)):
		return bad("start", "%s is more than %s before now (%s)", rfc(in.Start), MaxAdminPast, rfc(now))
	case in.Start.After(now.Add(MaxMaintenanceAhead)):
		return bad("start", "%s is more than %s after now (%s)", rfc(in.Start), MaxMaintenanceAhead, rfc(now))
	case in.AnnouncedAt.IsZero():
		return bad("announced_at", "missing")
	case in.AnnouncedAt.After(now.Add(MaxAdminLead)):
		return bad("announced_at", "%s is in the future (now %s)", rfc(in.AnnouncedAt), rfc(now))
	case in.AnnouncedAt.Before(in.Start.Add(-MaxMaintenanceAhead)):
		return bad("announced_at", "%s is more than %s before the start %s", rfc(in.AnnouncedAt), MaxMaintenanceAhead, rfc(in.Start))
	}
	return checkRecord(in.By, in.Override)
}

// sameNotice is the stored notice with m's id when it says what m says
// (a repeat), and a conflict naming it otherwise.
func (s *Service) sameNotice(ctx context.Context, m store.Maintenance) (store.Maintenance, error) {
	got, err := s.store.ListMaintenance(ctx, m.Start, m.Start.Add(time.Nanosecond))
	if err != nil {
		return store.Maintenance{}, err
	}
	for _, x := range got {
		if x.ID != m.ID {
			continue
		}
		if x.End.Equal(m.End) && x.AnnouncedAt.Equal(m.AnnouncedAt) && x.Summary == m.Summary && x.Override == m.Override {
			return x, nil
		}
		return store.Maintenance{}, Errorf(EConflict, "start", "a different notice %s is recorded (%s to %s, announced %s, recorded %s by %s)", x.ID,
			x.Start.Format(time.RFC3339), x.End.Format(time.RFC3339), x.AnnouncedAt.Format(time.RFC3339), x.CreatedAt.Format(time.RFC3339), orUnknown(x.RecordedBy))
	}
	return store.Maintenance{}, fmt.Errorf("maintenance %s exists but is not listed", m.ID)
}

// orUnknown is who recorded something, or "an unknown recorder" for a
// record from before recorders were kept.
func orUnknown(by string) string {
	if by == "" {
		return "an unknown recorder"
	}
	return by
}

// ParseTime reads an operator's RFC 3339 time for field, naming the field
// and the value when it is not one.
func ParseTime(field, value string) (time.Time, error) {
	if value == "" {
		return time.Time{}, Errorf(EInvalid, field, "missing")
	}
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		return time.Time{}, Errorf(EInvalid, field, "%q is not an RFC 3339 time such as 2026-03-10T12:00:00Z or 2026-03-10T20:00:00+08:00", value)
	}
	return t, nil
}
