package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/probe/wire"
	"github.com/gpusla/gpusla/sla/incident"
	"github.com/gpusla/gpusla/sla/msg"
)

// Bounds on what one node's batches may make of the books and the chat
// (docs/security.md, "Bounds"). The node is in the provider's hands: a
// batch signed with its secret can name any check, so what it costs
// everyone else is bounded here, beside the wire's bounds on one batch
// (probe/wire: MaxBatchChecks and the text of a check).
const (
	// MaxNodeChecks bounds the distinct checks (name and GPU) a node's
	// state follows over its life: twice what one batch may hold, room
	// for a 16-GPU node (about 1,100) and the renames of probe upgrades
	// several times over. A batch that would take the node past it is
	// refused.
	MaxNodeChecks = 2 * wire.MaxBatchChecks
	// MaxOpenedPerHour bounds the incidents a node's batches open in a
	// clock hour (receive time). Every check of every GPU of a 16-GPU
	// node failing at once is about a thousand; a batch that would open
	// more than what is left of the hour's bound is refused, so its
	// incidents never reach the books.
	MaxOpenedPerHour = 1024
	// MaxAlertsPerHour bounds the alerts a node's batches raise in a clock
	// hour. DingTalk and WeCom robots take 20 messages a minute: one node
	// sending hundreds would hold every other node's alerts back for as
	// long. Past the bound the node's alerts are held until the hour ends
	// (the incidents are recorded all the same) and one alert says so.
	MaxAlertsPerHour = 40
)

// errLimit is a batch refused for a bound: answered 400 naming the field,
// kept as evidence, and told once an hour (limitAlert).
type errLimit struct{ e *Error }

func (e errLimit) Error() string { return e.e.Error() }
func (e errLimit) Unwrap() error { return e.e }

// limit holds the batch, judged in d, to the node's bounds: it refuses a
// batch that would take the node past MaxNodeChecks checks or
// MaxOpenedPerHour incidents in the hour, and counts the alerts the batch
// raises, setting how many of them may go out (effects.alertsLeft).
func (in *ingest) limit(d *draft, checksBefore int) error {
	st := &d.st
	if n := len(st.Eval.Checks); n > MaxNodeChecks && n > checksBefore {
		return errLimit{Errorf(EInvalid, "observations", "the batch would take node %s to %d distinct checks (name and GPU), over the limit of %d a node",
			in.node.ID, n, MaxNodeChecks)}
	}
	hour := in.now.Truncate(time.Hour)
	if !st.Limits.Hour.Equal(hour) {
		st.Limits = store.NodeLimits{Hour: hour}
	}
	opens, alerts := 0, 0
	for _, t := range coalesce(d.fx.transitions) {
		if t.Op == incident.Open {
			opens++
		}
		if t.Op != incident.Record {
			alerts++
		}
	}
	if opens > 0 && st.Limits.Opened+opens > MaxOpenedPerHour {
		return errLimit{Errorf(EInvalid, "observations", "the batch would open %d incidents on node %s, %d this hour already, over the limit of %d an hour",
			opens, in.node.ID, st.Limits.Opened, MaxOpenedPerHour)}
	}
	st.Limits.Opened += opens
	d.fx.limited, d.fx.alertsLeft = true, max(0, MaxAlertsPerHour-st.Limits.Alerts)
	st.Limits.Alerts += alerts
	if alerts > d.fx.alertsLeft {
		in.note(d, store.EvidenceLimits, fmt.Sprintf("%d of the batch's %d alerts held: node %s raised more than %d this hour; held until %s",
			alerts-d.fx.alertsLeft, alerts, in.node.ID, MaxAlertsPerHour, hour.Add(time.Hour).Format(time.RFC3339)))
		d.why = append(d.why, "limits")
	}
	return nil
}

// refused keeps the evidence of a batch refused for a bound and tells the
// team once an hour.
func (in *ingest) refused(ctx context.Context, err error) {
	var el errLimit
	if !errors.As(err, &el) {
		return
	}
	ev := store.Evidence{Node: in.node.ID, At: in.now, Kind: store.EvidenceLimits, BatchID: in.b.ID, Detail: "batch refused: " + el.Error()}
	if perr := in.s.store.PutEvidence(ctx, ev); perr != nil && !errors.Is(perr, store.ErrExists) {
		in.s.log.Error("store limits evidence", "node", in.node.ID, "err", perr)
	}
	in.s.limitAlert(ctx, in.node, in.now, msg.New("A batch from %s was refused: %s", in.node.ID, el.e.Msg))
}

// limitAlert is the one alert an hour that a node passed a bound: the
// first claim of the hour's record (its incident id names the hour) is
// sent, every later one is the same record and sends nothing.
func (s *Service) limitAlert(ctx context.Context, n store.Node, now time.Time, why msg.Text) {
	if n.Released(now) {
		return
	}
	hour := now.Truncate(time.Hour)
	a := notify.Alert{Kind: notify.AlertLimits, Node: n.ID, Provider: n.Provider, IncidentID: "limits@" + hour.Format("20060102T15Z"),
		Since: now, Until: hour.Add(time.Hour)}
	a.Lang, a.Zone = s.chatLanguage(n)
	a.Detail = chantext.EvidenceText(a.Lang, a.Zone, msg.New("%s Until %s this node's alerts beyond %d an hour are held; its incidents are recorded all the same (GET /v1/incidents and gpusla export list them all).",
		why, msg.Time{Time: a.Until}, MaxAlertsPerHour))
	channels := s.alertChannels(n.Contract, a)
	eachChannel(ctx, channels, func(ctx context.Context, ch string) {
		s.claimAndSend(ctx, store.AlertRecord{Node: n.ID, IncidentID: a.IncidentID, Kind: a.Kind, Channel: ch, CreatedAt: now,
			LastAttemptAt: now, Attempts: 1, Alert: a})
	})
}

// holdAlert says whether the next alert of a batch is held: past the
// alerts left of the node's hour (effects.alertsLeft; only a batch's
// effects are limited, not what the watchdog raises).
func (fx *effects) holdAlert() bool {
	if !fx.limited {
		return false
	}
	if fx.alertsLeft == 0 {
		fx.held++
		return true
	}
	fx.alertsLeft--
	return false
}

// heldAlerts tells the team, once an hour, that a node's alerts are held.
func (s *Service) heldAlerts(ctx context.Context, n store.Node, fx effects) {
	if fx.held == 0 {
		return
	}
	s.limitAlert(ctx, n, s.Now(), msg.New("%s raised more than %d alerts this hour; %d were held.", n.ID, MaxAlertsPerHour, fx.held))
}
