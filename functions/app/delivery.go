package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gpusla/gpusla/functions/batchform"
	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/delivery"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// Delivery is watched, not only computed: the watchdog alerts once when a
// node's delivery target passes while it is not delivered, and ingest
// alerts once when a late delivery happens, with its lateness. Both judge
// with sla/delivery, the report's rule: the delivery instant under the
// contract's counts_until (the first heartbeat, or the first passing
// acceptance check) and delivery.Judge at the instant.

// DeliveryID is the incident id of a node's delivery alerts: one per order.
func DeliveryID(n store.Node) string {
	return notify.DeliveryKind + "@" + n.OrderedAt.UTC().Format("20060102T150405.000Z")
}

// deliveredAt is when the node was delivered under its contract's rule
// (zero: not yet, or no contract loaded).
func (s *Service) deliveredAt(n store.Node, st *store.NodeState) time.Time {
	tm, ok := s.contract(n)
	if !ok {
		return time.Time{}
	}
	return deliveryInstant(tm, n, st)
}

// deliveryInstant is the delivery instant under tm, never before the
// order: a probe heard before it (a node registered after its first
// heartbeats, a clock behind) is delivered at the order, as the monthly
// report reads it (sla/report).
func deliveryInstant(tm *terms.Terms, n store.Node, st *store.NodeState) time.Time {
	at := delivery.Instant(tm.Delivery, st.FirstHeartbeatAt, st.AcceptedAt)
	if !at.IsZero() && at.Before(n.OrderedAt) {
		return n.OrderedAt
	}
	return at
}

// NodeDelivery is a node's delivery as the live service judges it.
type NodeDelivery struct {
	CountsUntil string // the contract's delivery.counts_until
	DeliveredAt time.Time
	Verdict     delivery.Verdict
}

// Delivery judges n's delivery as of now under its contract (JudgeDelivery;
// false also when no contract is loaded).
func (s *Service) Delivery(n store.Node, st *store.NodeState, now time.Time) (NodeDelivery, bool) {
	tm, ok := s.contract(n)
	if !ok {
		return NodeDelivery{}, false
	}
	return JudgeDelivery(tm, n, st, now)
}

// JudgeDelivery judges n's delivery as of now under tm (the report's rule:
// the delivery instant under counts_until, delivery.Judge at it). ok is
// false when it cannot be judged: no order time, or under
// acceptance_passed a state that cannot tell "not accepted yet" from
// "accepted before acceptance was recorded" (a wrong verdict is worse
// than none). The status page, which has the terms but not the service,
// calls it too.
func JudgeDelivery(tm *terms.Terms, n store.Node, st *store.NodeState, now time.Time) (NodeDelivery, bool) {
	if !judgeable(tm, n, st) {
		return NodeDelivery{}, false
	}
	at := deliveryInstant(tm, n, st)
	return NodeDelivery{CountsUntil: string(tm.Delivery.CountsUntil), DeliveredAt: at,
		Verdict: delivery.Judge(tm.Delivery, n.OrderedAt, at, now)}, true
}

// judgeable says whether n's delivery can be judged under tm: always by
// the first heartbeat; by the acceptance check only when the state has
// recorded acceptance since its first batch, and an acceptance it holds
// was held to the registration (one recorded before that rule may be of
// cards never ordered: the report would not give it).
func judgeable(tm *terms.Terms, n store.Node, st *store.NodeState) bool {
	return !n.OrderedAt.IsZero() && (tm.Delivery.CountsUntil != terms.UntilAcceptancePassed ||
		st.AcceptanceKnown && (st.AcceptedAt.IsZero() || st.AcceptanceHeld))
}

// holdAcceptance judges again, once, an acceptance st recorded before it
// was held to the registration: the earliest passing acceptance result
// of the node's kept batches under today's rule (delivery.First, as the
// report reads the same batches), none if none passes. The batch of the
// first passing check was kept as delivery evidence, so a genuine one is
// found again; cards never ordered are not. Nothing to do for a state
// with no acceptance, which no rule could have made.
func (s *Service) holdAcceptance(ctx context.Context, n store.Node, st *store.NodeState, now time.Time) error {
	if st.AcceptanceHeld || st.AcceptedAt.IsZero() {
		st.AcceptanceHeld = true
		return nil
	}
	first := delivery.First{}
	first.SetOrder(delivery.Order{Model: n.GPUModel, GPUs: n.GPUCount, MemoryMiB: n.GPUMemoryMiB})
	var forms batchform.Decoder
	err := history(s.store).EachBatch(ctx, n.ID, time.Unix(0, 0), now.Add(time.Nanosecond), func(rec *store.BatchRecord) error {
		b, err := readStored(&forms, rec)
		if err != nil {
			return fmt.Errorf("stored batch %d: %w", rec.Seq, err)
		}
		for _, e := range ObservationEvents(&n, b, rec.Hash, rec.ReceivedAt) {
			if len(e.Checks) > 0 {
				first.Observe(e.TrueAt().UTC(), e.Checks)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("node %s: acceptance held to the registration: %w", n.ID, err)
	}
	if at := first.At(); !at.Equal(st.AcceptedAt) {
		s.log.Info("delivery: an acceptance recorded before it was held to the registration is judged again",
			"node", n.ID, "was", st.AcceptedAt, "now", at)
		st.AcceptedAt = at
	}
	st.AcceptanceHeld = true
	return nil
}

// watchesDelivery says whether the live service can judge the node's
// delivery (a contract loaded, judgeable).
func (s *Service) watchesDelivery(n store.Node, st *store.NodeState) bool {
	tm, ok := s.contract(n)
	return ok && judgeable(tm, n, st)
}

// deliveryOverdue judges a node not delivered at now: true once more than
// the contract's delivery target has passed since the order.
func (s *Service) deliveryOverdue(n store.Node, st *store.NodeState, now time.Time) (delivery.Verdict, bool) {
	tm, ok := s.contract(n)
	if !ok || n.Released(now) || !s.watchesDelivery(n, st) || !s.deliveredAt(n, st).IsZero() {
		return delivery.Verdict{}, false // a released node is no longer awaited
	}
	v := delivery.Judge(tm.Delivery, n.OrderedAt, time.Time{}, now)
	return v, v.Status == ticket.Breached
}

// alertDeliveryOverdue sends the overdue alert once (the claim dedupes it
// across ticks and backends); a look at the claim first keeps an overdue
// node from costing a write every minute.
func (s *Service) alertDeliveryOverdue(ctx context.Context, n store.Node, v delivery.Verdict) {
	tm, _ := s.contract(n)
	id := DeliveryID(n)
	a := notify.Alert{Kind: notify.AlertDeliveryOverdue, Node: n.ID, Provider: n.Provider, IncidentID: id,
		IncidentKind: notify.DeliveryKind, Since: n.OrderedAt, Until: v.Due, Duration: tm.Delivery.Within,
	}
	a.Lang, a.Zone = contractWords(tm)
	a.Detail = chantext.DeliveryOverdueText(a.Lang, a.Zone, n.OrderedAt, tm.Contract, delivery.What(tm.Delivery), tm.Delivery.Within, v.Due, v.Late)
	s.alertOnce(ctx, n, a)
}

// alertDelivered sends the late-delivery alert once, with the lateness,
// when the node was delivered after its target (an on-time delivery needs
// no alert).
func (s *Service) alertDelivered(ctx context.Context, n store.Node, delivered time.Time) {
	tm, ok := s.contract(n)
	if !ok || n.OrderedAt.IsZero() {
		return
	}
	v := delivery.Judge(tm.Delivery, n.OrderedAt, delivered, delivered)
	if v.Status != ticket.Breached {
		return
	}
	a := notify.Alert{Kind: notify.AlertDelivered, Node: n.ID, Provider: n.Provider, IncidentID: DeliveryID(n),
		IncidentKind: notify.DeliveryKind, Since: n.OrderedAt, Until: delivered, Duration: v.Late,
	}
	a.Lang, a.Zone = contractWords(tm)
	a.Detail = chantext.DeliveredText(a.Lang, a.Zone, delivered, delivery.What(tm.Delivery), v.Took, tm.Contract, tm.Delivery.Within, v.Late)
	s.alertOnce(ctx, n, a)
}

// alertOnce claims and sends a (non-incident) alert unless it was claimed
// already, on each channel that routes it.
func (s *Service) alertOnce(ctx context.Context, n store.Node, a notify.Alert) {
	channels := s.alertChannels(n.Contract, a)
	if len(channels) == 0 {
		s.log.Info("no alert channel routes this alert", "node", n.ID, "incident", a.IncidentID, "kind", a.Kind)
		return
	}
	now := s.Now()
	eachChannel(ctx, channels, func(ctx context.Context, ch string) {
		if _, err := s.store.GetAlert(ctx, n.ID, a.IncidentID, a.Kind, ch); err == nil {
			return // told already
		} else if !errors.Is(err, store.ErrNotFound) {
			s.log.Error("look up alert", "node", n.ID, "incident", a.IncidentID, "kind", a.Kind, "channel", ch, "err", err)
			return
		}
		s.claimAndSend(ctx, store.AlertRecord{Node: n.ID, IncidentID: a.IncidentID, Kind: a.Kind, Channel: ch, CreatedAt: now,
			LastAttemptAt: now, Attempts: 1, Alert: a})
	})
}
