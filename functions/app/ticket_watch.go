package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gpusla/gpusla/infra/notify"
	"github.com/gpusla/gpusla/infra/notify/chantext"
	"github.com/gpusla/gpusla/infra/store"
	"github.com/gpusla/gpusla/sla/terms"
	"github.com/gpusla/gpusla/sla/ticket"
)

// noticeRetryAfter: a notice claimed by a sender this recently is left to
// it (a send in flight), not sent twice.
const noticeRetryAfter = 30 * time.Second

// TicketWatchResult says what one ticket watch did.
type TicketWatchResult struct {
	Tickets  int // open tickets looked at
	Warnings int // warnings queued
	Breaches int // breaches queued
	Sent     int // notices delivered
}

// Watch is the ticket part of the watchdog: for every open ticket it
// queues a warning when a running target has used WarnFraction of its
// allowance and a breach notice once its deadline has passed (at the very
// instant: elapsed ≥ target), then sends what is queued. Running it twice
// queues nothing twice: notices are keyed per target.
func (d *TicketDesk) Watch(ctx context.Context) (TicketWatchResult, error) {
	var res TicketWatchResult
	list, err := d.store.ListTickets(ctx, true)
	if err != nil {
		return res, fmt.Errorf("ticket watch: %w", err)
	}
	var errs []error
	for _, t := range list {
		res.Tickets++
		w, b, err := d.watchOne(ctx, t)
		res.Warnings += w
		res.Breaches += b
		if err != nil {
			errs = append(errs, fmt.Errorf("ticket %s: %w", t.ID, err))
			continue
		}
		if w+b == 0 && !t.Unsent() && stillOpenAt(d, &t, d.svc.Now()) {
			continue // nothing to send: no read, no write (the every-minute steady state)
		}
		n, err := d.Flush(ctx, t.ID)
		res.Sent += n
		if err != nil {
			errs = append(errs, fmt.Errorf("ticket %s: %w", t.ID, err))
		}
	}
	return res, errors.Join(errs...)
}

// watchOne queues what is due on t (as listed; re-read only after a lost
// race), so a tick over open tickets with nothing due reads nothing more.
func (d *TicketDesk) watchOne(ctx context.Context, t store.Ticket) (warnings, breaches int, err error) {
	id := t.ID
	for attempt := 0; attempt < maxRetries; attempt++ {
		now := d.svc.Now()
		if attempt > 0 {
			if t, err = d.store.GetTicket(ctx, id); err != nil {
				return 0, 0, err
			}
		}
		tim, tm, err := d.Timing(&t, now)
		if err != nil {
			return 0, 0, err
		}
		prev := t.Version
		warnings, breaches = 0, 0
		for _, c := range []struct {
			name string
			c    *ticket.Clock
		}{{"response", tim.Response}, {"resolution", tim.Resolution}, {"replacement", tim.Replacement}} {
			if c.c == nil || !c.c.Done.IsZero() || c.c.Target <= 0 {
				continue
			}
			switch {
			case c.c.Status == ticket.Breached:
				if t.AddNotice(store.TicketNotice{Key: c.name + "/breached", Kind: store.NoticeBreached, Text: breachText(&t, c.name, c.c, tim, tm), CreatedAt: now}) {
					breaches++
				}
			case float64(c.c.Elapsed) >= WarnFraction*float64(c.c.Target):
				if t.Notice(c.name+"/breached") == nil &&
					t.AddNotice(store.TicketNotice{Key: c.name + "/warning", Kind: store.NoticeWarning, Text: warnText(&t, c.name, c.c, tm), CreatedAt: now}) {
					warnings++
				}
			}
		}
		open := stillOpen(&t, tim) || t.Unsent()
		if warnings+breaches == 0 && open == t.Open {
			return 0, 0, nil
		}
		t.Open, t.UpdatedAt = open, now
		err = d.store.UpdateTicket(ctx, t, prev)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return 0, 0, err
		}
		for _, n := range t.Notices[len(t.Notices)-warnings-breaches:] {
			d.log.Warn("ticket "+n.Kind, "ticket", t.ID, "node", t.Node, "notice", n.Key)
		}
		return warnings, breaches, nil
	}
	return 0, 0, errTooContended("ticket watch " + id)
}

// Flush sends a ticket's queued notices in order, the "opened" one first
// (its thread is where the others go). Each send is claimed with a versioned
// write first, so two flushes never send one notice twice; a failed send
// stays queued for the next watchdog run. It returns how many it sent.
func (d *TicketDesk) Flush(ctx context.Context, id string) (int, error) {
	sent := 0
	for {
		t, err := d.store.GetTicket(ctx, id)
		if err != nil {
			return sent, err
		}
		now := d.svc.Now()
		var next *store.TicketNotice
		for i := range t.Notices {
			n := &t.Notices[i]
			if n.SentAt.IsZero() {
				next = n
				break
			}
		}
		if next == nil {
			if t.Open && !stillOpenAt(d, &t, now) {
				// Last notice out and nothing running: close it.
				prev := t.Version
				t.Open, t.UpdatedAt = false, now
				if err := d.store.UpdateTicket(ctx, t, prev); err != nil && !errors.Is(err, store.ErrConflict) {
					return sent, err
				}
			}
			return sent, nil
		}
		if next.Attempts > 0 && now.Sub(next.LastAttemptAt) < noticeRetryAfter {
			return sent, nil // someone is sending it right now
		}
		// Claim.
		prev := t.Version
		next.Attempts++
		next.LastAttemptAt = now
		key := next.Key
		if err := d.store.UpdateTicket(ctx, t, prev); errors.Is(err, store.ErrConflict) {
			continue
		} else if err != nil {
			return sent, err
		}
		m := notify.TicketMessage{Kind: notify.TicketKind(next.Kind), Ticket: t.ID, Node: t.Node, Provider: t.Provider,
			Opened: t.Opened, Text: next.Text, Thread: t.Thread}
		if _, tm, err := d.Timing(&t, now); err == nil {
			m.Lang, m.Zone = contractWords(tm) // the text's own, so the robot shows one clock
		}
		var (
			mu      sync.Mutex
			okTo    []string
			thread  string
			sendErr []error
		)
		channels := slices.DeleteFunc(d.svc.ticketChannels(t.Contract, m), func(ch string) bool { return slices.Contains(next.SentTo, ch) })
		eachChannel(ctx, channels, func(ctx context.Context, ch string) {
			var th string
			nt, err := d.svc.notifierOf(ch)
			if err == nil {
				// Cut off before the claim may be taken again: a hung
				// channel neither holds the request (or tick) for good nor
				// gets the notice twice at once.
				actx, cancel := context.WithTimeout(ctx, noticeRetryAfter*3/4)
				th, err = nt.NotifyTicket(actx, m)
				cancel()
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				sendErr = append(sendErr, channelErr(ch, err))
				return
			}
			okTo = append(okTo, ch)
			if thread == "" {
				thread = th
			}
		})
		nerr := errors.Join(sendErr...)
		if err := d.markSent(ctx, id, key, thread, okTo, nerr); err != nil {
			return sent, err
		}
		if nerr != nil {
			d.log.Warn("ticket notice not delivered; the watchdog retries it", "ticket", id, "notice", key, "err", nerr)
			return sent, nil
		}
		sent++
	}
}

// channelErr names the channel of a failed send ("" is the one notifier).
// channelErr names the channel of a send's error, redacted a second time
// (the channels redact their own): it is logged and stored as the
// notice's last_error, which the tickets API answers.
func channelErr(ch string, err error) error {
	if ch == "" {
		return notify.Redact(err)
	}
	return notify.Redact(fmt.Errorf("channel %s: %w", ch, err))
}

func stillOpenAt(d *TicketDesk, t *store.Ticket, now time.Time) bool {
	tim, _, err := d.Timing(t, now)
	if err != nil {
		return true
	}
	return stillOpen(t, tim)
}

// markSent records a send: the named channels in okTo have the notice; with
// no error left it is sent.
func (d *TicketDesk) markSent(ctx context.Context, id, key, thread string, okTo []string, sendErr error) error {
	for attempt := 0; attempt < maxRetries; attempt++ {
		t, err := d.store.GetTicket(ctx, id)
		if err != nil {
			return err
		}
		n := t.Notice(key)
		if n == nil {
			return fmt.Errorf("notice %s vanished from ticket %s", key, id)
		}
		prev := t.Version
		for _, ch := range okTo {
			if ch != "" && !slices.Contains(n.SentTo, ch) {
				n.SentTo = append(n.SentTo, ch)
			}
		}
		if t.Thread == "" && thread != "" {
			t.Thread = thread
		}
		if sendErr != nil {
			n.LastErr = sendErr.Error()
			n.LastAttemptAt = time.Time{} // free for the next try
		} else {
			// Once sent, the text has done its job; the key stays (so the
			// notice is never queued again) and the item stays small, which
			// DynamoDB bills per KB on every later write of the ticket.
			n.SentAt, n.LastErr, n.Text, n.SentTo = d.svc.Now(), "", "", nil
		}
		err = d.store.UpdateTicket(ctx, t, prev)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		return err
	}
	return errTooContended("mark notice sent on " + id)
}

// ---- message texts (what people read in the ticket's thread): written
// in infra/notify/chantext, in the contract's language and on its clock.

// contractWords are the language and zone a contract's messages are
// written in (report.lang, timezone).
func contractWords(tm *terms.Terms) (lang, zone string) {
	lang, zone = tm.Paperwork.Lang, "UTC"
	if tm.Calendar != nil && tm.Calendar.Loc != nil {
		zone = tm.Calendar.Loc.String()
	}
	return lang, zone
}

func ticketFacts(t *store.Ticket, tm *terms.Terms) chantext.TicketFacts {
	return chantext.TicketFacts{ID: t.ID, Node: t.Node, Priority: t.Priority, ProviderRef: t.ProviderRef, Summary: t.Summary,
		Contract: tm.Contract, Opened: t.Opened, Recorded: t.CreatedAt, By: t.OpenedBy}
}

func openedText(t *store.Ticket, tim ticket.Timing, tm *terms.Terms) string {
	lang, zone := contractWords(tm)
	return chantext.TicketOpenedText(lang, zone, ticketFacts(t, tm), tim)
}

func recordedText(t *store.Ticket, e store.TicketEvent, tim ticket.Timing, tm *terms.Terms) string {
	lang, zone := contractWords(tm)
	return chantext.TicketRecordedText(lang, zone, ticketFacts(t, tm), chantext.TicketEvent{Type: e.Type, At: e.At, RecordedAt: e.RecordedAt,
		By: e.By, AwaitingCustomer: e.AwaitingCustomer, Paused: tm.Support.PauseAwaitingCustomer, Target: e.Target, Late: e.Late}, tim)
}

func warnText(t *store.Ticket, name string, c *ticket.Clock, tm *terms.Terms) string {
	lang, zone := contractWords(tm)
	return chantext.TicketWarningText(lang, zone, ticketFacts(t, tm), name, c)
}

func breachText(t *store.Ticket, name string, c *ticket.Clock, tim ticket.Timing, tm *terms.Terms) string {
	lang, zone := contractWords(tm)
	return chantext.TicketBreachedText(lang, zone, ticketFacts(t, tm), name, c, tim)
}
